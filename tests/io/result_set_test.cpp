// ResultSet: files appear together, a failed run leaves the previous set, stale staging
// directories of dead processes are removed.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/result_set.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tendyn::io::ResultSet;

// fixtures shared with the CLI tests (tests/support/cli_run.hpp); the prefix keeps the folders apart
fs::path fresh(const std::string& name) { return tendyn::test::fresh_dir("rs_" + name); }
using tendyn::test::slurp;
int count_partials(const fs::path& parent) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(parent))
    if (e.path().filename().string().find(".partial") != std::string::npos) ++n;
  return n;
}

TEST(ResultSet, NewDirectoryAppearsOnlyAtCommit) {
  const auto root = fresh("new");
  const auto out = root / "run";
  {
    ResultSet rs(out);
    tendyn::io::write_file_atomic(rs.file("a.csv"), "a\n");
    tendyn::io::write_file_atomic(rs.file("b.json"), "b\n");
    EXPECT_FALSE(fs::exists(out));
    struct stat st {};
    ASSERT_EQ(::stat(rs.staging().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    rs.commit();
  }
  EXPECT_EQ(slurp(out / "a.csv"), "a\n");
  EXPECT_EQ(slurp(out / "b.json"), "b\n");
  EXPECT_EQ(count_partials(root), 0);
  fs::remove_all(root);
}

TEST(ResultSet, FailedRunLeavesThePreviousFilesAndNoMix) {
  const auto root = fresh("fail");
  const auto out = root / "run";
  fs::create_directories(out);
  std::ofstream(out / "results.csv") << "old csv\n";
  std::ofstream(out / "summary.json") << "old summary\n";
  try {
    ResultSet rs(out);
    tendyn::io::write_file_atomic(rs.file("results.csv"), "new csv\n");
    throw tendyn::Error("disk full");  // the last write fails
  } catch (const tendyn::Error&) {
  }
  EXPECT_EQ(slurp(out / "results.csv"), "old csv\n");
  EXPECT_EQ(slurp(out / "summary.json"), "old summary\n");
  EXPECT_EQ(count_partials(root), 0);
  {
    ResultSet rs(out);  // an existing directory: files replaced one by one at commit
    tendyn::io::write_file_atomic(rs.file("results.csv"), "new csv\n");
    tendyn::io::write_file_atomic(rs.file("summary.json"), "new summary\n");
    rs.commit();
  }
  EXPECT_EQ(slurp(out / "results.csv"), "new csv\n");
  EXPECT_EQ(slurp(out / "summary.json"), "new summary\n");
  EXPECT_EQ(count_partials(root), 0);
  fs::remove_all(root);
}

TEST(ResultSet, StaleStagingOfADeadProcessIsRemoved) {
  const auto root = fresh("stale");
  const auto out = root / "run";
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);  // a pid that is no longer alive
  const auto stale = ResultSet::staging_name(out, child);
  fs::create_directories(stale);
  std::ofstream(stale / "results.csv.partial") << std::string(1 << 16, 'x');
  const auto alive = ResultSet::staging_name(out, ::getppid());  // a live process's: kept
  fs::create_directories(alive);
  {
    ResultSet rs(out);
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(alive));
  }
  fs::remove_all(root);
}

TEST(ResultSet, TrailingSlashNamesTheSameDirectory) {
  const auto root = fresh("slash");
  ResultSet rs(root.string() + "/run/");
  EXPECT_EQ(rs.dir(), root / "run");
  EXPECT_EQ(rs.staging(), ResultSet::staging_name(root / "run", ::getpid()));
  fs::remove_all(root);
}

}  // namespace
