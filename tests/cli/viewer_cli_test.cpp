// tendyn view / plot / serve and the --html outputs, end to end: files written (never half), exit
// codes and messages on bad input. The pages themselves are tested in a browser by web/tests.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

using tendyn::test::fresh_dir;
using tendyn::test::slurp;
tendyn::test::CliRun run(const std::string& args) { return tendyn::test::run_cli(args); }

const std::string kModels = std::string(TENDYN_SOURCE_DIR) + "/models/";

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
    const auto bad = curl("-X POST -d '{\"yaml\": 3}' " + url + "/api/run");
    EXPECT_NE(bad.find("\"error\""), std::string::npos) << bad;
    EXPECT_NE(bad.find(" 422"), std::string::npos) << bad;
    EXPECT_NE(curl(url + "/api/jobs/99").find(" 404"), std::string::npos);
  }
  ASSERT_EQ(std::system(("kill " + std::string(pid)).c_str()), 0);
  for (int i = 0; i < 50 && slurp(log).find("stopped") == std::string::npos; ++i) ::usleep(100000);
  EXPECT_NE(slurp(log).find("stopped"), std::string::npos);  // clean shutdown on SIGTERM
}
