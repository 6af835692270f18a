// Bindings of include/tendyn/tensegrity/model_io.hpp: YAML model files (read, write, the default).
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/mjcf_import.hpp>
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
        return "ModelFile(model=" + py::repr(py::cast(f.model)).cast<std::string>() +
               ", simulation=" + py::repr(py::cast(f.simulation)).cast<std::string>() + ")";
      });
  m.def("load_model_file", &load_model_file, py::arg("path"),
        "Read a YAML model file (or MuJoCo MJCF when the path ends in .xml); raises tendyn.Error with file:line:col on bad input.");
  m.def("load_model", &load_model_file, py::arg("path"),
        "Read a model file by its extension: MuJoCo MJCF (.xml) or YAML (anything else). Same as load_model_file.");
  m.def(
      "load_mjcf_file",
      [](const std::string& path, bool ignore_actuators) {
        MjcfImportOptions o;
        o.ignore_actuators = ignore_actuators;
        return load_mjcf_file(path, o);
      },
      py::arg("path"), py::arg("ignore_actuators") = false,
      "Read a MuJoCo MJCF file (docs/MODEL_FORMAT.md, 'MJCF import'); tendon actuators become force actuators (others "
      "are an error), every actuator is skipped with ignore_actuators.");
  m.def(
      "import_mjcf",
      [](const std::string& path, bool ignore_actuators) {
        MjcfImportOptions o;
        o.ignore_actuators = ignore_actuators;
        MjcfImportReport r;
        ModelFile f = load_mjcf_file(path, o, &r);
        return py::make_tuple(f, r.mapped, r.skipped);
      },
      py::arg("path"), py::arg("ignore_actuators") = false, "load_mjcf_file plus the report: (ModelFile, mapped lines, skipped lines).");
  m.def("load_model_string", &load_model_string, py::arg("text"), py::arg("name") = "<string>", "Read a YAML model from a string.");
  m.def("default_model", &default_model, "Document 000's built-in 3-prism with its simulation options.");
  m.def(
      "to_yaml", [](const Model& mo, const std::optional<SimulationOptions>& so) { return to_yaml(mo, so ? &*so : nullptr); },
      py::arg("model"), py::arg("simulation") = py::none(), "The model (and options) as a YAML model file.");
}

}  // namespace tendyn::python::tensegrity_bind
