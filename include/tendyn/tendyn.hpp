// Every public header of tendyn in one include, for programs that would rather not pick headers:
//
//   #include <tendyn/tendyn.hpp>
//
//   tendyn::tensegrity::Model model = tendyn::tensegrity::build_prism(tendyn::tensegrity::PrismParams{});
//   tendyn::tensegrity::State x = tendyn::tensegrity::initial_state(model);
//   ... (examples/consumer/umbrella.cpp steps the default 3-prism with only this header)
//
// The core, io, tensegrity and viz modules are always part of the library; the cable-driven
// parallel robot (cdpr) and tree-robot (tree) headers are included when the library was built with
// them: the CMake target tendyn::tendyn then defines TENDYN_WITH_CDPR / TENDYN_WITH_TREE for its
// users (a program compiled without the target's definitions gets the always-built modules only).
// Including a module's own headers instead compiles faster; the API is the same.
#pragma once

#include <tendyn/version.hpp>

#include <tendyn/core/differentiate.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/integrate.hpp>
#include <tendyn/core/parallel.hpp>
#include <tendyn/core/rotation.hpp>
#include <tendyn/core/worker_pool.hpp>

#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/markup.hpp>
#include <tendyn/io/output_estimate.hpp>
#include <tendyn/io/output_lock.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/io/signal_cleanup.hpp>

#include <tendyn/tensegrity/batch.hpp>
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/contact.hpp>
#ifdef TENDYN_WITH_IDENTIFY
#include <tendyn/tensegrity/derivatives.hpp>
#endif
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/form_finding.hpp>
#ifdef TENDYN_WITH_IDENTIFY
#include <tendyn/tensegrity/identify.hpp>
#endif
#include <tendyn/tensegrity/integrate.hpp>
#include <tendyn/tensegrity/lagrange.hpp>
#include <tendyn/tensegrity/mjcf.hpp>
#include <tendyn/tensegrity/mjcf_import.hpp>
#include <tendyn/tensegrity/model.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/output.hpp>
#include <tendyn/tensegrity/output_estimate.hpp>
#include <tendyn/tensegrity/plan_study.hpp>
#include <tendyn/tensegrity/planner.hpp>
#include <tendyn/tensegrity/psi_study.hpp>
#include <tendyn/tensegrity/simulate.hpp>
#include <tendyn/tensegrity/sweep.hpp>

#include <tendyn/viz/live.hpp>
#include <tendyn/viz/plan_scene.hpp>
#include <tendyn/viz/scene.hpp>
#include <tendyn/viz/studio.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#ifdef TENDYN_WITH_CDPR
#include <tendyn/cdpr/control.hpp>
#include <tendyn/cdpr/design.hpp>
#include <tendyn/cdpr/dynamics.hpp>
#include <tendyn/cdpr/experiment.hpp>
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/identify.hpp>
#include <tendyn/cdpr/interference.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/study.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/cdpr/tension_problem.hpp>
#include <tendyn/cdpr/workspace.hpp>
#include <tendyn/viz/cdpr_scene.hpp>
#endif

#ifdef TENDYN_WITH_TREE
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/block.hpp>
#include <tendyn/tree/data.hpp>
#include <tendyn/tree/identify.hpp>
#include <tendyn/tree/model.hpp>
#include <tendyn/tree/model_io.hpp>
#include <tendyn/tree/simulate.hpp>
#include <tendyn/viz/tree_scene.hpp>
#endif
