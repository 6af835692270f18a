// tendyn export MODEL.yaml --mjcf OUT.xml | --yaml OUT.yaml
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/tensegrity/mjcf.hpp>

#include <cstdio>
#include <memory>

#include "cli_util.hpp"
#include "commands.hpp"
#include "tensegrity_cli.hpp"

namespace tendyn::cli {

namespace {
struct ExportArgs {
  std::string model, mjcf, yaml, integrator = "RK4";
  double timestep = 1e-3, rod_radius = 0.005;
};
}  // namespace

void register_export(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand("export", "Write a tensegrity model as MuJoCo MJCF or as per-element YAML");
  cmd->add_option("model", a->model, "model file (YAML; default: the built-in 3-prism)")->transform(model_file());
  cmd->add_option(
      "--mjcf", a->mjcf,
      "write MuJoCo MJCF here (rods: free bodies, cables: spatial tendons; default: not written); what MuJoCo 2.2.2 cannot represent is listed on stderr");
  cmd->add_option("--yaml", a->yaml, "write the model in per-element YAML here (default: not written)");
  cmd->add_option("--mj-timestep", a->timestep, "MJCF option timestep [s]")->check(positive());
  cmd->add_option("--mj-integrator", a->integrator, "MJCF integrator: RK4 or Euler");
  cmd->add_option("--mj-rod-radius", a->rod_radius, "MJCF rod capsule radius [m] (contact with the ground plane)")->check(positive());
  cmd->callback([a] {
    if (a->mjcf.empty() && a->yaml.empty()) throw Error("export: give --mjcf FILE and/or --yaml FILE");
    const auto f = load_model_or_default(a->model);
    if (!a->mjcf.empty()) {
      tensegrity::MjcfOptions o;
      o.timestep_s = a->timestep;
      try {
        o.integrator = tensegrity::mjcf_integrator_from_string(a->integrator);
      } catch (const Error& e) {
        throw Error(std::string("export: --mj-integrator: ") + e.what());
      }
      o.rod_radius_m = a->rod_radius;
      const auto mj = tensegrity::export_mjcf(f.model, o);
      io::write_file_atomic(a->mjcf, mj.xml);
      for (const auto& note : mj.notes) std::fprintf(stderr, "export: %s\n", note.c_str());
      std::printf("wrote %s\n", a->mjcf.c_str());
    }
    if (!a->yaml.empty()) {
      io::write_file_atomic(a->yaml, tensegrity::to_yaml(f.model, &f.simulation));
      std::printf("wrote %s\n", a->yaml.c_str());
    }
  });
}

}  // namespace tendyn::cli
