// The live view's routes of `tendyn serve` (live_routes.hpp). The store and its checks are the
// library's (viz::LiveStore, tested without a socket in tests/viz/live_test.cpp); this file only
// maps HTTP onto it.
// (tendyn's headers before httplib.h, whose system headers define macros such as _res that
// Eigen uses as names)
#include <tendyn/version.hpp>
#include <tendyn/viz/live.hpp>
#include <tendyn/viz/scene.hpp>

#include "live_routes.hpp"

#include <nlohmann/json.hpp>

#include <memory>

#include "viewer_cli.hpp"

namespace tendyn::cli {

namespace {

constexpr int kMaxFramesPerPoll = 2000;  ///< a page that fell behind gets the newest frames only
constexpr double kLongPollS = 1.0;       ///< GET /live/state waits this long for something new

void reply(httplib::Response& res, int status, const nlohmann::json& j) {
  res.status = status;
  res.set_content(j.dump(), "application/json");
}

/// A non-negative integer query parameter (absent: `fallback`); false after answering 400.
bool query_long(const httplib::Request& req, const char* key, long fallback, long& out, httplib::Response& res) {
  out = fallback;
  if (!req.has_param(key)) return true;
  const std::string v = req.get_param_value(key);
  if (v.empty() || v.size() > 15 || v.find_first_not_of("0123456789") != std::string::npos) {
    reply(res, 400, {{"error", std::string(key) + ": must be an integer >= 0"}});
    return false;
  }
  out = std::stol(v);
  return true;
}

}  // namespace

void add_live_routes(httplib::Server& svr, bool loopback, std::size_t max_body_bytes, BodyReader read_body) {
  auto store = std::make_shared<viz::LiveStore>();
  const auto page = std::make_shared<const std::string>(viz::live_html(viewer_js(), viewer_css()));
  auto refuse = [](httplib::Response& res) {
    reply(res, 403, {{"error", "the live view is served on loopback only (tendyn serve --host 127.0.0.1)"}});
  };
  svr.Get("/live", [=](const httplib::Request&, httplib::Response& res) {
    if (!loopback) return refuse(res);
    res.set_content(*page, "text/html; charset=utf-8");
  });
  svr.Get("/live/health", [=](const httplib::Request&, httplib::Response& res) {
    if (!loopback) return refuse(res);
    reply(res, 200, {{"ok", true}, {"live", true}, {"version", std::string(kVersion)}, {"session", store->session()}});
  });
  auto post = [=](bool scene) {
    return [=](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& reader) {
      if (!loopback) return refuse(res);
      std::string body;
      if (!read_body(reader, res, max_body_bytes, body)) return;
      try {
        if (scene) {
          reply(res, 200, {{"session", store->set_scene(body)}});
        } else {
          const int added = store->push_frames(body);
          reply(res, 200, {{"session", store->session()}, {"count", store->count()}, {"added", added}, {"paused", store->paused()}});
        }
      } catch (const viz::LiveRequestError& e) {
        reply(res, e.status(), {{"error", e.what()}});
      }
    };
  };
  svr.Post("/live/scene", post(true));
  // POST /live/control: the page pauses, resumes or steps the program; POST /live/permit: a paused
  // program's send_frame waits here (up to 1 s per request) for the page to let a frame through.
  svr.Post("/live/control", [=](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& reader) {
    if (!loopback) return refuse(res);
    std::string body;
    if (!read_body(reader, res, max_body_bytes, body)) return;
    try {
      res.set_content(store->control(body), "application/json");
    } catch (const viz::LiveRequestError& e) {
      reply(res, e.status(), {{"error", e.what()}});
    }
  });
  svr.Post("/live/permit", [=](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& reader) {
    if (!loopback) return refuse(res);
    std::string body;
    if (!read_body(reader, res, max_body_bytes, body)) return;
    const bool granted = store->permit(kLongPollS);
    reply(res, 200, {{"granted", granted}, {"paused", store->paused()}});
  });
  svr.Post("/live/frame", post(false));
  // GET /live/state?session=S&after=N[&keep=1]: waits up to 1 s for news, then answers (the page
  // polls again at most 30 times a second). keep=1: the oldest frames not yet seen (a page that
  // keeps every frame), else the newest.
  svr.Get("/live/state", [=](const httplib::Request& req, httplib::Response& res) {
    if (!loopback) return refuse(res);
    long session = 0, after = 0, keep = 0;
    if (!query_long(req, "session", 0, session, res) || !query_long(req, "after", 0, after, res) || !query_long(req, "keep", 0, keep, res))
      return;
    store->wait(session, after, kLongPollS);
    res.set_content(store->state_json(session, after, kMaxFramesPerPoll, keep != 0), "application/json");
  });
}

}  // namespace tendyn::cli
