// The tensegrity binding files, one per public header include/tendyn/tensegrity/<header>.hpp
// (python/src/tensegrity/expose_<header>.cpp). module.cpp calls them in this order, each after
// the ones whose types its signatures name (Model and State first, Data before simulate,
// SimulationOptions before model files and the studies). The helpers of bind_util.hpp
// (tendyn::python) and the names of tendyn::tensegrity are visible in this namespace.
#pragma once
#include <pybind11/pybind11.h>

#include "bind_util.hpp"

namespace tendyn::tensegrity {}  // declared by the public headers each binding file includes

namespace tendyn::python::tensegrity_bind {

using namespace tendyn::tensegrity;  // the binding files name the bound types as C++ does

void expose_model(pybind11::module_& m);      // model.hpp: DampingLaw, Rod, Node, Cable, drives, State, Ground, Model
void expose_builders(pybind11::module_& m);   // builders.hpp: PrismParams, OctahedronParams, make_*
void expose_integrate(pybind11::module_& m);  // integrate.hpp: Integrator, Tolerance
void expose_dynamics(pybind11::module_& m);   // dynamics.hpp: Energy, Data, the pipeline, energies, momenta
void expose_simulate(pybind11::module_& m);   // simulate.hpp: SimulationOptions, step, simulate, summaries
void expose_output(pybind11::module_& m);     // output.hpp: summary_json
void expose_model_io(pybind11::module_& m);   // model_io.hpp: ModelFile, load_*, default_model, to_yaml
void expose_lagrange(pybind11::module_& m);   // lagrange.hpp: the Lagrange formulation
void expose_psi_study(pybind11::module_& m);  // psi_study.hpp: the psi study
void expose_planner(pybind11::module_& m);    // planner.hpp: PlanPath, PlannerOptions, PlanResult, plan, planning policies
void expose_sweep(pybind11::module_& m);      // sweep.hpp: sweep specs, grid, point metrics, run_sweep
void expose_output_estimate(pybind11::module_& m);  // output_estimate.hpp: OutputEstimate, estimate_*_output
void expose_form_finding(pybind11::module_& m);     // form_finding.hpp: find_equilibrium, settle_on_ground
void expose_batch(pybind11::module_& m);            // batch.hpp: Batch, make_batch, set_state, set_rest_lengths, step_batch
void expose_identify(pybind11::module_& m);         // identify.hpp: MotionData, fit specs, IdentifyOptions/Result, identify

}  // namespace tendyn::python::tensegrity_bind
