#include "commands.hpp"
namespace tendyn::cli {
void register_validate(CLI::App& /*app*/) {}
}  // namespace tendyn::cli
