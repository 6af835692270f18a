// tendyn import ROBOT.xml -o DIR: a MuJoCo MJCF model as a tendyn model file (DIR/model.yaml),
// printing what was mapped how and what was skipped (docs/MODEL_FORMAT.md, "MJCF import").
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/tensegrity/mjcf_import.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli_util.hpp"
#include "commands.hpp"

namespace tendyn::cli {

namespace {
struct ImportArgs {
  std::string model, out;
  bool ignore_actuators = false;
};
}  // namespace

void register_import(CLI::App& app) {
  auto a = std::make_shared<ImportArgs>();
  auto* cmd = app.add_subcommand("import", "Read a MuJoCo MJCF model (.xml) and write it as a tendyn model file (DIR/model.yaml)");
  cmd->add_option("model", a->model, "MJCF file (MuJoCo XML)")->required()->check(existing_file());
  cmd->add_option("-o,--out", a->out, "output directory (model.yaml is written there)")->required();
  cmd->add_flag("--ignore-actuators", a->ignore_actuators,
                "skip <actuator> elements with a note (without this flag tendon actuators become force actuators, others are an error)");
  cmd->callback([a] {
    tensegrity::MjcfImportOptions o;
    o.ignore_actuators = a->ignore_actuators;
    tensegrity::MjcfImportReport rep;
    auto f = tensegrity::load_mjcf_file(a->model, o, &rep);
    for (const auto& l : rep.mapped) std::printf("import: %s\n", l.c_str());
    for (const auto& l : rep.skipped) std::printf("import: %s\n", l.c_str());
    // rods whose import is an ideal rod in disguise go back to the documents' form (shorter YAML);
    // the others keep their full inertia, body points and end-caps (docs/MODEL_FORMAT.md, "Real rods")
    const int general = tensegrity::reduce_to_ideal_rods(f.model);
    if (general > 0)
      std::printf("import: %d of %d rods keep a full inertia tensor, off-axis points or end-caps (YAML keys inertia, on, radius)\n",
                  general, f.model.nrod());
    std::filesystem::create_directories(a->out);
    const auto path = std::filesystem::path(a->out) / "model.yaml";
    io::write_file_atomic(path, tensegrity::to_yaml(f.model, &f.simulation));
    std::printf("wrote %s (%d rods, %d nodes, %d cables)\n", path.string().c_str(), f.model.nrod(), f.model.nnode(), f.model.ncable());
  });
}

}  // namespace tendyn::cli
