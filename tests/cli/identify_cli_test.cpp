// End to end: tendyn identify (docs/IDENTIFY.md) on the shipped example, and its bad-input exits.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

#include <filesystem>
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
                     "--max-iterations 2 --no-plot -j 2 -o " + (d / "fit").string());
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
