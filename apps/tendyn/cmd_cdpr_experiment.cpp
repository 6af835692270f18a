// tendyn cdpr-experiment: document 002's two-stage printer experiment (issue 6).
//   tendyn cdpr-experiment [MODEL.yaml] --out DIR [--speed 0.15] [--dt 1e-3] [--noise] [--seed S]
//                          [--tension-tau 0.1] [--filter-tau 0]
// Writes DIR/stage1_without.csv, DIR/stage2_with.csv, DIR/summary.txt and prints the summary;
// `python3 scripts/plot.py cdpr DIR OUT.png` plots them.
#include <tendyn/cdpr/dynamics.hpp>
#include <tendyn/cdpr/experiment.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli_util.hpp"
#include "commands.hpp"

namespace tendyn::cli {
namespace {

struct ExpArgs {
  std::string model;
  std::string out = "out/cdpr-experiment";
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
};

void run(const ExpArgs& a) {
  const std::string file =
      a.model.empty() ? std::string(TENDYN_SOURCE_DIR) + "/models/cdpr/printer8.yaml" : a.model;
  const auto mf = cdpr::load_model(file);
  const cdpr::DynamicModel model = cdpr::make_printer_dynamics(mf.model, a.load);
  cdpr::ExperimentConfig cfg;
  cfg.speed_m_s = a.speed;
  cfg.accel_m_s2 = a.accel;
  cfg.dt_s = a.dt;
  cfg.control_dt_s = a.control_dt;
  cfg.layer_z_m = a.layer_z;
  cfg.carriage_offset_m = a.layer_z - 3.0;
  cfg.controller.method = cdpr::parse_method(a.method);
  cfg.controller.tau_tension_s = a.tension_tau;
  cfg.controller.tau_filter_s = a.filter_tau;
  if (a.noise) {
    cfg.sensors.force_sigma_N = 20.0;
    cfg.sensors.inclination_sigma_rad = 1e-3;
    cfg.sensors.accel_sigma = 0.02;
    cfg.sensors.gyro_sigma = 1e-3;
    cfg.sensors.position_sigma_m = 2e-4;
    cfg.sensors.velocity_sigma_m_s = 1e-3;
  }
  cfg.sensors.seed = a.seed;
  const auto s1 = cdpr::run_stage(model, cfg, false);
  const auto s2 = cdpr::run_stage(model, cfg, true);
  ensure_directory(a.out);
  const std::filesystem::path dir(a.out);
  io::write_file_atomic(dir / "stage1_without.csv", cdpr::stage_csv(model, s1));
  io::write_file_atomic(dir / "stage2_with.csv", cdpr::stage_csv(model, s2));
  const double T = s1.samples.empty() ? 0.0 : s1.samples.back().t_s;
  std::string summary = "tendyn cdpr-experiment: model " + file + ", " + std::to_string(T) +
                        " s simulated per stage\n" + cdpr::experiment_summary(s1, s2);
  io::write_file_atomic(dir / "summary.txt", summary);
  std::fputs(summary.c_str(), stdout);
  std::printf("wrote %s/{stage1_without.csv,stage2_with.csv,summary.txt}\n", a.out.c_str());
  std::printf("plot: python3 scripts/plot.py cdpr %s %s/experiment.png (matplotlib)\n", a.out.c_str(),
              a.out.c_str());
}

}  // namespace

void register_cdpr_experiment(CLI::App& app) {
  auto a = std::make_shared<ExpArgs>();
  auto* cmd = app.add_subcommand(
      "cdpr-experiment", "document 002's two-stage printer experiment: tracking without and with lower-cable tension control");
  cmd->add_option("model", a->model, "CDPR model file (default: models/cdpr/printer8.yaml)");
  cmd->add_option("--out", a->out, "output directory")->capture_default_str();
  cmd->add_option("--speed", a->speed, "printing speed [m/s]")->capture_default_str();
  cmd->add_option("--accel", a->accel, "acceleration at direction changes [m/s^2]")->capture_default_str();
  cmd->add_option("--dt", a->dt, "RK4 step [s]")->capture_default_str();
  cmd->add_option("--control-dt", a->control_dt, "controller period [s]")->capture_default_str();
  cmd->add_option("--load", a->load, "extruder load mass [kg]")->capture_default_str();
  cmd->add_option("--layer-z", a->layer_z, "layer height of the platform [m] (carriages move with it)")->capture_default_str();
  cmd->add_option("--method", a->method, "tension solver for the optimal profile")->capture_default_str();
  cmd->add_option("--tension-tau", a->tension_tau, "tension regulator time constant [s]")->capture_default_str();
  cmd->add_option("--filter-tau", a->filter_tau,
                  "low-pass time constant of the tension regulator's readings [s] (0 = off)")->capture_default_str();
  cmd->add_flag("--noise", a->noise, "seeded Gaussian sensor noise");
  cmd->add_option("--seed", a->seed, "noise seed")->capture_default_str();
  cmd->callback([a] { run(*a); });
}

}  // namespace tendyn::cli
