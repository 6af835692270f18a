#include "commands.hpp"
namespace tendyn::cli {
void register_sweep(CLI::App& /*app*/) {}
}  // namespace tendyn::cli
