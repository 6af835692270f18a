#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/signal_cleanup.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
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

bool starts_with_proc(const std::filesystem::path& p) { return p.native().rfind("/proc/", 0) == 0 || p.native() == "/proc"; }
}  // namespace

Destination resolve_destination(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  Destination d;
  fs::path cur = fs::absolute(path).lexically_normal();
  if (!cur.has_filename() && cur != cur.root_path()) cur = cur.parent_path();  // "dir/" names dir
  for (int hop = 0;; ++hop) {
    if (hop > 40) throw Error("cannot write '" + path.string() + "': too many levels of symbolic links");
    std::error_code ec;
    fs::path parent = fs::weakly_canonical(cur.parent_path(), ec);  // the folders' links
    if (ec) parent = cur.parent_path();
    if (cur.has_filename()) cur = parent / cur.filename();
    if (starts_with_proc(cur)) d.through_proc = true;
    struct stat st {};
    if (!cur.has_filename() || ::lstat(cur.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) break;
    const fs::path link = fs::read_symlink(cur, ec);
    if (ec) break;
    cur = (link.is_absolute() ? link : parent / link).lexically_normal();
    if (!cur.has_filename() && cur != cur.root_path()) cur = cur.parent_path();
  }
  d.target = cur;
  return d;
}

AtomicFile::AtomicFile(std::filesystem::path path) : path_(std::move(path)), out_(nullptr) {
  const Destination dest = resolve_destination(path_);
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;  // follows the links, /proc's too
  if (exists && S_ISDIR(st.st_mode)) throw Error("cannot write '" + path_.string() + "': is a directory");
  int fd = -1;
  if (exists && (!S_ISREG(st.st_mode) || dest.through_proc)) {
    // a FIFO, a device, a terminal, a pipe or socket behind /proc/self/fd: write through, as a
    // shell redirection would; never replace the node
    const int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | (S_ISREG(st.st_mode) ? O_TRUNC : 0);
    fd = ::open(path_.c_str(), flags);
    if (fd < 0) throw Error("cannot open '" + path_.string() + "' for writing: " + std::strerror(errno));
    target_ = path_;
  } else {
    target_ = dest.target;
    partial_ = target_;
    partial_ += ".partial";
    fd = open_exclusive(partial_);
    if (exists) {
      // the replaced file's owner (when allowed: root) and permission bits; the mode after the
      // owner, which may clear set-id bits
      if (::fchown(fd, st.st_uid, st.st_gid) != 0) errno = 0;
      ::fchmod(fd, st.st_mode & 07777);
    }
    cleanup_slot_ = register_cleanup(partial_, false);
  }
  buf_ = std::make_unique<FdBuf>(fd);
  out_.rdbuf(buf_.get());
  out_.precision(17);
}

AtomicFile::~AtomicFile() {
  if (!committed_ && !partial_.empty()) {
    out_.rdbuf(nullptr);
    buf_.reset();
    std::error_code ec;
    std::filesystem::remove(partial_, ec);
  }
  unregister_cleanup(cleanup_slot_);
}

void AtomicFile::commit() {
  const std::filesystem::path& written = partial_.empty() ? path_ : partial_;
  out_.flush();
  const bool flushed = buf_->flush_all();
  const int err = buf_->close_fd();
  if (!flushed || err != 0 || !out_) throw Error("write error on '" + written.string() + "': " + std::strerror(err != 0 ? err : EIO));
  if (const char* fail = std::getenv("TENDYN_TEST_FAIL_WRITE"); fail && path_.filename() == fail)
    throw Error("write error on '" + written.string() + "': No space left on device (injected by TENDYN_TEST_FAIL_WRITE)");
  if (!partial_.empty()) {
    std::error_code ec;
    std::filesystem::rename(partial_, target_, ec);
    if (ec) throw Error("cannot rename '" + partial_.string() + "' to '" + target_.string() + "': " + ec.message());
  }
  committed_ = true;
}

void write_file_atomic(const std::filesystem::path& path, const std::string& text) {
  AtomicFile f(path);
  f.stream() << text;
  f.commit();
}

}  // namespace tendyn::io
