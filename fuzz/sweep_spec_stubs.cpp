// The embedded viewer bundle is generated into the program's build folder (apps/tendyn); the
// sweep-spec fuzz target links viewer_cli.cpp (through cli_util.cpp) but never writes HTML: empty
// bundle, as in a build with TENDYN_WITH_VIEWER=OFF.
#include <string_view>

namespace tendyn::cli {
std::string_view viewer_js() { return {}; }
std::string_view viewer_css() { return {}; }
}  // namespace tendyn::cli
