// tendyn serve: the modelling studio (document 001, section 3.4) as a local web page. The page
// talks to this process through the JSON API of docs/VIEWER.md; simulations and plans run here,
// one thread per job, and their frames stream to the page by polling. HTTP by cpp-httplib.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/version.hpp>
#include <tendyn/viz/studio.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "cli_util.hpp"
#include "commands.hpp"
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
  bool quiet = false;
};

void reply_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(json{{"error", message}}.dump(), "application/json");
}

/// Shipped tensegrity models the studio offers (name -> YAML text); "default" is the built-in
/// 3-prism of `tendyn simulate`.
std::map<std::string, std::string> shipped_models() {
  std::map<std::string, std::string> out;
  const auto def = tensegrity::default_model();
  out["default"] = tensegrity::to_yaml(def.model, &def.simulation);
  const std::filesystem::path dir = data_dir() / "models";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    if (text.find("tendyn: tensegrity") == std::string::npos) continue;
    out[entry.path().stem().string()] = text;
  }
  return out;
}

class Studio {
 public:
  Studio(const ServeArgs& a) : args_(a), models_(shipped_models()) {
    limits_.max_wall_s = a.time_limit;
    page_ = viz::studio_html(viewer_js(), viewer_css());
  }
  ~Studio() {
    for (auto& [id, e] : jobs_) e.job->cancel = true;
    for (auto& [id, e] : jobs_)
      if (e.thread.joinable()) e.thread.join();
  }

  void routes(httplib::Server& svr) {
    svr.set_payload_max_length(limits_.max_body_bytes);
    svr.Get("/", [this](const httplib::Request&, httplib::Response& res) { res.set_content(page_, "text/html; charset=utf-8"); });
    svr.Get("/favicon.ico", [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
    svr.Get("/api/health", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(json{{"ok", true}, {"version", std::string(kVersion)}}.dump(), "application/json");
    });
    svr.Get("/api/models", [this](const httplib::Request&, httplib::Response& res) {
      json list = json::array();
      for (const auto& [name, text] : models_)
        list.push_back({{"name", name}, {"description", name == "default" ? "document 000's 3-prism (built in)" : "models/" + name + ".yaml"}});
      res.set_content(json{{"models", list}}.dump(), "application/json");
    });
    svr.Get(R"(/api/models/([A-Za-z0-9_.-]+))", [this](const httplib::Request& req, httplib::Response& res) {
      const auto it = models_.find(req.matches[1]);
      if (it == models_.end()) return reply_error(res, 404, "no model '" + std::string(req.matches[1]) + "'");
      res.set_content(json{{"name", it->first}, {"yaml", it->second}}.dump(), "application/json");
    });
    svr.Post("/api/model", [this](const httplib::Request& req, httplib::Response& res) {
      json j;
      try {
        j = json::parse(req.body);
      } catch (const json::parse_error& e) {
        return reply_error(res, 400, "request: not valid JSON (byte " + std::to_string(e.byte) + ")");
      }
      if (!j.is_object() || !j.contains("yaml") || !j["yaml"].is_string()) return reply_error(res, 400, "request: missing string \"yaml\"");
      try {
        const auto r = studio::edit_model(j["yaml"].get<std::string>(), j.contains("edits") ? j["edits"].dump() : std::string(), limits_);
        res.set_content("{\"yaml\":" + json(r.yaml).dump() + ",\"model\":" + r.model_json + "}", "application/json");
      } catch (const Error& e) {
        reply_error(res, 422, e.what());
      }
    });
    svr.Post("/api/run", [this](const httplib::Request& req, httplib::Response& res) {
      std::shared_ptr<studio::RunRequest> run;
      try {
        run = std::make_shared<studio::RunRequest>(studio::parse_run_request(req.body, limits_));
      } catch (const Error& e) {
        const std::string what = e.what();
        return reply_error(res, what.rfind("request", 0) == 0 && what.find("JSON") != std::string::npos ? 400 : 422, what);
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
    svr.Get(R"(/api/jobs/(\d{1,9}))", [this](const httplib::Request& req, httplib::Response& res) {
      std::shared_ptr<studio::Job> job;
      {
        std::lock_guard lock(mutex_);
        const auto it = jobs_.find(std::stoi(req.matches[1]));
        if (it == jobs_.end()) return reply_error(res, 404, "no job " + std::string(req.matches[1]) + " (finished jobs are kept for a while only)");
        job = it->second.job;
      }
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
  httplib::Server svr;
  studio.routes(svr);
  const int port = a.port == 0 ? svr.bind_to_any_port(a.host.c_str()) : (svr.bind_to_port(a.host.c_str(), a.port) ? a.port : -1);
  if (port < 0) throw Error("serve: cannot listen on " + a.host + ":" + std::to_string(a.port) + " (in use, or not an address of this machine)");
  if (!is_loopback(a.host))
    std::fprintf(stderr, "tendyn serve: WARNING: listening on %s, not only on this machine: anyone who can reach it can run simulations\n",
                 a.host.c_str());
  std::printf("tendyn studio: http://%s:%d/ (Ctrl-C to stop)\n", a.host == "0.0.0.0" ? "127.0.0.1" : a.host.c_str(), port);
  std::fflush(stdout);
  g_stop = false;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::thread watcher([&svr] {
    while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    svr.stop();
  });
  svr.listen_after_bind();
  g_stop = true;
  watcher.join();
  if (!a.quiet) std::printf("tendyn studio: stopped\n");
}

}  // namespace

void register_serve(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand("serve", "Run the modelling studio: a web page to build, run and watch tensegrity models (docs/VIEWER.md)");
  cmd->add_option("--host", a->host, "address to listen on (127.0.0.1: this machine only)");
  cmd->add_option("-p,--port", a->port, "TCP port (0: any free port, printed)");
  cmd->add_option("--max-jobs", a->max_jobs, "runs at the same time")->check(CLI::Range(1, 64));
  cmd->add_option("--time-limit", a->time_limit, "wall time per run [s]")->check(positive());
  cmd->add_flag("-q,--quiet", a->quiet, "no report at exit");
  cmd->callback([a] { run_serve(*a); });
}

}  // namespace tendyn::cli
