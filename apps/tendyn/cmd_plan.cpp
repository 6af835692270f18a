// tendyn plan [MODEL.yaml]: cable-actuation trajectory planning (document 001, chapter 3).
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/output.hpp>
#include <tendyn/tensegrity/planner.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>

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
  std::string path = "straight", points, planner = "exhaustive";
  int threads = 0, rounds = 3, beam = 3;
  double lateral_weight = 5.0, ramp = 1.0, lateral_tol = 0.002;
  std::optional<double> dt;
  std::string out_dir = "out/plan";
  bool quiet = false;
  bool html = false;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

void run_plan(const PlanArgs& a) {
  namespace ts = tensegrity;
  auto file = a.model.empty() ? ts::load_model_file(data_file("models/three_bar.yaml").string())
                              : ts::load_model_file(a.model);
  const auto prov = model_provenance(a.model, file);
  ts::PlannerOptions o;
  for (const auto& id : split(a.drive, ',')) {
    const auto it = std::find(file.model.cable_ids.begin(), file.model.cable_ids.end(), id);
    if (it == file.model.cable_ids.end()) throw Error("plan: --drive names cable '" + id + "', which the model does not have");
    o.drive_cables.push_back(static_cast<int>(it - file.model.cable_ids.begin()));
  }
  // the planner owns the drive cables: drop the model's own drives on them
  auto& drives = file.model.drives;
  const auto before = drives.size();
  drives.erase(std::remove_if(drives.begin(), drives.end(),
                              [&](const ts::CableDrive& d) {
                                return std::find(o.drive_cables.begin(), o.drive_cables.end(), d.cable) != o.drive_cables.end();
                              }),
               drives.end());
  if (!a.quiet && drives.size() != before)
    std::printf("note: the model's drives on the planned cables were removed (%zu)\n", before - drives.size());
  o.u0_m = a.u0;
  o.period_s = a.period;
  o.duration_s = a.duration;
  o.threads = a.threads;
  o.max_rounds = a.rounds;
  o.beam_width = a.beam;
  o.lateral_weight = a.lateral_weight;
  o.lateral_tolerance_m = a.lateral_tol;
  o.ramp_fraction = a.ramp;
  o.rollout = file.simulation;
  if (a.dt) o.rollout.dt_s = *a.dt;
  if (o.rollout.integrator == ts::Integrator::kDormandPrince45 && file.model.ground.type == ts::Ground::Type::kImpulse)
    o.rollout.integrator = ts::Integrator::kRK4;
  try {
    o.planner = ts::planner_from_name(a.planner);
  } catch (const Error& e) {
    throw Error(std::string("plan: --planner: ") + e.what());
  }
  if (a.path == "straight") o.path = ts::PlanPath::straight_x();
  else if (a.path == "turn") o.path = ts::PlanPath::right_angle(a.turn_x);
  else if (a.path == "polyline") {
    ts::PlanPath p;
    for (const auto& pt : split(a.points, ';')) {
      const auto xy = split(pt, ',');
      if (xy.size() != 2) throw Error("plan: --points expects 'x,y;x,y;...' (got '" + pt + "')");
      try {
        p.points.emplace_back(std::stod(xy[0]), std::stod(xy[1]));
      } catch (const std::exception&) {
        throw Error("plan: --points: '" + pt + "' is not two numbers");
      }
    }
    o.path = p;
  } else {
    throw Error("plan: --path must be straight, turn or polyline");
  }
  if (a.html) require_viewer();
  io::ResultSet results(a.out_dir);  // the files appear together at commit() (docs/CLI.md "Outputs")
  Progress progress("plan", !a.quiet);
  const auto r = ts::plan(file.model, o, [&](int done, int total) { progress.update(static_cast<double>(done) / total); });
  progress.finish();

  // executed schedule: one CSV (t_s, then u_m per drive cable) and the model with the schedule as drives
  std::string csv = "t_s";
  for (int k : o.drive_cables) csv += "," + file.model.cable_ids[static_cast<std::size_t>(k)] + ".u_m";
  csv += ",cx_m,cy_m,cost_m,path_error_m";
  for (int k : o.drive_cables) csv += "," + file.model.cable_ids[static_cast<std::size_t>(k)] + ".tension_N";
  csv += "\n";
  ts::PathTracker tracker(o.path);
  for (std::size_t i = 0; i < r.period_start_s.size(); ++i) {
    std::string line;
    ts::append_number(line, r.period_start_s[i]);
    for (Eigen::Index c = 0; c < r.offset_m[i].size(); ++c) {
      line += ",";
      ts::append_number(line, r.offset_m[i][c]);
    }
    for (double v : {r.centroid_m[i].x(), r.centroid_m[i].y(), i == 0 ? 0.0 : r.cost[i - 1], tracker.distance(r.centroid_m[i])}) {
      line += ",";
      ts::append_number(line, v);
    }
    for (Eigen::Index c = 0; c < r.tension_N[i].size(); ++c) {
      line += ",";
      ts::append_number(line, r.tension_N[i][c]);
    }
    csv += line + "\n";
  }
  io::write_file_atomic(results.file("schedule.csv"), csv);
  auto planned = file.model;
  for (const auto& d : r.as_drives(o.drive_cables)) planned.drives.push_back(d);
  planned.name = file.model.name + "-planned";
  auto sim = file.simulation;
  sim.duration_s = r.period_start_s.back() - r.period_start_s.front();
  io::write_file_atomic(results.file("planned.yaml"), ts::to_yaml(planned, &sim));
  // the executed schedule, simulated once more for the viewer (scene.json, and view.html with --html)
  {
    auto view_sim = sim;
    view_sim.output_interval_s = std::min(view_sim.output_interval_s > 0 ? view_sim.output_interval_s : 0.01, 0.01);
    viz::Scene scene = simulate_scene(planned, view_sim, 0.01);
    ts::PathTracker path_error(o.path);
    std::vector<double> err;
    for (int f = 0; f < scene.nframe(); ++f) {
      // centroid of the rod centres (the planner's C): mean of the rod end midpoints
      Eigen::Vector2d c = Eigen::Vector2d::Zero();
      for (const auto& r : scene.rods)
        for (int end : {r.a, r.b})
          c += 0.5 * Eigen::Vector2d(scene.positions_m[static_cast<std::size_t>(3 * (scene.npoint() * f + end))],
                                     scene.positions_m[static_cast<std::size_t>(3 * (scene.npoint() * f + end) + 1)]);
      c /= static_cast<double>(std::max<std::size_t>(scene.rods.size(), 1));
      err.push_back(path_error.distance(c));
    }
    scene.plots.push_back({"distance of the centroid from the path", "m", {}, {{"path error", err}}});
    if (!write_scene_outputs(results.staging(), scene, a.html).empty() && !a.quiet)
      std::printf("viewer: %s\n", (std::filesystem::path(a.out_dir) / "view.html").string().c_str());
  }
  nlohmann::json path_points = nlohmann::json::array();
  for (const auto& pt : o.path.points) path_points.push_back({pt.x(), pt.y()});
  const nlohmann::json j = {{"planner", a.planner},
                            {"path", a.path},
                            {"u0_m", a.u0},
                            {"period_s", a.period},
                            {"duration_s", a.duration},
                            {"drive_cables", split(a.drive, ',')},
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
  const bool plotted = render_plot("plan", std::filesystem::path(a.out_dir) / "schedule.csv", std::filesystem::path(a.out_dir) / "plan.png");
  if (a.quiet) return;
  if (plotted) std::printf("wrote %s/plan.png (track against the path, cable length changes, tensions)\n", a.out_dir.c_str());
  else
    std::printf("no plot (needs python3 with matplotlib): /usr/bin/python3 %s/scripts/plot.py plan %s/schedule.csv %s/plan.png (or .svg)\n",
                data_dir_hint().c_str(), a.out_dir.c_str(), a.out_dir.c_str());
  std::printf("planned %zu periods of %g s with %s (%zu drive cables, u0 = %g m)\n", r.cost.size(), a.period, a.planner.c_str(),
              o.drive_cables.size(), a.u0);
  const auto fixed4 = [](double x) { return display_value(x, 1.0, 0.5e-4); };  // never "-0.0000"
  std::printf("progress along the path %.4f m, speed %.4f m/s, max path error %.4f m\n", fixed4(r.progress_m), fixed4(r.speed_mps),
              fixed4(r.max_path_error_m));
  std::printf("forced periods (every candidate let a taut cable go slack): %d\n", r.forced_periods);
  std::printf("rollouts %ld (%ld rejected), threshold misses %d, wall time %.2f s (%.0f rollouts/s, %.2fx real time)\n", r.rollouts,
              r.rejected, r.threshold_misses, r.wall_time_s, r.rollouts / std::max(r.wall_time_s, 1e-9),
              a.duration / std::max(r.wall_time_s, 1e-9));
  std::printf("wrote %s/schedule.csv, summary.json and planned.yaml (simulate it: tendyn simulate %s/planned.yaml)\n",
              a.out_dir.c_str(), a.out_dir.c_str());
}
}  // namespace

void register_plan(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  auto* cmd = app.add_subcommand("plan", "Plan cable-length changes that move a tensegrity robot along a path (document 001, ch. 3)");
  cmd->add_option("model", a->model, "model file (default: models/three_bar.yaml)")->check(existing_file());
  cmd->add_option("--drive", a->drive, "drive cables, comma-separated ids");
  cmd->add_option("--u0", a->u0, "rest-length increment per period [m]")->check(positive());
  cmd->add_option("--period", a->period, "control period [s]")->check(positive());
  cmd->add_option("--duration", a->duration, "planned time [s]")->check(positive());
  cmd->add_option("--path", a->path, "straight | turn | polyline");
  cmd->add_option("--turn-x", a->turn_x, "x of the right-angle turn [m] (path turn)");
  cmd->add_option("--points", a->points, "polyline 'x,y;x,y;...' [m] (path polyline; no default)");
  cmd->add_option("--planner", a->planner, "exhaustive (document's 3^m) | coordinate | lookahead (ours)");
  cmd->add_option("--rounds", a->rounds, "coordinate search rounds per period");
  cmd->add_option("--beam", a->beam, "lookahead: candidates expanded into a second period")->check(positive());
  cmd->add_option("--lateral-weight", a->lateral_weight, "lookahead: w in the path metric w d - s")->check(non_negative());
  cmd->add_option("--lateral-tol", a->lateral_tol, "lookahead: lateral distance [m] beyond which the metric penalises steeply")
      ->check(non_negative());
  cmd->add_option("--ramp", a->ramp, "fraction of the period over which an increment ramps (1 = whole period, small = step)")
      ->check(CLI::Range(1e-6, 1.0));
  cmd->add_option("--dt", a->dt, "integration step of the rollouts [s] (default: the model file's)")->check(positive());
  cmd->add_option("-j,--threads", a->threads, "rollout threads (0 = all cores); results do not depend on it");
  cmd->add_option("-o,--out", a->out_dir, "output directory");
  cmd->add_flag("-q,--quiet", a->quiet, "no report");
  cmd->add_flag("--html", a->html, "also write view.html: the executed plan in the 3D viewer (docs/VIEWER.md)");
  cmd->callback([a] { run_plan(*a); });
}

}  // namespace tendyn::cli
