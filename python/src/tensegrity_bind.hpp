// Shared by the tensegrity binding files (tensegrity.cpp: model, builders, dynamics, Lagrange,
// studies; tensegrity_sim.cpp: step, simulate, controllers).
#pragma once
#include <pybind11/pybind11.h>

#include <tendyn/tensegrity/integrate.hpp>

#include <string>

namespace tendyn::python {

/// An integrator given by name ("rk4", "dopri5", "lie-verlet": tendyn.Error listing the names on
/// an unknown one) or as an Integrator; TypeError otherwise.
inline tensegrity::Integrator integrator_arg(pybind11::handle v) {
  if (pybind11::isinstance<pybind11::str>(v)) return tensegrity::integrator_from_string(v.cast<std::string>());
  try {
    return v.cast<tensegrity::Integrator>();
  } catch (const pybind11::cast_error&) {
    throw pybind11::type_error("integrator: expected 'rk4', 'dopri5', 'lie-verlet' or a tendyn.tensegrity.Integrator, got " +
                               pybind11::repr(v).cast<std::string>());
  }
}

/// Binds StepOptions, StepResult, step, MonitorReport, SimulationSummary, simulate, summary_json,
/// node_positions (tensegrity_sim.cpp). Needs Model, State, Data, SimulationOptions bound first.
void bind_tensegrity_sim(pybind11::module_& m);

}  // namespace tendyn::python
