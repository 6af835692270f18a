// tendyn plan [MODEL.yaml]: cable-actuation trajectory planning (document 001, chapter 3).
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/output_estimate.hpp>
#include <tendyn/tensegrity/planner.hpp>
#include <tendyn/viz/plan_scene.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tensegrity_cli.hpp"
#include "viewer_cli.hpp"

namespace tendyn::cli {

namespace {
struct PlanArgs {
  std::string model;
  std::string drive = "c1,c2,c3,c4";
  double u0 = 0.005, period = 0.1, duration = 3.0, turn_x = 0.01;
  std::string path = "straight", points, planner = "exhaustive", increment = "ramp";
  int threads = 0, rounds = 3, beam = 3, screen = 32;
  double lateral_weight = 5.0, ramp = 1.0, lateral_tol = 0.002;
  std::optional<double> dt;
  std::string out_dir = "out/plan";
  bool quiet = false;
  bool html = false;
  OutputBudget budget;
};

constexpr double kFrameInterval_s = 0.01;  // viewer frames of the replay
constexpr const char* kPlanMemoryHint = "shorten it, drive fewer cables, narrow --beam";

/// --path / --turn-x / --points as a PlanPath (option parsing; the path itself is checked by plan()).
tensegrity::PlanPath parse_path(const PlanArgs& a) {
  namespace ts = tensegrity;
  if (a.path == "straight") return ts::PlanPath::straight_x();
  if (a.path == "turn") return ts::PlanPath::right_angle(a.turn_x);
  if (a.path != "polyline") throw Error("plan: --path must be straight, turn or polyline");
  ts::PlanPath p;
  for (const auto& pt : io::split_fields(a.points, ';')) {
    const auto xy = io::split_fields(pt, ',');
    if (xy.size() != 2) throw Error("plan: --points expects 'x,y;x,y;...' (got '" + pt + "')");
    p.points.emplace_back(io::parse_finite(xy[0], "plan: --points '" + pt + "'"), io::parse_finite(xy[1], "plan: --points '" + pt + "'"));
  }
  return p;
}

void run_plan(const PlanArgs& a) {
  namespace ts = tensegrity;
  auto file = a.model.empty() ? ts::load_model_file(data_file("models/three_bar.yaml").string()) : ts::load_model_file(a.model);
  const auto prov = model_provenance(a.model, file);
  ts::PlannerOptions o;
  const auto drive_ids = io::split_fields(a.drive, ',');
  o.drive_cables = ts::cable_indices(file.model, drive_ids, "plan: --drive");
  // the planner owns the drive cables (the model's own drives on them are dropped), and an impulse
  // ground is planned and replayed with a fixed step (planner.hpp, "planning policies")
  const int dropped = ts::remove_drives_on(file.model, o.drive_cables);
  if (!a.quiet && dropped > 0) std::printf("note: the model's drives on the planned cables were removed (%d)\n", dropped);
  o.u0_m = a.u0;
  o.period_s = a.period;
  o.duration_s = a.duration;
  o.threads = a.threads;
  o.max_rounds = a.rounds;
  o.beam_width = a.beam;
  o.screen_count = a.screen;
  o.lateral_weight = a.lateral_weight;
  o.lateral_tolerance_m = a.lateral_tol;
  o.ramp_fraction = a.ramp;
  try {
    o.increment = ts::increment_shape_from_string(a.increment);
  } catch (const Error& e) {
    throw Error(std::string("plan: --increment: ") + e.what());
  }
  if (o.increment == ts::IncrementShape::kStep && a.ramp != 1.0) throw Error("plan: --ramp applies to --increment ramp only");
  if (a.dt) file.simulation.dt_s = *a.dt;
  o.rollout = ts::rollout_options(file.model, file.simulation);
  try {
    o.planner = ts::planner_from_string(a.planner);
  } catch (const Error& e) {
    throw Error(std::string("plan: --planner: ") + e.what());
  }
  o.path = parse_path(a);
  if (a.html) require_viewer();
  // the executed schedule is replayed for the viewer (scene.json, and view.html with --html)
  auto sim = o.rollout;
  sim.duration_s = ts::plan_nperiod(o) * o.period_s;
  auto view_sim = sim;
  view_sim.output_interval_s = std::min(view_sim.output_interval_s > 0 ? view_sim.output_interval_s : 0.01, 0.01);
  const auto estimate = ts::estimate_plan_output(file.model, o, view_sim, kFrameInterval_s);
  a.budget.check("plan", estimate.output_bytes, estimate.output_what, estimate.memory_bytes, estimate.memory_what, kPlanMemoryHint);
  // the work bounds, before anything runs (plan() checks them again)
  if (o.duration_s > 0.0 && o.duration_s < 0.5 * o.period_s)
    throw Error("plan: --duration (" + format_number(o.duration_s, 6) + " s) is shorter than half of --period (" +
                format_number(o.period_s, 6) + " s): no period would run (a plan runs whole periods)");
  try {
    ts::check_plan_bounds(o);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + "; shorten --duration, use a larger --dt, fewer --drive cables or another --planner");
  }
  io::ResultSet results(a.out_dir);  // the files appear together at commit() (docs/CLI.md "Outputs")
  Progress progress("plan", !a.quiet);
  const auto r = ts::plan(file.model, o, [&](int done, int total) { progress.update(static_cast<double>(done) / total); });
  progress.finish();

  // executed schedule: one CSV (t_s, then u_m per drive cable) and the model with the schedule as drives
  io::write_file_atomic(results.file("schedule.csv"), ts::plan_schedule_csv(file.model, o.drive_cables, r));
  auto planned = file.model;
  for (const auto& d : r.as_drives(o.drive_cables)) planned.drives.push_back(d);
  planned.name = file.model.name + "-planned";
  sim.duration_s = r.period_start_s.back() - r.period_start_s.front();
  view_sim.duration_s = sim.duration_s;
  io::write_file_atomic(results.file("planned.yaml"), ts::to_yaml(planned, &sim));
  if (!write_scene_outputs(results.staging(), viz::simulate_plan_scene(planned, view_sim, o.path, kFrameInterval_s), a.html).empty() &&
      !a.quiet)
    std::printf("viewer: %s\n", (std::filesystem::path(a.out_dir) / "view.html").string().c_str());
  nlohmann::json path_points = nlohmann::json::array();
  for (const auto& pt : o.path.points) path_points.push_back({pt.x(), pt.y()});
  const nlohmann::json j = {{"planner", ts::to_string(o.planner)},
                            {"path", a.path},
                            {"u0_m", a.u0},
                            {"period_s", a.period},
                            {"duration_s", a.duration},
                            {"drive_cables", drive_ids},
                            {"progress_m", r.progress_m},
                            {"speed_mps", r.speed_mps},
                            {"max_path_error_m", r.max_path_error_m},
                            {"rollouts", r.rollouts},
                            {"rejected_rollouts", r.rejected},
                            {"threshold_misses", r.threshold_misses},
                            {"forced_periods", r.forced_periods},
                            {"final_centroid_m", {r.centroid_m.back().x(), r.centroid_m.back().y()}},
                            {"path_points_m", path_points}};
  write_summary(results.file("summary.json"), j, prov);
  results.commit();
  const bool plotted =
      render_plot("plan", std::filesystem::path(a.out_dir) / "schedule.csv", std::filesystem::path(a.out_dir) / "plan.png");
  if (a.quiet) return;
  if (plotted)
    std::printf("wrote %s/plan.png (track against the path, cable length changes, tensions)\n", a.out_dir.c_str());
  else
    std::printf("no plot (needs python3 with matplotlib): /usr/bin/python3 %s/scripts/plot.py plan %s/schedule.csv %s/plan.png (or .svg)\n",
                data_dir_hint().c_str(), a.out_dir.c_str(), a.out_dir.c_str());
  std::printf("planned %zu periods of %g s with %s (%zu drive cables, u0 = %g m)\n", r.cost_m.size(), a.period, ts::to_string(o.planner),
              o.drive_cables.size(), a.u0);
  const auto fixed4 = [](double x) { return display_value(x, 1.0, 0.5e-4); };  // never "-0.0000"
  std::printf("progress along the path %.4f m, speed %.4f m/s, max path error %.4f m\n", fixed4(r.progress_m), fixed4(r.speed_mps),
              fixed4(r.max_path_error_m));
  std::printf("forced periods (every candidate let a taut cable go slack): %d\n", r.forced_periods);
  std::printf("rollouts %ld (%ld rejected), threshold misses %d, wall time %.2f s (%.0f rollouts/s, %.2fx real time)\n", r.rollouts,
              r.rejected, r.threshold_misses, r.wall_time_s, r.rollouts / std::max(r.wall_time_s, 1e-9),
              a.duration / std::max(r.wall_time_s, 1e-9));
  std::printf("wrote %s/schedule.csv, summary.json and planned.yaml (simulate it: tendyn simulate %s/planned.yaml)\n", a.out_dir.c_str(),
              a.out_dir.c_str());
}
}  // namespace

void register_plan(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  auto* cmd = app.add_subcommand("plan", "Plan cable-length changes that move a tensegrity robot along a path (document 001, ch. 3)");
  cmd->add_option("model", a->model, "model file (default: models/three_bar.yaml)")->transform(model_file());
  cmd->add_option("--drive", a->drive, "drive cables, comma-separated ids");
  cmd->add_option("--u0", a->u0, "rest-length increment per period [m]")->check(positive());
  cmd->add_option("--period", a->period, "control period [s]")->check(positive());
  cmd->add_option("--duration", a->duration, "planned time [s]")->check(positive());
  cmd->add_option("--path", a->path, "straight | turn | polyline");
  cmd->add_option("--turn-x", a->turn_x, "x of the right-angle turn [m] (path turn)");
  cmd->add_option("--points", a->points, "polyline 'x,y;x,y;...' [m] (path polyline; no default)");
  cmd->add_option("--planner", a->planner,
                  "exhaustive (document's 3^m) | coordinate | lookahead | screened (ours; screened: real time with many drive cables)");
  cmd->add_option("--rounds", a->rounds, "coordinate search rounds per period; screened: linearisation rounds per period");
  cmd->add_option("--beam", a->beam, "lookahead: candidates expanded into a second period")->check(positive());
  cmd->add_option("--screen", a->screen, "screened: candidates rolled out per linearisation round after the single-cable screening")
      ->check(positive());
  cmd->add_option("--lateral-weight", a->lateral_weight, "lookahead: w in the path metric w d - s")->check(non_negative());
  cmd->add_option("--lateral-tol", a->lateral_tol, "lookahead: lateral distance [m] beyond which the metric penalises steeply")
      ->check(non_negative());
  cmd->add_option(
      "--increment", a->increment,
      "shape of a cable's increment within a period (document: open): ramp (linear, default) | step (whole increment at the period start)");
  cmd->add_option("--ramp", a->ramp, "--increment ramp: fraction of the period over which an increment ramps (1 = whole period)")
      ->check(CLI::Range(1e-6, 1.0));
  cmd->add_option("--dt", a->dt, "integration step of the rollouts [s] (default: the model file's)")->check(positive());
  cmd->add_option("-j,--threads", a->threads, "rollout threads (0 = all cores); results do not depend on it");
  cmd->add_option("-o,--out", a->out_dir, "output directory");
  cmd->add_flag("-q,--quiet", a->quiet, "no report");
  cmd->add_flag("--html", a->html, "also write view.html: the executed plan in the 3D viewer (docs/VIEWER.md)");
  a->budget.add_to(*cmd);
  cmd->callback([a] { run_plan(*a); });
}

}  // namespace tendyn::cli
