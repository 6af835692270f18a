// tendyn._tendyn: the extension module. One binding file per public header, as
// python/src/<module>/expose_<header>.cpp with one expose_<header>(submodule) function each
// (declared in python/src/<module>/expose.hpp). This file creates the submodules,
// translates the C++ errors and calls the expose functions, in an order where every type is bound
// before a signature names it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include <tendyn/core/error.hpp>
#include <tendyn/version.hpp>

#include "tensegrity/expose.hpp"
#include "viz/expose.hpp"
#ifdef TENDYN_WITH_CDPR
#include "cdpr/expose.hpp"
#endif
#ifdef TENDYN_WITH_TREE
#include "tree/expose.hpp"
#endif

namespace py = pybind11;

namespace {
// The Python exception classes; created once in the module init and kept for the process lifetime.
py::handle g_error, g_sim_error;
}  // namespace

PYBIND11_MODULE(_tendyn, m) {
  m.doc() =
      "tendyn: rod-and-cable robots (tensegrity, cable-driven parallel, tree-structured). "
      "Thin bindings of the C++ library; names as in C++ (namespace tendyn::X -> tendyn.X).";

  // tendyn::Error (bad input) -> tendyn.Error (a ValueError); tendyn::SimulationError ->
  // tendyn.SimulationError (a tendyn.Error and a RuntimeError) with the attribute `time`.
  // The class objects live as long as the module (intentionally never released).
  py::handle error =
      PyErr_NewExceptionWithDoc("tendyn.Error", "Bad input (tendyn::Error): the message names the file:line:col and field, or the element.",
                                PyExc_ValueError, nullptr);
  py::tuple sim_bases = py::make_tuple(error, py::handle(PyExc_RuntimeError));
  py::handle sim_error = PyErr_NewExceptionWithDoc(
      "tendyn.SimulationError", "A run failed (tendyn::SimulationError): blow-up or limit violation; `time` is the simulated time [s].",
      sim_bases.ptr(), nullptr);
  g_error = error;
  g_sim_error = sim_error;
  m.attr("Error") = error;
  m.attr("SimulationError") = sim_error;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tendyn::SimulationError& e) {
      py::object exc = py::reinterpret_borrow<py::object>(g_sim_error)(e.what());
      exc.attr("time") = e.time();
      PyErr_SetObject(g_sim_error.ptr(), exc.ptr());
    } catch (const tendyn::Error& e) {
      PyErr_SetString(g_error.ptr(), e.what());
    }
  });

  m.attr("__version__") = std::string(tendyn::kVersion);

  // Initialise pybind11's NumPy API table now, under the import lock. Done lazily at the first
  // array conversion it is a function-local static whose initialiser imports NumPy (releasing the
  // GIL): two threads converting their first results at once then deadlock.
  py::module_::import("numpy");
  (void)py::array_t<double>(0);

  py::module_ tensegrity = m.def_submodule("tensegrity", "Tensegrity robots: rods + cables (tendyn::tensegrity).");
  {
    namespace t = tendyn::python::tensegrity_bind;
    t::expose_model(tensegrity);
    t::expose_builders(tensegrity);
    t::expose_integrate(tensegrity);
    t::expose_dynamics(tensegrity);
    t::expose_simulate(tensegrity);
    t::expose_output(tensegrity);
    t::expose_model_io(tensegrity);
    t::expose_lagrange(tensegrity);
    t::expose_psi_study(tensegrity);
    t::expose_planner(tensegrity);
    t::expose_sweep(tensegrity);
    t::expose_output_estimate(tensegrity);
    t::expose_form_finding(tensegrity);
    t::expose_batch(tensegrity);
    t::expose_identify(tensegrity);
    t::expose_derivatives(tensegrity);
  }
  py::module_ viz =
      m.def_submodule("viz", "Viewer: the live view's client (tendyn::viz; tendyn.viewer builds on it) and the viewer page (ScenePage).");
  tendyn::python::viz_bind::expose_live(viz);
  tendyn::python::viz_bind::expose_page(viz);
#ifdef TENDYN_WITH_CDPR
  py::module_ cdpr = m.def_submodule(
      "cdpr", "Cable-driven parallel robots: geometry, tension solvers, dynamics and the printer experiment (tendyn::cdpr).");
  {
    namespace c = tendyn::python::cdpr_bind;
    c::expose_geometry(cdpr);
    c::expose_model_io(cdpr);
    c::expose_tension(cdpr);
    c::expose_tension_problem(cdpr);
    c::expose_interference(cdpr);
    c::expose_dynamics(cdpr);
    c::expose_control(cdpr);
    c::expose_experiment(cdpr);
    c::expose_identify(cdpr);
    c::expose_workspace(cdpr);
    c::expose_design(cdpr);
  }
#endif
#ifdef TENDYN_WITH_TREE
  py::module_ tree = m.def_submodule("tree", "Tree-structured robots: RNEA / CRBA / ABA and block-matrix EoM (tendyn::tree).");
  {
    namespace t = tendyn::python::tree_bind;
    t::expose_model(tree);
    t::expose_model_io(tree);
    t::expose_data(tree);
    t::expose_algorithms(tree);
    t::expose_block(tree);
    t::expose_simulate(tree);
    t::expose_identify(tree);
  }
#endif
}
