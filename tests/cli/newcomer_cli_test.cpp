// A newcomer's first commands: model names that resolve against the shipped models, a wrong
// name that lists the available ones, and a --help that says where the documentation is.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <filesystem>
#include <string>

namespace fs = std::filesystem;

namespace {

using tendyn::test::fresh_dir;
using tendyn::test::run_shell;
using tendyn::test::slurp;

#define EXPECT_HAS(out, text) EXPECT_NE((out).find(text), std::string::npos) << (out)

// Runs the program from inside `dir` (a directory without model files), stdout and stderr together.
tendyn::test::CliRun run_in(const fs::path& dir, const std::string& args) {
  return run_shell("cd '" + dir.string() + "' && " + std::string(TENDYN_CLI) + " " + args + " 2>&1");
}

}  // namespace

// Before: "no such file: 'three_bar'" (exit 2), although models/three_bar.yaml is shipped.
TEST(ModelNames, BareNameResolvesToTheShippedModel) {
  const auto d = fresh_dir("model_name");
  const auto r = run_in(d, "simulate three_bar --duration 0.02 -q -o out");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string summary = slurp(d / "out" / "summary.json");
  EXPECT_HAS(summary, "models/three_bar.yaml");
  // the same run with the file's path: the same model (provenance hash of the same bytes)
  const auto r2 = run_in(d, "simulate " + std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml --duration 0.02 -q -o out2");
  ASSERT_EQ(r2.code, 0) << r2.out;
  const auto hash = [](const std::string& s) {
    const auto at = s.find("model_fnv1a64");
    return at == std::string::npos ? std::string() : s.substr(at, 40);
  };
  EXPECT_FALSE(hash(summary).empty());
  EXPECT_EQ(hash(summary), hash(slurp(d / "out2" / "summary.json")));
}

// A name in a subdirectory of the models, and the path as the README writes it (models/...).
TEST(ModelNames, SubdirectoryNameAndModelsPathResolve) {
  const auto d = fresh_dir("model_name_sub");
  EXPECT_EQ(run_in(d, "validate models/prism3.yaml").code, 0);
  EXPECT_EQ(run_in(d, "validate prism3").code, 0);
#ifdef TENDYN_WITH_TREE
  const auto r = run_in(d, "tree info tree/double_pendulum");
  EXPECT_EQ(r.code, 0) << r.out;
#endif
}

// Before: "no such file: 'three_barr'" with no hint of where the models are.
TEST(ModelNames, WrongNameExits2ListingWhereItLookedAndTheNames) {
  const auto d = fresh_dir("model_name_wrong");
  const auto r = run_in(d, "simulate three_barr --duration 0.02 -q -o out");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "'three_barr'");
  EXPECT_HAS(r.out, "/share/tendyn/models/three_barr.yaml");
  EXPECT_HAS(r.out, "three_bar, three_bar_lying");
  EXPECT_HAS(r.out, "prism3");
  EXPECT_FALSE(fs::exists(d / "out"));
}

// A path with directories or an extension is a path: no name lookup, the old message.
TEST(ModelNames, MissingPathIsNotLookedUpAsAName) {
  const auto d = fresh_dir("model_path_missing");
  const auto r = run_in(d, "simulate nowhere/three_bar.yaml --duration 0.02 -q -o out");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "no such file: 'nowhere/three_bar.yaml'");
}

// Before: the footer cited docs/CLI.md, which was not installed.
TEST(HelpFooter, NamesTheDocumentationDirectory) {
  const auto r = tendyn::test::run_cli("--help");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "CLI.md");
  EXPECT_HAS(r.out, "share/doc/tendyn");
}
