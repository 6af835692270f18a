// The HTTP server of `tendyn serve` (cmd_serve.cpp): cpp-httplib 0.11 parses requests and routes
// them (process_request), but the accept loop and the socket stream are ours, because httplib's own
// (a thread pool of max(8, cores - 1) threads with an unbounded queue, a timeout per recv call only,
// chunked bodies read without a size limit) let 40 slow connections starve the studio and a chunked
// body fill memory. Here: at most Limits::max_connections open connections, one thread each, at
// most Limits::max_connections_per_client of one client (peer_client_key: the local user, or the
// address); when the table is full, the oldest connection that waits for a request (idle, or slow
// to send its headers) of the client with the most connections is closed to make room, so slow
// connections cannot lock out a client that sends whole requests; 503 only when every connection
// is inside a request. A wall-time deadline for receiving each request (a sender that trickles
// bytes is cut off), an idle timeout between requests, a byte budget per request. Pipelined
// requests are answered in order.
#pragma once
#include <tendyn/viz/studio.hpp>

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace tendyn::cli {

/// Set by a handler that answers without reading the request body (403, 413, 415): the connection
/// is closed after the answer, so the unread rest is never taken for the next request. The handler
/// runs on the connection's thread.
extern thread_local bool t_close_connection;
/// The connection's client (studio::peer_client_key): per-client connection limits and the fair
/// run queue. Set by the connection's thread before any request.
extern thread_local std::string t_client;

/// The server: httplib's routing on our accept loop and socket streams (see the top of this file).
class StudioServer : public httplib::Server {
 public:
  explicit StudioServer(const viz::studio::Limits& limits) : limits_(limits) {}
  /// Accepts and serves connections until `stop` is set; then closes them and joins their
  /// threads. Needs a bound socket (bind_to_port / bind_to_any_port).
  void serve(const std::atomic<bool>& stop);

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  /// An open connection: its client, whether a request is being handled (its headers were read),
  /// whether it was closed to make room, and since when it is in that state.
  struct Conn {
    std::string client;
    bool busy = false;
    bool evicted = false;
    std::chrono::steady_clock::time_point since;
  };
  void reap();
  /// Makes room for a new connection of `client` (needs mutex_): true when it may be served,
  /// after closing a waiting connection if the table or the client's share is full; else false
  /// with the reason.
  bool make_room(const std::string& client, std::string& why);
  void mark(int fd, bool busy);
  void refuse(int fd, const std::string& why) const;
  void connection(int fd);
  /// Closing with unread request data makes the kernel send a reset, and the client may lose our
  /// answer (413, 403, 415) before it reads it: stop sending, then read and drop what still
  /// arrives for at most 1 s and 4 MiB.
  static void linger(int fd);
  viz::studio::Limits limits_;
  std::mutex mutex_;
  std::map<int, Conn> open_;
  std::list<Worker> threads_;
};

/// Answers `status` with the JSON body {"error": message}.
void reply_error(httplib::Response& res, int status, const std::string& message);

/// Reads a POST body through httplib's content reader, at most `limit` bytes whether it comes
/// with a Content-Length or chunked. False: too large (413 answered) or unreadable (400).
bool read_body(const httplib::ContentReader& reader, httplib::Response& res, std::size_t limit, std::string& body);

/// The value of a request's only `key` header ("" when absent).
std::string header_or_empty(const httplib::Request& req, const char* key);

}  // namespace tendyn::cli
