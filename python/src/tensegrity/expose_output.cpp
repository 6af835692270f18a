// Bindings of include/tendyn/tensegrity/output.hpp: the CLI's summary.json text of a run.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/output.hpp>

#include "tensegrity/expose.hpp"

namespace tendyn::python::tensegrity_bind {

void expose_output(py::module_& m) {
  m.def("summary_json", &summary_json, py::arg("model"), py::arg("options"), py::arg("summary"), "The CLI's summary.json text for a run.");
}

}  // namespace tendyn::python::tensegrity_bind
