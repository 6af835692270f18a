// Subcommand registration for the tendyn program. Each register_* adds one subcommand
// (with its options and --help) to the root app; the callback runs the command and throws
// tendyn::Error (exit 2, input) or tendyn::SimulationError (exit 3) on failure.
#pragma once
#include <CLI/CLI.hpp>

namespace tendyn::cli {
void register_simulate(CLI::App& app);
void register_sweep(CLI::App& app);
void register_validate(CLI::App& app);
void register_export(CLI::App& app);
void register_import(CLI::App& app);  // MJCF -> model.yaml
void register_tension(CLI::App& app);
void register_tension_interference(CLI::App& tension);  // tension interference (cmd_interference.cpp)
void register_tree(CLI::App& app);
void register_plan(CLI::App& app);
void register_formfind(CLI::App& app);
void register_identify(CLI::App& app);  // tensegrity; dispatches CDPR / tree models by kind
void register_study(CLI::App& app);
void register_cdpr_experiment(CLI::App& app);
void register_cdpr_workspace(CLI::App& app);  // tendyn cdpr workspace
void register_cdpr_design(CLI::App& app);     // tendyn cdpr design
/// The "cdpr" command group (created by the first command registered in it).
CLI::App* cdpr_group(CLI::App& app);
void register_view(CLI::App& app);    // view + plot
void register_render(CLI::App& app);  // headless WebM / PNG frames of a viewer page
void register_serve(CLI::App& app);
#if defined(TENDYN_WITH_TREE) || defined(TENDYN_WITH_CDPR)
#endif
}  // namespace tendyn::cli
