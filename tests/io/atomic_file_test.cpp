// AtomicFile: exclusive creation of the partial file (a planted symlink is never followed),
// removal without commit, the injected write failure.
#include <gtest/gtest.h>

#include "support/cli_run.hpp"

#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// fixtures shared with the CLI tests (tests/support/cli_run.hpp); the prefix keeps the folders apart
fs::path fresh_io(const std::string& name) { return tendyn::test::fresh_dir("io_" + name); }
using tendyn::test::slurp;

TEST(AtomicFile, PlantedPartialSymlinkIsNotFollowed) {
  const auto d = fresh_io("symlink");
  const auto target = d / "victim.txt";
  std::ofstream(target) << "precious\n";
  fs::create_symlink(target, d / "summary.json.partial");
  tendyn::io::write_file_atomic(d / "summary.json", "{}\n");
  EXPECT_EQ(slurp(target), "precious\n");        // the symlink's target is untouched
  EXPECT_EQ(slurp(d / "summary.json"), "{}\n");  // the new file is a regular file
  EXPECT_FALSE(fs::is_symlink(d / "summary.json"));
  EXPECT_FALSE(fs::exists(fs::symlink_status(d / "summary.json.partial")));
  fs::remove_all(d);
}

TEST(AtomicFile, WithoutCommitThePreviousFileStays) {
  const auto d = fresh_io("nocommit");
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
  const auto d = fresh_io("inject");
  std::ofstream(d / "summary.json") << "old\n";
  ::setenv("TENDYN_TEST_FAIL_WRITE", "summary.json", 1);
  EXPECT_THROW(tendyn::io::write_file_atomic(d / "summary.json", "new\n"), tendyn::Error);
  ::unsetenv("TENDYN_TEST_FAIL_WRITE");
  EXPECT_EQ(slurp(d / "summary.json"), "old\n");
  EXPECT_FALSE(fs::exists(d / "summary.json.partial"));
  fs::remove_all(d);
}

TEST(AtomicFile, LargeContentIsWrittenExactly) {
  const auto d = fresh_io("large");
  std::string text;
  for (int i = 0; i < 200000; ++i) text += std::to_string(i) + ",";
  tendyn::io::AtomicFile f(d / "big.csv");
  f.stream() << text;
  f.commit();
  EXPECT_EQ(slurp(d / "big.csv"), text);
  fs::remove_all(d);
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

// Before: the rename replaced a 0600 file by a 0644 one (the partial file's mode).
TEST(AtomicFile, ReplacedFileKeepsItsMode) {
  const auto d = fresh_io("mode");
  std::ofstream(d / "secret.yaml") << "old\n";
  ASSERT_EQ(::chmod((d / "secret.yaml").c_str(), 0600), 0);
  tendyn::io::write_file_atomic(d / "secret.yaml", "new\n");
  EXPECT_EQ(slurp(d / "secret.yaml"), "new\n");
  EXPECT_EQ(mode_of(d / "secret.yaml"), 0600u);
  std::ofstream(d / "shared.yaml") << "old\n";
  ASSERT_EQ(::chmod((d / "shared.yaml").c_str(), 0664), 0);
  tendyn::io::write_file_atomic(d / "shared.yaml", "new\n");
  EXPECT_EQ(mode_of(d / "shared.yaml"), 0664u);
  fs::remove_all(d);
}

// Before: a symlink at the destination was replaced by a regular file. It is followed: the file it
// names is replaced atomically (its partial file next to it), the link stays; relative links and
// chains of links too; a dangling link creates its target.
TEST(AtomicFile, SymlinkAtTheDestinationIsFollowedAndKept) {
  const auto d = fresh_io("follow");
  fs::create_directories(d / "real");
  std::ofstream(d / "real" / "model.yaml") << "old\n";
  fs::create_symlink("real/model.yaml", d / "link.yaml");  // relative to the link's folder
  fs::create_symlink(d / "link.yaml", d / "link2.yaml");   // a chain
  tendyn::io::write_file_atomic(d / "link2.yaml", "new\n");
  EXPECT_TRUE(fs::is_symlink(d / "link.yaml"));
  EXPECT_TRUE(fs::is_symlink(d / "link2.yaml"));
  EXPECT_EQ(slurp(d / "real" / "model.yaml"), "new\n");
  EXPECT_FALSE(fs::exists(d / "link2.yaml.partial"));
  fs::create_symlink(d / "real" / "later.yaml", d / "dangling.yaml");
  tendyn::io::write_file_atomic(d / "dangling.yaml", "created\n");
  EXPECT_TRUE(fs::is_symlink(d / "dangling.yaml"));
  EXPECT_EQ(slurp(d / "real" / "later.yaml"), "created\n");
  EXPECT_EQ(tendyn::io::resolve_destination(d / "link2.yaml").target, d / "real" / "model.yaml");
  fs::create_symlink("loop_b", d / "loop_a");
  fs::create_symlink("loop_a", d / "loop_b");
  try {
    tendyn::io::write_file_atomic(d / "loop_a", "x\n");
    ADD_FAILURE() << "a loop of links was accepted";
  } catch (const tendyn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("too many levels of symbolic links"), std::string::npos) << e.what();
  }
  fs::remove_all(d);
}

// Before: a FIFO at the destination was replaced by a regular file; the reader got nothing.
TEST(AtomicFile, FifoIsWrittenThrough) {
  const auto d = fresh_io("fifo");
  const auto fifo = d / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // a reader, so that the writer's open does not wait
  ASSERT_GE(rd, 0);
  tendyn::io::write_file_atomic(fifo, "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
  char buf[64] = {};
  const ssize_t n = ::read(rd, buf, sizeof buf);
  ::close(rd);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe\n");
  EXPECT_FALSE(fs::exists(d / "pipe.partial"));
  fs::remove_all(d);
}

// Before: as root, a write to /dev/full replaced the device by a regular file and succeeded. A
// private node of the same device (1, 7) stands in for it; without the right to make one, the
// real /dev/full (safe to write only when not root, where /dev cannot be written).
TEST(AtomicFile, FullDeviceFailsAndStaysADevice) {
  const auto d = fresh_io("full");
  fs::path dev = d / "full";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) {
    if (::geteuid() == 0) GTEST_SKIP() << "cannot make a device node here (mknod: " << std::strerror(errno) << ")";
    dev = "/dev/full";
  }
  try {
    tendyn::io::write_file_atomic(dev, "data\n");
    ADD_FAILURE() << "a write to a full device succeeded";
  } catch (const tendyn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("write error on '" + dev.string() + "': No space left on device"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_character_file(dev));
  fs::remove_all(d);
}

TEST(AtomicFile, DirectoryAtTheDestinationIsRefused) {
  const auto d = fresh_io("dir");
  fs::create_directories(d / "out.yaml");
  try {
    tendyn::io::write_file_atomic(d / "out.yaml", "x\n");
    ADD_FAILURE() << "a directory was accepted as a file";
  } catch (const tendyn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("out.yaml': is a directory"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(d / "out.yaml"));
  fs::remove_all(d);
}

}  // namespace
