// The modelling studio's web API of `tendyn serve`: see studio_app.hpp.
#include "studio_app.hpp"

#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/version.hpp>
#include <tendyn/viz/live.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "http_server.hpp"
#include "resources.hpp"
#include "viewer_cli.hpp"

namespace tendyn::cli {

namespace studio = viz::studio;
using nlohmann::json;

namespace {

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

/// A run id or client id as sent by a page: 1 to 64 of [A-Za-z0-9_-].
bool plain_id(const std::string& s) {
  return !s.empty() && s.size() <= 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; });
}

}  // namespace

Studio::Studio(const ServeArgs& a) : args_(a), models_(shipped_models()), token_(studio::random_hex(16)) {
  limits_.max_wall_s = a.time_limit;
  limits_.max_connections = a.max_connections;
  limits_.max_connections_per_client = std::max(1, a.max_connections - a.max_connections / 4);
  limits_.request_timeout_s = a.request_timeout;
  page_ = viz::studio_html(viewer_js(), viewer_css());
}

Studio::~Studio() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& [id, e] : jobs_) {
      e.job->cancel = true;
      if (e.thread.joinable()) threads.push_back(std::move(e.thread));
    }
  }
  for (auto& t : threads) t.join();  // without mutex_: a finishing run takes it
}

void Studio::routes(httplib::Server& svr, const studio::Listen& listen) {
  svr.set_payload_max_length(limits_.max_body_bytes);
  svr.set_pre_routing_handler(
      [this, listen](const httplib::Request& req, httplib::Response& res) { return check_request(req, res, listen); });
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
                      {"description", name == "default"             ? "document 000's 3-prism (built in)"
                                      : name.rfind("cdpr-", 0) == 0 ? "models/cdpr/" + name.substr(5) + ".yaml (CDPR)"
                                                                    : "models/" + name + ".yaml"}});
    res.set_content(json{{"models", list}}.dump(), "application/json");
  });
  svr.Get(R"(/api/models/([A-Za-z0-9_.-]+))", [this](const httplib::Request& req, httplib::Response& res) {
    const auto it = models_.find(req.matches[1]);
    if (it == models_.end()) return reply_error(res, 404, "no model '" + std::string(req.matches[1]) + "'");
    res.set_content(json{{"name", it->first}, {"yaml", it->second}}.dump(), "application/json");
  });
  svr.Post("/api/model",
           [this](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& reader) { post_model(res, reader); });
  svr.Post("/api/run", [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    post_run(req, res, reader);
  });
  svr.Post(R"(/api/jobs/([A-Za-z0-9_-]{1,64})/cancel)", [this](const httplib::Request& req, httplib::Response& res,
                                                               const httplib::ContentReader& reader) { cancel_job(req, res, reader); });
  svr.Get(R"(/api/jobs/([A-Za-z0-9_-]{1,64})/run\.(csv|json))",
          [this](const httplib::Request& req, httplib::Response& res) { download_run(req, res); });
  svr.Get(R"(/api/jobs/([A-Za-z0-9_-]{1,64}))", [this](const httplib::Request& req, httplib::Response& res) { get_job(req, res); });
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
    } catch (...) {}
    reply_error(res, 500, what);
  });
}

httplib::Server::HandlerResponse Studio::check_request(const httplib::Request& req, httplib::Response& res, const studio::Listen& listen) {
  const auto refuse = [&res](int status, const std::string& message) {
    t_close_connection = true;
    res.set_header("Connection", "close");
    reply_error(res, status, message);
    return httplib::Server::HandlerResponse::Handled;
  };
  // a second copy could carry another value than the one checked
  for (const char* k : {"Host", "Origin", "Content-Type", "Content-Length", "Transfer-Encoding", "X-Tendyn-Token", "X-Tendyn-Client"})
    if (req.get_header_value_count(k) > 1)
      return refuse(
          400, std::string("the ") + k + " header is given " + std::to_string(req.get_header_value_count(k)) + " times (one copy at most)");
  const auto header = [&req](const char* k) -> std::unique_ptr<std::string> {
    return req.has_header(k) ? std::make_unique<std::string>(req.get_header_value(k)) : nullptr;
  };
  const auto host = header("Host"), origin = header("Origin"), type = header("Content-Type");
  const auto v = studio::check_request_headers(req.method, host.get(), origin.get(), type.get(), listen);
  if (v.status != 0) return refuse(v.status, v.message);
  const bool api = req.path.rfind("/api/", 0) == 0 && req.path != "/api/health";
  if ((api || req.path.rfind("/live/", 0) == 0)) {
    const std::string given = req.has_header("X-Tendyn-Token") ? req.get_header_value("X-Tendyn-Token") : req.get_param_value("token");
    if (!studio::token_matches(given, token_))
      return refuse(403,
                    std::string(given.empty() ? "no token" : "wrong token") +
                        ": open the address tendyn serve printed (it ends in ?token=...), or send its token in the X-Tendyn-Token header");
  }
  if (req.has_header("Content-Length")) {
    const std::string n = req.get_header_value("Content-Length");
    const bool number = !n.empty() && n.size() <= 18 && n.find_first_not_of("0123456789") == std::string::npos;
    if (!number) return refuse(400, "Content-Length: '" + n.substr(0, 40) + "' is not a byte count");
    if (std::stoull(n) > limits_.max_body_bytes)
      return refuse(413, "request body too large (Content-Length " + n + ", limit " + std::to_string(limits_.max_body_bytes) + " bytes)");
  }
  return httplib::Server::HandlerResponse::Unhandled;
}

void Studio::post_model(httplib::Response& res, const httplib::ContentReader& reader) {
  std::string body;
  if (!read_body(reader, res, limits_.max_body_bytes, body)) return;
  json j;
  try {
    j = json::parse(body);
  } catch (const json::exception& e) {
    return reply_error(res, 400, "request: not valid JSON (" + std::string(e.what()) + ")");
  }
  if (!j.is_object() || !j.contains("yaml") || !j["yaml"].is_string())
    return reply_error(res, 400, "request.yaml: missing, or not a string");
  try {
    const auto r = studio::edit_model(j["yaml"].get<std::string>(), j.contains("edits") ? j["edits"].dump() : std::string(), limits_);
    res.set_content(nlohmann::ordered_json{{"yaml", r.yaml}, {"model", nlohmann::ordered_json::parse(r.model_json)}}.dump(),
                    "application/json");
  } catch (const studio::BadRequest& e) {
    reply_error(res, 400, e.what());
  } catch (const Error& e) {
    reply_error(res, 422, e.what());
  }
}

void Studio::post_run(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
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
  // the client: a page's own id (X-Tendyn-Client), else the connection's source
  const std::string page = header_or_empty(req, "X-Tendyn-Client");
  const std::string client = plain_id(page) ? "page:" + page : t_client;
  std::lock_guard lock(mutex_);
  reap();
  int waiting = 0, mine = 0;
  for (const auto& [id, e] : jobs_) {
    const std::string st = status_of(e);
    if (st != "queued" && st != "running") continue;
    waiting += st == "queued";
    mine += e.client == client;
  }
  if (mine >= kMaxRunsPerClient)
    return reply_error(res, 429,
                       "busy: you have " + std::to_string(mine) + " runs queued or running (limit " + std::to_string(kMaxRunsPerClient) +
                           " per client); wait, or cancel one (POST /api/jobs/ID/cancel)");
  if (waiting >= kMaxQueued)
    return reply_error(res, 429,
                       "busy: " + std::to_string(waiting) + " runs queued (limit " + std::to_string(kMaxQueued) + "); try again later");
  std::string id;
  do id = studio::random_hex(16);
  while (jobs_.count(id) != 0);
  Entry& e = jobs_[id];
  e.job = std::make_shared<studio::Job>();
  e.run = run;
  e.client = client;
  e.seq = ++next_seq_;
  e.finished = std::make_shared<std::atomic<bool>>(false);
  schedule();
  res.status = 202;
  res.set_content(json{{"job", id}, {"status", status_of(e)}}.dump(), "application/json");
}

void Studio::cancel_job(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
  std::string body;
  if (!read_body(reader, res, limits_.max_body_bytes, body)) return;
  std::lock_guard lock(mutex_);
  const auto it = jobs_.find(req.matches[1]);
  if (it == jobs_.end())
    return reply_error(res, 404, "no job " + std::string(req.matches[1]) + " (finished jobs are kept for a while only)");
  Entry& e = it->second;
  const std::string st = status_of(e);
  if (st != "queued" && st != "running") return reply_error(res, 409, "job " + it->first + " is " + st + ": nothing to cancel");
  e.job->cancel = true;
  if (!e.started) {
    std::lock_guard jl(e.job->mutex);
    e.job->status = "cancelled";
    e.job->error = "run cancelled before it started";
  }
  res.set_content(json{{"job", it->first}, {"status", e.started ? "cancelling" : "cancelled"}}.dump(), "application/json");
}

void Studio::download_run(const httplib::Request& req, httplib::Response& res) {
  const auto job = find_job(req.matches[1], res);
  if (!job) return;
  {
    std::lock_guard lock(job->mutex);
    if (job->status != "done")
      return reply_error(res, 409,
                         "job " + std::string(req.matches[1]) + " is " + job->status + ": the run can be downloaded when it is done");
  }
  const bool csv = req.matches[2] == "csv";
  res.set_header("Content-Disposition", "attachment; filename=\"run-" + std::string(req.matches[1]) + (csv ? ".csv\"" : ".json\""));
  if (csv)
    res.set_content(studio::run_csv(*job), "text/csv; charset=utf-8");
  else
    res.set_content(studio::run_json(*job), "application/json");
}

void Studio::get_job(const httplib::Request& req, httplib::Response& res) {
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
}

std::string Studio::status_of(const Entry& e) {
  std::lock_guard jl(e.job->mutex);
  return e.job->status;
}

void Studio::schedule() {
  while (!stopping_) {
    int running = 0;
    std::map<std::string, int> per_client;
    std::vector<studio::QueuedRun> queued;
    std::vector<std::string> ids;
    for (const auto& [id, e] : jobs_) {
      if (e.started && !e.completed) {
        ++running;
        ++per_client[e.client];
      } else if (!e.started && status_of(e) == "queued") {
        queued.push_back({e.client, e.seq});
        ids.push_back(id);
      }
    }
    const int k = studio::next_run(queued, per_client, args_.max_jobs - running);
    if (k < 0) return;
    const std::string id = ids[static_cast<std::size_t>(k)];
    Entry& e = jobs_[id];
    e.started = true;
    {
      std::lock_guard jl(e.job->mutex);
      e.job->status = "running";  // from now on; the run's thread sets it again
    }
    e.thread = std::thread([this, id, job = e.job, run = e.run, finished = e.finished, limits = limits_] {
      studio::run_job(*run, *job, limits);
      {
        std::lock_guard lock(mutex_);
        const auto it = jobs_.find(id);
        if (it != jobs_.end()) it->second.completed = true;
        schedule();
      }
      *finished = true;
    });
  }
}

std::shared_ptr<studio::Job> Studio::find_job(const std::string& id, httplib::Response& res) {
  std::lock_guard lock(mutex_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) {
    reply_error(res, 404, "no job " + id + " (finished jobs are kept for a while only)");
    return nullptr;
  }
  return it->second.job;
}

void Studio::reap() {
  std::vector<std::pair<long, std::string>> over;  // finished jobs, oldest first
  for (const auto& [id, e] : jobs_) {
    const bool finished = e.started ? e.completed && *e.finished : status_of(e) != "queued";
    if (finished) over.emplace_back(e.seq, id);
  }
  std::sort(over.begin(), over.end());
  for (std::size_t i = 0; i + 16 < over.size(); ++i) {
    auto it = jobs_.find(over[i].second);
    if (it->second.thread.joinable()) it->second.thread.join();
    jobs_.erase(it);
  }
}

}  // namespace tendyn::cli
