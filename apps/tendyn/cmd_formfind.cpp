// tendyn formfind MODEL.yaml [-o DIR]: equilibrium shape from topology, rod lengths and rest lengths;
// writes DIR/model.yaml (the model at its equilibrium) and DIR/summary.json.
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/tensegrity/form_finding.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tensegrity_cli.hpp"

namespace tendyn::cli {

namespace {
struct FormArgs {
  std::string model, out;  ///< out: the output directory (default out/<model name>-formfind)
  double relax = 60.0, tol = 1e-10, settle = 0.0;
  bool on_ground = false;
};
}  // namespace

void register_formfind(CLI::App& app) {
  auto a = std::make_shared<FormArgs>();
  auto* cmd = app.add_subcommand("formfind", "Find the equilibrium shape of a tensegrity (dynamic relaxation + Newton)");
  cmd->add_option("model", a->model, "model file whose node positions are the initial guess")->required()->check(existing_file());
  cmd->add_option("-o,--out", a->out, "output directory: model.yaml (the model at its equilibrium) and summary.json (default: out/<model name>-formfind)");
  cmd->add_option("--relax", a->relax, "dynamic-relaxation time [s]")->check(positive());
  cmd->add_option("--tolerance", a->tol, "node residual force tolerance [N]")->check(positive());
  cmd->add_flag("--on-ground", a->on_ground,
                "translate the result so its lowest node touches z = 0 and add gravity and an impulse ground (e = 0, mu = 0.8)");
  cmd->add_option("--settle", a->settle,
                  "with --on-ground: then let it settle under gravity on the ground for this long [s] and write the rest state")
      ->check(non_negative());
  cmd->callback([a] {
    namespace ts = tensegrity;
    auto f = ts::load_model_file(a->model);
    const auto prov = model_provenance(a->model, f);
    ts::FormFindingOptions o;
    o.relax_duration_s = a->relax;
    o.tolerance_N = a->tol;
    const auto r = ts::find_equilibrium(f.model, o);
    std::printf("equilibrium: max node residual %.3e N after %d Newton iterations, %d slack element(s)%s\n", r.max_node_residual_N,
                r.newton_iterations, r.slack_cables, r.converged ? "" : "  (NOT converged)");
    auto m = f.model;
    m.initial_state = r.state;
    if (a->on_ground) {
      double zmin = std::numeric_limits<double>::infinity();
      ts::Data d = ts::make_data(m);
      ts::forward_kinematics(m, m.initial_state, d);
      for (int i = 0; i < m.nnode(); ++i) zmin = std::min(zmin, d.p_W_node(2, i));
      for (int j = 0; j < m.nrod(); ++j) m.initial_state.p_WC(j).z() -= zmin;
      m.gravity_W = Eigen::Vector3d(0, 0, -9.81);
      m.ground.type = ts::Ground::Type::kImpulse;
      m.ground.restitution = 0.0;
      m.ground.friction = 0.8;
      if (a->settle > 0.0) {
        ts::SimulationOptions so = f.simulation;
        so.duration_s = a->settle;
        so.integrator = ts::Integrator::kRK4;
        so.output_interval_s = a->settle;
        const auto s = ts::simulate(m, so);
        m.initial_state = s.final_state;
        m.initial_state.time_s = 0.0;
        for (int j = 0; j < m.nrod(); ++j) {
          m.initial_state.v_WC(j).setZero();
          m.initial_state.w_W(j).setZero();
        }
        std::printf("settled on the ground for %g s: kinetic energy at the end %.3e J, %d slack element(s)\n", a->settle,
                    s.final_energy.kinetic_J, static_cast<int>((s.final_strain.array() < 0.0).count()));
      }
    }
    if (!r.converged) throw SimulationError("form finding did not converge (residual " + std::to_string(r.max_node_residual_N) + " N)", 0.0);
    const std::filesystem::path dir = a->out.empty() ? std::filesystem::path("out") / (f.model.name + "-formfind") : std::filesystem::path(a->out);
    io::ResultSet results(dir);  // model.yaml and summary.json appear together (docs/CLI.md "Outputs")
    char settle[32];
    std::snprintf(settle, sizeof settle, "%g", a->settle);
    io::write_file_atomic(results.file("model.yaml"), "# Equilibrium found by: tendyn formfind " + a->model + (a->on_ground ? " --on-ground" : "") +
                                                  (a->settle > 0 ? std::string(" --settle ") + settle : "") + "\n" +
                                                  ts::to_yaml(m, &f.simulation));
    const nlohmann::json j = {{"max_node_residual_N", r.max_node_residual_N},
                              {"newton_iterations", r.newton_iterations},
                              {"slack_elements", r.slack_cables},
                              {"converged", r.converged},
                              {"on_ground", a->on_ground},
                              {"settle_s", a->settle},
                              {"relax_s", a->relax},
                              {"tolerance_N", a->tol}};
    write_summary(results.file("summary.json"), j, prov);
    results.commit();
    std::printf("wrote %s and summary.json\n", (dir / "model.yaml").string().c_str());
  });
}

}  // namespace tendyn::cli
