// Output files that never exist half-written: data goes to "<path>.partial" and is renamed
// onto <path> by commit(). If the writer is destroyed without commit() (an exception, a
// blow-up), the partial file is removed and any previous <path> is left untouched.
//
// The partial file is created with O_CREAT|O_EXCL|O_NOFOLLOW (mode 0644 before umask): a
// symlink planted at "<path>.partial" is never followed (it is removed, and the file created
// again exclusively; if that fails too, tendyn::Error). The partial path is registered for
// removal on SIGINT/SIGTERM (io/signal_cleanup.hpp). The final rename replaces <path> itself,
// never the target of a symlink at <path>.
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

class AtomicFile {
 public:
  /// Creates "<path>.partial" for writing. Throws tendyn::Error naming the path on failure.
  explicit AtomicFile(std::filesystem::path path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  /// The stream writing the partial file (precision 17). Write errors show at commit().
  std::ostream& stream() { return out_; }
  /// Flushes, syncs nothing (no fsync), closes and renames onto the final path. Throws
  /// tendyn::Error on I/O failure (the partial file is then removed by the destructor).
  void commit();
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  class FdBuf;
  std::filesystem::path path_, partial_;
  std::unique_ptr<FdBuf> buf_;
  std::ostream out_;
  int cleanup_slot_ = -1;
  bool committed_ = false;
};

/// Writes `text` to `path` atomically.
void write_file_atomic(const std::filesystem::path& path, const std::string& text);

}  // namespace tendyn::io
