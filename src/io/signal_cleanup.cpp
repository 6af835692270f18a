#include <tendyn/io/signal_cleanup.hpp>

#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace tendyn::io {

namespace {
constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 active (file), 3 active (directory)
  char path[kPathMax];
};
Slot g_slots[kSlots];
std::mutex g_mu;
alignas(8) char g_dirent_buf[8192];

void empty_and_remove_dir(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, g_dirent_buf, sizeof g_dirent_buf);
      if (n <= 0) break;
      // struct linux_dirent64 { u64 d_ino; s64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
      for (long off = 0; off < n;) {
        unsigned short reclen;
        std::memcpy(&reclen, g_dirent_buf + off + 16, sizeof reclen);
        const char* name = g_dirent_buf + off + 19;
        if (!(name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))) ::unlinkat(fd, name, 0);
        off += reclen;
      }
      ::lseek(fd, 0, SEEK_SET);  // entries were removed: read again until only . and .. remain
      if (::rmdir(path) == 0) break;
    }
    ::close(fd);
  }
  ::rmdir(path);
}

std::atomic<int> g_defer{0};    // living DeferSignals
std::atomic<int> g_pending{0};  // a signal noted while deferred

void cleanup_and_die(int sig) {
  for (int i = kSlots - 1; i >= 0; --i) {
    const int st = g_slots[i].state.load();
    if (st == 2)
      ::unlink(g_slots[i].path);
    else if (st == 3)
      empty_and_remove_dir(g_slots[i].path);
  }
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  ::sigaction(sig, &sa, nullptr);
  ::raise(sig);
}

void cleanup_on_signal(int sig) {
  if (g_defer.load() > 0) {
    g_pending.store(sig);
    return;
  }
  cleanup_and_die(sig);
}
}  // namespace

DeferSignals::DeferSignals() { ++g_defer; }

DeferSignals::~DeferSignals() {
  if (--g_defer > 0) return;
  if (const int sig = g_pending.exchange(0); sig != 0) cleanup_and_die(sig);
}

void install_signal_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = cleanup_on_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaddset(&sa.sa_mask, SIGHUP);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    // a signal the process was started ignoring (nohup, a background job of a script) stays ignored
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

int register_cleanup(const std::filesystem::path& path, bool directory) {
  const std::string& s = path.native();
  if (s.size() >= kPathMax) return -1;
  std::lock_guard<std::mutex> lock(g_mu);
  for (int i = 0; i < kSlots; ++i) {
    if (g_slots[i].state.load() != 0) continue;
    g_slots[i].state.store(1);
    std::memcpy(g_slots[i].path, s.c_str(), s.size() + 1);
    g_slots[i].state.store(directory ? 3 : 2);
    return i;
  }
  return -1;
}

void unregister_cleanup(int id) {
  if (id < 0 || id >= kSlots) return;
  g_slots[id].state.store(0);
}

}  // namespace tendyn::io
