// ResultSet: files appear together, a failed run leaves the previous set, stale staging
// directories of dead processes are removed.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/output_lock.hpp>
#include <tendyn/io/result_set.hpp>

#include <cstdlib>
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
fs::path fresh_rs(const std::string& name) { return tendyn::test::fresh_dir("rs_" + name); }
using tendyn::test::slurp;
int count_partials(const fs::path& parent) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(parent))
    if (e.path().filename().string().find(".partial") != std::string::npos) ++n;
  return n;
}

TEST(ResultSet, NewDirectoryAppearsOnlyAtCommit) {
  const auto root = fresh_rs("new");
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
  const auto root = fresh_rs("fail");
  const auto out = root / "run";
  fs::create_directories(out);
  std::ofstream(out / "results.csv") << "old csv\n";
  std::ofstream(out / "summary.json") << "old summary\n";
  try {
    ResultSet rs(out);
    tendyn::io::write_file_atomic(rs.file("results.csv"), "new csv\n");
    throw tendyn::Error("disk full");  // the last write fails
  } catch (const tendyn::Error&) {}
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
  const auto root = fresh_rs("stale");
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
  const auto root = fresh_rs("slash");
  ResultSet rs(root.string() + "/run/");
  EXPECT_EQ(rs.dir(), root / "run");
  EXPECT_EQ(rs.staging(), ResultSet::staging_name(root / "run", ::getpid()));
  fs::remove_all(root);
}

// Before: commit() renamed the staged files one by one; when a rename failed (here: a directory
// where summary.json goes) the new results.csv was already in place beside the old summary.
TEST(ResultSet, UnreplaceableNameIsRefusedBeforeAnythingMoves) {
  const auto root = fresh_rs("blocked");
  const auto out = root / "run";
  fs::create_directories(out / "summary.json");
  std::ofstream(out / "results.csv") << "old csv\n";
  {
    ResultSet rs(out);
    tendyn::io::write_file_atomic(rs.file("results.csv"), "new csv\n");
    tendyn::io::write_file_atomic(rs.file("summary.json"), "new summary\n");
    try {
      rs.commit();
      ADD_FAILURE() << "a directory in the way was replaced";
    } catch (const tendyn::Error& e) {
      EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(slurp(out / "results.csv"), "old csv\n");
  EXPECT_TRUE(fs::is_directory(out / "summary.json"));
  EXPECT_EQ(count_partials(root), 0);
  fs::remove_all(root);
}

// A rename that fails part-way (injected: the second of three files) puts every name back to its
// previous file: the old results.csv again beside the old summary.json, the new scene.json gone.
TEST(ResultSet, RenameFailingPartWayRestoresThePreviousSet) {
  const auto root = fresh_rs("rollback");
  const auto out = root / "run";
  fs::create_directories(out);
  std::ofstream(out / "a_results.csv") << "old csv\n";
  std::ofstream(out / "b_summary.json") << "old summary\n";
  std::ofstream(out / "view.html") << "kept\n";
  ::setenv("TENDYN_TEST_FAIL_RENAME", "b_summary.json", 1);
  try {
    ResultSet rs(out);
    tendyn::io::write_file_atomic(rs.file("a_results.csv"), "new csv\n");
    tendyn::io::write_file_atomic(rs.file("b_summary.json"), "new summary\n");
    tendyn::io::write_file_atomic(rs.file("c_scene.json"), "new scene\n");
    rs.commit();
    ADD_FAILURE() << "the injected rename failure did not show";
  } catch (const tendyn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("injected by TENDYN_TEST_FAIL_RENAME"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("are left as they were"), std::string::npos) << e.what();
  }
  ::unsetenv("TENDYN_TEST_FAIL_RENAME");
  EXPECT_EQ(slurp(out / "a_results.csv"), "old csv\n");
  EXPECT_EQ(slurp(out / "b_summary.json"), "old summary\n");
  EXPECT_EQ(slurp(out / "view.html"), "kept\n");
  EXPECT_FALSE(fs::exists(out / "c_scene.json"));
  EXPECT_EQ(count_partials(root), 0);
  // the same set without the failure: all new, the mode of a replaced file kept
  ASSERT_EQ(::chmod((out / "a_results.csv").c_str(), 0600), 0);
  {
    ResultSet rs(out);
    tendyn::io::write_file_atomic(rs.file("a_results.csv"), "new csv\n");
    tendyn::io::write_file_atomic(rs.file("b_summary.json"), "new summary\n");
    rs.commit();
  }
  EXPECT_EQ(slurp(out / "a_results.csv"), "new csv\n");
  EXPECT_EQ(slurp(out / "b_summary.json"), "new summary\n");
  struct stat st {};
  ASSERT_EQ(::stat((out / "a_results.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(count_partials(root), 0);
  fs::remove_all(root);
}

// Before: two processes writing the same directory at once interleaved their renames. The second
// is now refused while the first holds the set, with the directory and the holder named.
TEST(ResultSet, SecondProcessOnTheSameDirectoryIsRefused) {
  const auto root = fresh_rs("lock");
  const auto out = root / "run";
  int to_parent[2], to_child[2];
  ASSERT_EQ(::pipe(to_parent), 0);
  ASSERT_EQ(::pipe(to_child), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    int code = 0;
    try {
      ResultSet rs(out);
      tendyn::io::write_file_atomic(rs.file("a.csv"), "child\n");
      char c = 'r';
      if (::write(to_parent[1], &c, 1) != 1) code = 3;
      if (::read(to_child[0], &c, 1) != 1) code = 4;  // wait for the parent's attempt
      rs.commit();
    } catch (...) {
      code = 2;
    }
    ::_exit(code);
  }
  char c = 0;
  ASSERT_EQ(::read(to_parent[0], &c, 1), 1);
  try {
    ResultSet rs(out);
    tendyn::io::write_file_atomic(rs.file("a.csv"), "parent\n");
    rs.commit();
    ADD_FAILURE() << "a second process wrote into the directory while the first held it";
  } catch (const tendyn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("output '" + out.string() + "' is in use by another run (pid " + std::to_string(child)),
              std::string::npos)
        << e.what();
  }
  ASSERT_EQ(::write(to_child[1], &c, 1), 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(slurp(out / "a.csv"), "child\n");
  EXPECT_FALSE(fs::exists(root / "run.lock"));  // released with the set
  {
    ResultSet rs(out);  // free again
    tendyn::io::write_file_atomic(rs.file("a.csv"), "parent\n");
    rs.commit();
  }
  EXPECT_EQ(slurp(out / "a.csv"), "parent\n");
  for (int fd : {to_parent[0], to_parent[1], to_child[0], to_child[1]}) ::close(fd);
  fs::remove_all(root);
}

// Within one process the lock is shared (the command's and its ResultSet's); the file goes with
// the last holder.
TEST(OutputLock, SharedWithinTheProcessAndRemovedWithTheLastHolder) {
  const auto root = fresh_rs("lock_nested");
  {
    tendyn::io::OutputLock outer(root / "run");
    EXPECT_EQ(outer.lock_file(), root / "run.lock");
    EXPECT_TRUE(fs::exists(root / "run.lock"));
    {
      ResultSet rs(root / "run");
      rs.commit();
    }
    EXPECT_TRUE(fs::exists(root / "run.lock"));
    EXPECT_EQ(slurp(root / "run.lock"), std::to_string(::getpid()) + "\n");
  }
  EXPECT_FALSE(fs::exists(root / "run.lock"));
  fs::remove_all(root);
}

// Before: with "-o link" and the link naming a directory on another file system, the staging
// directory was made beside the link and every rename failed (EXDEV). It is now made beside the
// resolved directory. Both a new and an existing target directory.
TEST(ResultSet, SymlinkToAnotherFileSystemIsWrittenThrough) {
  const fs::path shm = "/dev/shm";
  const auto root = fresh_rs("xdev");
  struct stat a {
  }, b{};
  if (::stat(shm.c_str(), &b) != 0 || ::stat(root.c_str(), &a) != 0 || a.st_dev == b.st_dev)
    GTEST_SKIP() << "no /dev/shm on another file system than " << root;
  const auto far = shm / ("tendyn_rs_xdev_" + std::to_string(::getpid()));
  fs::remove_all(far);
  fs::create_directories(far);
  fs::create_symlink(far / "new", root / "to_new");
  fs::create_directories(far / "old");
  std::ofstream(far / "old" / "a.csv") << "old\n";
  fs::create_symlink(far / "old", root / "to_old");
  for (const char* link : {"to_new", "to_old"}) {
    ResultSet rs(root / link);
    EXPECT_EQ(rs.staging().parent_path(), far) << link;
    tendyn::io::write_file_atomic(rs.file("a.csv"), "new\n");
    EXPECT_NO_THROW(rs.commit()) << link;
  }
  EXPECT_EQ(slurp(root / "to_new" / "a.csv"), "new\n");
  EXPECT_EQ(slurp(root / "to_old" / "a.csv"), "new\n");
  EXPECT_TRUE(fs::is_symlink(root / "to_new"));
  EXPECT_EQ(count_partials(root), 0);
  EXPECT_EQ(count_partials(far), 0);
  fs::remove_all(far);
  fs::remove_all(root);
}

}  // namespace
