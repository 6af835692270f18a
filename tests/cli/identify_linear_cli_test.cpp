// `tendyn identify-linear` end to end (temporary subcommand; folded into `tendyn identify` at the
// merge): the tree inertial parameters from a `tendyn tree simulate` result file, the CDPR cable
// fit from a written log, the files of the result set, and errors with exit 2 and the place.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

using tendyn::test::fresh_dir;
using tendyn::test::kModels;
using tendyn::test::run;
using tendyn::test::slurp;

#ifdef TENDYN_WITH_TREE
TEST(IdentifyLinearCli, TreeFromSimulatedResults) {
  const auto d = fresh_dir("identify_linear_tree");
  {
    std::ofstream f(d / "torque.csv");
    f << "t_s,tau_1,tau_2\n";
    for (int k = 0; k <= 1000; ++k) {
      const double t = 0.01 * k;
      f << t << "," << 3 * std::sin(1.3 * t) + 1.5 * std::sin(3.7 * t) << ","
        << 1.5 * std::sin(2.1 * t + 0.5) + 0.7 * std::cos(5.3 * t) << "\n";
    }
  }
  const std::string model = kModels + "tree/double_pendulum.yaml";
  const auto sim = run("tree simulate " + model + " --torque " + (d / "torque.csv").string() +
                       " --duration 10 --dt 1e-3 --every 5 -o " + (d / "sim").string());
  ASSERT_EQ(sim.code, 0) << sim.out;
  // results.csv has q, v and tau: a is differentiated from v.
  const auto r = run("identify-linear " + model + " --data " + (d / "sim/results.csv").string() +
                     " --fit inertia,weighting=joint -o " + (d / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("6 base parameters of 20"), std::string::npos) << r.out;
  for (const char* f : {"base_parameters.csv", "parameters.csv", "residuals.csv", "report.json"})
    EXPECT_TRUE(fs::exists(d / "out" / f)) << f;
  const auto j = nlohmann::json::parse(slurp(d / "out/report.json"));
  EXPECT_EQ(j["base_parameters"]["rank"], 6);
  EXPECT_EQ(j["weighting"], "joint");
  // the identified base parameters are those of the model that made the data (within 1 %)
  const auto& nominal = j["base_parameters"]["nominal"];
  const auto& ident = j["base_parameters"]["identified"];
  double scale = 0.0;
  for (const auto& x : nominal) scale = std::max(scale, std::abs(x.get<double>()));
  for (std::size_t k = 0; k < nominal.size(); ++k) {
    const double n = nominal[k].get<double>(), e = ident[k].get<double>();
    EXPECT_LE(std::abs(e - n), 0.01 * std::max(std::abs(n), 1e-3 * scale)) << k;
  }
  EXPECT_EQ(j["tendyn"]["model_file"], model);
  const std::string header = slurp(d / "out/residuals.csv").substr(0, 80);
  EXPECT_EQ(header.rfind("t_s,residual_tau:link1_joint_Nm,residual_tau:link2_joint_Nm\n", 0), 0u) << header;

  // Errors: exit 2, the place named, no result set left behind.
  auto e = run("identify-linear " + model + " --data " + (d / "torque.csv").string() + " --fit inertia -o " +
               (d / "bad").string());
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("torque.csv:1: missing column 'q:link1_joint'"), std::string::npos) << e.out;
  EXPECT_FALSE(fs::exists(d / "bad"));
  e = run("identify-linear " + model + " --data " + (d / "sim/results.csv").string() + " --fit mass -o " +
          (d / "bad").string());
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("--fit: unknown entry 'mass'"), std::string::npos) << e.out;
  e = run("identify-linear " + model + " --data " + (d / "sim/results.csv").string() + " --fit inertia,smooth=0");
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("--fit smooth"), std::string::npos) << e.out;
  e = run("identify-linear " + model + " --data " + (d / "nothing.csv").string() + " --fit inertia");
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_EQ(run("identify-linear " + model + " --fit inertia").code, 1);  // --data missing: usage
}
#endif

#ifdef TENDYN_WITH_CDPR
// Cable stiffness and rest length from a log with lengths and tensions (winches held): the
// tensions of f = k (l - l0) for printer8's cables, k = 2e7 N / l0.
TEST(IdentifyLinearCli, CdprCablesFromLog) {
  const auto d = fresh_dir("identify_linear_cdpr");
  const std::string model = kModels + "cdpr/printer8.yaml";
  const char* names[8] = {"u1", "u2", "u3", "u4", "l1", "l2", "l3", "l4"};
  {
    std::ofstream f(d / "log.csv");
    f.precision(12);
    f << "t_s";
    for (const char* c : names) f << "," << c << ".tension_N";
    for (const char* c : names) f << "," << c << ".length_m";
    f << "\n";
    for (int k = 0; k < 200; ++k) {
      f << 0.01 * k;
      double l[8], t[8];
      for (int i = 0; i < 8; ++i) {
        const double l0 = 15.0 + 0.5 * i;
        l[i] = l0 + 1e-3 + 5e-4 * std::sin(0.07 * k + i);
        t[i] = 2e7 / l0 * (l[i] - l0);
      }
      for (double x : t) f << "," << x;
      for (double x : l) f << "," << x;
      f << "\n";
    }
  }
  const auto r = run("identify-linear " + model + " --data " + (d / "log.csv").string() +
                     " --fit stiffness-rest-length -o " + (d / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(slurp(d / "out/report.json"));
  ASSERT_EQ(j["cables"]["results"].size(), 8u);
  for (int i = 0; i < 8; ++i) {
    const auto& c = j["cables"]["results"][static_cast<std::size_t>(i)];
    EXPECT_EQ(c["name"], names[i]);
    EXPECT_NEAR(c["EA_N"].get<double>(), 2e7, 2e7 * 1e-6);
    EXPECT_NEAR(c["rest_length_m"].get<double>(), 15.0 + 0.5 * i, 1e-7);
  }
  EXPECT_TRUE(fs::exists(d / "out/cables.csv"));
  EXPECT_TRUE(fs::exists(d / "out/residuals_cables.csv"));
  // 'stiffness' needs rest lengths; 'inertia' needs poses: exit 2 with the reason.
  auto e = run("identify-linear " + model + " --data " + (d / "log.csv").string() + " --fit stiffness");
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("needs the rest lengths"), std::string::npos) << e.out;
  e = run("identify-linear " + model + " --data " + (d / "log.csv").string() + " --fit inertia");
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("needs the poses"), std::string::npos) << e.out;
  e = run("identify-linear " + model + " --data " + (d / "log.csv").string() + " --fit damping");
  EXPECT_EQ(e.code, 2) << e.out;
}
#endif

}  // namespace
