// tendyn: command-line front end. Exit codes: 0 success, 1 usage error (CLI11),
// 2 bad input (model file, arguments), 3 simulation failure (blow-up, constraint), 4 internal error.
#include <tendyn/core/error.hpp>
#include <tendyn/version.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tendyn: modelling, simulation, planning and control of rod-and-cable robots"};
  app.set_version_flag("--version", std::string(tendyn::kVersion));
  app.require_subcommand(1);
  tendyn::cli::register_simulate(app);
  tendyn::cli::register_sweep(app);
  tendyn::cli::register_validate(app);
  tendyn::cli::register_export(app);
  tendyn::cli::register_plan(app);
  tendyn::cli::register_formfind(app);
  tendyn::cli::register_study(app);
  tendyn::cli::register_view(app);
  tendyn::cli::register_serve(app);
#ifdef TENDYN_WITH_CDPR
  tendyn::cli::register_tension(app);
  tendyn::cli::register_cdpr_experiment(app);
#endif
#ifdef TENDYN_WITH_TREE
  tendyn::cli::register_tree(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const tendyn::SimulationError& e) {
    std::fprintf(stderr, "tendyn: simulation failed: %s\n", e.what());
    return 3;
  } catch (const tendyn::Error& e) {
    std::fprintf(stderr, "tendyn: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tendyn: internal error: %s\n", e.what());
    return 4;
  }
  return 0;
}
