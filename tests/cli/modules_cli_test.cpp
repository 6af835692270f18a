// The CDPR, tree and identify commands in a build with or without those modules (scripts/run.sh
// builds the program without them): built in, they answer --help; left out, any use says that this build
// left the module out and how to build it (exit 2), not "unknown command" (exit 1) or a crash.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <string>
#include <vector>

namespace {

using tendyn::test::run;

#define EXPECT_HAS(out, text) EXPECT_NE((out).find(text), std::string::npos) << (out)

#ifdef TENDYN_WITH_CDPR
constexpr bool kWithCdpr = true;
#else
constexpr bool kWithCdpr = false;
#endif
#ifdef TENDYN_WITH_TREE
constexpr bool kWithTree = true;
#else
constexpr bool kWithTree = false;
#endif
#ifdef TENDYN_WITH_IDENTIFY
constexpr bool kWithIdentify = true;
#else
constexpr bool kWithIdentify = false;
#endif

struct ModuleCommand {
  std::string args;    // after "tendyn"
  bool built;          // the module is in this build
  std::string module;  // as the message names it
  std::string option;  // the CMake option that builds it
};

}  // namespace

// Before, a build with TENDYN_WITH_CDPR/TREE=OFF answered "unknown command 'tension'" (exit 1).
TEST(ModuleCommands, LeftOutModuleSaysSoAndHowToBuildIt) {
  const std::vector<ModuleCommand> cmds = {
      {"tension --help", kWithCdpr, "CDPR", "TENDYN_WITH_CDPR"},
      {"tension " + tendyn::test::kModels + "cdpr/printer8.yaml", kWithCdpr, "CDPR", "TENDYN_WITH_CDPR"},
      {"cdpr workspace --help", kWithCdpr, "CDPR", "TENDYN_WITH_CDPR"},
      {"cdpr-experiment --help", kWithCdpr, "CDPR", "TENDYN_WITH_CDPR"},
      {"tree --help", kWithTree, "tree", "TENDYN_WITH_TREE"},
      {"tree simulate " + tendyn::test::kModels + "tree/arm6.yaml -q", kWithTree, "tree", "TENDYN_WITH_TREE"},
      {"identify --help", kWithIdentify, "identification", "TENDYN_WITH_IDENTIFY"},
  };
  for (const auto& c : cmds) {
    SCOPED_TRACE(c.args);
    if (c.built) {
      if (c.args.find("--help") == std::string::npos) continue;  // real runs are the module's own tests
      const auto r = run(c.args);
      EXPECT_EQ(r.code, 0) << r.out;
      EXPECT_EQ(r.out.find("built without"), std::string::npos) << r.out;
    } else {
      const auto r = run(c.args);
      EXPECT_EQ(r.code, 2) << r.out;
      EXPECT_HAS(r.out, "this tendyn was built without the " + c.module + " module (" + c.option + "=OFF");
      EXPECT_HAS(r.out, "scripts/build.sh");
    }
  }
  // listed in --help either way
  const auto help = run("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_HAS(help.out, "tension");
  EXPECT_HAS(help.out, "cdpr-experiment");
  EXPECT_HAS(help.out, "tree");
  EXPECT_HAS(help.out, "identify");
}
