// tendyn view / plot / serve and the --html outputs, end to end: files written (never half), exit
// codes and messages on bad input. The pages themselves are tested in a browser by web/tests.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"
#include "support/serve_process.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
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

using tendyn::test::fresh_dir;
using tendyn::test::slurp;
using tendyn::test::run;

using tendyn::test::kModels;

bool built_with_viewer() { return run("view --help").out.find("self-contained") != std::string::npos && run("serve --help").code == 0; }

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
  EXPECT_GT(page.size(), 100000u);  // the bundle is inlined: works offline
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);  // nothing fetched from the network
  const auto v = run("view -q " + d.string() + " -o " + (d / "again").string());  // -o: a directory
  ASSERT_EQ(v.code, 0) << v.out;
  EXPECT_EQ(slurp(d / "again" / "view.html"), page);
}

TEST(ViewerCli, ViewRejectsMissingAndMalformedScenesWithoutWriting) {
  const auto d = fresh_dir("bad");
  auto r = run("view " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("no scene.json"), std::string::npos) << r.out;
  std::ofstream(d / "scene.json") << R"({"format":"tendyn-scene","version":1,"points":["a"],"rods":[{"a":0,"b":3}],"cables":[],"frames":{"t_s":[],"positions_m":[]}})";
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
  if (r.code != 0 && r.out.find("matplotlib") != std::string::npos && std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") != 0)
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
    EXPECT_EQ(s["rods"].size(), 4u);    // four towers
    // the solver's tensions are in the frames
    double sum = 0;
    for (const auto& f : s["frames"]["cable_tension_N"][0]) sum += f.get<double>();
    EXPECT_GT(sum, 100.0);
  }
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
  auto curl = [&](const std::string& args) {
    FILE* c = popen(("curl -s -w ' %{http_code}' " + args).c_str(), "r");
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
Reply http(int port, const std::string& method, const std::string& path, const std::string& headers,
           const std::string& body = "") {
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

long rss_kb(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

std::string run_body(const std::string& rest) {
  return "{\"yaml\": " + nlohmann::json(slurp(kModels + "prism3.yaml")).dump() + rest + "}";
}

}  // namespace

TEST(ViewerCli, ServeRefusesForeignHostsOriginsContentTypesAndWrongTypes) {
  if (!built_with_viewer()) GTEST_SKIP();
  const auto s = start_serve("serve_headers");
  ASSERT_GT(s->port, 0) << slurp(s->log);
  const int port = s->port;
  const std::string json_type = "Content-Type: application/json\r\n";
  EXPECT_EQ(http(port, "GET", "/api/health", host_of(port)).status, 200);
  // The page's own request: Origin = the studio's address.
  const auto own = http(port, "POST", "/api/model", host_of(port) + json_type + "Origin: http://127.0.0.1:" + std::to_string(port) + "\r\n",
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
  r = http(port, "POST", "/api/run", host_of(port) + json_type, run_body(", \"mode\": 5"));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("request.mode: must be a string"), std::string::npos) << r.body;
  r = http(port, "POST", "/api/run", host_of(port) + json_type, run_body(", \"duration_s\": 1e400"));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("request.duration_s: number outside the range of a double"), std::string::npos) << r.body;
  r = http(port, "POST", "/api/model", host_of(port) + json_type, "{\"yaml\": " + nlohmann::json(slurp(kModels + "prism3.yaml")).dump() + ", \"edits\": [{\"op\": 1}]}");
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
  std::string head = "POST /api/run HTTP/1.1\r\n" + host_of(port) + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
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
  const Reply c = http(port, "POST", "/api/run", host_of(port) + "Content-Type: application/json\r\n", std::string(2 << 20, ' '));
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
    // The connection cap: the 5th connection is answered 503 at once; after the idle ones have
    // been cut off (request timeout 1 s) the studio serves again.
    const auto s = start_serve("serve_cap", "--max-connections 4 --request-timeout 1");
    ASSERT_GT(s->port, 0) << slurp(s->log);
    std::vector<int> idle;
    for (int k = 0; k < 4; ++k) {
      const int fd = connect_loopback(s->port);
      ASSERT_GE(fd, 0);
      (void)::send(fd, "GET / HTTP/1.1\r\n", 16, MSG_NOSIGNAL);
      idle.push_back(fd);
    }
    ::usleep(200000);
    const Reply busy = http(s->port, "GET", "/api/health", host_of(s->port));
    EXPECT_EQ(busy.status, 503) << busy.body;
    EXPECT_NE(busy.body.find("connections open"), std::string::npos) << busy.body;
    ::usleep(1500000);
    EXPECT_EQ(http(s->port, "GET", "/api/health", host_of(s->port)).status, 200);
    for (int fd : idle) ::close(fd);
  }
}
