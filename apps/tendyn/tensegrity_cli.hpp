// Options shared by the tensegrity subcommands (simulate, sweep, export).
#pragma once
#include <tendyn/tensegrity/model_io.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace tendyn::cli {

/// Command-line overrides of the simulation options; unset values keep the model file's.
struct SimOverrides {
  std::optional<double> duration, dt, output_interval, strain_limit, rtol, atol;
  std::optional<std::string> integrator;
  void add_to(CLI::App& app);
  void apply(tensegrity::SimulationOptions& o) const;
};

/// Loads MODEL.yaml, or the built-in default (document 000's 3-prism) when `path` is empty.
tensegrity::ModelFile load_model_or_default(const std::string& path);

/// The provenance block of summary.json (cli_util.hpp provenance()) for the model loaded from
/// `path`: the file's bytes, or for the built-in model (empty path) its YAML as export writes it.
nlohmann::json model_provenance(const std::string& path, const tensegrity::ModelFile& file);

}  // namespace tendyn::cli
