// The studio server's client identity, secrets and fair run queue (include/tendyn/viz/studio.hpp):
// the parts of `tendyn serve`'s sharing policy that need no HTTP.
#include <tendyn/viz/studio.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

namespace tendyn::viz::studio {

namespace {

/// The /proc/net/tcp{,6} spelling of a socket address: IPv4 "0100007F:1F90" (the 32-bit word as
/// stored, printed in host order), IPv6 four such words.
std::string proc_address(const sockaddr_storage& a) {
  char buf[64];
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    std::snprintf(buf, sizeof buf, "%08X:%04X", static_cast<unsigned>(v4->sin_addr.s_addr), static_cast<unsigned>(ntohs(v4->sin_port)));
    return buf;
  }
  if (a.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    std::uint32_t w[4];
    std::memcpy(w, &v6->sin6_addr, sizeof w);
    std::snprintf(buf, sizeof buf, "%08X%08X%08X%08X:%04X", static_cast<unsigned>(w[0]), static_cast<unsigned>(w[1]),
                  static_cast<unsigned>(w[2]), static_cast<unsigned>(w[3]), static_cast<unsigned>(ntohs(v6->sin6_port)));
    return buf;
  }
  return {};
}

bool is_loopback(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) return (ntohl(reinterpret_cast<const sockaddr_in*>(&a)->sin_addr.s_addr) >> 24) == 127;
  if (a.ss_family == AF_INET6) {
    const auto& addr = reinterpret_cast<const sockaddr_in6*>(&a)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&addr)) return true;
    if (IN6_IS_ADDR_V4MAPPED(&addr)) return addr.s6_addr[12] == 127;
  }
  return false;
}

std::string ip_text(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (a.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&a)->sin_addr, text, sizeof text);
  else if (a.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&a)->sin6_addr, text, sizeof text);
  return text;
}

/// The uid owning the socket whose local address is `local` and remote address `remote` in the
/// table (/proc/net/tcp or tcp6), or -1.
long owner_uid(const char* table, const std::string& local, const std::string& remote) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    char sl[16], loc[64], rem[64], st[8], queues[40], timer[40], retr[16];
    long uid = -1;
    if (std::sscanf(line.c_str(), "%15s %63s %63s %7s %39s %39s %15s %ld", sl, loc, rem, st, queues, timer, retr, &uid) != 8) continue;
    if (local == loc && remote == rem) return uid;
  }
  return -1;
}

}  // namespace

std::string peer_client_key(int fd) {
  sockaddr_storage peer{}, self{};
  socklen_t lp = sizeof peer, ls = sizeof self;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &lp) != 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &ls) != 0)
    return "unknown";
  if (is_loopback(peer)) {
    // the peer's socket is a row of this machine's table: its local address is our peer
    const long uid = owner_uid(peer.ss_family == AF_INET6 ? "/proc/net/tcp6" : "/proc/net/tcp", proc_address(peer), proc_address(self));
    if (uid >= 0) return "uid:" + std::to_string(uid);
  }
  return "ip:" + ip_text(peer);
}

std::string random_hex(int bytes) {
  static const char* digits = "0123456789abcdef";
  std::random_device rd;  // the kernel's generator (getrandom) on Linux
  std::string out;
  out.reserve(static_cast<std::size_t>(2 * bytes));
  for (int i = 0; i < bytes; i += 4) {
    const std::uint32_t v = rd();
    for (int k = 0; k < 4 && i + k < bytes; ++k) {
      const unsigned b = (v >> (8 * k)) & 0xffu;
      out += digits[b >> 4];
      out += digits[b & 0xfu];
    }
  }
  return out;
}

bool token_matches(std::string_view presented, std::string_view token) {
  if (token.empty() || presented.size() != token.size()) return false;
  unsigned diff = 0;
  for (std::size_t i = 0; i < token.size(); ++i) diff |= static_cast<unsigned>(presented[i] ^ token[i]);
  return diff == 0;
}

int next_run(const std::vector<QueuedRun>& queued, const std::map<std::string, int>& running, int free_slots) {
  if (free_slots <= 0) return -1;
  int best = -1, best_running = 0;
  for (std::size_t i = 0; i < queued.size(); ++i) {
    const auto it = running.find(queued[i].client);
    const int r = it == running.end() ? 0 : it->second;
    if (r > 0 && free_slots <= 1) continue;  // the last free slot is kept for a client with nothing running
    if (best < 0 || r < best_running || (r == best_running && queued[i].seq < queued[static_cast<std::size_t>(best)].seq)) {
      best = static_cast<int>(i);
      best_running = r;
    }
  }
  return best;
}

}  // namespace tendyn::viz::studio
