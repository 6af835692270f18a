// Identification of a model with winches, end-caps and off-axis cable points (the general path of
// identify(): single shooting with the simulator's step, numeric derivatives): synthetic data of
// models/three_bar_motorised.yaml with changed winch and cable parameters, recovered with and
// without noise; a model that cannot explain the data gets the "poor fit" verdict; bad selections
// and columns are refused with their names. The rolling copy (models/three_bar_motorised_roll.yaml):
// the ground's friction from a record with a face change, and the step its regularisation needs.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/identify.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "support/error_of.hpp"

namespace ts = tendyn::tensegrity;
using tendyn::test::error_of;

namespace {

ts::Model motorised() { return ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar_motorised.yaml").model; }

// The same robot on a ground whose friction is regularised over 1 cm/s instead of 1 mm/s: its
// end-caps in stick then take the 0.5 ms steps of these tests (slip_velocity / (mu g) = 1.1 ms;
// with 1 mm/s the runs chatter at the end-caps and the winch fits stalled 1.5 % off, noise-free).
ts::Model motorised_creeping() {
  ts::Model m = motorised();
  m.ground.slip_velocity_mps = 0.01;
  return m;
}

constexpr double kDt = 5e-4;

// The layout of a record: 100 Hz over `duration` s, markers on the six rod ends, the encoders of
// the four winches (values filled by simulate_motion).
ts::MotionData layout(double duration) {
  ts::MotionData d;
  const int n = static_cast<int>(std::lround(duration / 0.01));
  for (int s = 0; s <= n; ++s) d.t_s.push_back(0.01 * s);
  for (int k = 0; k < 6; ++k) d.marker_nodes.push_back(k);
  d.p_W_marker_m = Eigen::MatrixXd::Zero(n + 1, 18);
  d.encoder_cables = {0, 1, 2, 3};
  d.winch_encoder_m = Eigen::MatrixXd::Zero(n + 1, 4);
  return d;
}

// The truth: the winches of c1..c4 (the fitted ones; the model has six) with Coulomb friction x2,
// no-load speed x0.7, kp x0.5; the bars' struts c7..c9 stiffer by 30 %.
ts::Model changed_truth() {
  ts::Model m = motorised_creeping();
  for (auto& w : m.winches) {
    if (w.cable >= 4) continue;
    w.coulomb_friction_Nm *= 2.0;
    w.no_load_speed_radps *= 0.7;
    w.kp_per_m *= 0.5;
  }
  for (int k = 6; k < 9; ++k) m.cables[static_cast<std::size_t>(k)].stiffness_Npm *= 1.3;
  return m;
}

const char* kFit = "winch_coulomb_friction:c1+c2+c3+c4,winch_no_load_speed:c1+c2+c3+c4,winch_kp:c1+c2+c3+c4,stiffness:c7+c8+c9";

void add_noise(ts::MotionData& d, double marker_sigma, double encoder_sigma, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int s = 0; s < d.nsample(); ++s) {
    for (int i = 0; i < d.p_W_marker_m.cols(); ++i) d.p_W_marker_m(s, i) += marker_sigma * g(rng);
    for (int i = 0; i < d.winch_encoder_m.cols(); ++i) d.winch_encoder_m(s, i) += encoder_sigma * g(rng);
  }
}

// The truth's value of each fitted group, in the order of kFit.
std::vector<double> truth_values() {
  const ts::Model nominal = motorised();
  const auto& w = nominal.winches.front();
  return {2.0 * w.coulomb_friction_Nm, 0.7 * w.no_load_speed_radps, 0.5 * w.kp_per_m, 1.3 * nominal.cables[6].stiffness_Npm};
}

TEST(IdentifyGeneral, RecoversWinchAndCableParametersWithoutNoise) {
  const ts::Model nominal = motorised_creeping();
  const ts::MotionData d = ts::simulate_motion(changed_truth(), layout(1.0), kDt);
  ts::IdentifyOptions o;
  o.dt_s = kDt;
  const ts::IdentifyResult r = ts::identify(nominal, d, ts::parse_fit_spec(nominal, kFit), o);
  const std::vector<double> truth = truth_values();
  ASSERT_EQ(r.parameters.size(), 4u);
  for (std::size_t i = 0; i < truth.size(); ++i)
    EXPECT_NEAR(r.parameters[i].fitted / truth[i], 1.0, 0.01) << r.parameters[i].name << " fitted " << r.parameters[i].fitted;
  EXPECT_NE(r.parameters[0].nominal, r.parameters[0].fitted);
  EXPECT_EQ(r.verdict, ts::FitVerdict::kGood) << r.verdict_reason;
  EXPECT_EQ(r.nsegment, 1);
  EXPECT_LT(r.marker_rms_m, 1e-5);
  EXPECT_GT(r.marker_rms_free_nominal_m, 1e-4);  // the nominal model does not explain the data
  // the fitted model carries the values
  EXPECT_NEAR(r.model.winches[2].kp_per_m, r.parameters[2].fitted, 0.0);
  EXPECT_NEAR(r.model.cables[8].stiffness_Npm, r.parameters[3].fitted, 0.0);
}

TEST(IdentifyGeneral, RecoversParametersWithNoiseToFivePercentWithLowerBoundDeviations) {
  const ts::Model nominal = motorised_creeping();
  ts::MotionData d = ts::simulate_motion(changed_truth(), layout(1.0), kDt);
  add_noise(d, 1e-3, 2e-5, 11);
  ts::IdentifyOptions o;
  o.dt_s = kDt;
  o.marker_sigma_m = 1e-3;
  o.encoder_sigma_m = 2e-5;
  const ts::IdentifyResult r = ts::identify(nominal, d, ts::parse_fit_spec(nominal, kFit), o);
  const std::vector<double> truth = truth_values();
  ASSERT_TRUE(r.covariance_ok) << r.covariance_message;
  // Within 5 % of the truth (measured: 1.4 %, 1 %, 4.8 % and kp), but not within 4 of their
  // standard deviations (measured 4.8-20 of them): the path's uncertainties are too small, and the
  // result says so (the sentence below); a fix (windows, smoother contact) is open.
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const auto& p = r.parameters[i];
    EXPECT_NEAR(p.fitted / truth[i], 1.0, 0.05) << p.name << " fitted " << p.fitted << " std " << p.std;
    EXPECT_GT(p.std, 0.0) << p.name;
  }
  EXPECT_EQ(r.verdict, ts::FitVerdict::kGood) << r.verdict_reason;
  EXPECT_LT(r.variance_factor, r.variance_factor_bound);
  EXPECT_NE(r.verdict_reason.find("standard deviations of this path"), std::string::npos) << r.verdict_reason;
  EXPECT_NE(r.verdict_reason.find("are lower bounds"), std::string::npos) << r.verdict_reason;
}

TEST(IdentifyGeneral, AWrongGearIsAPoorFitNotConvergence) {
  // the data of winches with a gear of 24 instead of 30: no value of the fitted parameters explains them
  ts::Model truth = motorised();
  for (auto& w : truth.winches) w.gear_ratio = 24.0;
  const ts::Model nominal = motorised();
  ts::MotionData d = ts::simulate_motion(truth, layout(1.0), kDt);
  add_noise(d, 1e-3, 2e-5, 5);
  ts::IdentifyOptions o;
  o.dt_s = kDt;
  o.encoder_sigma_m = 2e-5;
  const ts::IdentifyResult r = ts::identify(nominal, d, ts::parse_fit_spec(nominal, "winch_kp:c1+c2+c3+c4,stiffness:c7+c8+c9"), o);
  EXPECT_EQ(r.verdict, ts::FitVerdict::kPoorFit) << r.verdict_reason;
  EXPECT_GT(r.variance_factor, 3.0 * r.variance_factor_bound);
  EXPECT_NE(r.verdict_reason.find("cannot explain the data"), std::string::npos) << r.verdict_reason;
  EXPECT_EQ(r.verdict_reason.find("continuity gap"), std::string::npos) << r.verdict_reason;  // single shooting: no segments
}

TEST(IdentifyGeneral, TargetColumnsDriveTheWinches) {
  // the recorded targets differ from the model's drive: with them the nominal model explains the data
  const ts::Model nominal = motorised();
  ts::MotionData d = layout(1.0);
  d.target_cables = {0, 1, 2, 3};
  d.winch_target_m.resize(d.nsample(), 4);
  for (int s = 0; s < d.nsample(); ++s)
    for (int i = 0; i < 4; ++i)
      d.winch_target_m(s, i) =
          nominal.cables[static_cast<std::size_t>(i)].rest_length_m - 0.015 * std::sin(4.0 * d.t_s[static_cast<std::size_t>(s)]);
  const ts::MotionData with = ts::simulate_motion(nominal, d, kDt);
  ts::MotionData without = d;
  without.target_cables.clear();
  without.winch_target_m.resize(0, 0);
  without = ts::simulate_motion(nominal, without, kDt);
  // the targets reach the winches: the encoders follow them, not the model's drive
  EXPECT_GT((with.winch_encoder_m - without.winch_encoder_m).cwiseAbs().maxCoeff(), 5e-3);
  // (the R2S2R gear motor lags the 15 mm, 4 rad/s sine by 2.6 mm at the end)
  EXPECT_LT(std::abs(with.winch_encoder_m(d.nsample() - 1, 0) - d.winch_target_m(d.nsample() - 1, 0)), 3e-3);
  ts::IdentifyOptions o;
  o.dt_s = kDt;
  const ts::IdentifyResult r = ts::identify(nominal, with, ts::parse_fit_spec(nominal, "winch_kp:c1+c2+c3+c4"), o);
  EXPECT_EQ(r.verdict, ts::FitVerdict::kGood) << r.verdict_reason;
  EXPECT_NEAR(r.parameters[0].fitted / nominal.winches[0].kp_per_m, 1.0, 1e-4);
}

TEST(IdentifyGeneral, RecoversTheEndCapContactOfTheCompliantGround) {
  // the end-caps (radius 2 cm, geometry) settle on the ground: its stiffness is fitted, with steps
  // the ground's regularised friction can take (0.1 ms; at 0.5 ms the fit stalled at 0.79)
  const ts::Model nominal = motorised();
  ts::Model truth = nominal;
  truth.ground.stiffness_Npm *= 1.5;
  const ts::MotionData d = ts::simulate_motion(truth, layout(0.5), 1e-4);
  ts::IdentifyOptions o;
  o.dt_s = 1e-4;
  const ts::IdentifyResult r = ts::identify(nominal, d, ts::parse_fit_spec(nominal, "ground_stiffness"), o);
  EXPECT_NEAR(r.parameters[0].fitted / truth.ground.stiffness_Npm, 1.0, 0.01) << r.parameters[0].fitted;
  EXPECT_EQ(r.verdict, ts::FitVerdict::kGood) << r.verdict_reason;
}

TEST(IdentifyGeneral, AFittedRestLengthDoesNotMoveTheRecordedTargets) {
  // the winch of c1 follows the recorded target; c1's rest length (the zero of its encoder) is 4 mm
  // longer in the truth: the encoder and the markers tell it apart from the target
  const ts::Model nominal = motorised();
  ts::Model truth = nominal;
  truth.cables[0].rest_length_m += 0.004;
  ts::MotionData d = layout(0.5);
  d.target_cables = {0};
  d.winch_target_m.resize(d.nsample(), 1);
  for (int s = 0; s < d.nsample(); ++s)
    d.winch_target_m(s, 0) = nominal.cables[0].rest_length_m + 0.01 * std::sin(6.0 * d.t_s[static_cast<std::size_t>(s)]);
  d = ts::simulate_motion(truth, d, kDt);
  ts::IdentifyOptions o;
  o.dt_s = kDt;
  const ts::IdentifyResult r = ts::identify(nominal, d, ts::parse_fit_spec(nominal, "rest_length:c1"), o);
  EXPECT_NEAR(r.parameters[0].fitted, truth.cables[0].rest_length_m, 1e-6);
  EXPECT_EQ(r.verdict, ts::FitVerdict::kGood) << r.verdict_reason;
}

TEST(IdentifyGeneral, RecoversOneWinchsIntegralAndDerivativeGains) {
  // per-winch items: c2's ki x1.5 and kd x2, the other winches as in the file
  const ts::Model nominal = motorised();
  ts::Model truth = nominal;
  truth.winches[1].ki_per_ms *= 1.5;
  truth.winches[1].kd_s_per_m *= 2.0;
  const ts::MotionData d = ts::simulate_motion(truth, layout(1.0), kDt);
  ts::IdentifyOptions o;
  o.dt_s = kDt;
  const ts::IdentifyResult r = ts::identify(nominal, d, ts::parse_fit_spec(nominal, "winch_ki:c2,winch_kd:c2"), o);
  ASSERT_EQ(r.parameters.size(), 2u);
  EXPECT_NEAR(r.parameters[0].fitted / truth.winches[1].ki_per_ms, 1.0, 0.01) << r.parameters[0].fitted;
  EXPECT_NEAR(r.parameters[1].fitted / truth.winches[1].kd_s_per_m, 1.0, 0.01) << r.parameters[1].fitted;
  EXPECT_EQ(r.model.winches[0].ki_per_ms, nominal.winches[0].ki_per_ms);  // the other winches keep theirs
  EXPECT_EQ(r.verdict, ts::FitVerdict::kGood) << r.verdict_reason;
}

// --- the rolling robot: ground friction and end-cap contact ---------------------------------

ts::Model rolling() { return ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar_motorised_roll.yaml").model; }

// A record of the rolling robot: 100 Hz over `duration` s, markers on the six end-caps (n1..n6),
// the targets its six winches received (the gait table: rest length + u(t)) and their encoders
// (values filled by simulate_motion).
ts::MotionData rolling_layout(const ts::Model& m, double duration) {
  ts::MotionData d = layout(duration);
  d.encoder_cables = {0, 1, 2, 3, 4, 5};
  d.winch_encoder_m = Eigen::MatrixXd::Zero(d.nsample(), 6);
  d.target_cables = {0, 1, 2, 3, 4, 5};
  d.winch_target_m.resize(d.nsample(), 6);
  for (int i = 0; i < 6; ++i) {
    const ts::CableDrive* drive = nullptr;
    for (const auto& dr : m.drives)
      if (dr.cable == i) drive = &dr;
    for (int s = 0; s < d.nsample(); ++s)
      d.winch_target_m(s, i) = m.cables[static_cast<std::size_t>(i)].rest_length_m +
                               (drive ? ts::drive_offset(*drive, d.t_s[static_cast<std::size_t>(s)]) : 0.0);
  }
  return d;
}

// The end-caps (of n1..n6) within 2 mm of touching the ground at sample s.
std::vector<int> face(const ts::Model& m, const ts::MotionData& d, int s) {
  std::vector<int> on;
  for (int k = 0; k < 6; ++k)
    if (d.p_W_marker_m(s, 3 * k + 2) < m.nodes[static_cast<std::size_t>(k)].radius_m + 2e-3) on.push_back(k);
  return on;
}

// The regularised friction of the end-caps in stick needs dt <= slip_velocity / (mu g) = 1.1e-4 s
// here (identify refuses a larger step when friction is fitted:
// RefusesFittingTheGroundWithAStepItsRegularisedFrictionCannotTake).
constexpr double kRollDt = 1e-4;

// 1.2 s of the rolling robot (`truth`) under its gait: it stands on {n2, n4, n6}, tips over the
// edge n2-n6 at 0.8 s and lands on {n2, n3, n6} around 1.1 s (impacts, end-caps bouncing);
// 1 mm marker and 0.02 mm encoder noise.
ts::MotionData rolling_record(const ts::Model& truth, unsigned seed) {
  ts::MotionData d = ts::simulate_motion(truth, rolling_layout(truth, 1.2), kRollDt);
  add_noise(d, 1e-3, 2e-5, seed);
  return d;
}

ts::IdentifyOptions rolling_options() {
  ts::IdentifyOptions o;
  o.dt_s = kRollDt;
  o.marker_sigma_m = 1e-3;
  o.encoder_sigma_m = 2e-5;
  return o;
}

TEST(IdentifyGeneral, RecoversGroundFrictionFromARollingRecord) {
  const ts::Model nominal = rolling();
  ts::Model truth = nominal;
  truth.ground.friction = 0.6;  // the file's 0.92 (rubber on a hard floor) is the start
  const ts::MotionData d = rolling_record(truth, 21);
  // the record holds a face change
  EXPECT_EQ(face(truth, d, 0), (std::vector<int>{1, 3, 5}));
  bool n3_lands = false;
  for (int s = 0; s < d.nsample(); ++s) n3_lands = n3_lands || face(truth, d, s) == std::vector<int>{1, 2, 5};
  EXPECT_TRUE(n3_lands);
  const ts::IdentifyResult r = ts::identify(nominal, d, ts::parse_fit_spec(nominal, "friction"), rolling_options());
  ASSERT_TRUE(r.covariance_ok) << r.covariance_message;
  const auto& p = r.parameters[0];
  EXPECT_NEAR(p.fitted / 0.6, 1.0, 0.02) << p.fitted;
  EXPECT_LT(std::abs(p.fitted - 0.6), 4.0 * p.std) << p.fitted << " std " << p.std;
  EXPECT_EQ(r.verdict, ts::FitVerdict::kGood) << r.verdict_reason;
  EXPECT_GT(r.marker_rms_free_nominal_m, 2e-3);  // the nominal friction does not explain the data
  EXPECT_LT(r.marker_rms_m, 1.2e-3);             // the fitted one does, to the noise
}

TEST(IdentifyGeneral, FrictionAndEndCapContactTogetherFromARollingRecordIsAPoorFit) {
  // friction 0.6, the ground 50 % stiffer and half as damped, the three fitted from the file's
  // values: friction comes within 5 % (0.583), but stiffness and damping stay near their starts
  // (19,900 N/m and 58 N s/m for 30,000 and 30: the run is rough in them across the landing's
  // impacts, their correlations are low); the statistics reject the fit: the verdict is not good
  const ts::Model nominal = rolling();
  ts::Model truth = nominal;
  truth.ground.friction = 0.6;
  truth.ground.stiffness_Npm *= 1.5;
  truth.ground.damping_Nspm *= 0.5;
  const ts::MotionData d = rolling_record(truth, 22);
  const ts::IdentifyResult r =
      ts::identify(nominal, d, ts::parse_fit_spec(nominal, "friction,ground_stiffness,ground_damping"), rolling_options());
  ASSERT_EQ(r.parameters.size(), 3u);
  EXPECT_NEAR(r.parameters[0].fitted / 0.6, 1.0, 0.05) << r.parameters[0].fitted;
  EXPECT_EQ(r.verdict, ts::FitVerdict::kPoorFit) << r.verdict_reason;
  EXPECT_GT(r.variance_factor, r.variance_factor_bound);
  EXPECT_NE(r.verdict_reason.find("a local minimum is not excluded"), std::string::npos) << r.verdict_reason;
}

TEST(IdentifyGeneral, RefusesFittingTheGroundWithAStepItsRegularisedFrictionCannotTake) {
  // at 0.5 ms the end-caps' regularised friction in stick chatters in RK4: the run is rough in mu (the
  // cost jumps by 1 % between mu 0.918 and 0.92) and the fit stalled at 0.89 for a truth of 0.6; at
  // 0.2 ms it stalled at 0.71
  const ts::Model m = rolling();
  const ts::MotionData d = ts::simulate_motion(m, rolling_layout(m, 0.1), kRollDt);
  ts::IdentifyOptions o = rolling_options();
  o.dt_s = 5e-4;
  const std::string e = error_of([&] { (void)ts::identify(m, d, ts::parse_fit_spec(m, "friction"), o); });
  EXPECT_NE(e.find("identify option dt_s: 0.0005 s is above slip_velocity / (friction |g|) = 0.000110"), std::string::npos) << e;
  // the other ground items too (settling at 0.5 ms, the ground stiffness x1.5 stalled at 0.79 of
  // the truth); items that are not the ground's pass, and so does the step asked for
  EXPECT_NE(error_of([&] { (void)ts::identify(m, d, ts::parse_fit_spec(m, "ground_damping"), o); }).find("'ground_damping' is fitted"),
            std::string::npos);
  o.max_iterations = 1;
  EXPECT_NO_THROW((void)ts::identify(m, d, ts::parse_fit_spec(m, "winch_kp:c1"), o));
  o.dt_s = kRollDt;
  EXPECT_NO_THROW((void)ts::identify(m, d, ts::parse_fit_spec(m, "friction"), o));
}

TEST(IdentifyGeneral, BadSelectionsAreRefusedWithTheirNames) {
  const ts::Model m = motorised();
  EXPECT_NE(error_of([&] { (void)ts::parse_fit_spec(m, "winch_kp:c7"); }).find("cable 'c7' has no winch"), std::string::npos)
      << error_of([&] { (void)ts::parse_fit_spec(m, "winch_kp:c7"); });
  EXPECT_NE(error_of([&] { (void)ts::parse_fit_spec(m, "winch_kp:c1+c9"); }).find("'c9' has no winch"), std::string::npos);
  const ts::Model ideal = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml").model;
  const std::string e = error_of([&] { (void)ts::parse_fit_spec(ideal, "stiffness,winch_coulomb_friction"); });
  EXPECT_NE(e.find("--fit: item 2 'winch_coulomb_friction'"), std::string::npos) << e;
  EXPECT_NE(e.find("has no winch"), std::string::npos) << e;
  // `all` selects the winches' cables only (c1..c6)
  const auto all = ts::parse_fit_spec(m, "winch_ki:all");
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[5].name, "winch_ki:c6");
  // what the single-shooting path does not fit
  const ts::MotionData d = ts::simulate_motion(m, layout(0.1), kDt);
  EXPECT_NE(error_of([&] { (void)ts::identify(m, d, ts::parse_fit_spec(m, "mass:rod1")); }).find("'mass:rod1' is not fitted"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)ts::identify(m, d, ts::parse_fit_spec(m, "initial_state")); }).find("'initial_state' is not fitted"),
            std::string::npos);
  // the Jet path's entry points refuse such models instead of simulating them wrongly
  EXPECT_NE(error_of([&] { (void)ts::simulate_samples(m, d.t_s, kDt); }).find("simulate_samples"), std::string::npos);
}

TEST(IdentifyGeneral, TargetAndEncoderColumnsInTheCsv) {
  const ts::Model m = motorised();
  ts::MotionData d = layout(0.05);
  d.target_cables = {1};
  d.winch_target_m = Eigen::MatrixXd::Constant(d.nsample(), 1, 0.15);
  d = ts::simulate_motion(m, d, kDt);
  const auto dir = std::filesystem::temp_directory_path() / "tendyn_identify_general_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "motion.csv").string();
  { std::ofstream(path) << ts::motion_csv(m, d); }
  const ts::MotionData back = ts::load_motion_csv(m, path);
  EXPECT_EQ(back.target_cables, d.target_cables);
  EXPECT_EQ(back.encoder_cables, d.encoder_cables);
  EXPECT_NEAR((back.winch_encoder_m - d.winch_encoder_m).cwiseAbs().maxCoeff(), 0.0, 1e-12);
  EXPECT_NEAR((back.winch_target_m - d.winch_target_m).cwiseAbs().maxCoeff(), 0.0, 1e-12);
  // an encoder column of a cable without a winch, a missing target
  { std::ofstream(path) << "t_s,n1_x_m,n1_y_m,n1_z_m,c7_encoder_m\n0,0,0,0,0.1\n0.01,0,0,0,0.1\n"; }
  std::string e = error_of([&] { (void)ts::load_motion_csv(m, path); });
  EXPECT_NE(e.find(":1:26: column 'c7_encoder_m': cable 'c7' has no winch"), std::string::npos) << e;
  { std::ofstream(path) << "t_s,n1_x_m,n1_y_m,n1_z_m,c2_target_m\n0,0,0,0,0.1\n0.01,0,0,0,\n"; }
  e = error_of([&] { (void)ts::load_motion_csv(m, path); });
  EXPECT_NE(e.find("(c2_target_m): a target is needed at every sample"), std::string::npos) << e;
  // on a model without winches
  const ts::Model ideal = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml").model;
  { std::ofstream(path) << "t_s,n1_x_m,n1_y_m,n1_z_m,c1_encoder_m\n0,0,0,0,0.1\n0.01,0,0,0,0.1\n"; }
  e = error_of([&] { (void)ts::load_motion_csv(ideal, path); });
  EXPECT_NE(e.find("column 'c1_encoder_m': cable 'c1' has no winch"), std::string::npos) << e;
  std::filesystem::remove_all(dir);
}

}  // namespace
