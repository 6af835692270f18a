// End to end: tendyn identify on a model with winches and end-caps (the general path of
// identify(), docs/IDENTIFY.md "Models with winches and end-caps"), and its bad-input exits; the
// ground friction from the rolling robot's record, and the step its regularisation needs.
#include <tendyn/tensegrity/identify.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace fs = std::filesystem;
namespace ts = tendyn::tensegrity;
using tendyn::test::fresh_dir;
using tendyn::test::kModels;
using tendyn::test::run;
using tendyn::test::slurp;

namespace {

// 0.5 s at 100 Hz of models/three_bar_motorised.yaml with every winch's kp halved: markers on the
// rod ends, the four encoders.
std::string motorised_motion(const fs::path& path) {
  const std::string model = kModels + "three_bar_motorised.yaml";
  ts::Model truth = ts::load_model_file(model).model;
  for (auto& w : truth.winches) w.kp_per_m *= 0.5;
  ts::MotionData d;
  for (int s = 0; s <= 50; ++s) d.t_s.push_back(0.01 * s);
  for (int k = 0; k < 6; ++k) d.marker_nodes.push_back(k);
  d.p_W_marker_m = Eigen::MatrixXd::Zero(51, 18);
  d.encoder_cables = {0, 1, 2, 3};
  d.winch_encoder_m = Eigen::MatrixXd::Zero(51, 4);
  d = ts::simulate_motion(truth, d, 5e-4);
  std::ofstream(path) << ts::motion_csv(truth, d);
  return model;
}

}  // namespace

TEST(IdentifyGeneralCli, FitsTheWinchGainsOfTheMotorisedRobot) {
  const auto d = fresh_dir("identify-general");
  const std::string model = motorised_motion(d / "motion.csv");
  const auto r = run("identify " + model + " --data " + (d / "motion.csv").string() +
                     " --fit winch_kp:c1+c2+c3+c4 --dt 0.0005 --encoder-sigma 1e-5 --no-plot -o " + (d / "fit").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(slurp(d / "fit" / "report.json"));
  ASSERT_EQ(j["parameters"].size(), 1u);
  EXPECT_EQ(j["parameters"][0]["name"], "winch_kp:c1+c2+c3+c4");
  EXPECT_EQ(j["parameters"][0]["kind"], "winch_kp");
  EXPECT_EQ(j["parameters"][0]["unit"], "1/m");
  EXPECT_EQ(j["parameters"][0]["nominal"].get<double>(), 100.0);
  EXPECT_NEAR(j["parameters"][0]["fitted"].get<double>(), 50.0, 0.5);
  EXPECT_EQ(j["verdict"]["verdict"], "good") << j["verdict"]["reason"];
  EXPECT_EQ(j["options"]["encoder_sigma_m"].get<double>(), 1e-5);
  EXPECT_EQ(j["data"]["encoders"].get<int>(), 4);
  EXPECT_TRUE(j["verdict"]["continuity_gap_bound_m"].is_null());  // single shooting: no segments
  EXPECT_NE(r.out.find("(single shooting, one run of the fitted model)"), std::string::npos) << r.out;
  // the fitted model file carries the gain on the fitted winches (c1..c4); the others keep theirs
  const ts::Model fitted = ts::load_model_file((d / "fit" / "model.yaml").string()).model;
  for (const auto& w : fitted.winches)
    if (w.cable < 4)
      EXPECT_NEAR(w.kp_per_m, 50.0, 0.5) << "winch on cable " << w.cable;
    else
      EXPECT_EQ(w.kp_per_m, 100.0) << "winch on cable " << w.cable;
}

TEST(IdentifyGeneralCli, BadWinchSelectionsExitTwo) {
  const auto d = fresh_dir("identify-general-bad");
  const std::string model = motorised_motion(d / "motion.csv");
  auto r = run("identify " + model + " --data " + (d / "motion.csv").string() + " --fit winch_kp:c7 -o " + (d / "x").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--fit: 'winch_kp:c7': cable 'c7' has no winch"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "x"));
  r = run("identify " + kModels + "identify/three_bar_nominal.yaml --data " + kModels +
          "identify/three_bar_motion.csv --fit winch_coulomb_friction -o " + (d / "y").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--fit: item 1 'winch_coulomb_friction': a winch parameter"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "y"));
}

namespace {

// 1.2 s at 100 Hz of models/three_bar_motorised_roll.yaml with the ground friction 0.6 (the file
// has 0.92): it tips over onto its next face at about 1.1 s. Markers on the six end-caps, the six
// winches' targets (the gait table) and encoders, 1 mm marker noise; simulated with 0.1 ms steps.
std::string rolling_motion(const fs::path& path) {
  const std::string model = kModels + "three_bar_motorised_roll.yaml";
  ts::Model truth = ts::load_model_file(model).model;
  truth.ground.friction = 0.6;
  ts::MotionData d;
  for (int s = 0; s <= 120; ++s) d.t_s.push_back(0.01 * s);
  for (int k = 0; k < 6; ++k) d.marker_nodes.push_back(k);
  d.p_W_marker_m = Eigen::MatrixXd::Zero(121, 18);
  d.encoder_cables = d.target_cables = {0, 1, 2, 3, 4, 5};
  d.winch_encoder_m = Eigen::MatrixXd::Zero(121, 6);
  d.winch_target_m.resize(121, 6);
  for (const auto& dr : truth.drives)
    for (int s = 0; s <= 120; ++s)
      d.winch_target_m(s, dr.cable) =
          truth.cables[static_cast<std::size_t>(dr.cable)].rest_length_m + ts::drive_offset(dr, d.t_s[static_cast<std::size_t>(s)]);
  d = ts::simulate_motion(truth, d, 1e-4);
  std::mt19937 rng(4);
  std::normal_distribution<double> g(0.0, 1e-3);
  for (int s = 0; s <= 120; ++s)
    for (int i = 0; i < 18; ++i) d.p_W_marker_m(s, i) += g(rng);
  std::ofstream(path) << ts::motion_csv(truth, d);
  return model;
}

}  // namespace

TEST(IdentifyGeneralCli, FitsTheGroundFrictionOfTheRollingRobot) {
  const auto d = fresh_dir("identify-general-friction");
  const std::string model = rolling_motion(d / "motion.csv");
  const std::string head = slurp(d / "motion.csv").substr(0, 400);
  EXPECT_NE(head.find("c6_target_m"), std::string::npos) << head;
  EXPECT_NE(head.find("c6_encoder_m"), std::string::npos) << head;
  const auto r = run("identify " + model + " --data " + (d / "motion.csv").string() +
                     " --fit friction --dt 0.0001 --sigma 0.001 --encoder-sigma 1e-5 --no-plot -o " + (d / "fit").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(slurp(d / "fit" / "report.json"));
  EXPECT_EQ(j["parameters"][0]["name"], "friction");
  EXPECT_EQ(j["parameters"][0]["nominal"].get<double>(), 0.92);
  EXPECT_NEAR(j["parameters"][0]["fitted"].get<double>(), 0.6, 0.012);  // 2 %
  EXPECT_EQ(j["verdict"]["verdict"], "good") << j["verdict"]["reason"];
  EXPECT_EQ(j["data"]["targets"].get<int>(), 6);
  EXPECT_NEAR(ts::load_model_file((d / "fit" / "model.yaml").string()).model.ground.friction, 0.6, 0.012);
}

TEST(IdentifyGeneralCli, FrictionWithAStepTooLargeForItsRegularisationExitsTwo) {
  const auto d = fresh_dir("identify-general-friction-dt");
  const std::string model = rolling_motion(d / "motion.csv");
  const auto r =
      run("identify " + model + " --data " + (d / "motion.csv").string() + " --fit friction --dt 0.0005 -o " + (d / "fit").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("identify option dt_s: 0.0005 s is above slip_velocity / (friction |g|)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("use --dt 0.000110"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "fit"));
}
