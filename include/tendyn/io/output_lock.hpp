// One run at a time per output (docs/CLI.md "Outputs"): an exclusive flock(2) on the lock file
// "<output>.lock", a sibling of the output directory or file (its path resolved through symlinks,
// io::resolve_destination), taken without waiting. A second process asking for the same output
// while the first holds it gets tendyn::Error at once:
//   "output 'out/run' is in use by another run (pid 1234, lock file 'out/run.lock'); wait for it
//    to finish or choose another output"
// The lock file holds the holder's pid as text; it is removed when the lock is released (and on
// SIGINT/SIGTERM/SIGHUP, io/signal_cleanup.hpp). A lock file left by a SIGKILLed run is not
// locked (the kernel drops flock locks with the process) and is simply taken over.
//
// Within one process the lock is shared: a second OutputLock on the same output (e.g. the command's
// and its io::ResultSet's) only counts; the file is released with the last one. The lock keeps
// other processes out, not other threads of the same process.
#pragma once
#include <filesystem>

namespace tendyn::io {

class OutputLock {
 public:
  /// Takes the lock of `output` (a directory or a file, which need not exist; its folder must).
  /// Throws tendyn::Error naming the output when another process holds it, or when the lock file
  /// cannot be created (no permission, a symlink planted at its name).
  explicit OutputLock(const std::filesystem::path& output);
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  ~OutputLock();
  /// The lock file: "<resolved output>.lock".
  [[nodiscard]] const std::filesystem::path& lock_file() const { return lock_file_; }

 private:
  std::filesystem::path lock_file_;
};

}  // namespace tendyn::io
