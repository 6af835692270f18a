// A run's result directory that becomes visible together (docs/CLI.md "Outputs").
//
// <dir> is first resolved through symlinks (io::resolve_destination): "-o link" writes into the
// directory the link names, and everything below happens next to that directory, on its file
// system. The output is locked for the life of the ResultSet (io::OutputLock, "<dir>.lock"): a
// second process writing the same <dir> is refused at construction, never mixed in.
//
// Every file of a run is written into a private staging directory "<dir>.partial-<pid>", a
// sibling of <dir> created with mkdir (mode 0700; mkdir never follows a symlink and fails if the
// name exists). commit() then publishes the set: when <dir> does not exist, the staging directory
// is renamed onto it (one atomic step); otherwise, all or nothing: each previous <dir>/<name> is
// kept aside (a hard link in the staging directory, or moved there where links are not
// supported) and the staged file renamed onto <dir>/<name> (renames within one file system: no
// data is written, nothing can run out of space); if any step fails, every name is put back to
// its previous file before commit() throws. A <name> that is a directory in <dir> is refused
// before anything moves. A replaced file's permission bits carry over to the new one. Signals
// (SIGINT/SIGTERM/SIGHUP) wait until commit() is done (io::DeferSignals). A run that fails before
// commit() (an exception, a write error, a signal through io/signal_cleanup.hpp) removes the
// staging directory and leaves the previous contents of <dir> untouched: never a mix of old and
// new files.
//
// Test hook: when the environment variable TENDYN_TEST_FAIL_RENAME equals a staged file's name,
// commit() fails as a rename of that file would, after the files before it were put in place.
//
// Files of <dir> that the new run does not write (e.g. view.html of an earlier --html run) are
// left as they are. A SIGKILLed run leaves its staging directory; the constructor removes every
// "<dir>.partial-<pid>" sibling whose process no longer exists (kill(pid, 0) fails with ESRCH).
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace tendyn::io {

class OutputLock;

class ResultSet {
 public:
  /// Creates the parent directories of `dir` and the staging directory, after removing stale
  /// staging siblings of dead processes. Throws tendyn::Error naming the directory on failure
  /// (no parent can be created, the staging name exists, `dir` exists and is not a directory,
  /// another process holds the output's lock).
  explicit ResultSet(std::filesystem::path dir);
  ResultSet(const ResultSet&) = delete;
  ResultSet& operator=(const ResultSet&) = delete;
  /// Removes the staging directory and its files unless commit() succeeded.
  ~ResultSet();

  /// Where to write the result file `name` now: "<staging>/<name>".
  [[nodiscard]] std::filesystem::path file(const std::string& name) const { return staging_ / name; }
  /// The staging directory (for writers that take a directory).
  [[nodiscard]] const std::filesystem::path& staging() const { return staging_; }
  /// The final directory.
  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  /// Publishes the staged files (see above). Throws tendyn::Error on failure.
  void commit();

  /// Removes "<dir>.partial-<pid>" siblings of dead processes; returns how many were removed.
  static int remove_stale(const std::filesystem::path& dir);
  /// The staging name of `dir` for process `pid`.
  static std::filesystem::path staging_name(const std::filesystem::path& dir, long pid);

 private:
  std::filesystem::path dir_, staging_;
  std::unique_ptr<OutputLock> lock_;
  int cleanup_slot_ = -1;
  bool committed_ = false;
};

}  // namespace tendyn::io
