// tendyn cdpr-experiment: document 002's two-stage printer experiment (issue 6).
//   tendyn cdpr-experiment [MODEL.yaml] [-o DIR] [--speed 0.15] [--dt 1e-3] [--noise] [--seed S]
//                          [--tension-tau 0.1] [--filter-tau 0] [--html]
//                          [--start-without optimal|xF|VN] [--start-with optimal|xF|VN] [--transient 2]
//                          [--lower-profile full|system4] [--lower-method exhaustive]
//                          [--sweep-pretension F1,F2,...]
// Writes DIR/stage1_without.csv, DIR/stage2_with.csv, DIR/summary.json, DIR/summary.txt,
// DIR/scene.json, DIR/pretension_sweep.csv (with --sweep-pretension) and DIR/experiment.png
// (scripts/plot.py cdpr, when matplotlib is there), with --html DIR/view.html (stage 2) and
// DIR/compare.html (the two stages overlaid, as `tendyn view A B`); prints the summary.
#include <tendyn/cdpr/dynamics.hpp>
#include <tendyn/cdpr/experiment.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/viz/cdpr_scene.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "viewer_cli.hpp"

namespace tendyn::cli {
namespace {

struct ExpArgs {
  std::string model;
  std::string out = "out/cdpr-experiment";
  bool html = false;
  bool quiet = false;
  bool no_plot = false;
  double speed = 0.15;
  double accel = 0.5;
  double dt = 1e-3;
  double control_dt = 2e-3;
  double load = 50.0;
  double layer_z = 3.0;
  std::string method = "exact";
  bool noise = false;
  unsigned long long seed = 1;
  double tension_tau = 0.1;
  double filter_tau = 0.0;
  std::string start_without = "optimal";
  std::string start_with = "optimal";
  double transient = 2.0;
  std::string lower_profile = "system4";
  std::string lower_method = "exhaustive";
  std::vector<double> sweep;
};

// The experiment's configuration from the command line (checked: --transient, --sweep-pretension).
cdpr::ExperimentConfig experiment_config(const ExpArgs& a) {
  cdpr::ExperimentConfig cfg;
  cfg.speed_m_s = a.speed;
  cfg.accel_m_s2 = a.accel;
  cfg.dt_s = a.dt;
  cfg.control_dt_s = a.control_dt;
  cfg.layer_z_m = a.layer_z;
  cfg.carriage_offset_m = a.layer_z - 3.0;
  cfg.controller.method = cdpr::method_from_string(a.method);
  cfg.controller.tau_tension_s = a.tension_tau;
  cfg.controller.tau_filter_s = a.filter_tau;
  cfg.controller.lower_profile = cdpr::lower_profile_from_string(a.lower_profile);
  cfg.controller.lower_method = cdpr::method_from_string(a.lower_method);
  cfg.start_without = cdpr::stage_start_from_string(a.start_without);
  cfg.start_with = cdpr::stage_start_from_string(a.start_with);
  cfg.transient_s = a.transient;
  if (!(a.transient >= 0.0) || !std::isfinite(a.transient)) throw Error("cdpr-experiment: --transient must be finite and >= 0 s");
  for (double f : a.sweep)
    if (!(f >= 0.0) || !std::isfinite(f)) throw Error("cdpr-experiment: --sweep-pretension factors must be finite and >= 0");
  if (a.noise) cfg.sensors = cdpr::typical_sensor_noise(a.seed);
  cfg.sensors.seed = a.seed;
  return cfg;
}

// A stage's figures for summary.json.
nlohmann::json stage_json(const cdpr::StageResult& s) {
  return nlohmann::json{{"worst_lower_norm_N", s.worst_lower_norm_N},
                        {"worst_opt_lower_norm_N", s.worst_opt_lower_norm_N},
                        {"mean_lower_norm_N", s.mean_lower_norm_N},
                        {"mean_opt_lower_norm_N", s.mean_opt_lower_norm_N},
                        {"peak_lower_tension_N", s.peak_lower_tension_N},
                        {"peak_opt_lower_tension_N", s.peak_opt_lower_tension_N},
                        {"max_dev_opt_N", s.max_dev_opt_N},
                        {"rms_dev_opt_N", s.rms_dev_opt_N},
                        {"max_pos_err_m", s.max_pos_err_m},
                        {"rms_pos_err_m", s.rms_pos_err_m},
                        {"max_rot_err_rad", s.max_rot_err_rad},
                        {"rms_rot_err_rad", s.rms_rot_err_rad},
                        {"max_winch_rate_mps", s.max_winch_rate_m_s},
                        {"start", cdpr::to_string(s.start)},
                        {"worst_lower_norm_after_N", s.worst_lower_norm_after_N},
                        {"worst_opt_lower_norm_after_N", s.worst_opt_lower_norm_after_N},
                        {"mean_lower_norm_after_N", s.mean_lower_norm_after_N},
                        {"peak_lower_tension_after_N", s.peak_lower_tension_after_N},
                        {"peak_opt_lower_tension_after_N", s.peak_opt_lower_tension_after_N},
                        {"samples", s.samples.size()},
                        {"duration_s", s.samples.empty() ? 0.0 : s.samples.back().t_s}};
}

// summary.json (without the provenance).
nlohmann::json experiment_json(const ExpArgs& a, const cdpr::DynamicModel& model, const cdpr::ExperimentConfig& cfg,
                               const cdpr::StageResult& s1, const cdpr::StageResult& s2, const cdpr::StageComparison& cmp) {
  // no wall-clock values: summary.json is byte-identical on reruns (summary.txt has the wall times)
  return {{"experiment", "document 002 two-stage printer experiment"},
          {"model", model.geometry.name},
          {"options",
           {{"speed_mps", a.speed},
            {"accel_mps2", a.accel},
            {"dt_s", a.dt},
            {"control_dt_s", a.control_dt},
            {"load_kg", a.load},
            {"layer_z_m", a.layer_z},
            {"method", a.method},
            {"noise", a.noise},
            {"seed", a.seed},
            {"tension_tau_s", a.tension_tau},
            {"filter_tau_s", a.filter_tau},
            {"start_without", cdpr::to_string(cfg.start_without)},
            {"start_with", cdpr::to_string(cfg.start_with)},
            {"transient_s", a.transient},
            {"lower_profile", cdpr::to_string(cfg.controller.lower_profile)},
            {"lower_method", cdpr::to_string(cfg.controller.lower_method)},
            {"sweep_pretension", a.sweep}}},
          {"stage1_without", stage_json(s1)},
          {"stage2_with", stage_json(s2)},
          {"comparison",
           {{"transient_s", cmp.transient_s},
            {"ratio_worst_norm", cmp.ratio_worst_norm},
            {"ratio_worst_norm_after", cmp.ratio_worst_norm_after},
            {"ratio_mean_norm_after", cmp.ratio_mean_norm_after},
            {"t_worst_s", cmp.t_worst_s},
            {"without_at_worst_N", cmp.without_at_worst_N},
            {"with_at_worst_N", cmp.with_at_worst_N},
            {"ratio_at_worst", cmp.ratio_at_worst},
            {"t_worst_after_s", cmp.t_worst_after_s},
            {"without_at_worst_after_N", cmp.without_at_worst_after_N},
            {"with_at_worst_after_N", cmp.with_at_worst_after_N},
            {"ratio_at_worst_after", cmp.ratio_at_worst_after},
            {"peak_over_opt_without", cmp.peak_over_opt_without},
            {"peak_over_opt_without_after", cmp.peak_over_opt_without_after}}}};
}

// One stage in 3D at 4 frames per simulated second, without plots.
viz::Scene stage_scene(const cdpr::DynamicModel& model, const cdpr::StageResult& st, const std::string& title) {
  viz::Scene scene = viz::make_scene(model.geometry);
  scene.title = title;
  cdpr::Data geometry = cdpr::make_data(model.geometry);
  for (std::size_t i : cdpr::frame_samples(st, 0.25)) {
    const auto& smp = st.samples[i];
    const cdpr::Pose pose = cdpr::sample_pose(smp);
    cdpr::update_geometry(model.geometry, pose, geometry);
    viz::add_cdpr_frame(scene, model.geometry, geometry, pose, smp.t_s,
                        std::span<const double>(smp.f_N.data(), static_cast<std::size_t>(smp.f_N.size())), {}, &smp.p_WA);
  }
  return scene;
}

// Both stages' norms and errors as plots (over their common samples, at the full sample rate);
// with `difference` also the position error of stage 2 minus that of stage 1.
void add_stage_plots(viz::Scene& scene, const cdpr::StageResult& s1, const cdpr::StageResult& s2, bool difference) {
  // plotted series: both stages over their common samples, errors in mm and mrad
  std::vector<double> t_s, norm1, norm2, opt, pos1, pos2, rot1, rot2;
  for (std::size_t i = 0; i < std::min(s1.samples.size(), s2.samples.size()); ++i) {
    const auto &a1 = s1.samples[i], &a2 = s2.samples[i];
    t_s.push_back(a2.t_s);
    norm1.push_back(a1.lower_norm_N);
    norm2.push_back(a2.lower_norm_N);
    opt.push_back(a2.opt_lower_norm_N);
    pos1.push_back(1e3 * a1.pos_err_m);
    pos2.push_back(1e3 * a2.pos_err_m);
    rot1.push_back(1e3 * a1.rot_err_rad);
    rot2.push_back(1e3 * a2.rot_err_rad);
  }
  scene.plots.push_back({"lower-group tension norm", "N", t_s, {{"without control", norm1}, {"with control", norm2}, {"optimal", opt}}});
  scene.plots.push_back({"position error", "mm", t_s, {{"without control", pos1}, {"with control", pos2}}});
  scene.plots.push_back({"orientation error", "mrad", t_s, {{"without control", rot1}, {"with control", rot2}}});
  if (difference) {
    std::vector<double> diff(pos1.size());
    for (std::size_t i = 0; i < diff.size(); ++i) diff[i] = pos2[i] - pos1[i];
    scene.plots.push_back({"position error difference (stage 2 - stage 1)", "mm", t_s, {{"with - without control", diff}}});
  }
}

// The viewer scene (scene.json, view.html): stage 2 in 3D, both stages' norms and errors as plots.
viz::Scene experiment_scene(const cdpr::DynamicModel& model, const cdpr::StageResult& s1, const cdpr::StageResult& s2) {
  viz::Scene scene = stage_scene(model, s2, model.geometry.name + ": stage 2, with tension control");
  add_stage_plots(scene, s1, s2, false);
  return scene;
}

// The comparison page (compare.html, as `tendyn view A B`): stage 1 as run A with the plots of
// both stages and their position error difference, stage 2 as run B (drawn as a ghost).
void write_stage_comparison(const std::filesystem::path& out, const cdpr::DynamicModel& model, const cdpr::StageResult& s1,
                            const cdpr::StageResult& s2) {
  viz::Scene a = stage_scene(model, s1, "stage 1, without tension control");
  add_stage_plots(a, s1, s2, true);
  const viz::Scene b = stage_scene(model, s2, "stage 2, with tension control");
  write_compare_page(out, {viz::scene_json(a), viz::scene_json(b)}, {"stage 1", "stage 2"},
                     model.geometry.name + ": stage 1 (A) vs stage 2 (B)", kDefaultMaxPageMb);
}

void run(const ExpArgs& a) {
  const std::string file = a.model.empty() ? data_file("models/cdpr/printer8.yaml").string() : a.model;
  const auto mf = cdpr::load_model(file);
  const auto prov = provenance(read_file_bytes(file), a.model);
  const cdpr::DynamicModel model = cdpr::make_printer_dynamics(mf.model, a.load);
  const cdpr::ExperimentConfig cfg = experiment_config(a);
  if (a.html) require_viewer();
  // progress per stage (the stages report none of their own)
  Progress progress("cdpr-experiment", !a.quiet);
  progress.update(0.0);
  const auto s1 = cdpr::run_stage(model, cfg, false);
  progress.update(0.5);
  const auto s2 = cdpr::run_stage(model, cfg, true);
  std::vector<cdpr::PretensionRow> sweep;
  if (!a.sweep.empty()) {
    progress.update(0.6);
    sweep = cdpr::pretension_sweep(model, cfg, a.sweep);
  }
  progress.finish();
  const cdpr::StageComparison cmp = cdpr::compare_stages(s1, s2);
  const std::filesystem::path dir(a.out);
  io::ResultSet results(dir);  // every file appears together at commit() (docs/CLI.md "Outputs")
  io::write_file_atomic(results.file("stage1_without.csv"), cdpr::stage_csv(model, s1));
  io::write_file_atomic(results.file("stage2_with.csv"), cdpr::stage_csv(model, s2));
  if (!sweep.empty()) io::write_file_atomic(results.file("pretension_sweep.csv"), cdpr::pretension_sweep_csv(sweep));
  const double T = s1.samples.empty() ? 0.0 : s1.samples.back().t_s;
  std::string summary = "tendyn cdpr-experiment: model " + (a.model.empty() ? std::string("printer8 (shipped default)") : a.model) + ", " +
                        std::to_string(T) + " s simulated per stage\n" + cdpr::experiment_summary(s1, s2) +
                        cdpr::comparison_summary(s1, s2, cmp);
  io::write_file_atomic(results.file("summary.txt"), summary);
  write_summary(results.file("summary.json"), experiment_json(a, model, cfg, s1, s2, cmp), prov);
  const viz::Scene scene = experiment_scene(model, s1, s2);
  const bool wrote_html = !write_scene_outputs(results.staging(), scene, a.html).empty();
  if (a.html) write_stage_comparison(results.file("compare.html"), model, s1, s2);
  results.commit();
  const auto html_path = wrote_html ? dir / "view.html" : std::filesystem::path();
  const bool plotted = !a.no_plot && render_plot("cdpr", dir, dir / "experiment.png");
  if (a.quiet) return;
  std::fputs(summary.c_str(), stdout);
  std::printf("wrote %s/{stage1_without.csv,stage2_with.csv,summary.json,summary.txt,scene.json%s%s}\n", a.out.c_str(),
              sweep.empty() ? "" : ",pretension_sweep.csv", plotted ? ",experiment.png" : "");
  if (!html_path.empty())
    std::printf("viewer: %s (stage 2)\ncompare: %s (stage 1 as A, stage 2 as B)\n", html_path.string().c_str(),
                (dir / "compare.html").string().c_str());
  if (!plotted && !a.no_plot) std::printf("(no plot: Debian's python3-matplotlib is needed: scripts/install-deps.sh test)\n");
}

}  // namespace

void register_cdpr_experiment(CLI::App& app) {
  auto a = std::make_shared<ExpArgs>();
  auto* cmd = app.add_subcommand("cdpr-experiment",
                                 "document 002's two-stage printer experiment: tracking without and with lower-cable tension control");
  cmd->add_option("model", a->model, "CDPR model file (default: models/cdpr/printer8.yaml)")->transform(model_file());
  cmd->add_option("-o,--out", a->out, "output directory")->capture_default_str();
  cmd->add_option("--speed", a->speed, "printing speed [m/s]")->capture_default_str();
  cmd->add_option("--accel", a->accel, "acceleration at direction changes [m/s^2]")->capture_default_str();
  cmd->add_option("--dt", a->dt, "RK4 step [s]")->capture_default_str();
  cmd->add_option("--control-dt", a->control_dt, "controller period [s]")->capture_default_str();
  cmd->add_option("--load", a->load, "extruder load mass [kg]")->capture_default_str();
  cmd->add_option("--layer-z", a->layer_z, "layer height of the platform [m] (carriages move with it)")->capture_default_str();
  cmd->add_option("--method", a->method,
                  "tension solver of the full 6 x 8 distribution (upper cables; the lower ones too with --lower-profile full)")
      ->capture_default_str();
  cmd->add_option("--tension-tau", a->tension_tau, "tension regulator time constant [s]")->capture_default_str();
  cmd->add_option("--filter-tau", a->filter_tau, "low-pass time constant of the tension regulator's readings [s] (0 = off)")
      ->capture_default_str();
  cmd->add_option("--start-without", a->start_without,
                  "start state of stage 1's lower cables: optimal, x<factor> of the optimum (x1.8) or <tension>N (900N); "
                  "document 002 does not state it")
      ->capture_default_str();
  cmd->add_option("--start-with", a->start_with, "start state of stage 2's lower cables (same forms)")->capture_default_str();
  cmd->add_option("--transient", a->transient, "start-up transient [s]: the 'after transient' scores use t >= this")->capture_default_str();
  cmd->add_option("--lower-profile", a->lower_profile,
                  "optimal lower-group profile: system4 (document 002's system (4): Fx, Fy, Mz, 3 x 4, f >= 0) or "
                  "full (lower part of the 6 x 8 solution with the model's tension.min, the default before issue 18)")
      ->capture_default_str();
  cmd->add_option("--lower-method", a->lower_method, "solver of system (4) (with --lower-profile system4)")->capture_default_str();
  cmd->add_option("--sweep-pretension", a->sweep, "also run stage 1 from each of these factors of the optimum; writes pretension_sweep.csv")
      ->delimiter(',');
  cmd->add_flag("--noise", a->noise, "seeded Gaussian sensor noise");
  cmd->add_flag("--html", a->html,
                "also write view.html (stage 2 in the 3D viewer, both stages' norms and errors plotted) and compare.html (stage 1 "
                "as run A, stage 2 as B drawn as a ghost, the difference plots)");
  cmd->add_option("--seed", a->seed, "noise seed")->capture_default_str();
  cmd->add_flag("--no-plot", a->no_plot, "do not render experiment.png");
  cmd->add_flag("-q,--quiet", a->quiet, "no progress or summary output");
  cmd->callback([a] { run(*a); });
}

}  // namespace tendyn::cli
