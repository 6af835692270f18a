// Bindings of include/tendyn/cdpr/dynamics.hpp: DynamicModel, make_printer_dynamics (the printer dynamics the experiment runs).
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/dynamics.hpp>

#include "cdpr/expose.hpp"

#include <string>
#include <vector>

namespace tendyn::python::cdpr_bind {

namespace py = pybind11;

void expose_dynamics(py::module_& m) {
  py::class_<DynamicModel>(m, "DynamicModel", "CDPR dynamics model (platform, cable elasticity, winches, carriages).")
      .def("ncable", &DynamicModel::ncable, "Number of cables n.")
      .def_readonly("geometry", &DynamicModel::geometry, "The geometric model");
  m.def("make_printer_dynamics", &make_printer_dynamics, py::arg("geometry"), py::arg("load_mass_kg") = 50.0,
        "Document 002's printer dynamics from a geometry (printer8.yaml) and an extruder load [kg].");
}

}  // namespace tendyn::python::cdpr_bind
