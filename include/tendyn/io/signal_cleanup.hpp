// Removal of a run's temporary outputs when the process is interrupted (SIGINT, SIGTERM, SIGHUP:
// a closed terminal or ssh session).
// The handler only uses async-signal-safe calls (unlink, open, getdents64, unlinkat, close,
// rmdir, sigaction, raise) on paths registered beforehand: files are unlinked, registered
// directories are emptied (one level: the result sets are flat) and removed. Then the signal's
// default action runs, so the process still dies of the signal (exit status 128 + signal).
// SIGKILL cannot be caught: a killed run's staging directory is removed by the next run that
// writes next to it (io::ResultSet).
#pragma once
#include <filesystem>

namespace tendyn::io {

/// Installs the SIGINT/SIGTERM/SIGHUP handler (idempotent). A signal that is ignored when it is
/// called (SIGHUP under nohup) stays ignored. The tendyn program calls it in main();
/// a library user who wants the cleanup calls it too (it replaces any previous handler).
void install_signal_cleanup();

/// Registers `path` for removal on SIGINT/SIGTERM/SIGHUP (`directory`: empty it, then rmdir). Returns a
/// slot id for unregister_cleanup(), or -1 when the table (64 slots) is full or the path longer
/// than 4095 bytes (then the path is simply not cleaned on a signal). Thread-safe.
int register_cleanup(const std::filesystem::path& path, bool directory);
/// Forgets slot `id` (no-op for -1). Thread-safe.
void unregister_cleanup(int id);

/// While at least one DeferSignals lives (in any thread), a SIGINT/SIGTERM/SIGHUP is only noted;
/// the cleanup and the signal's default action run when the last one is destroyed. For the short
/// steps that must not be cut in the middle (io::ResultSet::commit's renames and their roll-back).
class DeferSignals {
 public:
  DeferSignals();
  DeferSignals(const DeferSignals&) = delete;
  DeferSignals& operator=(const DeferSignals&) = delete;
  ~DeferSignals();
};

}  // namespace tendyn::io
