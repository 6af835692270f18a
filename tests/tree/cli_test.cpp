// Runs the built `tendyn tree` program.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include "support/cli_run.hpp"
#include "tree/tree_fixtures.hpp"

namespace {

using tendyn::test::CliRun;
CliRun run(const std::string& args) { return tendyn::test::run_cli(args); }

std::string model(const std::string& f) { return tendyn::tree::testing::model_path(f); }

TEST(TreeCli, HelpListsSubcommands) {
  const CliRun r = run("tree --help");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* s : {"info", "inverse", "forward", "simulate", "urdf"}) EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

TEST(TreeCli, InfoJsonHasReachability) {
  const CliRun r = run("tree info " + model("biped.yaml") + " --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["nlinks"], 18);
  EXPECT_EQ(j["reachability"][12][5], 1.0);
  EXPECT_EQ(j["reachability"][12][11], 0.0);
}

TEST(TreeCli, InverseRecursiveAndBlockAgree) {
  const std::string args =
      "tree inverse " + model("arm6.yaml") + " --q 0.1,0.2,-0.3,0.4,0.5,-0.6 --v 1,-1,0.5,0.2,0.1,2 --a 0.3,0.2,0.1,0,-1,1 --format json";
  const CliRun a = run(args + " --method recursive");
  const CliRun b = run(args + " --method block");
  ASSERT_EQ(a.code, 0) << a.out;
  ASSERT_EQ(b.code, 0) << b.out;
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(ja["tau"][k].get<double>(), jb["tau"][k].get<double>(), 1e-10);
  // Forward dynamics with that tau returns the accelerations.
  std::ostringstream tau;
  tau.precision(17);
  for (int k = 0; k < 6; ++k) tau << (k ? "," : "") << ja["tau"][k].get<double>();
  const CliRun f = run("tree forward " + model("arm6.yaml") + " --q 0.1,0.2,-0.3,0.4,0.5,-0.6 --v 1,-1,0.5,0.2,0.1,2 --tau " + tau.str() +
                       " --format json");
  ASSERT_EQ(f.code, 0) << f.out;
  const auto jf = nlohmann::json::parse(f.out);
  EXPECT_NEAR(jf["ddq"][4].get<double>(), -1.0, 1e-9);
}

TEST(TreeCli, SimulateWritesCsv) {
  const auto dir = std::filesystem::temp_directory_path() / "tendyn_tree_cli_test";
  std::filesystem::create_directories(dir);
  const auto sched = dir / "torque.csv";
  std::ofstream(sched) << "t,tau1,tau2\n0,0,0\n0.1,1,0.5\n";
  const auto out = dir / "run" / "results.csv";  // -o: the output directory
  std::filesystem::remove_all(dir / "run");
  const CliRun r = run("tree simulate " + model("double_pendulum.yaml") + " --q 0.3,0 --duration 0.2 --dt 0.001 --every 10 --torque " +
                       sched.string() + " -o " + (dir / "run").string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(out);
  std::string line;
  int rows = 0;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("t_s,q:link1_joint_rad,q:link2_joint_rad,v:link1_joint_radps", 0), 0u) << line;
  EXPECT_NE(line.find(",tau:link2_joint_Nm,energy_J"), std::string::npos) << line;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 21);
}

TEST(TreeCli, BadInputExitsWith2) {
  const auto dir = std::filesystem::temp_directory_path() / "tendyn_tree_cli_test";
  std::filesystem::create_directories(dir);
  const auto bad = dir / "bad.yaml";
  std::ofstream(bad) << "links:\n  - {name: a, joint: {type: hinge}, mass: 1}\n";
  CliRun r = run("tree info " + bad.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown joint type 'hinge'"), std::string::npos) << r.out;
  r = run("tree inverse " + model("arm6.yaml") + " --q 1,2");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--q: expected 6"), std::string::npos) << r.out;
  r = run("tree inverse " + model("humanoid35.urdf") + " --method block");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("fictitious"), std::string::npos) << r.out;
}

TEST(TreeCli, SimulateRefusesRunsAboveTheBudgetBeforeWriting) {
  const auto dir = tendyn::test::fresh_dir("tree_budget");
  // 1e7 steps of the biped: ~1e7 rows x 60 columns, far above 2 GB of CSV
  CliRun r = run("tree simulate " + model("biped.yaml") + " --duration 1e4 --dt 1e-3 -o " + (dir / "run").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("tree simulate: the run would write about"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--max-output-mb"), std::string::npos) << r.out;
  r = run("tree simulate " + model("biped.yaml") + " --duration 1e4 --dt 1e-3 --max-output-mb 1e6 -o " + (dir / "run").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--max-memory-mb"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "run"));
  EXPECT_EQ(
      run("tree simulate " + model("double_pendulum.yaml") + " --duration 0.1 --max-output-mb 0.001 -o " + (dir / "run").string()).code, 2);
  EXPECT_EQ(run("tree simulate " + model("double_pendulum.yaml") + " --duration 0.1 --max-output-mb 1 -o " + (dir / "run").string()).code,
            0);
  std::filesystem::remove_all(dir);
}

TEST(TreeCli, ListOptionsNameTheBadEntry) {
  const CliRun r = run("tree inverse " + model("double_pendulum.yaml") + " --q 0.1,,0.2");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--q (entry 2): empty field, a number is expected"), std::string::npos) << r.out;
}

// Finite options whose result overflows the double range (M a with a = 1e308, v^2 with v = 1e200):
// an error naming the quantity, exit 2, no nan printed and no file written.
TEST(TreeCli, OverflowingResultIsAnErrorNotNan) {
  const auto dir = tendyn::test::fresh_dir("tree_overflow");
  for (const char* method : {"recursive", "block"}) {
    CliRun r = run("tree inverse " + model("double_pendulum.yaml") + " --a 1e308,1e308 --method " + method + " -o " + dir.string());
    EXPECT_EQ(r.code, 2) << method << ": " << r.out;
    EXPECT_NE(r.out.find("tree inverse: tau (joint forces) overflowed the double range"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("tau ="), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "inverse.txt")) << method;
    r = run("tree forward " + model("double_pendulum.yaml") + " --v 1e200,0 --method " + method);
    EXPECT_EQ(r.code, 2) << method << ": " << r.out;
    EXPECT_NE(r.out.find("tree forward: b (bias forces) overflowed the double range"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(joint 'link1_joint' is "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("ddq ="), std::string::npos) << r.out;
  }
  // large but representable inputs still run
  EXPECT_EQ(run("tree inverse " + model("double_pendulum.yaml") + " --a 1e300,1e300").code, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
