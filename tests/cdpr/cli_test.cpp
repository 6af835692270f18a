// Runs the built tendyn binary: tension solve / trajectory / study, and bad input exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "cdpr/test_util.hpp"

namespace tendyn::cdpr {
namespace {

std::string cli() { return std::string("\"") + TENDYN_CLI + "\""; }

TEST(TensionCli, SolvePrintsJsonForEveryMethod) {
  std::string out;
  const int rc = test::run_command(cli() + " tension solve " + test::model_path("printer8.yaml") +
                                       " --json 2>/dev/null",
                                   &out);
  ASSERT_EQ(rc, 0) << out;
  const auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["results"].size(), 5u);
  for (const auto& r : j["results"]) {
    EXPECT_EQ(r["status"], "ok") << r["method"];
    EXPECT_LT(r["relative_residual"].get<double>(), 1e-9) << r["method"];
  }
  // The exact solver has the smallest norm among the methods with tensions >= f_min.
  EXPECT_EQ(j["results"][2]["method"], "exact");
}

TEST(TensionCli, LowerGroupIsTheDocumentsThreeByFourSystem) {
  std::string out;
  const int rc = test::run_command(cli() + " tension solve " + test::model_path("printer8.yaml") +
                                       " --group lower --rows fx,fy,mz --wrench 500,-300,200 "
                                       "--method exhaustive,lawson-hanson",
                                   &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("J 3 x 4"), std::string::npos) << out;
  EXPECT_NE(out.find("l4"), std::string::npos) << out;
}

// Issue 15: with |w|^2 overflowing, Lawson-Hanson and exact printed status ok with |f| = 0 and
// residual inf. Now an ok status always comes with finite numbers that meet the wrench, and the
// relative residual is computed without overflow.
TEST(TensionCli, HugeWrenchIsNeverOkWithAnInfiniteResidual) {
  for (const char* v : {"1e155", "1e300"}) {
    std::string out;
    const std::string wrench = std::string(v) + "," + v + "," + v;
    const int rc = test::run_command(cli() + " tension solve " + test::model_path("printer8.yaml") +
                                         " --group lower --rows fx,fy,mz --wrench " + wrench +
                                         " --json 2>/dev/null",
                                     &out);
    ASSERT_EQ(rc, 0) << out;
    const auto j = nlohmann::json::parse(out);
    int ok = 0;
    for (const auto& r : j["results"]) {
      if (r["status"] != "ok") {
        EXPECT_FALSE(r["reason"].get<std::string>().empty()) << r["method"];
        continue;
      }
      ++ok;
      EXPECT_EQ(r["reason"], "");
      ASSERT_TRUE(r["tension_norm_N"].is_number()) << r["method"] << " " << v;  // inf -> null
      ASSERT_TRUE(r["residual_norm"].is_number()) << r["method"] << " " << v;
      EXPECT_GT(r["tension_norm_N"].get<double>(), 1e150) << r["method"];
      EXPECT_LT(r["relative_residual"].get<double>(), 1e-12) << r["method"];
    }
    EXPECT_GE(ok, 2) << out;  // exhaustive and lawson-hanson (f >= 0, no upper bound)
  }
}

TEST(TensionCli, TrajectoryCsvInCsvOut) {
  const auto dir = test::temp_dir("cli_traj");
  const auto in = dir / "poses.csv";
  const auto outp = dir / "out" / "tensions.csv";
  std::filesystem::remove_all(dir / "out");
  {
    std::ofstream f(in);
    f << "t,x,y,phi\n0,0,0,0\n0.1,0.1,0.05,0.02\n0.2,0.2,0.1,0.04\n";
  }
  std::string log;
  ASSERT_EQ(test::run_command(cli() + " tension trajectory " + test::model_path("planar4.yaml") +
                                  " --in " + in.string() + " -o " + (dir / "out").string(),
                              &log),
            0)
      << log;
  std::ifstream f(outp);
  std::string line;
  int n = 0;
  std::getline(f, line);
  EXPECT_EQ(line.rfind("t_s,x_m,y_m,phi_rad,status,loaded,residual_norm_N,tension_norm_N,c1.tension_N", 0), 0u) << line;
  while (std::getline(f, line)) {
    ++n;
    EXPECT_NE(line.find(",ok,"), std::string::npos) << line;
  }
  EXPECT_EQ(n, 3);
  EXPECT_FALSE(std::filesystem::exists(outp.string() + ".partial"));
}

TEST(TensionCli, RandomStudyReproducesTheDocumentsTrend) {
  std::string out;
  ASSERT_EQ(test::run_command(cli() + " tension study --count 50 --json", &out), 0) << out;
  const auto j = nlohmann::json::parse(out);
  const auto& s = j["exhaustive_vs_lawson_hanson"];
  EXPECT_GT(s["more_loaded"].get<int>(), 25);
  EXPECT_GT(s["smaller_norm"].get<int>(), 25);
}

TEST(TensionCli, BadInputExitsWithCode2AndAMessage) {
  std::string out;
  EXPECT_EQ(test::run_command(cli() + " tension solve /nonexistent.yaml", &out), 2);
  EXPECT_NE(out.find("model: no such file: '/nonexistent.yaml'"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(cli() + " tension solve " + test::model_path("planar4.yaml") +
                                  " --wrench 1,2",
                              &out),
            2);
  EXPECT_NE(out.find("needs 3 values"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(cli() + " tension solve " + test::model_path("planar4.yaml") +
                                  " --pose 0,0,nan",
                              &out),
            2);
  EXPECT_EQ(test::run_command(cli() + " tension study --size 6by12", &out), 2);
}

}  // namespace
}  // namespace tendyn::cdpr
