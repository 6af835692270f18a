// tendyn simulate [MODEL.yaml]: run a tensegrity model and write results.csv + summary.json.
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/tensegrity/output.hpp>
#include <tendyn/tensegrity/output_estimate.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tensegrity_cli.hpp"
#include "viewer_cli.hpp"

namespace tendyn::cli {

namespace {
struct SimulateArgs {
  std::string model;
  std::string out_dir;
  bool quiet = false;
  bool no_csv = false;
  bool stop_on_abnormal = false;
  bool html = false;
  double max_page_mb = kDefaultMaxPageMb;
  double frame_interval = 0.01;
  SimOverrides ov;
  OutputBudget budget;
};

void run_simulate(const SimulateArgs& a) {
  namespace ts = tensegrity;
  auto file = load_model_or_default(a.model);
  const auto prov = model_provenance(a.model, file);
  a.ov.apply(file.simulation);
  auto& opt = file.simulation;
  opt.stop_on_abnormal = a.stop_on_abnormal;
  ts::validate(opt);
  const std::filesystem::path dir = a.out_dir.empty() ? std::filesystem::path("out") / file.model.name : std::filesystem::path(a.out_dir);
  if (a.html) require_viewer();
  if (a.html && a.no_csv) throw Error("simulate: --html needs the recorded frames; drop --no-csv");
  const auto estimate = ts::estimate_simulate_output(file.model, opt, a.no_csv ? 0.0 : a.frame_interval, !a.no_csv);
  a.budget.check("simulate", estimate.output_bytes, estimate.output_what, estimate.memory_bytes, estimate.memory_what);
  io::ResultSet results(dir);  // every file appears together at commit() (docs/CLI.md "Outputs")
  std::unique_ptr<ts::CsvWriter> csv;
  if (!a.no_csv) csv = std::make_unique<ts::CsvWriter>(file.model, results.file("results.csv"));
  viz::Scene scene = viz::make_scene(file.model);
  viz::TensegritySceneRecorder scene_rec(scene, a.frame_interval);
  TeeObserver observers({csv.get(), a.no_csv ? nullptr : &scene_rec});
  if (!a.quiet)
    std::printf("tendyn simulate: model '%s' (%d rods, %d cables), %s, dt = %g s, %g s\n", file.model.name.c_str(), file.model.nrod(),
                file.model.ncable(), ts::to_string(opt.integrator), opt.dt_s, opt.duration_s);
  Progress progress("simulate", !a.quiet);
  const auto sum = ts::simulate(file.model, opt, &observers, [&](double f) { progress.update(f); });
  progress.finish();
  scene_rec.finish();
  if (csv) csv->commit();
  std::string page_note;
  const bool wrote_html = !a.no_csv && !write_scene_outputs(results.staging(), scene, a.html, a.max_page_mb, &page_note).empty();
  write_summary(results.file("summary.json"), nlohmann::json::parse(ts::summary_json(file.model, opt, sum)), prov);
  results.commit();
  const auto html_path = wrote_html ? dir / "view.html" : std::filesystem::path();
  if (a.quiet) return;
  const auto& m = sum.monitor;
  const double compute_s = std::max(sum.wall_time_s - sum.observer_time_s, 1e-9);
  std::printf("steps: %ld (%ld rejected), wall time %.3f s, %.0f steps/s, %.1fx real time\n", sum.steps, sum.rejected_steps,
              sum.wall_time_s, sum.steps / std::max(sum.wall_time_s, 1e-9), opt.duration_s / std::max(sum.wall_time_s, 1e-9));
  std::printf("without writing outputs (%.3f s of it): %.0f steps/s, %.1fx real time\n", sum.observer_time_s, sum.steps / compute_s,
              opt.duration_s / compute_s);
  // printed values: round-off noise next to the quantity's scale shows as 0 (the files keep it)
  const auto& e0 = sum.initial_energy;
  const auto& e1 = sum.final_energy;
  const double s_energy = std::max(std::abs(e0.kinetic_J) + std::abs(e0.elastic_J) + std::abs(e0.gravitational_J),
                                   std::abs(e1.kinetic_J) + std::abs(e1.elastic_J) + std::abs(e1.gravitational_J));
  std::printf("energy [J] at the end: kinetic %.6g  elastic %.6g  gravitational %.6g  total %.9g (initial %.9g, max |change| %.3g)\n",
              display_value(e1.kinetic_J, s_energy), display_value(e1.elastic_J, s_energy), display_value(e1.gravitational_J, s_energy),
              display_value(e1.total(), s_energy), display_value(e0.total(), s_energy),
              display_value(sum.max_abs_energy_drift_J, s_energy, 1e-15));
  {
    // a passive model cannot gain energy: a rise above round-off is integration error (the impulse
    // ground's resting contact creeps, docs/MODEL_FORMAT.md), said here rather than left in a column
    const auto& md = file.model;
    bool passive = md.drives.empty() && md.winches.empty() && md.force_actuators.empty();
    for (const auto& f : md.f_W_ext_node) passive = passive && f.isZero(0.0);
    const double rise = e1.total() - e0.total();
    if (passive && rise > 1e-5 * s_energy)
      std::printf(
          "note: the total energy rose by %.3g J (%.2g %% of its scale) although nothing drives the model: integration "
          "error%s; check with a smaller --dt\n",
          rise, 100 * rise / s_energy,
          md.ground.type == ts::Ground::Type::kImpulse ? " (resting contact on the impulse ground creeps, docs/MODEL_FORMAT.md)" : "");
  }
  double s_len = 0.0;  // lengths: the largest rod or COM coordinate
  for (const auto& rod : file.model.rods) s_len = std::max(s_len, rod.length_m);
  for (int c = 0; c < 3; ++c) s_len = std::max({s_len, std::abs(sum.com_initial_m[c]), std::abs(sum.com_final_m[c])});
  const auto len = [&](double x) { return display_value(x, s_len); };
  std::printf("centre of mass [m]  initial (%.6g, %.6g, %.6g)  final (%.6g, %.6g, %.6g)\n", len(sum.com_initial_m.x()),
              len(sum.com_initial_m.y()), len(sum.com_initial_m.z()), len(sum.com_final_m.x()), len(sum.com_final_m.y()),
              len(sum.com_final_m.z()));
  const Eigen::Vector3d d_com = sum.com_final_m - sum.com_initial_m;
  const auto fixed4 = [](double x) { return display_value(x, 1.0, 0.5e-4); };  // what %.4f would print as (-)0.0000
  std::printf("COM on the floor: moved (%+.4f, %+.4f) m, distance %.4f m, track length %.4f m (track: com_x_m, com_y_m in results.csv)\n",
              fixed4(d_com.x()), fixed4(d_com.y()), d_com.head<2>().norm(), sum.com_floor_path_m);
  std::printf("%-12s %12s %12s %12s %12s\n", "cable", "final l [m]", "strain [%]", "tension [N]", "max strain[%]");
  const auto span = [](const Eigen::VectorXd& v) { return std::span<const double>(v.data(), static_cast<std::size_t>(v.size())); };
  const double s_strain = column_scale(span(sum.final_strain)), s_tension = column_scale(span(sum.final_tension_N));
  const double s_max = column_scale(span(m.max_strain));
  for (int k = 0; k < file.model.ncable(); ++k)
    std::printf("%-12s %12.6f %12.4f %12.6f %12.4f\n", file.model.cable_ids[static_cast<std::size_t>(k)].c_str(), sum.final_length_m[k],
                100 * display_value(sum.final_strain[k], s_strain), display_value(sum.final_tension_N[k], s_tension),
                100 * display_value(m.max_strain[k], s_max));
  if (m.normal_mode) {
    std::printf("normal mode: yes (no slack cable, no strain above %.0f %%)\n", 100 * opt.strain_limit);
  } else {
    std::printf("normal mode: NO");
    if (m.first_slack_cable >= 0)
      std::printf("; first slack: cable %s at t = %.4f s", file.model.cable_ids[static_cast<std::size_t>(m.first_slack_cable)].c_str(),
                  m.first_slack_time_s);
    if (m.first_overstrain_cable >= 0)
      std::printf("; first over-strain (> %.0f %%): cable %s at t = %.4f s", 100 * opt.strain_limit,
                  file.model.cable_ids[static_cast<std::size_t>(m.first_overstrain_cable)].c_str(), m.first_overstrain_time_s);
    std::printf("\n");
  }
  std::printf("wrote %s%s\n", a.no_csv ? "" : ((dir / "results.csv").string() + ", scene.json and ").c_str(),
              (dir / "summary.json").string().c_str());
  if (!html_path.empty()) std::printf("viewer: %s (open it in a browser)\n", html_path.string().c_str());
  if (!html_path.empty() && !page_note.empty()) std::printf("  %s\n", page_note.c_str());
}
}  // namespace

void register_simulate(CLI::App& app) {
  auto args = std::make_shared<SimulateArgs>();
  auto* cmd = app.add_subcommand("simulate", "Simulate a tensegrity model (built-in 3-prism of document 000 if no file)");
  cmd->add_option(
         "model", args->model,
         "model file (YAML, docs/MODEL_FORMAT.md, or MuJoCo MJCF by the extension .xml) or a shipped model's name, e.g. three_bar (default: the built-in 3-prism)")
      ->transform(model_file());
  cmd->add_option("-o,--out", args->out_dir, "output directory (default: out/<model name>)");
  cmd->add_flag("-q,--quiet", args->quiet, "no progress or summary output");
  cmd->add_flag("--no-csv", args->no_csv, "write only summary.json (no results.csv, scene.json or view.html)");
  cmd->add_flag("--stop-on-abnormal", args->stop_on_abnormal, "stop at the first slack or over-strain event");
  cmd->add_flag("--html", args->html, "also write view.html: the 3D viewer with plots, one self-contained file (docs/VIEWER.md)");
  cmd->add_option("--max-page-mb", args->max_page_mb,
                  "largest view.html [MB]: longer runs keep every k-th frame for the 3D view, the plots every row packed or the min/max "
                  "of every k rows (scene.json and results.csv keep all; default 10)")
      ->check(positive());
  cmd->add_option("--frame-interval", args->frame_interval, "viewer frames at most every this many seconds (scene.json, view.html)")
      ->check(non_negative());
  args->ov.add_to(*cmd);
  args->budget.add_to(*cmd);
  cmd->callback([args] { run_simulate(*args); });
}

}  // namespace tendyn::cli
