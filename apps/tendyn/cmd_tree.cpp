// Placeholder: the tree subcommand is not implemented yet.
#include "commands.hpp"

namespace tendyn::cli {
void register_tree(CLI::App& /*app*/) {}
}  // namespace tendyn::cli
