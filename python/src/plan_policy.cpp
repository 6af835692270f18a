// tendyn.tensegrity: the planner's centroid, the planning policies shared with `tendyn plan` and
// the studio (tensegrity/planner.hpp), the schedule CSV and the output estimates
// (tensegrity/output_estimate.hpp). Registered from module.cpp into the tensegrity submodule,
// after Model, State, SimulationOptions, PlannerOptions and PlanResult are bound.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/output_estimate.hpp>
#include <tendyn/tensegrity/planner.hpp>

#include <string>

namespace py = pybind11;

void bind_plan_policy(py::module_& m) {
  using namespace tendyn::tensegrity;
  m.def("plan_centroid_m", &plan_centroid_m, py::arg("model"), py::arg("state"),
        "The point the planner steers: mean over the rods of the (x, y) of each rod's centre of mass [m] "
        "(PlanResult.centroid_m). tendyn.Error when the model has no rods or the state does not fit it.");
  m.def("cable_indices", &cable_indices, py::arg("model"), py::arg("ids"), py::arg("where") = std::string("drive_cables"),
        "Indices of the cables named `ids`, in order; tendyn.Error '<where>: no cable ...' or '... listed twice'.");
  m.def("remove_drives_on", &remove_drives_on, py::arg("model"), py::arg("cables"),
        "Planning policy: removes (in place) the model's drives on the planned cables (indices); returns how many. "
        "plan() refuses a model whose drives act on a planned cable.");
  m.def("rollout_options", &rollout_options, py::arg("model"), py::arg("simulation"),
        "Planning policy: the SimulationOptions for the rollouts and the replay: dopri5 on the impulse ground "
        "becomes rk4 at the same dt_s; otherwise a copy.");
  m.def("plan_nperiod", &plan_nperiod, py::arg("options"), "Control periods of a plan: max(1, round(duration_s / period_s)).");
  m.def("plan_schedule_csv", &plan_schedule_csv, py::arg("model"), py::arg("drive_cables"), py::arg("result"),
        "The executed schedule as CSV text (schedule.csv of `tendyn plan`).");
  py::class_<OutputEstimate>(m, "OutputEstimate", "Estimated files [bytes] and memory [bytes] of a run (upper bounds), with words.")
      .def_readonly("output_bytes", &OutputEstimate::output_bytes, "files written by the run [bytes]")
      .def_readonly("memory_bytes", &OutputEstimate::memory_bytes, "data recorded in memory [bytes]")
      .def_readonly("output_what", &OutputEstimate::output_what, "the output estimate in words")
      .def_readonly("memory_what", &OutputEstimate::memory_what, "the memory estimate in words");
  m.def("estimate_simulate_output", &estimate_simulate_output, py::arg("model"), py::arg("options"), py::arg("frame_interval_s"),
        py::arg("files") = true, "What `tendyn simulate` would write (results.csv, scene.json) and hold (viewer frames).");
  m.def("estimate_plan_output", &estimate_plan_output, py::arg("model"), py::arg("options"), py::arg("replay"),
        py::arg("frame_interval_s"), "What `tendyn plan` would write (schedule.csv, planned.yaml, scene.json) and hold.");
}
