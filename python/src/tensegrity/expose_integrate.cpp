// Bindings of include/tendyn/tensegrity/integrate.hpp: the Integrator enum, its parser and the
// Dormand-Prince Tolerance.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/integrate.hpp>

#include "tensegrity/expose.hpp"

namespace tendyn::python::tensegrity_bind {

void expose_integrate(py::module_& m) {
  py::enum_<Integrator>(m, "Integrator", "Time integrator (functions also take the names 'rk4', 'dopri5', 'lie-verlet').")
      .value("kRK4", Integrator::kRK4)
      .value("kDormandPrince45", Integrator::kDormandPrince45)
      .value("kLieVerlet", Integrator::kLieVerlet);
  m.def("integrator_from_string", &integrator_from_string, py::arg("name"), "'rk4', 'dopri5' or 'lie-verlet' -> Integrator.");
  m.def("to_string", py::overload_cast<Integrator>(&to_string), py::arg("integrator"), "'rk4', 'dopri5' or 'lie-verlet'.");

  py::class_<Tolerance> tol(m, "Tolerance", "Dormand-Prince error control: per component atol + rtol |x|.");
  tol.def_readwrite("rtol", &Tolerance::rtol, "relative tolerance (dimensionless)")
      .def_readwrite("atol", &Tolerance::atol, "absolute tolerance (units of the state entries: m, 1, m/s, rad/s)")
      .def_readwrite("h_min_s", &Tolerance::h_min_s, "smallest step before the run fails [s]")
      .def_readwrite("h_max_s", &Tolerance::h_max_s, "largest step [s]");
  def_kw_init(tol);
}

}  // namespace tendyn::python::tensegrity_bind
