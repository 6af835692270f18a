// tendyn view / plot / serve and the --html outputs, end to end: files written (never half), exit
// codes and messages on bad input. The pages themselves are tested in a browser by web/tests.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <tendyn/viz/live.hpp>

#include "support/cli_run.hpp"
#include "support/serve_process.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <vector>
#include <cstdio>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

using tendyn::test::built_with_viewer;
using tendyn::test::fresh_dir;
using tendyn::test::run;
using tendyn::test::slurp;

using tendyn::test::kModels;

}  // namespace

TEST(ViewerCli, SimulateHtmlWritesSceneAndPageAndViewRebuildsTheSamePage) {
  const auto d = fresh_dir("sim");
  const auto r = run("simulate -q --html --duration 0.5 -o " + d.string() + " " + kModels + "prism3.yaml");
  if (r.code == 2 && r.out.find("without the web viewer") != std::string::npos) GTEST_SKIP() << r.out;
  ASSERT_EQ(r.code, 0) << r.out;
  const auto scene = nlohmann::json::parse(slurp(d / "scene.json"));
  EXPECT_EQ(scene["format"], "tendyn-scene");
  EXPECT_EQ(scene["rods"].size(), 3u);
  EXPECT_EQ(scene["cables"].size(), 9u);
  EXPECT_EQ(scene["frames"]["t_s"].size(), 51u);  // 0..0.5 s at the default 100 Hz
  const std::string page = slurp(d / "view.html");
  EXPECT_NE(page.find("id=\"tendyn-scene\""), std::string::npos);
  EXPECT_GT(page.size(), 100000u);                                                // the bundle is inlined: works offline
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);                          // nothing fetched from the network
  const auto v = run("view -q " + d.string() + " -o " + (d / "again").string());  // -o: a directory
  ASSERT_EQ(v.code, 0) << v.out;
  EXPECT_EQ(slurp(d / "again" / "view.html"), page);
}

TEST(ViewerCli, ViewRejectsMissingAndMalformedScenesWithoutWriting) {
  const auto d = fresh_dir("bad");
  auto r = run("view " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("no scene.json"), std::string::npos) << r.out;
  std::ofstream(d / "scene.json")
      << R"({"format":"tendyn-scene","version":1,"points":["a"],"rods":[{"a":0,"b":3}],"cables":[],"frames":{"t_s":[],"positions_m":[]}})";
  r = run("view " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("rods[0].b"), std::string::npos) << r.out;
  std::ofstream(d / "scene.json") << "{\"format\": ";
  r = run("view " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("not valid JSON"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "view.html"));
  r = run("plot " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(fs::exists(d / "plots"));
}

TEST(ViewerCli, PlotWritesReportFigures) {
  const auto d = fresh_dir("plot");
  ASSERT_EQ(run("simulate -q --duration 0.3 -o " + d.string()).code, 0);
  const auto r = run("plot " + d.string() + " --format png,svg");
  if (r.code != 0 && r.out.find("matplotlib") != std::string::npos &&
      std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") != 0)
    GTEST_SKIP() << "matplotlib not installed";
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* f : {"cables", "energy", "com"}) {
    EXPECT_GT(fs::file_size(d / "plots" / (std::string(f) + ".png")), 10000u) << f;
    EXPECT_NE(slurp(d / "plots" / (std::string(f) + ".svg")).find("<svg"), std::string::npos) << f;
  }
  EXPECT_EQ(run("plot " + d.string() + " --format gif").code, 2);
}

TEST(ViewerCli, TreeAndTensionHtml) {
  if (!built_with_viewer()) GTEST_SKIP();
  const auto d = fresh_dir("others");
  auto r = run("tree simulate " + kModels + "tree/double_pendulum.yaml --duration 0.2 -o " + (d / "tree").string() + " --html");
  if (r.code == 0) {
    EXPECT_TRUE(fs::exists(d / "tree" / "results.csv"));
    const auto s = nlohmann::json::parse(slurp(d / "tree" / "scene.json"));
    EXPECT_EQ(s["kind"], "tree");
    EXPECT_EQ(s["frames"]["t_s"].size(), 21u);
    EXPECT_TRUE(fs::exists(d / "tree" / "view.html"));
    // energy is conserved by the unforced pendulum (RK4, 1 ms): the recorded total stays put
    const auto& e = s["frames"]["energy_J"]["total"];
    EXPECT_NEAR(e.back().get<double>(), e.front().get<double>(), 1e-4 * std::max(1.0, std::abs(e.front().get<double>())));
  } else {
    EXPECT_NE(r.out.find("tree"), std::string::npos) << r.out;  // built without the tree module
  }
  std::ofstream(d / "traj.csv") << "t,x,y,z,roll,pitch,yaw\n0,0,0,3,0,0,0\n1,1,0,3,0,0,0\n";
  r = run("tension trajectory " + kModels + "cdpr/printer8.yaml --in " + (d / "traj.csv").string() + " -o " + (d / "cdpr").string() +
          " --html");
  if (r.code == 0) {
    EXPECT_TRUE(fs::exists(d / "cdpr" / "tensions.csv"));
    EXPECT_TRUE(fs::exists(d / "cdpr" / "view.html"));
    const auto s = nlohmann::json::parse(slurp(d / "cdpr" / "scene.json"));
    EXPECT_EQ(s["kind"], "cdpr");
    EXPECT_EQ(s["cables"].size(), 8u);
    EXPECT_EQ(s["frames"]["t_s"].size(), 2u);
    EXPECT_FALSE(s["faces"].empty());  // the platform
    EXPECT_EQ(s["rods"].size(), 4u);   // four towers
    // the solver's tensions are in the frames
    double sum = 0;
    for (const auto& f : s["frames"]["cable_tension_N"][0]) sum += f.get<double>();
    EXPECT_GT(sum, 100.0);
  }
}

namespace {
/// The scene JSON embedded in a viewer page (<script type="application/json" id="tendyn-scene">).
nlohmann::json page_scene(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"tendyn-scene\">";
  const auto a = html.find(open);
  if (a == std::string::npos) return {};
  const auto b = html.find("</script>", a);
  std::string text = html.substr(a + open.size(), b - a - open.size());
  for (std::size_t i = 0; (i = text.find("<\\/", i)) != std::string::npos;) text.replace(i, 3, "</");
  return nlohmann::json::parse(text);
}
}  // namespace

// The printer experiment's two stages in one comparison page: stage 1 as run A, stage 2 as run B
// (a ghost), the plots of both stages and the difference of their position errors.
TEST(ViewerCli, CdprExperimentHtmlComparesTheTwoStages) {
  if (!built_with_viewer()) GTEST_SKIP();
  const auto d = fresh_dir("experiment");
  const auto r = run("cdpr-experiment --speed 1 --no-plot --html -o " + d.string());
  if (r.code != 0 && r.out.find("cdpr-experiment") != std::string::npos && r.out.find("CDPR") != std::string::npos)
    GTEST_SKIP() << "built without the CDPR module";
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("compare: " + (d / "compare.html").string() + " (stage 1 as A, stage 2 as B)"), std::string::npos) << r.out;
  ASSERT_TRUE(fs::exists(d / "compare.html"));
  EXPECT_TRUE(fs::exists(d / "view.html"));
  const auto page = page_scene(slurp(d / "compare.html"));
  ASSERT_TRUE(page.is_object());
  EXPECT_EQ(page["title"], "stage 1, without tension control");
  ASSERT_EQ(page["compare"].size(), 1u);
  const auto& b = page["compare"][0];
  EXPECT_EQ(b["title"], "stage 2, with tension control");
  EXPECT_EQ(page["kind"], "cdpr");
  EXPECT_EQ(b["points"], page["points"]);  // the same points: the viewer's difference plot matches them by name
  EXPECT_GT(page["frames"]["t_s"].size(), 2u);
  EXPECT_EQ(b["frames"]["t_s"].size(), page["frames"]["t_s"].size());
  // the two runs differ (stage 2 tracks better): the platform's positions are not the same
  EXPECT_NE(b["frames"]["positions_m"], page["frames"]["positions_m"]);
  // the plots of run A: both stages' position errors and their difference, sample by sample
  const nlohmann::json* pos = nullptr;
  const nlohmann::json* diff = nullptr;
  for (const auto& p : page["plots"]) {
    if (p["title"] == "position error") pos = &p;
    if (p["title"] == "position error difference (stage 2 - stage 1)") diff = &p;
  }
  ASSERT_TRUE(pos && diff);
  const auto& e1 = (*pos)["series"][0]["values"];
  const auto& e2 = (*pos)["series"][1]["values"];
  const auto& dd = (*diff)["series"][0]["values"];
  ASSERT_EQ(dd.size(), e1.size());
  ASSERT_GT(dd.size(), 100u);
  double mean_diff = 0.0;
  for (std::size_t i = 0; i < dd.size(); ++i) {
    EXPECT_NEAR(dd[i].get<double>(), e2[i].get<double>() - e1[i].get<double>(), 1e-5 * (1.0 + std::abs(e1[i].get<double>()))) << i;
    mean_diff += dd[i].get<double>() / static_cast<double>(dd.size());
  }
  EXPECT_LT(mean_diff, 0.0);  // stage 2 (with tension control) tracks better on average
  // scene.json (the result's data) is still stage 2 alone
  const auto scene = nlohmann::json::parse(slurp(d / "scene.json"));
  EXPECT_EQ(scene.count("compare"), 0u);
}

TEST(ViewerCli, ServeListensOnLoopbackAndAnswersJson) {
  if (!built_with_viewer()) GTEST_SKIP();
  const auto d = fresh_dir("serve");
  const fs::path log = d / "serve.log";
  const std::string cmd = std::string(TENDYN_CLI) + " serve --port 0 > " + log.string() + " 2>&1 & echo $!";
  FILE* p = popen(cmd.c_str(), "r");
  char pid[32] = {0};
  ASSERT_TRUE(std::fgets(pid, sizeof pid, p));
  pclose(p);
  std::string out;
  for (int i = 0; i < 100 && out.find("http://") == std::string::npos; ++i) {
    ::usleep(100000);
    out = slurp(log);
  }
  const auto at = out.find("http://");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string url = out.substr(at, out.find('/', at + 7) - at);
  EXPECT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;  // loopback by default
  const auto tok = out.find("/?token=", at);
  ASSERT_NE(tok, std::string::npos) << out;  // the address printed carries the server's secret
  const std::string token = out.substr(tok + 8, out.find_first_of(" \n", tok) - tok - 8);
  EXPECT_EQ(token.size(), 32u) << token;
  auto curl = [&](const std::string& args) {
    FILE* c = popen(("curl -s -H 'X-Tendyn-Token: " + token + "' -w ' %{http_code}' " + args).c_str(), "r");
    std::string body;
    std::array<char, 4096> buf{};
    while (std::fgets(buf.data(), buf.size(), c)) body += buf.data();
    pclose(c);
    return body;
  };
  if (std::system("command -v curl > /dev/null") == 0) {
    EXPECT_NE(curl(url + "/api/health").find("\"ok\":true"), std::string::npos);
    const auto bad = curl("-X POST -H 'Content-Type: application/json' -d '{\"yaml\": 3}' " + url + "/api/run");
    EXPECT_NE(bad.find("request.yaml: must be a string"), std::string::npos) << bad;
    EXPECT_NE(bad.find(" 400"), std::string::npos) << bad;
    const auto bad_model = curl("-X POST -H 'Content-Type: application/json' -d '{\"yaml\": \"nodes: 3\"}' " + url + "/api/run");
    EXPECT_NE(bad_model.find(" 422"), std::string::npos) << bad_model;
    EXPECT_NE(curl(url + "/api/jobs/99").find(" 404"), std::string::npos);
  }
  ASSERT_EQ(std::system(("kill " + std::string(pid)).c_str()), 0);
  for (int i = 0; i < 50 && slurp(log).find("stopped") == std::string::npos; ++i) ::usleep(100000);
  EXPECT_NE(slurp(log).find("stopped"), std::string::npos);  // clean shutdown on SIGTERM
}

// ------------------------------------------------------------------------------------------------
// The studio server under hostile requests (issue 15): a real `tendyn serve` on a free loopback
// port, raw HTTP over sockets. Bounded: at most 45 connections and a few seconds per test.
namespace {

using tendyn::test::connect_loopback;
using tendyn::test::start_serve;

struct Reply {
  int status = -1;  ///< -1: no answer
  std::string headers, body;
};

/// Reads an answer until the server closes or `timeout_ms` passes.
Reply read_reply(int fd, int timeout_ms) {
  std::string in;
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[4096];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    in.append(buf, static_cast<std::size_t>(n));
  }
  Reply r;
  const auto head_end = in.find("\r\n\r\n");
  if (in.rfind("HTTP/1.1 ", 0) != 0 || head_end == std::string::npos) return r;
  r.status = std::stoi(in.substr(9, 3));
  r.headers = in.substr(0, head_end);
  r.body = in.substr(head_end + 4);
  return r;
}

/// One request on a fresh connection ("Connection: close" is added), the answer within 10 s.
Reply http(int port, const std::string& method, const std::string& path, const std::string& headers, const std::string& body = "") {
  const int fd = connect_loopback(port);
  if (fd < 0) return {};
  std::string req = method + " " + path + " HTTP/1.1\r\n" + headers + "Connection: close\r\n";
  if (method == "POST") req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  req += "\r\n" + body;
  (void)::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  Reply r = read_reply(fd, 10000);
  ::close(fd);
  return r;
}

std::string host_of(int port) { return "Host: 127.0.0.1:" + std::to_string(port) + "\r\n"; }
/// Host and the server's token.
std::string auth_of(const tendyn::test::ServeProcess& s) { return host_of(s.port) + "X-Tendyn-Token: " + s.token + "\r\n"; }

long rss_kb(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

std::string run_body(const std::string& rest) { return "{\"yaml\": " + nlohmann::json(slurp(kModels + "prism3.yaml")).dump() + rest + "}"; }

}  // namespace

TEST(ViewerCli, ServeRefusesForeignHostsOriginsContentTypesAndWrongTypes) {
  if (!built_with_viewer()) GTEST_SKIP();
  const auto s = start_serve("serve_headers");
  ASSERT_GT(s->port, 0) << slurp(s->log);
  const int port = s->port;
  const std::string json_type = "Content-Type: application/json\r\n";
  EXPECT_EQ(http(port, "GET", "/api/health", host_of(port)).status, 200);
  // The page's own request: Origin = the studio's address.
  const auto own = http(port, "POST", "/api/model", auth_of(*s) + json_type + "Origin: http://127.0.0.1:" + std::to_string(port) + "\r\n",
                        "{\"yaml\": " + nlohmann::json(slurp(kModels + "prism3.yaml")).dump() + "}");
  EXPECT_EQ(own.status, 200) << own.body;
  // DNS rebinding: a foreign name for 127.0.0.1.
  auto r = http(port, "GET", "/api/models", "Host: attacker.example:" + std::to_string(port) + "\r\n");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_NE(r.body.find("DNS rebinding"), std::string::npos) << r.body;
  // CSRF: another site's page posting a run.
  r = http(port, "POST", "/api/run", host_of(port) + json_type + "Origin: http://attacker.example\r\n", run_body(""));
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_NE(r.body.find("Origin 'http://attacker.example'"), std::string::npos) << r.body;
  // A form of another site can only send these content types.
  r = http(port, "POST", "/api/run", host_of(port) + "Content-Type: text/plain\r\n", run_body(""));
  EXPECT_EQ(r.status, 415) << r.body;
  r = http(port, "POST", "/api/run", host_of(port), run_body(""));
  EXPECT_EQ(r.status, 415) << r.body;
  // Wrong JSON types: 400 naming the field (before: 500).
  r = http(port, "POST", "/api/run", auth_of(*s) + json_type, run_body(", \"mode\": 5"));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("request.mode: must be a string"), std::string::npos) << r.body;
  r = http(port, "POST", "/api/run", auth_of(*s) + json_type, run_body(", \"duration_s\": 1e400"));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("request.duration_s: number outside the range of a double"), std::string::npos) << r.body;
  r = http(port, "POST", "/api/model", auth_of(*s) + json_type,
           "{\"yaml\": " + nlohmann::json(slurp(kModels + "prism3.yaml")).dump() + ", \"edits\": [{\"op\": 1}]}");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("edits[0].op: must be a string"), std::string::npos) << r.body;
}

TEST(ViewerCli, ServeLimitsChunkedBodiesAndKeepsMemoryBounded) {
  if (!built_with_viewer()) GTEST_SKIP();
  const auto s = start_serve("serve_chunked");
  ASSERT_GT(s->port, 0) << slurp(s->log);
  const int port = s->port;
  const long rss0 = rss_kb(s->pid);
  // 2 MB in 64 KiB chunks (before: buffered whole, no limit).
  const int fd = connect_loopback(port);
  ASSERT_GE(fd, 0);
  std::string head = "POST /api/run HTTP/1.1\r\n" + auth_of(*s) + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  (void)::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  const std::string chunk = "10000\r\n" + std::string(0x10000, 'a') + "\r\n";
  for (int k = 0; k < 32; ++k)
    if (::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL) < 0) break;  // the server may close early
  (void)::send(fd, "0\r\n\r\n", 5, MSG_NOSIGNAL);
  const Reply r = read_reply(fd, 10000);
  ::close(fd);
  EXPECT_EQ(r.status, 413) << r.headers;
  EXPECT_NE(r.body.find("request body too large (limit 1048576 bytes)"), std::string::npos) << r.body;
  // The same with a Content-Length.
  const Reply c = http(port, "POST", "/api/run", auth_of(*s) + "Content-Type: application/json\r\n", std::string(2 << 20, ' '));
  EXPECT_EQ(c.status, 413) << c.body;
  const long rss1 = rss_kb(s->pid);
  if (rss0 > 0 && rss1 > 0) {
    EXPECT_LT(rss1 - rss0, 16 * 1024) << rss0 << " kB -> " << rss1 << " kB";
  }
  EXPECT_EQ(http(port, "GET", "/api/health", host_of(port)).status, 200);  // still serving
}

TEST(ViewerCli, ServeAnswersWhileManyConnectionsIdleAndCapsThem) {
  if (!built_with_viewer()) GTEST_SKIP();
  {
    // Slowloris: 40 connections that never finish their headers (before: they starved the server).
    const auto s = start_serve("serve_idle", "--request-timeout 2");
    ASSERT_GT(s->port, 0) << slurp(s->log);
    std::vector<int> idle;
    const std::string partial = "GET /api/health HTTP/1.1\r\n" + host_of(s->port);
    for (int k = 0; k < 40; ++k) {
      const int fd = connect_loopback(s->port);
      ASSERT_GE(fd, 0);
      (void)::send(fd, partial.data(), partial.size(), MSG_NOSIGNAL);
      idle.push_back(fd);
    }
    ::usleep(200000);
    const auto t0 = std::chrono::steady_clock::now();
    const Reply r = http(s->port, "GET", "/api/health", host_of(s->port));
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.status, 200);
    EXPECT_LT(took, 2.0);
    // The request deadline ends them: each idle connection is closed within 2 s + slack.
    int closed = 0;
    for (int fd : idle) {
      const Reply x = read_reply(fd, 4000);  // 408/400 answer or a plain close
      (void)x;
      pollfd p{fd, POLLIN, 0};
      char b;
      if (::poll(&p, 1, 0) >= 0 && ::recv(fd, &b, 1, MSG_DONTWAIT) <= 0) ++closed;
      ::close(fd);
    }
    EXPECT_EQ(closed, 40);
  }
  {
    // The connection cap (--max-connections 4: 3 for one client): connections that wait for a
    // request are closed to make room for a new one; 503 only when every connection of the client
    // is inside a request (here: the live view's 1 s long polls).
    const auto s = start_serve("serve_cap", "--max-connections 4 --request-timeout 5");
    ASSERT_GT(s->port, 0) << slurp(s->log);
    std::vector<int> idle;
    for (int k = 0; k < 4; ++k) {
      const int fd = connect_loopback(s->port);
      ASSERT_GE(fd, 0);
      (void)::send(fd, "GET / HTTP/1.1\r\n", 16, MSG_NOSIGNAL);
      idle.push_back(fd);
      ::usleep(20000);
    }
    ::usleep(200000);
    const Reply served = http(s->port, "GET", "/api/health", host_of(s->port));
    EXPECT_EQ(served.status, 200) << served.body;
    int closed = 0;
    for (int fd : idle) {
      char b;
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 500) > 0 && ::recv(fd, &b, 1, MSG_DONTWAIT) <= 0) ++closed;
      ::close(fd);
    }
    EXPECT_GE(closed, 1);  // the oldest waiting ones made room
    std::vector<int> polls;
    const std::string poll_req = "GET /live/state?session=0&after=0 HTTP/1.1\r\n" + auth_of(*s) + "\r\n";
    for (int k = 0; k < 3; ++k) {
      const int fd = connect_loopback(s->port);
      ASSERT_GE(fd, 0);
      (void)::send(fd, poll_req.data(), poll_req.size(), MSG_NOSIGNAL);
      polls.push_back(fd);
    }
    ::usleep(200000);
    const Reply busy = http(s->port, "GET", "/api/health", host_of(s->port));
    EXPECT_EQ(busy.status, 503) << busy.body;
    EXPECT_NE(busy.body.find("each inside a request"), std::string::npos) << busy.body;
    for (int fd : polls) ::close(fd);
    ::usleep(1200000);
    EXPECT_EQ(http(s->port, "GET", "/api/health", host_of(s->port)).status, 200);
  }
}

// One local user's 70 slow connections (headers never finished) do not lock out whole requests
// (before: the 65th connection on got 503, and so did every normal request).
TEST(ViewerCli, ServeAnswersWholeRequestsBesideSeventySlowConnections) {
  if (!built_with_viewer()) GTEST_SKIP();
  const auto s = start_serve("serve_slow70");
  ASSERT_GT(s->port, 0) << slurp(s->log);
  std::vector<int> slow;
  const std::string partial = "GET /api/models HTTP/1.1\r\n" + host_of(s->port);
  for (int k = 0; k < 70; ++k) {
    const int fd = connect_loopback(s->port);
    ASSERT_GE(fd, 0);
    (void)::send(fd, partial.data(), partial.size(), MSG_NOSIGNAL);
    slow.push_back(fd);
  }
  ::usleep(300000);
  int ok = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < 20; ++k) {
    const Reply r = http(s->port, "GET", "/api/models", auth_of(*s));
    ok += r.status == 200;
    // a slow connection keeps trickling (one more header line each round)
    (void)::send(slow[static_cast<std::size_t>(k)], "X-A: b\r\n", 8, MSG_NOSIGNAL);
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(ok, 20);
  EXPECT_LT(took, 10.0);
  for (int fd : slow) ::close(fd);
}

namespace {

/// POST body on a fresh connection with the token and a page id (X-Tendyn-Client).
Reply post_as(const tendyn::test::ServeProcess& s, const std::string& client, const std::string& path, const std::string& body) {
  return http(s.port, "POST", path, auth_of(s) + "Content-Type: application/json\r\nX-Tendyn-Client: " + client + "\r\n", body);
}

std::string job_status(const tendyn::test::ServeProcess& s, const std::string& id) {
  const Reply r = http(s.port, "GET", "/api/jobs/" + id, auth_of(s));
  if (r.status != 200) return "HTTP " + std::to_string(r.status);
  return nlohmann::json::parse(r.body)["status"].get<std::string>();
}

/// Polls the job until its status is not queued/running or `seconds` pass.
std::string wait_job(const tendyn::test::ServeProcess& s, const std::string& id, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::string st;
  do {
    st = job_status(s, id);
    if (st != "queued" && st != "running") return st;
    ::usleep(100000);
  } while (std::chrono::steady_clock::now() < end);
  return st;
}

}  // namespace

// Two heavy runs of one client leave a slot for another client (before: 429 for 60 s); a queued
// and a running run can be cancelled; run ids are unguessable.
TEST(ViewerCli, ServeQueuesRunsFairlyAcrossClientsAndCancels) {
  if (!built_with_viewer()) GTEST_SKIP();
  const auto s = start_serve("serve_fair", "--max-jobs 2");
  ASSERT_GT(s->port, 0) << slurp(s->log);
  // planning 6 cables (729 rollouts a period) for 60 s: minutes of work
  const std::string heavy = "{\"yaml\": " + nlohmann::json(slurp(kModels + "three_bar.yaml")).dump() +
                            ", \"mode\": \"inverse\", \"duration_s\": 60, \"inverse\": {\"drive_cables\": [\"c1\", \"c2\", \"c3\", "
                            "\"c4\", \"c5\", \"c6\"], \"period_s\": 0.1}}";
  const Reply h1 = post_as(*s, "alice", "/api/run", heavy);
  ASSERT_EQ(h1.status, 202) << h1.body;
  const Reply h2 = post_as(*s, "alice", "/api/run", heavy);
  ASSERT_EQ(h2.status, 202) << h2.body;
  const auto j1 = nlohmann::json::parse(h1.body), j2 = nlohmann::json::parse(h2.body);
  const std::string id1 = j1["job"], id2 = j2["job"];
  EXPECT_EQ(id1.size(), 32u) << id1;  // 128 random bits, not a counter
  EXPECT_NE(id1, id2);
  EXPECT_EQ(j1["status"], "running");
  EXPECT_EQ(j2["status"], "queued");  // the last slot is kept for another client
  // another client runs at once and finishes
  const Reply b = post_as(*s, "bob", "/api/run", run_body(", \"duration_s\": 0.3"));
  ASSERT_EQ(b.status, 202) << b.body;
  const std::string idb = nlohmann::json::parse(b.body)["job"];
  EXPECT_EQ(wait_job(*s, idb, 30.0), "done");
  EXPECT_EQ(job_status(*s, id2), "queued");
  // cancel the queued run, then the running one
  Reply c = post_as(*s, "alice", "/api/jobs/" + id2 + "/cancel", "{}");
  EXPECT_EQ(c.status, 200) << c.body;
  EXPECT_EQ(job_status(*s, id2), "cancelled");
  c = post_as(*s, "alice", "/api/jobs/" + id1 + "/cancel", "{}");
  EXPECT_EQ(c.status, 200) << c.body;
  EXPECT_EQ(wait_job(*s, id1, 30.0), "cancelled");  // at the planner's next progress report
  c = post_as(*s, "alice", "/api/jobs/" + id1 + "/cancel", "{}");
  EXPECT_EQ(c.status, 409) << c.body;
  EXPECT_EQ(post_as(*s, "alice", "/api/jobs/0123/cancel", "{}").status, 404);
}

// A per-server secret: the routes that run, read runs or feed the live view need the token.
TEST(ViewerCli, ServeNeedsItsTokenForRunsJobsAndTheLiveView) {
  if (!built_with_viewer()) GTEST_SKIP();
  const auto s = start_serve("serve_token");
  ASSERT_GT(s->port, 0) << slurp(s->log);
  ASSERT_EQ(s->token.size(), 32u) << slurp(s->log);
  const int port = s->port;
  const std::string json_type = "Content-Type: application/json\r\n";
  const Reply run = http(port, "POST", "/api/run", auth_of(*s) + json_type, run_body(", \"duration_s\": 0.1"));
  ASSERT_EQ(run.status, 202) << run.body;
  const std::string id = nlohmann::json::parse(run.body)["job"];
  const std::string wrong = host_of(port) + "X-Tendyn-Token: " + std::string(32, '0') + "\r\n";
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{{"GET", "/api/models"},
                                                                                     {"GET", "/api/jobs/" + id},
                                                                                     {"GET", "/api/jobs/" + id + "/run.csv"},
                                                                                     {"POST", "/api/run"},
                                                                                     {"GET", "/live/health"},
                                                                                     {"GET", "/live/state?session=0&after=0"},
                                                                                     {"POST", "/live/scene"},
                                                                                     {"POST", "/live/frame"}}) {
    const std::string body = method == "POST" ? "{}" : "";
    const Reply none = http(port, method, path, host_of(port) + (method == "POST" ? json_type : ""), body);
    EXPECT_EQ(none.status, 403) << method << " " << path << ": " << none.body;
    EXPECT_NE(none.body.find("no token"), std::string::npos) << none.body;
    const Reply bad = http(port, method, path, wrong + (method == "POST" ? json_type : ""), body);
    EXPECT_EQ(bad.status, 403) << method << " " << path << ": " << bad.body;
    EXPECT_NE(bad.body.find("wrong token"), std::string::npos) << bad.body;
  }
  // the token as a query parameter (download links, the printed address)
  EXPECT_EQ(http(port, "GET", "/api/jobs/" + id + "?token=" + s->token, host_of(port)).status, 200);
  EXPECT_EQ(http(port, "GET", "/live/health?token=" + s->token, host_of(port)).status, 200);
  // the pages and the health check are open (they hold nothing)
  EXPECT_EQ(http(port, "GET", "/", host_of(port)).status, 200);
  EXPECT_EQ(http(port, "GET", "/live", host_of(port)).status, 200);
  EXPECT_EQ(http(port, "GET", "/api/health", host_of(port)).status, 200);
  // the token file for programs of the same user: mode 0600
  const std::string file = tendyn::viz::live_token_path(port);
  if (!file.empty()) {
    struct stat st {};
    ASSERT_EQ(::stat(file.c_str(), &st), 0) << file;
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_EQ(slurp(file), s->token + "\n");
  }
}

// Duplicated Host/Origin headers are refused; pipelined requests are all answered; a
// Content-Length above the limit is answered 413 at once (before: after the 10 s request timeout).
TEST(ViewerCli, ServeRefusesDuplicateHeadersAnswersPipelinedRequestsAndHugeLengthsAtOnce) {
  if (!built_with_viewer()) GTEST_SKIP();
  const auto s = start_serve("serve_http");
  ASSERT_GT(s->port, 0) << slurp(s->log);
  const int port = s->port;
  Reply r = http(port, "GET", "/api/models", auth_of(*s) + "Host: attacker.example\r\n");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("the Host header is given 2 times"), std::string::npos) << r.body;
  r = http(port, "POST", "/api/run",
           auth_of(*s) + "Content-Type: application/json\r\nOrigin: http://127.0.0.1:" + std::to_string(port) +
               "\r\nOrigin: http://attacker.example\r\n",
           run_body(""));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("the Origin header is given 2 times"), std::string::npos) << r.body;
  {
    // two requests in one packet: both answered, in order
    const int fd = connect_loopback(port);
    ASSERT_GE(fd, 0);
    const std::string two =
        "GET /api/health HTTP/1.1\r\n" + host_of(port) + "\r\nGET /api/models HTTP/1.1\r\n" + auth_of(*s) + "Connection: close\r\n\r\n";
    const auto t0 = std::chrono::steady_clock::now();
    (void)::send(fd, two.data(), two.size(), MSG_NOSIGNAL);
    const Reply both = read_reply(fd, 4000);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ::close(fd);
    const std::string all = both.headers + "\r\n\r\n" + both.body;
    EXPECT_EQ(both.status, 200) << all;
    const auto second = all.find("HTTP/1.1 ", 9);
    ASSERT_NE(second, std::string::npos) << all;
    EXPECT_EQ(all.substr(second, 12), "HTTP/1.1 200") << all;
    EXPECT_NE(all.find("\"models\""), std::string::npos) << all;
    EXPECT_LT(took, 2.0);  // closed right after the second answer
  }
  {
    // a body that can never arrive: 413 before reading it
    const int fd = connect_loopback(port);
    ASSERT_GE(fd, 0);
    const std::string head =
        "POST /api/run HTTP/1.1\r\n" + auth_of(*s) + "Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{";
    const auto t0 = std::chrono::steady_clock::now();
    (void)::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    std::string in;
    char buf[4096];
    while (in.find("\r\n\r\n") == std::string::npos && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(12)) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      in.append(buf, static_cast<std::size_t>(n));
    }
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ::close(fd);
    EXPECT_EQ(in.substr(0, 12), "HTTP/1.1 413") << in;
    EXPECT_LT(took, 1.0);
  }
}
