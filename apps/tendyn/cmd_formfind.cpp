// tendyn formfind MODEL.yaml [-o DIR]: equilibrium shape from topology, rod lengths and rest lengths;
// writes DIR/model.yaml (the model at its equilibrium) and DIR/summary.json.
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/tensegrity/form_finding.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tensegrity_cli.hpp"

namespace tendyn::cli {

namespace {
// Option defaults are the library's (FormFindingOptions, SettleOptions).
const tensegrity::FormFindingOptions kFormDefaults;
const tensegrity::SettleOptions kSettleDefaults;

struct FormArgs {
  std::string model, out;  ///< out: the output directory (default out/<model name>-formfind)
  double relax = kFormDefaults.relax_duration_s, tol = kFormDefaults.tolerance_N;
  double settle_max = kSettleDefaults.max_duration_s, speed_tol = kSettleDefaults.speed_tolerance_mps,
         settle_tol = kSettleDefaults.tolerance_N;
  bool on_ground = false, settle_only = false, allow_slack = false, free_xy = false;
};

// One formfind run: the zero-gravity form-finding and/or the settle on the ground, then model.yaml
// and summary.json as one result set.
void run_formfind(const FormArgs& a) {
  namespace ts = tensegrity;
  auto f = ts::load_model_file(a.model);
  const auto prov = model_provenance(a.model, f);
  auto m = f.model;
  std::string command = "tendyn formfind " + a.model;
  std::string header;
  nlohmann::json j;
  if (!a.settle_only) {
    ts::FormFindingOptions o;
    o.relax_duration_s = a.relax;
    o.tolerance_N = a.tol;
    const auto r = ts::find_equilibrium(f.model, o);
    std::printf("equilibrium: max node residual %.3e N after %d Newton iterations, %d slack element(s)%s\n", r.max_node_residual_N,
                r.newton_iterations, r.slack_cables, r.converged ? "" : "  (NOT converged)");
    if (!r.converged)
      throw SimulationError("form finding did not converge (residual " + format_number(r.max_node_residual_N, 6) + " N, tolerance " +
                                format_number(a.tol, 6) + " N)",
                            0.0);
    m.initial_state = r.state;
    header += "# zero-gravity form-finding: max node residual " + format_number(r.max_node_residual_N, 6) + " N, " +
              std::to_string(r.slack_cables) + " slack element(s)\n";
    j["max_node_residual_N"] = r.max_node_residual_N;
    j["newton_iterations"] = r.newton_iterations;
    j["slack_elements"] = r.slack_cables;
    j["converged"] = r.converged;
    j["relax_s"] = a.relax;
    j["tolerance_N"] = a.tol;
  }
  j["on_ground"] = a.on_ground;
  if (a.on_ground) {
    command += " --on-ground";
    if (a.settle_only) command += " --settle-only";
    if (m.gravity_W.squaredNorm() == 0.0) m.gravity_W = Eigen::Vector3d(0, 0, -9.81);
    if (m.ground.type == ts::Ground::Type::kNone) {
      m.ground.type = ts::Ground::Type::kImpulse;
      m.ground.restitution = 0.0;
      m.ground.friction = 0.8;
    }
    ts::SettleOptions so;
    so.max_duration_s = a.settle_max;
    so.speed_tolerance_mps = a.speed_tol;
    so.tolerance_N = a.settle_tol;
    so.allow_slack = a.allow_slack;
    so.keep_centroid_xy = !a.free_xy;
    if (a.settle_max != kSettleDefaults.max_duration_s) command += " --settle-max " + format_number(a.settle_max, 6);
    if (a.speed_tol != kSettleDefaults.speed_tolerance_mps) command += " --speed-tolerance " + format_number(a.speed_tol, 6);
    if (a.settle_tol != kSettleDefaults.tolerance_N) command += " --settle-tolerance " + format_number(a.settle_tol, 6);
    if (a.allow_slack) command += " --allow-slack";
    if (a.free_xy) command += " --free-xy";
    const auto s = ts::settle_on_ground(m, so);
    m.initial_state = s.state;
    std::string contacts;
    for (const int i : s.contact_nodes) contacts += (contacts.empty() ? "" : ",") + m.node_ids[static_cast<std::size_t>(i)];
    std::printf(
        "at rest on the ground: residual %.3e N, fastest rod end %.3e m/s after %ld steps (%.3f s, %d kinetic-energy resets), "
        "min cable tension %.4g N, %d slack, contacts %s, max friction ratio %.3g, %d unstable balance(s) pushed off\n",
        s.max_residual_N, s.max_node_speed_mps, s.steps, s.settle_time_s, s.kinetic_resets, s.min_cable_tension_N, s.slack_cables,
        contacts.c_str(), s.max_friction_ratio, s.unstable_pushes);
    header += "# at rest on the ground (tensegrity::settle_on_ground): residual " + format_number(s.max_residual_N, 6) +
              " N, fastest rod end " + format_number(s.max_node_speed_mps, 6) + " m/s at the end of " + std::to_string(s.steps) +
              " settle steps (" + format_number(s.settle_time_s, 6) + " s), min cable tension " + format_number(s.min_cable_tension_N, 6) +
              " N, " + std::to_string(s.slack_cables) + " slack, contacts " + contacts + ", max friction ratio " +
              format_number(s.max_friction_ratio, 6) + "\n";
    j["settle"] = {{"max_residual_N", s.max_residual_N},
                   {"max_node_speed_mps", s.max_node_speed_mps},
                   {"min_cable_tension_N", s.min_cable_tension_N},
                   {"slack_cables", s.slack_cables},
                   {"steps", s.steps},
                   {"settle_time_s", s.settle_time_s},
                   {"kinetic_resets", s.kinetic_resets},
                   {"newton_iterations", s.newton_iterations},
                   {"contact_nodes", contacts},
                   {"min_normal_force_N", s.min_normal_force_N},
                   {"max_friction_ratio", s.max_friction_ratio},
                   {"min_stiffness_eigenvalue", s.min_stiffness_eigenvalue},
                   {"unstable_pushes", s.unstable_pushes},
                   {"settle_max_s", a.settle_max},
                   {"speed_tolerance_mps", a.speed_tol},
                   {"tolerance_N", a.settle_tol}};
  }
  const std::filesystem::path dir =
      a.out.empty() ? std::filesystem::path("out") / (f.model.name + "-formfind") : std::filesystem::path(a.out);
  io::ResultSet results(dir);  // model.yaml and summary.json appear together (docs/CLI.md "Outputs")
  io::write_file_atomic(results.file("model.yaml"), "# Equilibrium found by: " + command + "\n" + header + ts::to_yaml(m, &f.simulation));
  write_summary(results.file("summary.json"), j, prov);
  results.commit();
  std::printf("wrote %s and summary.json\n", (dir / "model.yaml").string().c_str());
}

}  // namespace

void register_formfind(CLI::App& app) {
  auto a = std::make_shared<FormArgs>();
  auto* cmd = app.add_subcommand(
      "formfind", "Find the equilibrium shape of a tensegrity (dynamic relaxation + Newton), optionally at rest on the ground");
  cmd->add_option("model", a->model, "model file whose node positions are the initial guess")->required()->transform(model_file());
  cmd->add_option("-o,--out", a->out,
                  "output directory: model.yaml (the model at its equilibrium) and summary.json (default: out/<model name>-formfind)");
  cmd->add_option("--relax", a->relax, "dynamic-relaxation time of the zero-gravity form-finding [s]")->check(positive());
  cmd->add_option("--tolerance", a->tol, "node residual force tolerance of the zero-gravity form-finding [N]")->check(positive());
  cmd->add_flag("--on-ground", a->on_ground,
                "then put the result at rest on the ground (tensegrity::settle_on_ground: kinetic-damping settle + contact polish); "
                "a model without gravity gets (0, 0, -9.81) m/s^2, one without ground an impulse ground (e = 0, mu = 0.8)");
  std::vector<CLI::Option*> ground_only;  // meaningful with --on-ground only (usage error otherwise)
  ground_only.push_back(cmd->add_flag(
      "--settle-only", a->settle_only,
      "with --on-ground: settle the model's own initial configuration, without the zero-gravity form-finding first (default: off)"));
  ground_only.push_back(
      cmd->add_option("--settle-max", a->settle_max, "with --on-ground: simulated-time limit of the damped settle [s]")->check(positive()));
  ground_only.push_back(
      cmd->add_option("--speed-tolerance", a->speed_tol, "with --on-ground: at rest when every rod end is slower than this for 0.1 s [m/s]")
          ->check(positive()));
  ground_only.push_back(
      cmd->add_option("--settle-tolerance", a->settle_tol, "with --on-ground: residual tolerance of the rest state on the ground [N]")
          ->check(positive()));
  ground_only.push_back(cmd->add_flag(
      "--free-xy", a->free_xy,
      "with --on-ground: leave the rest state where it settled (default: translated back so the centroid of the rod centres has the start's x, y)"));
  ground_only.push_back(
      cmd->add_flag("--allow-slack", a->allow_slack, "with --on-ground: accept slack cables at rest (default: error naming the cable)"));
  cmd->callback([a, ground_only] {
    if (!a->on_ground)
      for (const auto* o : ground_only)
        if (o->count() > 0) throw CLI::ValidationError(o->get_name(), "needs --on-ground");
    run_formfind(*a);
  });
}

}  // namespace tendyn::cli
