#include <tendyn/tensegrity/output_estimate.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tendyn::tensegrity {

namespace {
double out_step_s(const SimulationOptions& o) { return std::max(o.output_interval_s > 0.0 ? o.output_interval_s : o.dt_s, o.dt_s); }
double frame_count(const SimulationOptions& o, double frame_interval_s) {
  return std::floor(o.duration_s / std::max(frame_interval_s, out_step_s(o))) + 2.0;
}
double frame_values(const Model& m) { return 3.0 * (2.0 * m.nrod() + m.nnode()) + 2.0 * m.ncable() + 3.0 + 6.0; }
}  // namespace

OutputEstimate estimate_simulate_output(const Model& m, const SimulationOptions& o, double frame_interval_s, bool files) {
  OutputEstimate e;
  if (!files) return e;
  const double rows = std::floor(o.duration_s / out_step_s(o)) + 2.0;
  const double cols = 1.0 + 7.0 * m.nrod() + 3.0 * m.nnode() + 4.0 * m.ncable() + 8.0;
  const double frames = frame_count(o, frame_interval_s);
  const double values = frame_values(m);
  char buf[200];
  std::snprintf(buf, sizeof buf, "%.3g rows x %.0f columns of results.csv and %.3g frames of scene.json", rows, cols, frames);
  e.output_what = buf;
  std::snprintf(buf, sizeof buf, "%.3g viewer frames of %.0f numbers", frames, values);
  e.memory_what = buf;
  e.output_bytes = kBytesPerNumber * (rows * cols + frames * values);
  e.memory_bytes = 8.0 * frames * values;
  return e;
}

OutputEstimate estimate_plan_output(const Model& m, const PlannerOptions& o, const SimulationOptions& replay, double frame_interval_s) {
  const double nperiod = plan_nperiod(o);
  const double ndrive = static_cast<double>(o.drive_cables.size());
  const double rows = nperiod + 2.0, cols = 1.0 + 2.0 * ndrive + 4.0;
  const bool extra_knot = o.ramp_fraction < 1.0 || o.increment == IncrementShape::kStep;  // as_drives: end of ramp, or the step
  const double knots = extra_knot ? 2.0 * nperiod + 1.0 : nperiod + 1.0;
  const double yaml_numbers = 2.0 * knots * ndrive + 32.0 * (m.nrod() + m.nnode() + m.ncable());
  SimulationOptions view = replay;
  view.duration_s = nperiod * o.period_s;
  const double frames = frame_count(view, frame_interval_s);
  const double values = frame_values(m) + 1.0;  // + the path error plot
  double candidates = std::pow(3.0, ndrive);
  if (o.planner == Planner::kLookahead)
    candidates *= 1.0 + std::max(o.beam_width, 1);
  else if (o.planner == Planner::kCoordinateSearch)
    candidates = 2.0 * ndrive;
  else if (o.planner == Planner::kScreened)  // planner.hpp: at most 1 + rounds (2m + screen_count)
    candidates = std::min(candidates, 1.0 + std::max(o.max_rounds, 1) * (2.0 * ndrive + std::max(o.screen_count, 1)));
  const double candidate_bytes = 8.0 * 13.0 * m.nrod() + 3.0 * m.ncable() + 64.0;
  OutputEstimate e;
  char buf[240];
  std::snprintf(buf, sizeof buf, "%.3g rows x %.0f columns of schedule.csv, %.3g numbers of planned.yaml and %.3g frames of scene.json",
                rows, cols, yaml_numbers, frames);
  e.output_what = buf;
  std::snprintf(buf, sizeof buf, "%.3g viewer frames of %.0f numbers and %.3g rollouts kept per period", frames, values, candidates);
  e.memory_what = buf;
  e.output_bytes = kBytesPerNumber * (rows * cols + yaml_numbers + frames * values);
  e.memory_bytes = 8.0 * frames * values + candidates * candidate_bytes;
  return e;
}

}  // namespace tendyn::tensegrity
