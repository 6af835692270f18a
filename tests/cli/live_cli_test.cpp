// The live view end to end: viz::LiveClient pushes a simulated loop's frames to a real
// `tendyn serve` on a free loopback port; what the page would read back (GET /live/state) is the
// last frame pushed, the rate limit holds, the page and the loopback-only rule are served.
// The page itself in a browser: web/tests/live.test.mjs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <tendyn/tensegrity/output.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/simulate.hpp>
#include <tendyn/viz/live.hpp>

#include "support/cli_run.hpp"
#include "support/error_of.hpp"
#include "support/serve_process.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

namespace {

using tendyn::test::built_with_viewer;
using tendyn::test::fresh_dir;
using tendyn::test::run;
using tendyn::test::slurp;
namespace ts = tendyn::tensegrity;
namespace viz = tendyn::viz;
using nlohmann::json;

std::unique_ptr<tendyn::test::ServeProcess> start(const std::string& extra = "") { return tendyn::test::start_serve("live_serve", extra); }

/// GET path on 127.0.0.1:port with the server's token: {status, body} (status -1: no answer).
std::pair<int, std::string> get(const tendyn::test::ServeProcess& server, const std::string& path) {
  const int port = server.port;
  const int fd = tendyn::test::connect_loopback(port);
  if (fd < 0) return {-1, ""};
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\nX-Tendyn-Token: " + server.token +
                          "\r\nConnection: close\r\n\r\n";
  (void)::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string in;
  char buf[8192];
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    in.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  const auto head = in.find("\r\n\r\n");
  if (in.rfind("HTTP/1.1 ", 0) != 0 || head == std::string::npos) return {-1, in};
  return {std::stoi(in.substr(9, 3)), in.substr(head + 4)};
}

TEST(LiveCli, ClientPushesASimulatedLoopAndThePageReadsTheLastFrame) {
  if (!built_with_viewer()) GTEST_SKIP() << "tendyn built without the viewer";
  const auto server = start();
  ASSERT_GT(server->port, 0) << slurp(server->log);
  auto [page_status, page] = get(*server, "/live");
  EXPECT_EQ(page_status, 200);
  EXPECT_NE(page.find(R"({"mode":"live"})"), std::string::npos);

  ts::Model model = ts::load_model_file(tendyn::test::kModels + "prism3.yaml").model;
  ts::State state = model.initial_state;
  ts::Data data = ts::make_data(model);
  viz::LiveClient live;  // 30 Hz
  live.connect("127.0.0.1", server->port);
  // the token comes from the server's token file (same user); the page's address carries it
  EXPECT_EQ(live.page_url(), "http://127.0.0.1:" + std::to_string(server->port) + "/live?token=" + server->token);
  live.send_scene(model);
  ts::compute_derivative(model, state, data);
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 1; k <= 200; ++k) {
    ts::step(model, data, state, 1e-3, ts::StepOptions{}, k * 1e-3);
    EXPECT_TRUE(live.send_frame(state.time_s, model, state, data));
  }
  const double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(live.flush(5.0)) << live.stats().last_error;
  const viz::LiveStats st = live.stats();
  EXPECT_EQ(st.given, 200);
  EXPECT_EQ(st.sent + st.replaced, 200);
  EXPECT_EQ(st.failed, 0);
  EXPECT_LE(st.sent, 2 + static_cast<long>(30.0 * (loop_s + 0.2)));  // the rate limit (30 Hz) dropped the rest
  EXPECT_GE(st.sent, 1);

  auto [status, body] = get(*server, "/live/state?session=0&after=0");
  ASSERT_EQ(status, 200) << body;
  const json j = json::parse(body);
  EXPECT_EQ(j["session"], 1);
  EXPECT_EQ(j["count"], st.sent);
  EXPECT_EQ(j["scene"]["cables"].size(), static_cast<std::size_t>(model.ncable()));
  const auto& f = j["frames"];
  EXPECT_DOUBLE_EQ(f["t_s"].back().get<double>(), 0.2);
  const auto& p = f["positions_m"].back();
  ASSERT_EQ(p.size(), 3u * static_cast<std::size_t>(model.nnode()));
  for (int i = 0; i < model.nnode(); ++i)
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(p[static_cast<std::size_t>(3 * i + c)].get<double>(), data.p_W_node(c, i), 1e-6 * std::fabs(data.p_W_node(c, i)) + 1e-12);
  for (int k = 0; k < model.ncable(); ++k)
    EXPECT_NEAR(f["cable_tension_N"].back()[static_cast<std::size_t>(k)].get<double>(), data.cable_tension_N[k],
                1e-6 * data.cable_tension_N[k] + 1e-12);

  // a malformed frame: the server's message reaches the client's stats
  viz::LiveFrame bad;
  bad.t_s = 1.0;
  bad.positions_m = {0, 0, 0};
  EXPECT_TRUE(live.send_frame(bad));  // stored; the post fails later
  EXPECT_FALSE(live.flush(5.0));
  EXPECT_NE(live.stats().last_error.find("HTTP 422: frame.positions_m: 3 numbers, expected 3 x 6 points = 18"), std::string::npos)
      << live.stats().last_error;
  live.close();
  EXPECT_FALSE(live.connected());
}

TEST(LiveCli, ObserverStreamsASimulateRunAndPassesItOn) {
  if (!built_with_viewer()) GTEST_SKIP() << "tendyn built without the viewer";
  const auto server = start();
  ASSERT_GT(server->port, 0) << slurp(server->log);
  const ts::Model model = ts::load_model_file(tendyn::test::kModels + "prism3.yaml").model;
  viz::LiveClient live;
  live.connect("localhost", server->port);
  live.send_scene(model);
  ts::Recorder rec;
  viz::LiveObserver obs(live, &rec);
  ts::SimulationOptions o;
  o.duration_s = 0.3;
  o.output_interval_s = 0.01;
  ts::simulate(model, o, &obs);
  ASSERT_TRUE(live.flush(5.0)) << live.stats().last_error;
  EXPECT_EQ(live.stats().given, static_cast<long>(rec.time_s.size()));  // every output went to both
  const json j = json::parse(get(*server, "/live/state?session=0&after=0").second);
  EXPECT_DOUBLE_EQ(j["frames"]["t_s"].back().get<double>(), rec.time_s.back());
  const auto& p = j["frames"]["positions_m"].back();
  const Eigen::Matrix3Xd& last = rec.p_W_node.back();
  for (int i = 0; i < model.nnode(); ++i)
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(p[static_cast<std::size_t>(3 * i + c)].get<double>(), last(c, i), 1e-6 * std::fabs(last(c, i)) + 1e-12);
  EXPECT_NEAR(j["frames"]["energy_J"]["total"].back().get<double>(), rec.energy.back().total(),
              1e-6 * std::fabs(rec.energy.back().total()));
}

TEST(LiveCli, LiveRoutesAreLoopbackOnly) {
  if (!built_with_viewer()) GTEST_SKIP() << "tendyn built without the viewer";
  // a wildcard address: the studio warns, the live routes refuse
  const auto server = start("--host 0.0.0.0");
  ASSERT_GT(server->port, 0) << slurp(server->log);
  auto [status, body] = get(*server, "/live/health");
  EXPECT_EQ(status, 403) << body;
  EXPECT_NE(body.find("the live view is served on loopback only"), std::string::npos) << body;
  viz::LiveClient live;
  const std::string msg = tendyn::test::error_of([&] { live.connect("127.0.0.1", server->port); });
  EXPECT_NE(msg.find("is not a tendyn serve with the live view (GET /live/health: HTTP 403"), std::string::npos) << msg;
}

// Without the server's token (another user, no token file) a program cannot feed the live view:
// connect() says which token is missing and where it comes from; the right one given works.
TEST(LiveCli, ClientNeedsTheServersToken) {
  if (!built_with_viewer()) GTEST_SKIP() << "tendyn built without the viewer";
  const auto server = start();
  ASSERT_GT(server->port, 0) << slurp(server->log);
  viz::LiveClientOptions wrong;
  wrong.token = std::string(32, 'f');
  viz::LiveClient bad(wrong);
  const std::string msg = tendyn::test::error_of([&] { bad.connect("127.0.0.1", server->port); });
  EXPECT_NE(msg.find("refused the given token (GET /live/health: HTTP 403: wrong token"), std::string::npos) << msg;
  EXPECT_NE(msg.find("TENDYN_SERVE_TOKEN"), std::string::npos) << msg;
  EXPECT_FALSE(bad.connected());
  viz::LiveClientOptions right;
  right.token = server->token;
  viz::LiveClient good(right);
  good.connect("127.0.0.1", server->port);
  EXPECT_TRUE(good.connected());
  good.send_scene(ts::load_model_file(tendyn::test::kModels + "prism3.yaml").model);
  // a scene from a process without the token is refused, the one sent stays
  const int fd = tendyn::test::connect_loopback(server->port);
  ASSERT_GE(fd, 0);
  const std::string body = R"({"points": ["a", "b"]})";
  const std::string req = "POST /live/scene HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server->port) +
                          "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
                          "\r\n\r\n" + body;
  (void)::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  char buf[512] = {0};
  pollfd p{fd, POLLIN, 0};
  ASSERT_GT(::poll(&p, 1, 5000), 0);
  const ssize_t n = ::recv(fd, buf, sizeof buf - 1, 0);
  ::close(fd);
  EXPECT_EQ(std::string(buf, static_cast<std::size_t>(std::max<ssize_t>(n, 0))).substr(0, 12), "HTTP/1.1 403");
  const json j = json::parse(get(*server, "/live/state?session=0&after=0").second);
  EXPECT_EQ(j["session"], 1);
  EXPECT_EQ(j["scene"]["points"].size(), 6u);
}

}  // namespace
