// End to end: tendyn identify (docs/IDENTIFY.md) on the shipped example, and its bad-input exits.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using tendyn::test::fresh_dir;
using tendyn::test::kModels;
using tendyn::test::run;
using tendyn::test::slurp;

TEST(IdentifyCli, FitsTheExampleAndWritesItsResultSet) {
  const auto d = fresh_dir("identify-example");
  // two iterations of the worked example (the full fit is docs/IDENTIFY.md's)
  const auto r = run("identify " + kModels + "identify/three_bar_nominal.yaml --data " + kModels +
                     "identify/three_bar_motion.csv --fit stiffness:c1+c2+c3+c4+c5+c6+c7+c8+c9,friction --segment 0.5 "
                     "--max-iterations 2 --no-plot -j 2 -o " +
                     (d / "fit").string());
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* f : {"model.yaml", "report.json", "residuals.csv", "markers.csv"}) EXPECT_TRUE(fs::exists(d / "fit" / f)) << f;
  const auto j = nlohmann::json::parse(slurp(d / "fit" / "report.json"));
  ASSERT_EQ(j["parameters"].size(), 2u);
  EXPECT_EQ(j["parameters"][0]["name"], "stiffness:c1+c2+c3+c4+c5+c6+c7+c8+c9");
  EXPECT_EQ(j["parameters"][0]["nominal"].get<double>(), 400.0);
  // two iterations already move the stiffness from 400 towards the truth, 300
  EXPECT_LT(j["parameters"][0]["fitted"].get<double>(), 360.0);
  EXPECT_GT(j["parameters"][0]["fitted"].get<double>(), 270.0);
  EXPECT_LT(j["fit"]["marker_rms_free_fitted_m"].get<double>(), j["fit"]["marker_rms_free_nominal_m"].get<double>());
  EXPECT_TRUE(j["solver"]["brief_report"].get<std::string>().find("Ceres Solver Report") != std::string::npos);
  EXPECT_EQ(slurp(d / "fit" / "model.yaml").rfind("# Fitted by: tendyn identify ", 0), 0u);
  EXPECT_EQ(slurp(d / "fit" / "residuals.csv").rfind("t_s,n1_dx_m,n1_dy_m,n1_dz_m,", 0), 0u);
}

TEST(IdentifyCli, BadInputExitsTwoWithThePlace) {
  const auto d = fresh_dir("identify-bad");
  const std::string m = kModels + "identify/three_bar_nominal.yaml", data = kModels + "identify/three_bar_motion.csv";
  auto r = run("identify " + m + " --data " + data + " --fit stiffness:c42 -o " + (d / "x").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--fit: item 1 'stiffness:c42': no cable 'c42'"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "x"));
  r = run("identify " + kModels + "three_bar.yaml --data " + data + " --fit friction");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("needs a compliant ground"), std::string::npos) << r.out;
  r = run("identify " + m + " --data " + data + " --fit friction --loss l1");
  EXPECT_EQ(r.code, 1) << r.out;
}

namespace {

// The first `rows` samples of the shipped motion (30 Hz) into `path`, optionally with field
// `field` of data row `bad_row` (1-based) replaced by `value`.
void head_of_motion(const fs::path& path, int rows, int bad_row = 0, int field = 0, const std::string& value = "") {
  std::ifstream in(kModels + "identify/three_bar_motion.csv");
  std::ofstream out(path);
  std::string line;
  for (int i = 0; i <= rows && std::getline(in, line); ++i) {
    if (i == bad_row && i > 0) {
      std::string row;
      std::size_t start = 0;
      for (int f = 0;; ++f) {
        const std::size_t comma = line.find(',', start);
        const std::string cell = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        row += (f ? "," : "") + (f == field ? value : cell);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      line = row;
    }
    out << line << "\n";
  }
}

}  // namespace

TEST(IdentifyCli, PrintsTheVerdictAndRequireGoodFitExitsThree) {
  // friction alone on the nominal model (stiffness 400 N/m for 300, damping 0.3 for 0.5): the
  // statistics reject the fit. Exit 0 with the verdict and a warning on stdout; with
  // --require-good-fit exit 3, the results written all the same.
  const auto d = fresh_dir("identify-verdict");
  head_of_motion(d / "motion.csv", 19);
  const std::string cmd = "identify " + kModels + "identify/three_bar_nominal.yaml --data " + (d / "motion.csv").string() +
                          " --fit friction --segment 0.2 --no-plot ";
  std::string err;
  auto r = tendyn::test::run_cli_stderr_apart(cmd + "-o " + (d / "a").string(), err);
  ASSERT_EQ(r.code, 0) << r.out << err;
  EXPECT_NE(r.out.find("fit statistics: variance factor "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict: poor fit (WARNING"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("largest continuity gap"), std::string::npos) << r.out;
  EXPECT_NE(err.find("identify: restart 1 of 2: the best fit so far is rejected (variance factor "), std::string::npos) << err;
  const auto j = nlohmann::json::parse(slurp(d / "a" / "report.json"));
  EXPECT_EQ(j["verdict"]["verdict"], "poor fit");
  EXPECT_EQ(j["verdict"]["good"], false);
  EXPECT_GT(j["verdict"]["variance_factor"].get<double>(), j["verdict"]["variance_factor_bound"].get<double>());
  EXPECT_EQ(j["solver"]["starts"], 2);  // the restart ended at the same cost: no second one
  EXPECT_EQ(j["solver"]["restart_log"].size(), 2u);
  // -q: no report, but the warning on stderr
  r = tendyn::test::run_cli_stderr_apart(cmd + "-q -o " + (d / "q").string(), err);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(err.find("tendyn: warning: identify verdict: poor fit"), std::string::npos) << err;
  r = run(cmd + "--require-good-fit -o " + (d / "b").string());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("--require-good-fit"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(d / "b" / "report.json"));
}

TEST(IdentifyCli, ReportIsByteIdenticalFromRunToRun) {
  const auto d = fresh_dir("identify-threads");
  head_of_motion(d / "motion.csv", 19);
  const std::string cmd = "identify " + kModels + "identify/three_bar_nominal.yaml --data " + (d / "motion.csv").string() +
                          " --fit stiffness:c1+c2+c3,stiffness:c4+c5+c6,damping:c1+c2+c3+c4+c5+c6,friction --segment 0.1 "
                          "--max-iterations 3 --restarts 0 --no-plot -q ";
  ASSERT_EQ(run(cmd + "-j 1 -o " + (d / "j1").string()).code, 0);
  const std::string one = slurp(d / "j1" / "report.json");
  EXPECT_NE(one.find("\"std\""), std::string::npos);
  // the same command again: the same bytes (the covariance differed in the last digits)
  ASSERT_EQ(run(cmd + "-j 1 -o " + (d / "again").string()).code, 0);
  EXPECT_EQ(slurp(d / "again" / "report.json"), one);
}

TEST(IdentifyCli, ReportIsByteIdenticalAcrossThreadCounts) {
  // 30 segments and 10 iterations: Ceres' per-thread cost sums made -j 1 and -j 2 differ here
  const auto d = fresh_dir("identify-j1-j2");
  head_of_motion(d / "motion.csv", 90);
  const std::string cmd = "identify " + kModels + "identify/three_bar_nominal.yaml --data " + (d / "motion.csv").string() +
                          " --fit stiffness:c1+c2+c3,stiffness:c4+c5+c6,damping:c1+c2+c3+c4+c5+c6,friction --segment 0.1 "
                          "--max-iterations 10 --restarts 0 --no-plot -q ";
  ASSERT_EQ(run(cmd + "-j 1 -o " + (d / "j1").string()).code, 0);
  ASSERT_EQ(run(cmd + "-j 2 -o " + (d / "j2").string()).code, 0);
  const std::string one = slurp(d / "j1" / "report.json");
  EXPECT_NE(one.find("\"std\""), std::string::npos);
  EXPECT_EQ(slurp(d / "j2" / "report.json"), one);
}

TEST(IdentifyCli, HugeMarkerValueExitsTwoWithThePlace) {
  const auto d = fresh_dir("identify-huge");
  head_of_motion(d / "motion.csv", 5, 3, 1, "1e300");
  const auto r = run("identify " + kModels + "identify/three_bar_nominal.yaml --data " + (d / "motion.csv").string() +
                     " --fit friction --no-plot -o " + (d / "x").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("motion.csv:4:7 (n1_x_m): 1e+300 m is above the limit"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "x"));
}
