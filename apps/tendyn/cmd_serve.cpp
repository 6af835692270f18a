// tendyn serve: the modelling studio (document 001, section 3.4) as a local web page. The page
// talks to this process through the JSON API of docs/VIEWER.md; simulations and plans run here,
// one thread per job, and their frames stream to the page by polling. HTTP by cpp-httplib.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/version.hpp>
#include <tendyn/viz/studio.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "cli_util.hpp"
#include "commands.hpp"
#include "live_routes.hpp"
#include "resources.hpp"
#include "viewer_cli.hpp"

namespace tendyn::cli {

namespace {

namespace studio = viz::studio;
using nlohmann::json;

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop = true; }

struct ServeArgs {
  std::string host = "127.0.0.1";
  int port = 8787;
  int max_jobs = 2;
  double time_limit = 60.0;
  int max_connections = 64;
  double request_timeout = 10.0;
  bool quiet = false;
};

/// Set by a handler that answers without reading the request body (403, 413, 415): the connection
/// is closed after the answer, so the unread rest is never taken for the next request. The handler
/// runs on the connection's thread.
thread_local bool t_close_connection = false;

// ---------------------------------------------------------------------------------------------
// The HTTP server: cpp-httplib 0.11 parses requests and routes them (process_request), but the
// accept loop and the socket stream are ours, because httplib's own (a thread pool of max(8,
// cores - 1) threads with an unbounded queue, a timeout per recv call only, chunked bodies read
// without a size limit) let 40 slow connections starve the studio and a chunked body fill memory.
// Here: at most Limits::max_connections open connections (more get 503 and are closed at once),
// one thread each; a wall-time deadline for receiving each request (a sender that trickles bytes
// is cut off), an idle timeout between requests, and a byte budget per request.

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
  std::size_t buffered() const { return end_ - begin_; }
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
    if ((local ? ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) : ::getpeername(fd_, reinterpret_cast<sockaddr*>(&a), &len)) != 0) return;
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

class StudioServer : public httplib::Server {
 public:
  explicit StudioServer(const studio::Limits& limits) : limits_(limits) {}
  /// Accepts and serves connections until `stop` is set; then closes them and joins their
  /// threads. Needs a bound socket (bind_to_port / bind_to_any_port).
  void serve(const std::atomic<bool>& stop) {
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
      reap();
      std::lock_guard lock(mutex_);
      if (static_cast<int>(open_.size()) >= limits_.max_connections) {
        refuse(fd);
        continue;
      }
      auto done = std::make_shared<std::atomic<bool>>(false);
      open_.insert(fd);
      threads_.push_back({std::thread([this, fd, done] {
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
      for (int fd : open_) ::shutdown(fd, SHUT_RDWR);  // wakes the connection threads
    }
    for (auto& w : threads_) w.thread.join();
    threads_.clear();
    ::close(svr_sock_.exchange(INVALID_SOCKET));
  }

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  void reap() {
    for (auto it = threads_.begin(); it != threads_.end();) {
      if (*it->done) {
        it->thread.join();
        it = threads_.erase(it);
      } else {
        ++it;
      }
    }
  }
  void refuse(int fd) const {
    const std::string body =
        json{{"error", "busy: " + std::to_string(limits_.max_connections) + " connections open (the studio's limit); try again"}}.dump();
    const std::string msg = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body;
    (void)::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::shutdown(fd, SHUT_RDWR);
    ::close(fd);
  }
  void connection(int fd) {
    SocketStream strm(fd, 5.0);
    const auto idle_ms = static_cast<int>(limits_.keep_alive_timeout_s * 1000);
    const auto request_time = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(limits_.request_timeout_s));
    const std::size_t budget = limits_.max_body_bytes + (256u << 10);  // headers, chunk framing
    for (int count = 100; count > 0; --count) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, idle_ms) <= 0 || (p.revents & POLLIN) == 0) return;  // idle: close
      strm.begin_request(std::chrono::steady_clock::now() + request_time, budget);
      t_close_connection = false;
      bool closed = false;
      if (!process_request(strm, count == 1, closed, [](httplib::Request&) {})) return;
      if (t_close_connection) return linger(fd);
      if (closed || strm.cut_off()) return;
    }
  }
  /// Closing with unread request data makes the kernel send a reset, and the client may lose our
  /// answer (413, 403, 415) before it reads it: stop sending, then read and drop what still
  /// arrives for at most 1 s and 4 MiB.
  static void linger(int fd) {
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
  studio::Limits limits_;
  std::mutex mutex_;
  std::set<int> open_;
  std::list<Worker> threads_;
};

void reply_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(json{{"error", message}}.dump(), "application/json");
}

/// Shipped models the studio offers (name -> YAML text): "default" is the built-in 3-prism of
/// `tendyn simulate`, then models/*.yaml (tensegrity) and, with the CDPR module,
/// models/cdpr/*.yaml as "cdpr-NAME".
std::map<std::string, std::string> shipped_models() {
  std::map<std::string, std::string> out;
  const auto def = tensegrity::default_model();
  out["default"] = tensegrity::to_yaml(def.model, &def.simulation);
  const auto scan = [&out](const std::filesystem::path& dir, const std::string& prefix, bool cdpr) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".yaml") continue;
      std::ifstream in(entry.path());
      std::ostringstream ss;
      ss << in.rdbuf();
      const std::string text = ss.str();
      if (cdpr ? studio::model_kind(text) != "cdpr" : text.find("tendyn: tensegrity") == std::string::npos) continue;
      out[prefix + entry.path().stem().string()] = text;
    }
  };
  scan(data_dir() / "models", "", false);
#ifdef TENDYN_WITH_CDPR
  scan(data_dir() / "models" / "cdpr", "cdpr-", true);
#endif
  return out;
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

class Studio {
 public:
  Studio(const ServeArgs& a) : args_(a), models_(shipped_models()) {
    limits_.max_wall_s = a.time_limit;
    limits_.max_connections = a.max_connections;
    limits_.request_timeout_s = a.request_timeout;
    page_ = viz::studio_html(viewer_js(), viewer_css());
  }
  const studio::Limits& limits() const { return limits_; }
  ~Studio() {
    for (auto& [id, e] : jobs_) e.job->cancel = true;
    for (auto& [id, e] : jobs_)
      if (e.thread.joinable()) e.thread.join();
  }

  void routes(httplib::Server& svr, const studio::Listen& listen) {
    svr.set_payload_max_length(limits_.max_body_bytes);
    // Host, Origin and Content-Type are checked before any body is read (docs/VIEWER.md).
    svr.set_pre_routing_handler([listen](const httplib::Request& req, httplib::Response& res) {
      const auto header = [&req](const char* k) -> std::unique_ptr<std::string> {
        return req.has_header(k) ? std::make_unique<std::string>(req.get_header_value(k)) : nullptr;
      };
      const auto host = header("Host"), origin = header("Origin"), type = header("Content-Type");
      const auto v = studio::check_request_headers(req.method, host.get(), origin.get(), type.get(), listen);
      if (v.status == 0) return httplib::Server::HandlerResponse::Unhandled;
      t_close_connection = true;
      res.set_header("Connection", "close");
      reply_error(res, v.status, v.message);
      return httplib::Server::HandlerResponse::Handled;
    });
    svr.Get("/", [this](const httplib::Request&, httplib::Response& res) { res.set_content(page_, "text/html; charset=utf-8"); });
    svr.Get("/favicon.ico", [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
    svr.Get("/api/health", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(json{{"ok", true}, {"version", std::string(kVersion)}}.dump(), "application/json");
    });
    svr.Get("/api/models", [this](const httplib::Request&, httplib::Response& res) {
      json list = json::array();
      for (const auto& [name, text] : models_)
        list.push_back({{"name", name},
                        {"kind", studio::model_kind(text)},
                        {"description", name == "default"               ? "document 000's 3-prism (built in)"
                                        : name.rfind("cdpr-", 0) == 0 ? "models/cdpr/" + name.substr(5) + ".yaml (CDPR)"
                                                                        : "models/" + name + ".yaml"}});
      res.set_content(json{{"models", list}}.dump(), "application/json");
    });
    svr.Get(R"(/api/models/([A-Za-z0-9_.-]+))", [this](const httplib::Request& req, httplib::Response& res) {
      const auto it = models_.find(req.matches[1]);
      if (it == models_.end()) return reply_error(res, 404, "no model '" + std::string(req.matches[1]) + "'");
      res.set_content(json{{"name", it->first}, {"yaml", it->second}}.dump(), "application/json");
    });
    svr.Post("/api/model", [this](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& reader) {
      std::string body;
      if (!read_body(reader, res, limits_.max_body_bytes, body)) return;
      json j;
      try {
        j = json::parse(body);
      } catch (const json::exception& e) {
        return reply_error(res, 400, "request: not valid JSON (" + std::string(e.what()) + ")");
      }
      if (!j.is_object() || !j.contains("yaml") || !j["yaml"].is_string()) return reply_error(res, 400, "request.yaml: missing, or not a string");
      try {
        const auto r = studio::edit_model(j["yaml"].get<std::string>(), j.contains("edits") ? j["edits"].dump() : std::string(), limits_);
        res.set_content(nlohmann::ordered_json{{"yaml", r.yaml}, {"model", nlohmann::ordered_json::parse(r.model_json)}}.dump(),
                        "application/json");
      } catch (const studio::BadRequest& e) {
        reply_error(res, 400, e.what());
      } catch (const Error& e) {
        reply_error(res, 422, e.what());
      }
    });
    svr.Post("/api/run", [this](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& reader) {
      std::string body;
      if (!read_body(reader, res, limits_.max_body_bytes, body)) return;
      std::shared_ptr<studio::RunRequest> run;
      try {
        run = std::make_shared<studio::RunRequest>(studio::parse_run_request(body, limits_));
      } catch (const studio::BadRequest& e) {
        return reply_error(res, 400, e.what());
      } catch (const Error& e) {
        return reply_error(res, 422, e.what());
      }
      std::lock_guard lock(mutex_);
      reap();
      int running = 0;
      for (const auto& [id, e] : jobs_) {
        std::lock_guard jl(e.job->mutex);
        running += e.job->status == "queued" || e.job->status == "running";
      }
      if (running >= args_.max_jobs)
        return reply_error(res, 429, "busy: " + std::to_string(running) + " runs in progress (limit " + std::to_string(args_.max_jobs) + ")");
      const int id = ++next_id_;
      auto job = std::make_shared<studio::Job>();
      Entry& e = jobs_[id];
      e.job = job;
      e.thread = std::thread([job, run, limits = limits_] { studio::run_job(*run, *job, limits); });
      res.status = 202;
      res.set_content(json{{"job", std::to_string(id)}}.dump(), "application/json");
    });
    // the run as a download: CSV (header line with units) or scene.json with the summary
    svr.Get(R"(/api/jobs/(\d{1,9})/run\.(csv|json))", [this](const httplib::Request& req, httplib::Response& res) {
      const auto job = find_job(req.matches[1], res);
      if (!job) return;
      {
        std::lock_guard lock(job->mutex);
        if (job->status != "done")
          return reply_error(res, 409, "job " + std::string(req.matches[1]) + " is " + job->status + ": the run can be downloaded when it is done");
      }
      const bool csv = req.matches[2] == "csv";
      res.set_header("Content-Disposition", "attachment; filename=\"run-" + std::string(req.matches[1]) + (csv ? ".csv\"" : ".json\""));
      if (csv)
        res.set_content(studio::run_csv(*job), "text/csv; charset=utf-8");
      else
        res.set_content(studio::run_json(*job), "application/json");
    });
    svr.Get(R"(/api/jobs/(\d{1,9}))", [this](const httplib::Request& req, httplib::Response& res) {
      const auto job = find_job(req.matches[1], res);
      if (!job) return;
      int from = 0;
      if (req.has_param("from")) {
        const std::string f = req.get_param_value("from");
        if (f.empty() || f.size() > 9 || f.find_first_not_of("0123456789") != std::string::npos)
          return reply_error(res, 400, "from: must be a frame index >= 0");
        from = std::stoi(f);
      }
      res.set_content(studio::job_json(*job, from), "application/json");
    });
    svr.set_error_handler([this](const httplib::Request&, httplib::Response& res) {
      if (!res.body.empty()) return;
      const std::string why = res.status == 404   ? "not found"
                              : res.status == 413 ? "request body too large (limit " + std::to_string(limits_.max_body_bytes) + " bytes)"
                                                  : "bad request";
      res.set_content(json{{"error", why}, {"status", res.status}}.dump(), "application/json");
    });
    svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
      std::string what = "internal error";
      try {
        std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        what = std::string("internal error: ") + e.what();
      } catch (...) {
      }
      reply_error(res, 500, what);
    });
  }

 private:
  struct Entry {
    std::shared_ptr<studio::Job> job;
    std::thread thread;
  };
  /// The job of that id, or null with 404 answered.
  std::shared_ptr<studio::Job> find_job(const std::string& id, httplib::Response& res) {
    std::lock_guard lock(mutex_);
    const auto it = jobs_.find(std::stoi(id));
    if (it == jobs_.end()) {
      reply_error(res, 404, "no job " + id + " (finished jobs are kept for a while only)");
      return nullptr;
    }
    return it->second.job;
  }
  /// Keeps the 16 newest jobs; older finished ones are joined and dropped. Needs mutex_.
  void reap() {
    while (jobs_.size() > 16) {
      auto it = jobs_.begin();
      {
        std::lock_guard jl(it->second.job->mutex);
        if (it->second.job->status == "running" || it->second.job->status == "queued") break;
      }
      if (it->second.thread.joinable()) it->second.thread.join();
      jobs_.erase(it);
    }
  }
  ServeArgs args_;
  studio::Limits limits_;
  std::map<std::string, std::string> models_;
  std::string page_;
  std::mutex mutex_;
  std::map<int, Entry> jobs_;
  int next_id_ = 0;
};

bool is_loopback(const std::string& host) { return host == "127.0.0.1" || host == "localhost" || host == "::1"; }

void run_serve(const ServeArgs& a) {
  require_viewer();
  if (a.port < 0 || a.port > 65535) throw Error("serve: --port must be in 0..65535");
  Studio studio(a);
  StudioServer svr(studio.limits());
  const int port = a.port == 0 ? svr.bind_to_any_port(a.host.c_str()) : (svr.bind_to_port(a.host.c_str(), a.port) ? a.port : -1);
  if (port < 0) throw Error("serve: cannot listen on " + a.host + ":" + std::to_string(a.port) + " (in use, or not an address of this machine)");
  studio.routes(svr, studio::Listen{a.host, port});
  add_live_routes(svr, is_loopback(a.host), studio.limits().max_body_bytes, read_body);  // /live (docs/VIEWER.md)
  if (!is_loopback(a.host))
    std::fprintf(stderr, "tendyn serve: WARNING: listening on %s, not only on this machine: anyone who can reach it can run simulations\n",
                 a.host.c_str());
  std::printf("tendyn studio: http://%s:%d/ (Ctrl-C to stop)\n", a.host == "0.0.0.0" ? "127.0.0.1" : a.host.c_str(), port);
  std::fflush(stdout);
  g_stop = false;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  svr.serve(g_stop);
  if (!a.quiet) std::printf("tendyn studio: stopped\n");
}

}  // namespace

void register_serve(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand("serve", "Run the modelling studio: a web page to build, run and watch tensegrity and CDPR models (docs/VIEWER.md)");
  cmd->add_option("--host", a->host, "address to listen on (127.0.0.1: this machine only)");
  cmd->add_option("-p,--port", a->port, "TCP port (0: any free port, printed)");
  cmd->add_option("--max-jobs", a->max_jobs, "runs at the same time")->check(CLI::Range(1, 64));
  cmd->add_option("--time-limit", a->time_limit, "wall time per run [s]")->check(positive());
  cmd->add_option("--max-connections", a->max_connections, "open connections at the same time (more get HTTP 503)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--request-timeout", a->request_timeout, "wall time to receive one request, headers and body [s]")
      ->check(CLI::Range(0.1, 3600.0));
  cmd->add_flag("-q,--quiet", a->quiet, "no report at exit");
  cmd->callback([a] { run_serve(*a); });
}

}  // namespace tendyn::cli
