// Placeholder: the tension subcommand is not implemented yet.
#include "commands.hpp"

namespace tendyn::cli {
void register_tension(CLI::App& /*app*/) {}
}  // namespace tendyn::cli
