// Bindings of include/tendyn/cdpr/model_io.hpp: ModelFile, load_model, parse_model.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/model_io.hpp>

#include "cdpr/expose.hpp"

#include <string>
#include <vector>

namespace tendyn::python::cdpr_bind {

namespace py = pybind11;

void expose_model_io(py::module_& m) {
  py::class_<ModelFile>(m, "ModelFile", "A model file: model, default pose (may be empty), source citation.")
      .def_readonly("model", &ModelFile::model, "the Model")
      .def_readonly("default_pose", &ModelFile::default_pose,
                    "pose vector of the file ((x, y, z [m], roll, pitch, yaw [rad]) or planar (x, y [m], phi [rad])); empty if none")
      .def_readonly("source", &ModelFile::source, "citation text (may be empty)")
      .def("__repr__", [](const ModelFile& f) {
        return "ModelFile(model=" + py::repr(py::cast(f.model)).cast<std::string>() +
               ", default_pose=" + py::repr(py::cast(f.default_pose)).cast<std::string>() + ")";
      });
  m.def("load_model", &load_model, py::arg("file"), "Read a CDPR YAML model file (tendyn.Error on bad input).");
  m.def("parse_model", &parse_model, py::arg("text"), py::arg("name"), "Read a CDPR YAML model from a string.");
}

}  // namespace tendyn::python::cdpr_bind
