#include "commands.hpp"
namespace tendyn::cli {
void register_simulate(CLI::App& /*app*/) {}
}  // namespace tendyn::cli
