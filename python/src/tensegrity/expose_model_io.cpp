// Bindings of include/tendyn/tensegrity/model_io.hpp: YAML model files (read, write, the default).
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/model_io.hpp>

#include "tensegrity/expose.hpp"

#include <optional>
#include <string>

namespace tendyn::python::tensegrity_bind {

void expose_model_io(py::module_& m) {
  py::class_<ModelFile>(m, "ModelFile", "A model and the simulation options of its file.")
      .def_readwrite("model", &ModelFile::model, "the Model")
      .def_readwrite("simulation", &ModelFile::simulation, "SimulationOptions of the file's simulation section (defaults elsewhere)")
      .def("__repr__", [](const ModelFile& f) {
        return "ModelFile(model=" + py::repr(py::cast(f.model)).cast<std::string>() + ", simulation=" +
               py::repr(py::cast(f.simulation)).cast<std::string>() + ")";
      });
  m.def("load_model_file", &load_model_file, py::arg("path"),
        "Read a YAML model file; raises tendyn.Error with file:line:col and field on bad input.");
  m.def("load_model_string", &load_model_string, py::arg("text"), py::arg("name") = "<string>", "Read a YAML model from a string.");
  m.def("default_model", &default_model, "Document 000's built-in 3-prism with its simulation options.");
  m.def("to_yaml", [](const Model& mo, const std::optional<SimulationOptions>& so) {
          return to_yaml(mo, so ? &*so : nullptr);
        }, py::arg("model"), py::arg("simulation") = py::none(), "The model (and options) as a YAML model file.");
}

}  // namespace tendyn::python::tensegrity_bind
