// The modelling studio's web API of `tendyn serve` (docs/VIEWER.md): the page, the shipped models,
// model edits, and runs as jobs (one thread each, a queue fair across clients). Served by
// http_server.hpp's StudioServer; cmd_serve.cpp parses the options and starts both.
#pragma once
#include <tendyn/viz/studio.hpp>

#include <httplib.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace tendyn::cli {

/// The options of `tendyn serve`.
struct ServeArgs {
  std::string host = "127.0.0.1";
  int port = 8787;
  int max_jobs = 2;
  double time_limit = 60.0;
  int max_connections = 64;
  double request_timeout = 10.0;
  bool quiet = false;
};

/// The studio: its routes (routes) on a server, its jobs.
class Studio {
 public:
  Studio(const ServeArgs& a);
  const viz::studio::Limits& limits() const { return limits_; }
  /// The per-server secret: every /api/ route but /api/health and every /live/ route need it.
  const std::string& token() const { return token_; }
  ~Studio();

  void routes(httplib::Server& svr, const viz::studio::Listen& listen);

 private:
  // the routes' handlers (routes)
  /// Duplicated headers, Host, Origin, the token, Content-Type and Content-Length, checked before
  /// any body is read (docs/VIEWER.md).
  httplib::Server::HandlerResponse check_request(const httplib::Request& req, httplib::Response& res, const viz::studio::Listen& listen);

  /// POST /api/model: a model's YAML with edits, checked (docs/VIEWER.md).
  void post_model(httplib::Response& res, const httplib::ContentReader& reader);

  /// POST /api/run: a run queued as a job (at most kMaxRunsPerClient per client, kMaxQueued in all).
  void post_run(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader);

  /// cancel a queued or running run (the page's Cancel button)
  void cancel_job(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader);

  /// the run as a download: CSV (header line with units) or scene.json with the summary
  void download_run(const httplib::Request& req, httplib::Response& res);

  /// GET /api/jobs/ID[?from=N]: a job's status and its frames from N on.
  void get_job(const httplib::Request& req, httplib::Response& res);

  static constexpr int kMaxRunsPerClient = 4;  ///< queued + running runs of one client
  static constexpr int kMaxQueued = 32;        ///< queued runs of all clients
  struct Entry {
    std::shared_ptr<viz::studio::Job> job;
    std::shared_ptr<const viz::studio::RunRequest> run;
    std::string client;
    long seq = 0;
    bool started = false;    ///< its thread was started (needs mutex_)
    bool completed = false;  ///< its run returned (needs mutex_)
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;  ///< the thread is past its last use of mutex_: join() does not wait
  };
  static std::string status_of(const Entry& e);
  /// Starts queued runs while slots are free, by viz::studio::next_run's fair share (needs mutex_).
  void schedule();
  /// The job of that id, or null with 404 answered.
  std::shared_ptr<viz::studio::Job> find_job(const std::string& id, httplib::Response& res);
  /// Keeps the 16 newest finished jobs; older ones are joined and dropped. Needs mutex_.
  void reap();
  ServeArgs args_;
  viz::studio::Limits limits_;
  std::map<std::string, std::string> models_;
  std::string page_;
  std::string token_;
  std::mutex mutex_;
  std::map<std::string, Entry> jobs_;
  long next_seq_ = 0;
  bool stopping_ = false;
};

}  // namespace tendyn::cli
