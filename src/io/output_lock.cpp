#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/output_lock.hpp>
#include <tendyn/io/signal_cleanup.hpp>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tendyn::io {

namespace {
struct Held {
  int fd = -1;
  int count = 0;
  int cleanup_slot = -1;
};
std::mutex g_mu;
std::map<std::string, Held> g_held;  // lock file -> this process's hold on it

std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos ? s : std::string();
}
}  // namespace

OutputLock::OutputLock(const std::filesystem::path& output) {
  lock_file_ = resolve_destination(output).target;
  lock_file_ += ".lock";
  const std::string key = lock_file_.native();
  std::lock_guard<std::mutex> guard(g_mu);
  if (auto it = g_held.find(key); it != g_held.end()) {
    ++it->second.count;
    return;
  }
  for (int attempt = 0;; ++attempt) {
    const int fd = ::open(key.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) throw Error("cannot create the lock file '" + key + "' of output '" + output.string() + "': " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string pid = holder_pid(fd);
      ::close(fd);
      if (err == EWOULDBLOCK)
        throw Error("output '" + output.string() + "' is in use by another run (" + (pid.empty() ? std::string() : "pid " + pid + ", ") +
                    "lock file '" + key + "'); wait for it to finish or choose another output");
      throw Error("cannot lock '" + key + "' of output '" + output.string() + "': " + std::strerror(err));
    }
    // the holder before us may have removed the file between our open and our flock: then we
    // hold a lock on a name nobody sees; open the name again
    struct stat mine {
    }, named{};
    if (::fstat(fd, &mine) == 0 && ::lstat(key.c_str(), &named) == 0 && mine.st_dev == named.st_dev && mine.st_ino == named.st_ino) {
      const std::string pid = std::to_string(static_cast<long>(::getpid())) + "\n";
      if (::ftruncate(fd, 0) == 0 && ::pwrite(fd, pid.data(), pid.size(), 0) < 0) errno = 0;  // the pid is informative only
      g_held[key] = Held{fd, 1, register_cleanup(lock_file_, false)};
      return;
    }
    ::close(fd);
    if (attempt >= 100) throw Error("cannot lock '" + key + "' of output '" + output.string() + "': the lock file keeps being replaced");
  }
}

OutputLock::~OutputLock() {
  std::lock_guard<std::mutex> guard(g_mu);
  const auto it = g_held.find(lock_file_.native());
  if (it == g_held.end() || --it->second.count > 0) return;
  unregister_cleanup(it->second.cleanup_slot);
  ::unlink(lock_file_.c_str());  // while still holding it: a process that opened it before sees it gone
  ::close(it->second.fd);
  g_held.erase(it);
}

}  // namespace tendyn::io
