// tendyn validate MODEL.yaml: load, check, and describe a model without simulating it.
#include <tendyn/tensegrity/dynamics.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tensegrity_cli.hpp"

namespace tendyn::cli {

void register_validate(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("validate", "Check a tensegrity model file (YAML or MJCF .xml) and print what it describes");
  cmd->add_option("model", *path, "model file (YAML, or MuJoCo MJCF by the extension .xml) or a shipped model's name (three_bar)")
      ->required()
      ->transform(model_file());
  cmd->callback([path] {
    namespace ts = tensegrity;
    const auto f = ts::load_model_file(*path);
    const auto& m = f.model;
    auto d = ts::make_data(m);
    ts::compute_derivative(m, m.initial_state, d);
    const auto e = ts::compute_energy(m, m.initial_state, d);
    int anchors = 0;
    for (const auto& n : m.nodes) anchors += n.is_anchor() ? 1 : 0;
    std::printf("%s: OK\nmodel '%s': %d rods (%.6g kg), %d nodes (%d fixed), %d elements, gravity (%g, %g, %g) m/s^2\n", path->c_str(),
                m.name.c_str(), m.nrod(), m.total_mass(), m.nnode(), anchors, m.ncable(), m.gravity_W.x(), m.gravity_W.y(),
                m.gravity_W.z());
    std::printf("initial: elastic energy %.6g J, %d slack element(s)\n", e.elastic_J,
                static_cast<int>(std::count(d.cable_slack.begin(), d.cable_slack.end(), 1)));
    std::printf("%-12s %-16s %10s %10s %10s %10s\n", "element", "nodes", "k [N/m]", "l0 [m]", "l [m]", "strain[%]");
    for (int k = 0; k < m.ncable(); ++k) {
      const auto& c = m.cables[static_cast<std::size_t>(k)];
      const std::string nodes = m.node_ids[static_cast<std::size_t>(c.node[0])] + "-" + m.node_ids[static_cast<std::size_t>(c.node[1])];
      std::printf("%-12s %-16s %10.4g %10.4g %10.4g %10.3f%s\n", m.cable_ids[static_cast<std::size_t>(k)].c_str(), nodes.c_str(),
                  c.stiffness_Npm, d.cable_rest_length_m[k], d.cable_length_m[k],
                  display_value(100 * ts::cable_strain(d, k), 1.0, 0.5e-3),  // never "-0.000"
                  c.tension_only ? "" : " (pushes too)");
    }
  });
}

}  // namespace tendyn::cli
