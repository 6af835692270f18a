#include "commands.hpp"
namespace tendyn::cli {
void register_export(CLI::App& /*app*/) {}
}  // namespace tendyn::cli
