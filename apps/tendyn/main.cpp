// tendyn: command-line front end. Exit codes (docs/CLI.md): 0 success (also --help, --version),
// 1 usage error (the command line does not parse: unknown command or option, missing or malformed
// argument, a value outside its declared range), 2 bad input (a missing input file, a model file
// error, values a command rejects), 3 simulation failure (blow-up, constraint), 4 internal error.
#include <tendyn/io/signal_cleanup.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/version.hpp>

#include "resources.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"

namespace {

/// Optimal-string-alignment distance (Levenshtein with adjacent transpositions).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// When the command line names a subcommand that does not exist (the first word after a command
/// that takes subcommands and no positional arguments), prints "unknown command 'X'; did you mean
/// 'Y'?" (or the list of commands) and returns true.
bool report_unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  const CLI::App* cur = &app;
  std::string path = "tendyn";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;  // the command levels take flags only
    const auto subs = cur->get_subcommands([](const CLI::App*) { return true; });
    if (subs.empty()) return false;
    const auto match = std::find_if(subs.begin(), subs.end(), [&](const CLI::App* s) { return s->check_name(word); });
    if (match != subs.end()) {
      cur = *match;
      path += " " + cur->get_name();
      continue;
    }
    if (!cur->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty()) return false;
    std::string best, names;
    std::size_t best_d = 0;
    for (const auto* s : subs) {
      const std::string& name = s->get_name();
      names += (names.empty() ? "" : ", ") + name;
      const std::size_t d = name.rfind(word, 0) == 0 ? 0 : edit_distance(word, name);
      if (best.empty() || d < best_d) best = name, best_d = d;
    }
    const std::size_t tolerance = std::max<std::size_t>(1, std::min<std::size_t>(3, word.size() / 3));
    if (best_d <= tolerance)
      std::fprintf(stderr, "%s: unknown command '%s'; did you mean '%s'?\n", path.c_str(), word.c_str(), best.c_str());
    else
      std::fprintf(stderr, "%s: unknown command '%s' (commands: %s)\n", path.c_str(), word.c_str(), names.c_str());
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  tendyn::io::install_signal_cleanup();  // SIGINT/SIGTERM remove a run's partial outputs
  CLI::App app{"tendyn: modelling, simulation, planning and control of rod-and-cable robots"};
  app.set_version_flag("--version", std::string(tendyn::kVersion));
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();  // every --help shows the defaults (inherited by the subcommands)
  app.footer([] {
    const auto docs = tendyn::cli::doc_dir();
    const std::string where = docs.empty() ? std::string("docs/ of the tendyn sources (not installed here)") : docs.string();
    return "Exit codes: 0 ok, 1 usage error, 2 bad input, 3 simulation failure, 4 internal error.\n"
           "Models: a file, or the name of a shipped model in " +
           tendyn::cli::data_dir_hint() +
           "/models (tendyn simulate three_bar).\n"
           "Documentation: " +
           where + " (CLI.md: the commands, MODEL_FORMAT.md: model files, INSTALL.md).";
  });
  tendyn::cli::register_simulate(app);
  tendyn::cli::register_sweep(app);
  tendyn::cli::register_validate(app);
  tendyn::cli::register_export(app);
  tendyn::cli::register_import(app);
  tendyn::cli::register_plan(app);
  tendyn::cli::register_formfind(app);
#ifdef TENDYN_WITH_IDENTIFY
  tendyn::cli::register_identify(app);
#else
  tendyn::cli::register_missing_module(app, "identify", "identify model parameters from recorded motion", "identification",
                                       "TENDYN_WITH_IDENTIFY");
#endif
  tendyn::cli::register_study(app);
  tendyn::cli::register_view(app);
  tendyn::cli::register_render(app);
  tendyn::cli::register_serve(app);
#ifdef TENDYN_WITH_CDPR
  tendyn::cli::register_tension(app);
  tendyn::cli::register_cdpr_experiment(app);
  tendyn::cli::register_cdpr_workspace(app);
  tendyn::cli::register_cdpr_design(app);
#else
  tendyn::cli::register_missing_module(app, "tension", "cable tension distribution for cable-driven parallel robots", "CDPR",
                                       "TENDYN_WITH_CDPR");
  tendyn::cli::register_missing_module(app, "cdpr-experiment", "document 002's two-stage printer experiment", "CDPR", "TENDYN_WITH_CDPR");
  tendyn::cli::register_missing_module(app, "cdpr", "cable-driven parallel robots: workspace and design tools", "CDPR", "TENDYN_WITH_CDPR");
#endif
#ifdef TENDYN_WITH_TREE
  tendyn::cli::register_tree(app);
#else
  tendyn::cli::register_missing_module(app, "tree", "tree-structured robots", "tree", "TENDYN_WITH_TREE");
#endif
#if defined(TENDYN_WITH_TREE) || defined(TENDYN_WITH_CDPR)
#endif
  tendyn::cli::require_finite_numbers(app);  // no nan/inf in any number option
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version: 0
    if (tendyn::cli::missing_file_reported()) {
      std::fprintf(stderr, "tendyn: error: %s\n", e.what());
      return 2;
    }
    if (report_unknown_subcommand(app, argc, argv)) return 1;
    app.exit(e);  // CLI11's message and "Run with --help"
    return 1;
  } catch (const tendyn::SimulationError& e) {
    std::fprintf(stderr, "tendyn: simulation failed: %s\n", e.what());
    return 3;
  } catch (const tendyn::Error& e) {
    std::fprintf(stderr, "tendyn: error: %s\n", e.what());
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // a path the run cannot read or write (permissions, a file where a directory is expected, a
    // full disk): bad input in the user's environment, with the path(s) in the message
    std::fprintf(stderr, "tendyn: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tendyn: internal error: %s\n", e.what());
    return 4;
  }
  return 0;
}
