// Bindings of include/tendyn/tensegrity/planner.hpp: path, options, result, plan() (GIL released),
// the planner's centroid and the planning policies shared with `tendyn plan` and the studio.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/planner.hpp>

#include "tensegrity/expose.hpp"

#include <string>

namespace tendyn::python::tensegrity_bind {

void expose_planner(py::module_& m) {
  py::class_<PlanPath> path(m, "PlanPath", "Polyline on the floor [m] the planner follows.");
  path.def_property("points", copy_of(&PlanPath::points), assign_to(&PlanPath::points),
                    "list of (2) points (x, y) [m], >= 2 (a copy: assign a new list to change)")
      .def_static("straight_x", &PlanPath::straight_x, "Document 001 (3-3): along +x.")
      .def_static("right_angle", &PlanPath::right_angle, py::arg("x_turn_m") = 0.01,
                  "Document 001 (3-4)/(3-5): +x, then +y at x_turn_m [m].");
  def_kw_init(path);
  py::enum_<Planner>(m, "Planner", "Planner algorithm.")
      .value("kExhaustive", Planner::kExhaustive)
      .value("kCoordinateSearch", Planner::kCoordinateSearch)
      .value("kLookahead", Planner::kLookahead)
      .value("kScreened", Planner::kScreened);
  m.def("planner_from_string", &planner_from_string, py::arg("name"),
        "'exhaustive', 'coordinate' or 'lookahead' -> Planner (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<Planner>(&to_string), py::arg("planner"), "'exhaustive', 'coordinate' or 'lookahead'.");
  py::enum_<IncrementShape>(m, "IncrementShape",
                            "Shape of a drive cable's increment within a control period (document 001 leaves it open).")
      .value("kRamp", IncrementShape::kRamp, "linear over ramp_fraction of the period, then held (default)")
      .value("kStep", IncrementShape::kStep, "the whole increment at the start of the period");
  m.def("increment_shape_from_string", &increment_shape_from_string, py::arg("name"),
        "'ramp' or 'step' -> IncrementShape (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<IncrementShape>(&to_string), py::arg("increment"), "'ramp' or 'step'.");
  py::class_<PlannerOptions> po(m, "PlannerOptions", "Options of plan(): drive cables, increment u0, period, duration, path.");
  po.def_readwrite("drive_cables", &PlannerOptions::drive_cables, "cable indices the planner drives")
      .def_readwrite("u0_m", &PlannerOptions::u0_m, "rest-length increment per period [m]")
      .def_readwrite("period_s", &PlannerOptions::period_s, "control period dt [s]")
      .def_readwrite("duration_s", &PlannerOptions::duration_s, "planned time [s]")
      .def_readwrite("path", &PlannerOptions::path, "PlanPath to follow")
      .def_readwrite("planner", &PlannerOptions::planner, "Planner algorithm")
      .def_readwrite("max_rounds", &PlannerOptions::max_rounds,
                     "coordinate search: rounds per period; screened: linearisation rounds per period")
      .def_readwrite("beam_width", &PlannerOptions::beam_width, "lookahead: candidates expanded into a second period")
      .def_readwrite("screen_count", &PlannerOptions::screen_count,
                     "screened: candidates rolled out per linearisation round after the single-cable screening (>= 1)")
      .def_readwrite("lateral_weight", &PlannerOptions::lateral_weight, "lookahead: w in the path metric w d - s (dimensionless)")
      .def_readwrite("lateral_tolerance_m", &PlannerOptions::lateral_tolerance_m,
                     "lookahead: distance from the path beyond which it is penalised [m]")
      .def_readwrite("increment", &PlannerOptions::increment, "IncrementShape: ramp (default) or step (document 001: open)")
      .def_readwrite("ramp_fraction", &PlannerOptions::ramp_fraction,
                     "kRamp: the increment ramps over this fraction of the period, then holds (dimensionless, (0, 1]; 1 with kStep)")
      .def_readwrite("threshold_start_m", &PlannerOptions::threshold_start_m, "exhaustive: initial cost threshold n_0 [m]")
      .def_readwrite("rollout", &PlannerOptions::rollout, "SimulationOptions of every rollout (its duration is set per period)")
      .def_readwrite("threads", &PlannerOptions::threads, "worker threads (0 = all cores); results do not depend on it");
  def_kw_init(po);
  py::class_<PlanResult>(m, "PlanResult", "Plan: knot times, drive offsets, centroids, costs and statistics.")
      .def_readonly("period_start_s", &PlanResult::period_start_s, "(nperiod + 1) knot times [s]")
      .def_readonly("offset_m", &PlanResult::offset_m, "(nperiod + 1) drive offsets u at the knots [m]")
      .def_readonly("centroid_m", &PlanResult::centroid_m, "(nperiod + 1) centroid (Cx, Cy) at the knots [m]")
      .def_readonly("cost_m", &PlanResult::cost_m, "(nperiod) cost of the executed candidate [m]")
      .def_readonly("tension_N", &PlanResult::tension_N, "(nperiod + 1) drive-cable tensions at the knots [N]")
      .def_readonly("threshold_misses", &PlanResult::threshold_misses, "exhaustive: periods without an admissible candidate")
      .def_readonly("forced_periods", &PlanResult::forced_periods, "periods in which every candidate let a taut cable go slack")
      .def_readonly("rollouts", &PlanResult::rollouts, "simulated candidates")
      .def_readonly("rejected", &PlanResult::rejected, "candidates rejected by the rest-length limits")
      .def_readonly("wall_time_s", &PlanResult::wall_time_s, "wall-clock time [s]")
      .def_readonly("max_path_error_m", &PlanResult::max_path_error_m, "max distance of the knots from the path [m]")
      .def_readonly("path_error_m", &PlanResult::path_error_m, "distance of each knot from the path [m] (nperiod + 1)")
      .def_readonly("progress_m", &PlanResult::progress_m, "arc length along the path at the end [m]")
      .def_readonly("speed_mps", &PlanResult::speed_mps, "progress / duration [m/s]")
      .def_readonly("final_state", &PlanResult::final_state, "State at the end")
      .def_readonly("increment", &PlanResult::increment, "IncrementShape of the plan (as_drives follows it)")
      .def("as_drives", &PlanResult::as_drives, py::arg("drive_cables"), "The executed schedule as table drives.")
      .def("__repr__", [](const PlanResult& r) {
        return "PlanResult(periods=" + std::to_string(r.cost_m.size()) + ", progress_m=" + float_repr(r.progress_m) +
               ", max_path_error_m=" + float_repr(r.max_path_error_m) + ", rollouts=" + std::to_string(r.rollouts) + ")";
      });
  m.def(
      "plan",
      [](const Model& mo, const PlannerOptions& o) {
        py::gil_scoped_release release;
        return plan(mo, o);
      },
      py::arg("model"), py::arg("options"), "Document 001's planner (parallel, GIL released).");
  // the planner's centroid and the planning policies shared with `tendyn plan` and the studio
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
}

}  // namespace tendyn::python::tensegrity_bind
