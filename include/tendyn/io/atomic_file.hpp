// Output files that never exist half-written: data goes to "<target>.partial" and is renamed
// onto <target> by commit(). If the writer is destroyed without commit() (an exception, a
// blow-up), the partial file is removed and any previous <target> is left untouched.
//
// The destination (docs/CLI.md "Outputs"):
// - A symlink at <path> is followed (a chain of them, relative ones against the link's folder):
//   <target> is the file the link names, replaced atomically; the link itself stays. A link whose
//   target does not exist yet creates that target.
// - An existing regular <target> keeps its permission bits (a 0600 file stays 0600) and, when the
//   process may set it (root), its owner. A new file gets 0644 before the umask.
// - A destination that exists and is not a regular file (a FIFO, a character or block device, a
//   terminal, a pipe such as /dev/stdout) is written through: it is opened for writing as it is
//   (never created, replaced nor unlinked) and the data go there directly, without a partial file.
//   The same for a path reached through a link into /proc (/dev/stdout -> /proc/self/fd/1), even
//   when that descriptor is a regular file. A write error there (e.g. /dev/full: "No space left on
//   device") is reported by commit() like any other.
// - A directory at <target> is refused (tendyn::Error: "... is a directory").
//
// The partial file "<target>.partial" lives in the target's own folder (so the rename never
// crosses file systems) and is created with O_CREAT|O_EXCL|O_NOFOLLOW: a symlink planted at that
// name is never followed (it is removed, and the file created again exclusively; if that fails
// too, tendyn::Error). The partial path is registered for removal on SIGINT/SIGTERM/SIGHUP
// (io/signal_cleanup.hpp).
//
// Test hook: when the environment variable TENDYN_TEST_FAIL_WRITE equals the file name of
// <path> (e.g. "summary.json"), commit() fails as a full disk would ("write error ... injected").
#pragma once
#include <filesystem>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

namespace tendyn::io {

/// Where a write to `path` lands: `path` made absolute with the symlinks of its folders and of
/// its final component resolved (up to 40 links; a dangling last link gives the path it names).
struct Destination {
  std::filesystem::path target;  ///< the resolved path (absolute, normalized)
  bool through_proc = false;     ///< a link on the way points into /proc (e.g. /dev/stdout)
};
/// Resolves `path` as above. Throws tendyn::Error naming `path` for a loop of links.
Destination resolve_destination(const std::filesystem::path& path);

class AtomicFile {
 public:
  /// Opens the destination for writing (see above). Throws tendyn::Error naming the path on
  /// failure (no permission, a directory at the path, a loop of symlinks).
  explicit AtomicFile(std::filesystem::path path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  /// The stream writing the partial file (precision 17). Write errors show at commit().
  std::ostream& stream() { return out_; }
  /// Flushes, syncs nothing (no fsync), closes and renames onto the final path (for a written-
  /// through destination: flushes and closes). Throws tendyn::Error on I/O failure (the partial
  /// file is then removed by the destructor).
  void commit();
  /// The path given to the constructor.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// True when the destination is written through (not a regular file, see above).
  [[nodiscard]] bool written_through() const { return partial_.empty(); }

 private:
  class FdBuf;
  std::filesystem::path path_, target_, partial_;
  std::unique_ptr<FdBuf> buf_;
  std::ostream out_;
  int cleanup_slot_ = -1;
  bool committed_ = false;
};

/// Writes `text` to `path` atomically (or through, see above).
void write_file_atomic(const std::filesystem::path& path, const std::string& text);

}  // namespace tendyn::io
