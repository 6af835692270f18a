// AtomicFile: exclusive creation of the partial file (a planted symlink is never followed),
// removal without commit, the injected write failure.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// fixtures shared with the CLI tests (tests/support/cli_run.hpp); the prefix keeps the folders apart
fs::path fresh(const std::string& name) { return tendyn::test::fresh_dir("io_" + name); }
using tendyn::test::slurp;

TEST(AtomicFile, PlantedPartialSymlinkIsNotFollowed) {
  const auto d = fresh("symlink");
  const auto target = d / "victim.txt";
  std::ofstream(target) << "precious\n";
  fs::create_symlink(target, d / "summary.json.partial");
  tendyn::io::write_file_atomic(d / "summary.json", "{}\n");
  EXPECT_EQ(slurp(target), "precious\n");                 // the symlink's target is untouched
  EXPECT_EQ(slurp(d / "summary.json"), "{}\n");           // the new file is a regular file
  EXPECT_FALSE(fs::is_symlink(d / "summary.json"));
  EXPECT_FALSE(fs::exists(fs::symlink_status(d / "summary.json.partial")));
  fs::remove_all(d);
}

TEST(AtomicFile, WithoutCommitThePreviousFileStays) {
  const auto d = fresh("nocommit");
  std::ofstream(d / "a.csv") << "old\n";
  {
    tendyn::io::AtomicFile f(d / "a.csv");
    f.stream() << "new\n";
    EXPECT_TRUE(fs::exists(d / "a.csv.partial"));
  }
  EXPECT_EQ(slurp(d / "a.csv"), "old\n");
  EXPECT_FALSE(fs::exists(d / "a.csv.partial"));
  fs::remove_all(d);
}

TEST(AtomicFile, InjectedWriteFailureThrowsAndKeepsThePreviousFile) {
  const auto d = fresh("inject");
  std::ofstream(d / "summary.json") << "old\n";
  ::setenv("TENDYN_TEST_FAIL_WRITE", "summary.json", 1);
  EXPECT_THROW(tendyn::io::write_file_atomic(d / "summary.json", "new\n"), tendyn::Error);
  ::unsetenv("TENDYN_TEST_FAIL_WRITE");
  EXPECT_EQ(slurp(d / "summary.json"), "old\n");
  EXPECT_FALSE(fs::exists(d / "summary.json.partial"));
  fs::remove_all(d);
}

TEST(AtomicFile, LargeContentIsWrittenExactly) {
  const auto d = fresh("large");
  std::string text;
  for (int i = 0; i < 200000; ++i) text += std::to_string(i) + ",";
  tendyn::io::AtomicFile f(d / "big.csv");
  f.stream() << text;
  f.commit();
  EXPECT_EQ(slurp(d / "big.csv"), text);
  fs::remove_all(d);
}

}  // namespace
