// The CDPR binding files, one per public header include/tendyn/cdpr/<header>.hpp
// (python/src/cdpr/expose_<header>.cpp), called by module.cpp in this order (each after the ones
// whose types its signatures name). Every field's docstring gives its unit; option structs take
// keyword constructors (SolverOptions(f_min_N=1)) and print as Name(field=value, ...) (the fields
// off their defaults). The helpers of bind_util.hpp (tendyn::python) and the names of
// tendyn::cdpr are visible in this namespace.
#pragma once
#include <pybind11/pybind11.h>

#include "bind_util.hpp"

namespace tendyn::cdpr {}  // namespace tendyn::cdpr

namespace tendyn::python::cdpr_bind {

using namespace tendyn::cdpr;  // the binding files name the bound types as C++ does

void expose_geometry(pybind11::module_& m);         // geometry.hpp: Motion, WrenchRow, Model, Pose, Data, J, gravity wrench
void expose_model_io(pybind11::module_& m);         // model_io.hpp: ModelFile, load_model, parse_model
void expose_tension(pybind11::module_& m);          // tension.hpp: Method, Status, SolverOptions, TensionResult, solve_tensions
void expose_tension_problem(pybind11::module_& m);  // tension_problem.hpp: TensionProblem, PoseTrajectory, trajectories
void expose_interference(pybind11::module_& m);     // interference.hpp: segment distances, shapes, interference_free
void expose_dynamics(pybind11::module_& m);         // dynamics.hpp: DynamicModel, make_printer_dynamics
void expose_control(pybind11::module_& m);          // control.hpp: LowerProfile, ControllerConfig, SensorConfig
void expose_experiment(pybind11::module_& m);       // experiment.hpp: StageStart, ExperimentConfig, stages, pretension sweep
void expose_identify(pybind11::module_& m);         // identify.hpp: PlatformLog, cable and platform fits, identify
void expose_workspace(pybind11::module_& m);        // workspace.hpp: workspace, workspace_rays, workspace_poses
void expose_design(pybind11::module_& m);           // design.hpp: DesignOptions, design_score, optimise_anchors

}  // namespace tendyn::python::cdpr_bind
