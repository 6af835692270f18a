#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>

namespace tendyn::io {

AtomicFile::AtomicFile(std::filesystem::path path) : path_(std::move(path)) {
  partial_ = path_;
  partial_ += ".partial";
  out_.open(partial_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_) throw Error("cannot open '" + partial_.string() + "' for writing");
  out_.precision(17);
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    out_.close();
    std::error_code ec;
    std::filesystem::remove(partial_, ec);
  }
}

void AtomicFile::commit() {
  out_.flush();
  if (!out_) throw Error("write error on '" + partial_.string() + "'");
  out_.close();
  std::error_code ec;
  std::filesystem::rename(partial_, path_, ec);
  if (ec) throw Error("cannot rename '" + partial_.string() + "' to '" + path_.string() + "': " + ec.message());
  committed_ = true;
}

void write_file_atomic(const std::filesystem::path& path, const std::string& text) {
  AtomicFile f(path);
  f.stream() << text;
  f.commit();
}

}  // namespace tendyn::io
