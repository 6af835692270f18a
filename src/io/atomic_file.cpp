#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/signal_cleanup.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace tendyn::io {

/// A buffered stream buffer over a POSIX file descriptor; remembers the first write error.
class AtomicFile::FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd), buf_(1 << 16) { setp(buf_.data(), buf_.data() + buf_.size()); }
  ~FdBuf() override { close_fd(); }
  bool flush_all() {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return error_ == 0;
  }
  int close_fd() {
    if (fd_ >= 0 && ::close(fd_) != 0 && error_ == 0) error_ = errno;
    fd_ = -1;
    return error_;
  }
  [[nodiscard]] int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!flush_all()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return flush_all() ? 0 : -1; }

 private:
  int fd_;
  std::vector<char> buf_;
  int error_ = 0;
};

namespace {
int open_exclusive(const std::filesystem::path& p) {
  constexpr int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(p.c_str(), flags, 0644);
  if (fd < 0 && errno == EEXIST) {
    // a leftover of a killed run, or a planted symlink: remove the entry itself (unlink never
    // follows a symlink) and create the file exclusively again
    ::unlink(p.c_str());
    fd = ::open(p.c_str(), flags, 0644);
  }
  if (fd < 0) throw Error("cannot create '" + p.string() + "' for writing: " + std::strerror(errno));
  return fd;
}
}  // namespace

AtomicFile::AtomicFile(std::filesystem::path path) : path_(std::move(path)), out_(nullptr) {
  partial_ = path_;
  partial_ += ".partial";
  buf_ = std::make_unique<FdBuf>(open_exclusive(partial_));
  cleanup_slot_ = register_cleanup(partial_, false);
  out_.rdbuf(buf_.get());
  out_.precision(17);
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    out_.rdbuf(nullptr);
    buf_.reset();
    std::error_code ec;
    std::filesystem::remove(partial_, ec);
  }
  unregister_cleanup(cleanup_slot_);
}

void AtomicFile::commit() {
  out_.flush();
  const bool flushed = buf_->flush_all();
  const int err = buf_->close_fd();
  if (!flushed || err != 0 || !out_)
    throw Error("write error on '" + partial_.string() + "': " + std::strerror(err != 0 ? err : EIO));
  if (const char* fail = std::getenv("TENDYN_TEST_FAIL_WRITE"); fail && path_.filename() == fail)
    throw Error("write error on '" + partial_.string() + "': No space left on device (injected by TENDYN_TEST_FAIL_WRITE)");
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
