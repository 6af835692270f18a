// tendyn.tensegrity: output_estimate.hpp (what `tendyn simulate` / `tendyn plan` would write and hold).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/output_estimate.hpp>

#include "tensegrity/expose.hpp"

namespace py = pybind11;

namespace tendyn::python::tensegrity_bind {

void expose_output_estimate(py::module_& m) {
  py::class_<OutputEstimate>(m, "OutputEstimate", "Estimated files [bytes] and memory [bytes] of a run (upper bounds), with words.")
      .def_readonly("output_bytes", &OutputEstimate::output_bytes, "files written by the run [bytes]")
      .def_readonly("memory_bytes", &OutputEstimate::memory_bytes, "data recorded in memory [bytes]")
      .def_readonly("output_what", &OutputEstimate::output_what, "the output estimate in words")
      .def_readonly("memory_what", &OutputEstimate::memory_what, "the memory estimate in words");
  m.def("estimate_simulate_output", &estimate_simulate_output, py::arg("model"), py::arg("options"), py::arg("frame_interval_s"),
        py::arg("files") = true, "What `tendyn simulate` would write (results.csv, scene.json) and hold (viewer frames).");
  m.def("estimate_plan_output", &estimate_plan_output, py::arg("model"), py::arg("options"), py::arg("replay"), py::arg("frame_interval_s"),
        "What `tendyn plan` would write (schedule.csv, planned.yaml, scene.json) and hold.");
}

}  // namespace tendyn::python::tensegrity_bind
