// Bindings of include/tendyn/tree/model_io.hpp: YAML and URDF models (read, write).
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tree/model_io.hpp>

#include "tree/expose.hpp"

namespace tendyn::python::tree_bind {

void expose_model_io(py::module_& m) {
  m.def("load_model", &load_model, py::arg("path"), py::arg("mode") = BaseMode::kAsWritten, "Load a YAML or URDF model (by extension).");
  m.def("load_model_yaml", &load_model_yaml, py::arg("file"), py::arg("mode") = BaseMode::kAsWritten, "Load a tendyn tree YAML file.");
  m.def("model_from_yaml_string", &model_from_yaml_string, py::arg("text"), py::arg("name"), py::arg("mode") = BaseMode::kAsWritten,
        "Parse a tree YAML model from a string (`name` appears in error messages).");
  m.def("load_urdf", &load_urdf, py::arg("file"), py::arg("mode") = BaseMode::kAsWritten, "Load a URDF file.");
  m.def("urdf_from_string", &urdf_from_string, py::arg("text"), py::arg("name"), py::arg("mode") = BaseMode::kAsWritten,
        "Parse URDF text (`name` appears in error messages).");
  m.def("to_urdf", &to_urdf, py::arg("model"), "The model as URDF text.");
}

}  // namespace tendyn::python::tree_bind
