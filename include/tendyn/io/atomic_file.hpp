// Output files that never exist half-written: data goes to "<path>.partial" and is renamed
// onto <path> by commit(). If the writer is destroyed without commit() (an exception, a
// blow-up), the partial file is removed and any previous <path> is left untouched.
#pragma once
#include <filesystem>
#include <fstream>
#include <string>

namespace tendyn::io {

class AtomicFile {
 public:
  /// Opens "<path>.partial" for writing. Throws tendyn::Error naming the path on failure.
  explicit AtomicFile(std::filesystem::path path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  std::ofstream& stream() { return out_; }
  /// Flushes, closes and renames onto the final path. Throws tendyn::Error on I/O failure.
  void commit();
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_, partial_;
  std::ofstream out_;
  bool committed_ = false;
};

/// Writes `text` to `path` atomically.
void write_file_atomic(const std::filesystem::path& path, const std::string& text);

}  // namespace tendyn::io
