// The HTTP server of `tendyn serve`: see http_server.hpp.
#include "http_server.hpp"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tendyn::cli {

namespace studio = viz::studio;
using nlohmann::json;

/// Set by a handler that answers without reading the request body (403, 413, 415): the connection
/// is closed after the answer, so the unread rest is never taken for the next request. The handler
/// runs on the connection's thread.
thread_local bool t_close_connection = false;
/// The connection's client (studio::peer_client_key): per-client connection limits and the fair
/// run queue. Set by the connection's thread before any request.
thread_local std::string t_client;

namespace {

/// A connected socket as an httplib::Stream, with a receive deadline and byte budget per request.
class SocketStream final : public httplib::Stream {
 public:
  SocketStream(int fd, double write_timeout_s) : fd_(fd), write_timeout_ms_(static_cast<int>(write_timeout_s * 1000)) {}
  void begin_request(std::chrono::steady_clock::time_point deadline, std::size_t budget) {
    deadline_ = deadline;
    budget_ = budget;
    cut_off_ = false;
  }
  /// The last request hit its deadline or byte budget: the connection must be closed.
  bool cut_off() const { return cut_off_; }
  /// Bytes received and not yet read (the start of a pipelined next request).
  std::size_t buffered() const { return end_ - begin_; }
  bool is_readable() const override { return buffered() > 0 || wait(POLLIN, ms_left()); }
  bool is_writable() const override { return wait(POLLOUT, write_timeout_ms_); }
  ssize_t read(char* ptr, std::size_t size) override {
    if (buffered() == 0) {
      if (budget_ == 0 || !wait(POLLIN, ms_left())) {
        cut_off_ = true;
        return -1;
      }
      const ssize_t n = ::recv(fd_, buf_, std::min(sizeof buf_, budget_), 0);
      if (n <= 0) return n;
      budget_ -= static_cast<std::size_t>(n);
      begin_ = 0;
      end_ = static_cast<std::size_t>(n);
    }
    const std::size_t k = std::min(size, buffered());
    std::memcpy(ptr, buf_ + begin_, k);
    begin_ += k;
    return static_cast<ssize_t>(k);
  }
  ssize_t write(const char* ptr, std::size_t size) override {
    if (!is_writable()) return -1;
    return ::send(fd_, ptr, size, MSG_NOSIGNAL);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { address(false, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address(true, ip, port); }
  socket_t socket() const override { return fd_; }

 private:
  int ms_left() const {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
  }
  bool wait(short events, int timeout_ms) const {
    pollfd p{fd_, events, 0};
    for (;;) {
      const int r = ::poll(&p, 1, timeout_ms);
      if (r < 0 && errno == EINTR) continue;
      return r > 0 && (p.revents & (events | POLLHUP)) != 0;
    }
  }
  void address(bool local, std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    ip.clear();
    port = 0;
    if ((local ? ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) : ::getpeername(fd_, reinterpret_cast<sockaddr*>(&a), &len)) !=
        0)
      return;
    char text[INET6_ADDRSTRLEN] = {0};
    if (a.ss_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
      ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
      port = ntohs(v4->sin_port);
    } else if (a.ss_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
      ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
      port = ntohs(v6->sin6_port);
    }
    ip = text;
  }
  int fd_;
  int write_timeout_ms_;
  std::chrono::steady_clock::time_point deadline_{};
  std::size_t budget_ = 0;
  bool cut_off_ = false;
  char buf_[4096];
  std::size_t begin_ = 0, end_ = 0;
};

}  // namespace

/// Accepts and serves connections until `stop` is set; then closes them and joins their
/// threads. Needs a bound socket (bind_to_port / bind_to_any_port).
void StudioServer::serve(const std::atomic<bool>& stop) {
  const int lfd = svr_sock_;
  // httplib listens with a backlog of 5: a burst of connections would see dropped SYNs and
  // 1 s retransmits. Calling listen() again on Linux raises the backlog.
  ::listen(lfd, 128);
  while (!stop) {
    pollfd p{lfd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const int fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    // httplib writes an answer's headers and body separately: without TCP_NODELAY the body
    // waits for the client's delayed ACK of the headers (40 ms per request on a kept-alive
    // connection, which capped the live view at 24 posts a second).
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const std::string client = studio::peer_client_key(fd);
    reap();
    std::lock_guard lock(mutex_);
    std::string why;
    if (!make_room(client, why)) {
      refuse(fd, why);
      continue;
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    open_[fd] = Conn{client, false, false, std::chrono::steady_clock::now()};
    threads_.push_back({std::thread([this, fd, done, client] {
                          t_client = client;
                          connection(fd);
                          {
                            std::lock_guard l(mutex_);
                            open_.erase(fd);
                          }
                          ::close(fd);
                          *done = true;
                        }),
                        done});
  }
  {
    std::lock_guard lock(mutex_);
    for (const auto& [fd, c] : open_) ::shutdown(fd, SHUT_RDWR);  // wakes the connection threads
  }
  for (auto& w : threads_) w.thread.join();
  threads_.clear();
  ::close(svr_sock_.exchange(INVALID_SOCKET));
}

void StudioServer::reap() {
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (*it->done) {
      it->thread.join();
      it = threads_.erase(it);
    } else {
      ++it;
    }
  }
}

/// Makes room for a new connection of `client` (needs mutex_): true when it may be served,
/// after closing a waiting connection if the table or the client's share is full; else false
/// with the reason.
bool StudioServer::make_room(const std::string& client, std::string& why) {
  std::map<std::string, int> per_client;
  int total = 0;
  for (const auto& [fd, c] : open_)
    if (!c.evicted) {
      ++per_client[c.client];
      ++total;
    }
  const bool over_share = per_client[client] >= limits_.max_connections_per_client;
  if (!over_share && total < limits_.max_connections) return true;
  // the victim: a waiting connection of this client when it is over its share, else of the
  // client with the most connections that has a waiting one; the one waiting longest
  int victim = -1;
  std::string victim_client;
  for (const auto& [fd, c] : open_) {
    if (c.busy || c.evicted || (over_share && c.client != client)) continue;
    const auto& v = victim < 0 ? c : open_.at(victim);
    const bool more = per_client[c.client] > per_client[victim_client];
    if (victim < 0 || more || (per_client[c.client] == per_client[victim_client] && c.since < v.since)) {
      victim = fd;
      victim_client = c.client;
    }
  }
  if (victim >= 0) {
    open_[victim].evicted = true;
    ::shutdown(victim, SHUT_RDWR);  // its thread sees the end of the stream and closes it
    return true;
  }
  why = over_share ? "busy: " + std::to_string(per_client[client]) + " connections open from your side (the studio's limit per client is " +
                         std::to_string(limits_.max_connections_per_client) + "), each inside a request; try again"
                   : "busy: " + std::to_string(total) + " connections open (the studio's limit), each inside a request; try again";
  return false;
}

void StudioServer::mark(int fd, bool busy) {
  std::lock_guard lock(mutex_);
  const auto it = open_.find(fd);
  if (it == open_.end()) return;
  it->second.busy = busy;
  it->second.since = std::chrono::steady_clock::now();
}

void StudioServer::refuse(int fd, const std::string& why) const {
  const std::string body = json{{"error", why}}.dump();
  const std::string msg = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body;
  (void)::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

void StudioServer::connection(int fd) {
  SocketStream strm(fd, 5.0);
  const auto idle_ms = static_cast<int>(limits_.keep_alive_timeout_s * 1000);
  const auto request_time =
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(limits_.request_timeout_s));
  const std::size_t budget = limits_.max_body_bytes + (256u << 10);  // headers, chunk framing
  for (int count = 100; count > 0; --count) {
    // a pipelined request may already be in the stream's buffer: answer it without waiting
    if (strm.buffered() == 0) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, idle_ms) <= 0 || (p.revents & POLLIN) == 0) return;  // idle: close
    }
    strm.begin_request(std::chrono::steady_clock::now() + request_time, budget);
    t_close_connection = false;
    bool closed = false;
    const bool ok = process_request(strm, count == 1, closed, [this, fd](httplib::Request&) { mark(fd, true); });
    mark(fd, false);
    if (!ok) return;
    if (t_close_connection) return linger(fd);
    if (closed || strm.cut_off()) return;
  }
}

/// Closing with unread request data makes the kernel send a reset, and the client may lose our
/// answer (413, 403, 415) before it reads it: stop sending, then read and drop what still
/// arrives for at most 1 s and 4 MiB.
void StudioServer::linger(int fd) {
  ::shutdown(fd, SHUT_WR);
  char sink[4096];
  std::size_t total = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (total < (4u << 20) && std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, sink, sizeof sink, 0);
    if (n <= 0) return;
    total += static_cast<std::size_t>(n);
  }
}

void reply_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(json{{"error", message}}.dump(), "application/json");
}

/// Reads a POST body through httplib's content reader, at most `limit` bytes whether it comes
/// with a Content-Length or chunked. False: too large (413 answered) or unreadable (400).
bool read_body(const httplib::ContentReader& reader, httplib::Response& res, std::size_t limit, std::string& body) {
  bool too_large = false;
  const bool ok = reader([&](const char* data, std::size_t n) {
    if (body.size() + n > limit) {
      too_large = true;
      return false;
    }
    body.append(data, n);
    return true;
  });
  if (ok && !too_large) return true;
  t_close_connection = true;  // the rest of the body is still on the socket
  res.set_header("Connection", "close");
  if (too_large || res.status == 413)
    reply_error(res, 413, "request body too large (limit " + std::to_string(limit) + " bytes)");
  else
    reply_error(res, 400, "request body could not be read (incomplete, malformed chunks, or too slow)");
  return false;
}

/// The value of a request's only `key` header ("" when absent).
std::string header_or_empty(const httplib::Request& req, const char* key) {
  return req.has_header(key) ? req.get_header_value(key) : std::string();
}

}  // namespace tendyn::cli
