// Parameter identification (identify.hpp): the prediction against simulate(), derivatives against
// finite differences, the motion CSV reader, the --fit syntax, and the acceptance test of issue
// 16: synthetic truth from simulate(), 30 Hz, 1 mm noise, 10 % missing markers, parameters
// recovered from a start 30-50 % off.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/identify.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "support/error_of.hpp"

namespace ts = tendyn::tensegrity;

namespace {

// Document 001's 3-bar robot (models/three_bar.yaml, its drive (2-66)) on a compliant ground,
// dropped from 2 cm with a sideways push so that it lands, slides and rocks.
ts::Model three_bar_truth() {
  ts::Model m = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/identify/three_bar_truth.yaml").model;
  return m;
}

// Recorder of node positions at every output.
struct Recorder : ts::Observer {
  std::vector<double> t;
  std::vector<Eigen::MatrixX3d> p;
  void on_output(const ts::Model&, const ts::State& s, const ts::Data& d, const ts::Energy&) override {
    t.push_back(s.time_s);
    p.emplace_back(d.p_W_node.transpose());
  }
};

// 30 Hz on a 1 ms grid: sample k at step round(k * 1000 / 30).
ts::MotionData synthetic_30hz(const ts::Model& truth, double duration, double sigma, double missing, unsigned seed = 7) {
  ts::SimulationOptions o;
  o.duration_s = duration;
  o.dt_s = 1e-3;
  o.output_interval_s = 1e-3;
  o.locate_slack_events = false;
  Recorder rec;
  ts::simulate(truth, o, &rec);
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  ts::MotionData d;
  for (int i = 0; i < truth.nnode(); ++i) d.marker_nodes.push_back(i);
  std::vector<std::size_t> rows;
  for (int k = 0;; ++k) {
    const auto step = static_cast<std::size_t>(std::lround(k * 1000.0 / 30.0));
    if (step >= rec.t.size()) break;
    rows.push_back(step);
  }
  d.p_W_marker_m.resize(static_cast<int>(rows.size()), 3 * truth.nnode());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    d.t_s.push_back(rec.t[rows[r]]);
    for (int i = 0; i < truth.nnode(); ++i) {
      const bool miss = u(rng) < missing;
      for (int c = 0; c < 3; ++c)
        d.p_W_marker_m(static_cast<int>(r), 3 * i + c) = miss ? std::nan("") : rec.p[rows[r]](i, c) + sigma * noise(rng);
    }
  }
  return d;
}

// The start of the identification: stiffness +40 %, damping -35 %, rest lengths +/- 30 % of
// their stretch (l - l0 in the truth's rest state is a few mm: a 30 % rest-length error would put every
// cable slack), friction +50 %.
ts::Model perturbed(const ts::Model& truth) {
  ts::Model m = truth;
  for (int k = 0; k < m.ncable(); ++k) {
    auto& c = m.cables[static_cast<std::size_t>(k)];
    c.stiffness_Npm *= (k % 2 == 0) ? 1.4 : 0.65;
    c.damping_Nspm *= (k % 2 == 0) ? 0.65 : 1.5;
    c.rest_length_m += (k % 2 == 0) ? 0.004 : -0.004;
  }
  m.ground.friction *= 1.5;
  return m;
}

}  // namespace

TEST(Identify, PredictionIsSimulateWithoutSlackSplitting) {
  const ts::Model m = three_bar_truth();
  ts::SimulationOptions o;
  o.duration_s = 1.0;
  o.dt_s = 1e-3;
  o.output_interval_s = 0.1;
  o.locate_slack_events = false;
  Recorder rec;
  ts::simulate(m, o, &rec);
  const Eigen::MatrixXd P = ts::simulate_samples(m, rec.t, 1e-3);
  double worst = 0.0;
  for (std::size_t s = 0; s < rec.t.size(); ++s)
    for (int i = 0; i < m.nnode(); ++i)
      for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(P(static_cast<int>(s), 3 * i + c) - rec.p[s](i, c)));
  EXPECT_LT(worst, 1e-10) << "the identification's RK4 must be simulate()'s";
  // it moves: the comparison is not between two resting robots
  EXPECT_GT((rec.p.back() - rec.p.front()).cwiseAbs().maxCoeff(), 0.01);
}

// Largest relative difference between the AD Jacobian and 4th-order central differences of the
// residuals, over the columns that are not zero.
double worst_derivative_error(const ts::Model& start, const ts::MotionData& d, const std::string& fit, const ts::IdentifyOptions& o,
                              int& checked) {
  const auto groups = ts::parse_fit_spec(start, fit);
  const auto ev = ts::evaluate_identification(start, d, groups, o);
  EXPECT_EQ(ev.jacobian.cols(), ev.unknowns.size());
  checked = 0;
  double worst = 0.0;
  for (int j = 0; j < ev.unknowns.size(); ++j) {
    if (ev.jacobian.col(j).norm() == 0.0) continue;
    // parameters: 1e-4 relative (their residuals are smooth and small: round-off dominates below);
    // start states: 1e-5 (a larger step would move a foot across the ground's contact kink)
    const double h = (j < ev.nparameter ? 1e-4 : 1e-5) * std::max(0.1, std::abs(ev.unknowns[j]));
    auto at = [&](double dx) {
      Eigen::VectorXd x = ev.unknowns;
      x[j] += dx;
      return ts::evaluate_identification(start, d, groups, o, &x, false).residuals;
    };
    const Eigen::VectorXd fd = (8.0 * (at(h) - at(-h)) - (at(2 * h) - at(-2 * h))) / (12.0 * h);
    const double rel = (fd - ev.jacobian.col(j)).norm() / ev.jacobian.col(j).norm();
    worst = std::max(worst, rel);
    ++checked;
  }
  return worst;
}

TEST(Identify, DerivativesMatchFiniteDifferencesInFlight) {
  // no ground: cables (drives, slack clamp never reached), rods, masses; 3 segments
  ts::Model truth = three_bar_truth();
  truth.ground.type = ts::Ground::Type::kNone;
  for (int j = 0; j < truth.nrod(); ++j) truth.initial_state.w_W(j) = Eigen::Vector3d(0.5 * j, -1.0, 2.0);
  const ts::MotionData d = synthetic_30hz(truth, 0.6, 1e-3, 0.1);
  ts::IdentifyOptions o;
  o.segment_s = 0.2;
  int checked = 0;
  const double worst = worst_derivative_error(
      perturbed(truth), d, "stiffness:all,damping:c1+c2+c3,damping:c4,rest_length:c7,mass:rod2,initial_state", o, checked);
  EXPECT_GT(checked, 80);
  EXPECT_LT(worst, 1e-6);
}

TEST(Identify, DerivativesMatchFiniteDifferencesOnTheGround) {
  // standing on the compliant ground, every foot in contact all along (no contact kink)
  ts::Model truth = three_bar_truth();
  Eigen::MatrixX3d P = ts::node_positions(truth, truth.initial_state);
  P.col(2).array() -= 0.0201;
  const ts::State s = ts::state_from_node_positions(truth, P);
  truth.initial_state = s;
  // no noise: the segments' start states (estimated from the markers) keep every foot in the ground
  const ts::MotionData d = synthetic_30hz(truth, 0.5, 0.0, 0.0);
  ts::IdentifyOptions o;
  o.segment_s = 0.25;
  int checked = 0;
  const double worst =
      worst_derivative_error(perturbed(truth), d, "stiffness:c1,rest_length:c2,friction,ground_stiffness,ground_damping", o, checked);
  EXPECT_GT(checked, 30);
  EXPECT_LT(worst, 1e-6);
}

double truth_value(const ts::Model& truth, const ts::FittedParameter& p) {
  const auto e = p.elements.empty() ? std::size_t{0} : static_cast<std::size_t>(p.elements[0]);
  switch (p.kind) {
    case ts::ParameterKind::kFriction: return truth.ground.friction;
    case ts::ParameterKind::kStiffness: return truth.cables[e].stiffness_Npm;
    case ts::ParameterKind::kDamping: return truth.cables[e].damping_Nspm;
    case ts::ParameterKind::kRestLength: return truth.cables[e].rest_length_m;
    default: return std::nan("");
  }
}

void print_fit(const ts::Model& truth, const ts::IdentifyResult& r) {
  std::printf(
      "%s\nrms fit %g m, free fitted %g m, free nominal %g m, continuity gap %g m, %d segments, %.1f s\n"
      "variance factor %g, %d start(s), won by start %d\n",
      r.solver_brief.c_str(), r.marker_rms_m, r.marker_rms_free_fitted_m, r.marker_rms_free_nominal_m, r.max_continuity_gap_m, r.nsegment,
      r.solve_time_s, r.variance_factor, r.starts, r.winning_start);
  for (const auto& p : r.parameters) {
    const double tv = truth_value(truth, p);
    std::printf("  %-36s nominal %10.6g fitted %10.6g truth %10.6g std %10.3g error %8.3g%%\n", p.name.c_str(), p.nominal, p.fitted, tv,
                p.std, 100 * (p.fitted - tv) / tv);
  }
}

// The experiment of the acceptance test: the truth robot released from 5 cm (the shipped truth:
// 2 cm) with a push of (1.0, 0.1, 0) m/s (shipped: 0.4 m/s), so that it lands hard, slides 17 cm
// and then rocks under the drive (2-66). The shipped release carries too little information for
// the tolerances: with all 9 cables grouped, 3 s of its data give standard deviations of
// 0.7 % (stiffness) and 5 % (damping), and longer records add almost nothing (the rocking is
// periodic); this release gives 0.28 % and 1.5-1.9 % (docs/IDENTIFY.md).
ts::Model three_bar_thrown() {
  ts::Model m = three_bar_truth();
  for (int j = 0; j < m.nrod(); ++j) {
    m.initial_state.p_WC(j).z() += 0.03;
    m.initial_state.v_WC(j) = Eigen::Vector3d(1.0, 0.1, 0.0);
  }
  return m;
}

// The cables of the 3-bar robot are built alike: one stiffness and one damping for all 9, one rest
// length per nominal length (the six triangle cables 0.18 m, the three verticals 0.2 m).
const char* kAlikeFit =
    "stiffness:c1+c2+c3+c4+c5+c6+c7+c8+c9,damping:c1+c2+c3+c4+c5+c6+c7+c8+c9,"
    "rest_length:c1+c2+c3+c4+c5+c6,rest_length:c7+c8+c9,friction";

TEST(Identify, RecoversThreeBarParametersFromNoisyGappyData) {
  // Issue 16's acceptance: 4 s at 30 Hz, 1 mm noise, 10 % of the markers missing (seed 7), every
  // fitted value starting 30-50 % off (stiffness +40 %, damping -40 %, friction +50 %; rest lengths
  // +/- 4 mm, a quarter of the cables' 17-28 mm stretch: 40 % would leave cables slack); the
  // issue's tolerances: stiffness 1 %, damping 5 %, rest lengths 0.5 mm, friction 10 %. Segments
  // of 0.2 s. Noise seeds 1-10 in a one-off run (docs/IDENTIFY.md): all 10 meet the tolerances
  // (worst errors stiffness 0.34 %, damping 3.4 %, rest length 0.16 mm, friction 0.35 %); 8 from
  // the first start, seeds 5 and 10 after one restart (their first fit stops in a local minimum
  // next to the start: variance factor 4-6, gaps of 2-4 mm). The checks on the variance factor and
  // the gap below catch a local minimum.
  const ts::Model truth = three_bar_thrown();
  const ts::MotionData d = synthetic_30hz(truth, 4.0, 1e-3, 0.1);
  ts::Model start = truth;
  for (int k = 0; k < start.ncable(); ++k) {
    auto& c = start.cables[static_cast<std::size_t>(k)];
    c.stiffness_Npm *= 1.4;
    c.damping_Nspm *= 0.6;
    c.rest_length_m += k < 6 ? 0.004 : -0.004;
  }
  start.ground.friction *= 1.5;
  ts::IdentifyOptions o;
  o.segment_s = 0.2;
  o.threads = 2;
  const auto r = ts::identify(start, d, ts::parse_fit_spec(start, kAlikeFit), o);
  print_fit(truth, r);
  EXPECT_TRUE(r.converged) << r.termination;
  ASSERT_TRUE(r.covariance_ok) << r.covariance_message;
  ASSERT_EQ(r.parameters.size(), 5u);
  for (const auto& p : r.parameters) {
    const double tv = truth_value(truth, p);
    EXPECT_GT(std::abs(p.nominal - tv), (p.kind == ts::ParameterKind::kRestLength ? 3.9e-3 : 0.3 * tv)) << p.name << ": the start is off";
    EXPECT_LT(std::abs(p.fitted - tv), 4.0 * p.std) << p.name;  // the covariance is honest
    switch (p.kind) {
      case ts::ParameterKind::kStiffness: EXPECT_NEAR(p.fitted, tv, 0.01 * tv) << p.name; break;
      case ts::ParameterKind::kDamping: EXPECT_NEAR(p.fitted, tv, 0.05 * tv) << p.name; break;
      case ts::ParameterKind::kRestLength: EXPECT_NEAR(p.fitted, tv, 0.5e-3) << p.name; break;
      case ts::ParameterKind::kFriction: EXPECT_NEAR(p.fitted, tv, 0.10 * tv) << p.name; break;
      default: ADD_FAILURE() << p.name;
    }
  }
  EXPECT_NEAR(r.marker_rms_m, 1e-3, 0.1e-3);                                 // the noise level
  EXPECT_LT(r.marker_rms_free_fitted_m, 0.5 * r.marker_rms_free_nominal_m);  // predicts better than the start
  EXPECT_NEAR(r.variance_factor, 1.0, 0.2);                                  // not a local minimum
  EXPECT_LT(r.max_continuity_gap_m, 0.5e-3);
  EXPECT_EQ(r.starts, 1);  // seed 7 converges from the first start (seeds 5 and 10 need a restart)
  EXPECT_EQ(r.verdict, ts::FitVerdict::kGood) << r.verdict_reason;
  EXPECT_TRUE(r.unidentifiable.empty());
}

TEST(Identify, RestartsAFailedFitAndKeepsTheLowestCost) {
  // A fit stopped after 3 iterations is far from the optimum (variance factor >> 2): the restarts
  // run (continuations from a looser continuity weight) and the lowest cost wins.
  const ts::Model truth = three_bar_thrown();
  const ts::MotionData d = synthetic_30hz(truth, 1.0, 1e-3, 0.1, 5);
  ts::Model start = truth;
  for (auto& c : start.cables) c.stiffness_Npm *= 1.4;
  ts::IdentifyOptions o;
  o.segment_s = 0.2;
  o.max_iterations = 3;
  o.covariance = false;
  o.threads = 2;
  const auto groups = ts::parse_fit_spec(start, "stiffness:all,friction");
  o.restarts = 0;
  const auto one = ts::identify(start, d, groups, o);
  EXPECT_EQ(one.starts, 1);
  EXPECT_EQ(one.winning_start, 0);
  EXPECT_GT(one.variance_factor, one.variance_factor_bound);  // flagged as failed
  EXPECT_EQ(one.verdict, ts::FitVerdict::kNotConverged) << one.verdict_reason;
  o.restarts = 2;
  const auto more = ts::identify(start, d, groups, o);
  std::printf("one start: cost %g, variance factor %g; %d starts: cost %g, variance factor %g, won by %d\n", one.final_cost,
              one.variance_factor, more.starts, more.final_cost, more.variance_factor, more.winning_start);
  EXPECT_GE(more.starts, 2);
  EXPECT_LE(more.starts, 3);
  EXPECT_GT(more.iterations, one.iterations);
  EXPECT_LE(more.final_cost, one.final_cost);
  EXPECT_GE(more.winning_start, 0);
  EXPECT_LT(more.winning_start, more.starts);
  if (more.winning_start == 0) {
    EXPECT_EQ(more.parameters[0].fitted, one.parameters[0].fitted);
  }
  for (int bad : {-1, 7}) {
    o.restarts = bad;
    EXPECT_THROW(ts::validate(o), tendyn::Error) << bad;
  }
  o.restarts = 1;
  o.restart_variance_factor = 0.5;
  EXPECT_THROW(ts::validate(o), tendyn::Error);
}

TEST(Identify, ResultsDoNotDependOnTheThreadCount) {
  const ts::Model truth = three_bar_truth();
  const ts::MotionData d = synthetic_30hz(truth, 0.6, 1e-3, 0.1);
  const ts::Model start = perturbed(truth);
  ts::IdentifyOptions o;
  o.segment_s = 0.2;
  o.max_iterations = 2;
  o.covariance = false;
  const auto groups = ts::parse_fit_spec(start, "stiffness:c1+c2+c3,friction");
  o.threads = 1;
  const auto a = ts::identify(start, d, groups, o);
  o.threads = 2;
  const auto b = ts::identify(start, d, groups, o);
  ASSERT_EQ(a.parameters.size(), b.parameters.size());
  for (std::size_t i = 0; i < a.parameters.size(); ++i) EXPECT_EQ(a.parameters[i].fitted, b.parameters[i].fitted);
  EXPECT_EQ(a.final_cost, b.final_cost);
  EXPECT_GT(a.starts, 1);         // 2 iterations are far from the optimum: the restarts ran
  EXPECT_EQ(a.starts, b.starts);  // the restarts too
  EXPECT_EQ(a.winning_start, b.winning_start);
  EXPECT_NE(a.parameters[0].fitted, a.parameters[0].nominal);  // it did move
}

// Several segments, several Levenberg-Marquardt iterations and the covariance: every number of the
// report is bit-identical between one and three threads (Ceres summed its costs per thread, so the
// trust region followed sums that differed in the last bits between thread counts).
TEST(Identify, ReportIsBitIdenticalAcrossThreadCounts) {
  const ts::Model truth = three_bar_truth();
  const ts::MotionData d = synthetic_30hz(truth, 2.0, 1e-3, 0.1);
  const ts::Model start = perturbed(truth);
  ts::IdentifyOptions o;
  o.segment_s = 0.1;  // 20 segments
  o.max_iterations = 3;
  o.restarts = 0;
  const auto groups = ts::parse_fit_spec(start, "stiffness:c1+c2+c3,damping,friction");
  o.threads = 1;
  const auto a = ts::identify(start, d, groups, o);
  o.threads = 2;
  const auto b = ts::identify(start, d, groups, o);
  ASSERT_EQ(a.parameters.size(), b.parameters.size());
  ASSERT_TRUE(a.covariance_ok);
  ASSERT_TRUE(b.covariance_ok);
  for (std::size_t i = 0; i < a.parameters.size(); ++i) {
    EXPECT_EQ(a.parameters[i].fitted, b.parameters[i].fitted) << a.parameters[i].name;
    EXPECT_EQ(a.parameters[i].std, b.parameters[i].std) << a.parameters[i].name;
  }
  EXPECT_EQ(a.correlation, b.correlation);
  EXPECT_EQ(a.final_cost, b.final_cost);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_NE(a.parameters[0].fitted, a.parameters[0].nominal);  // it did move
}

TEST(Identify, MotionCsvRoundTripAndErrors) {
  const ts::Model m = three_bar_truth();
  ts::MotionData d = synthetic_30hz(m, 0.2, 1e-3, 0.3);
  d.length_cables = {2};
  d.cable_length_m = Eigen::MatrixXd::Constant(d.nsample(), 1, 0.2);
  d.cable_length_m(1, 0) = std::nan("");
  const auto dir = std::filesystem::temp_directory_path() / "tendyn_identify_test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "motion.csv").string();
  std::ofstream(path) << ts::motion_csv(m, d);
  const ts::MotionData back = ts::load_motion_csv(m, path);
  ASSERT_EQ(back.nsample(), d.nsample());
  EXPECT_EQ(back.marker_nodes, d.marker_nodes);
  EXPECT_EQ(back.length_cables, d.length_cables);
  for (int s = 0; s < d.nsample(); ++s) {
    EXPECT_EQ(back.t_s[static_cast<std::size_t>(s)], d.t_s[static_cast<std::size_t>(s)]);
    for (int i = 0; i < 3 * d.nmarker(); ++i) {
      if (std::isnan(d.p_W_marker_m(s, i))) {
        EXPECT_TRUE(std::isnan(back.p_W_marker_m(s, i)));
      } else {
        EXPECT_NEAR(back.p_W_marker_m(s, i), d.p_W_marker_m(s, i), 1e-12);
      }
    }
  }
  EXPECT_TRUE(std::isnan(back.cable_length_m(1, 0)));
  auto err = [&](const std::string& text) {
    std::ofstream(path) << text;
    return tendyn::test::error_of([&] { ts::load_motion_csv(m, path); });
  };
  EXPECT_NE(err("t_s,n1_x_m,n1_y_m,n1_z_m\n0,1,2,3\n0,1,2,3\n").find("motion.csv:3:1"), std::string::npos);  // not increasing
  EXPECT_NE(err("t_s,n9_x_m,n9_y_m,n9_z_m\n0,1,2,3\n").find("no node 'n9'"), std::string::npos);
  EXPECT_NE(err("t_s,n1_x_m,n1_y_m\n0,1,2\n1,1,2\n").find("no z column"), std::string::npos);
  EXPECT_NE(err("t_s,n1_x_m,n1_y_m,n1_z_m\n0,1,,3\n1,1,2,3\n").find("motion.csv:2:5"), std::string::npos);  // partial marker
  EXPECT_NE(err("t_s,n1_x_m,n1_y_m,n1_z_m\n0,1,x,3\n1,1,2,3\n").find("motion.csv:2:5"), std::string::npos);
  EXPECT_NE(err("t_s,speed\n0,1\n1,2\n").find("column 'speed'"), std::string::npos);
  EXPECT_NE(err("t_s,c99_tension_N\n0,1\n1,2\n").find("no cable 'c99'"), std::string::npos);
  EXPECT_NE(err("t_s,n1_x_m,n1_y_m,n1_z_m\n0,1,2,3\n").find("at least 2 samples"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// Before: identify() had no step bound (dt_s = 1e-9 over 4 s of data started a fit of 4e9 steps
// per pass). The bound is checked with the options, before any simulation.
TEST(Identify, StepsPerPassAreBoundedBeforeAnyWork) {
  EXPECT_EQ(ts::identify_step_count({0.0, 0.1, 0.25}, 0.05), 2.0 + 3.0);
  EXPECT_EQ(ts::identify_step_count({0.0, 0.01}, 0.05), 1.0);  // at least one step per interval
  const std::string dir = std::string(TENDYN_SOURCE_DIR) + "/models/identify/";
  const ts::Model m = ts::load_model_file(dir + "three_bar_nominal.yaml").model;
  const ts::MotionData d = ts::load_motion_csv(m, dir + "three_bar_motion.csv");
  ts::IdentifyOptions o;
  o.dt_s = 1e-9;
  const std::string msg = tendyn::test::error_of([&] { (void)ts::identify(m, d, ts::parse_fit_spec(m, "friction"), o); });
  EXPECT_EQ(msg, "identify option dt_s: 4e+09 integration steps per pass over the data (4 s of data at dt 1e-09 s), above the limit 1e+07");
  EXPECT_LE(ts::identify_step_count(d.t_s, 1e-3), ts::kIdentifyMaxSteps);
}

TEST(Identify, FitSpecSyntaxAndErrors) {
  const ts::Model m = three_bar_truth();
  const auto g = ts::parse_fit_spec(m, "stiffness:all,damping:c1+c2,rest_length:c3,mass,friction,ground_damping,initial_state");
  ASSERT_EQ(g.size(), 9u + 1u + 1u + 3u + 1u + 1u + 1u);
  EXPECT_EQ(g[0].name, "stiffness:c1");
  EXPECT_EQ(g[9].name, "damping:c1+c2");
  EXPECT_EQ(g[9].elements, (std::vector<int>{0, 1}));
  EXPECT_EQ(g[11].name, "mass:rod1");
  using tendyn::test::error_of;
  EXPECT_NE(error_of([&] { ts::parse_fit_spec(m, ""); }).find("--fit: empty"), std::string::npos);
  EXPECT_NE(error_of([&] { ts::parse_fit_spec(m, "stiffnes"); }).find("unknown parameter 'stiffnes'"), std::string::npos);
  EXPECT_NE(error_of([&] { ts::parse_fit_spec(m, "stiffness:c10"); }).find("no cable 'c10'"), std::string::npos);
  EXPECT_NE(error_of([&] { ts::parse_fit_spec(m, "stiffness:c1,stiffness:c1+c2"); }).find("already fitted"), std::string::npos);
  EXPECT_NE(error_of([&] { ts::parse_fit_spec(m, "friction:all"); }).find("takes no selection"), std::string::npos);
  EXPECT_NE(error_of([&] { ts::parse_fit_spec(m, "damping:"); }).find("empty selection"), std::string::npos);
  ts::Model impulse = m;
  impulse.ground.type = ts::Ground::Type::kImpulse;
  EXPECT_NE(error_of([&] { ts::parse_fit_spec(impulse, "friction"); }).find("needs a compliant ground"), std::string::npos);
  const ts::MotionData d = synthetic_30hz(m, 0.2, 1e-3, 0.0);
  EXPECT_NE(
      error_of([&] { ts::identify(impulse, d, ts::parse_fit_spec(impulse, "stiffness:c1")); }).find("impulse ground is not supported"),
      std::string::npos);
}

TEST(Identify, RobustLossBoundsAnOutliersWeight) {
  // one marker coordinate 50 mm off (50 sigma): huber (from 3 sigma) turns its weighted residual
  // 50 into sqrt(2 * 3 * 50 - 3^2) = 17.06; cauchy into 3 sqrt(log(1 + (50/3)^2)) = 7.05
  const ts::Model m = three_bar_truth();
  ts::MotionData d = synthetic_30hz(m, 0.2, 0.0, 0.0);
  const Eigen::MatrixXd p = ts::simulate_samples(m, d.t_s, 1e-3);
  const int n1 = 0;  // marker 0 = node n1
  d.p_W_marker_m(2, 3 * n1 + 0) = p(2, 0) - 0.050;
  const auto groups = ts::parse_fit_spec(m, "friction");
  ts::IdentifyOptions o;
  o.segment_s = 1.0;
  auto largest = [&](ts::RobustLoss loss) {
    o.loss = loss;
    return ts::evaluate_identification(m, d, groups, o, nullptr, false).residuals.cwiseAbs().maxCoeff();
  };
  EXPECT_NEAR(largest(ts::RobustLoss::kNone), 50.0, 1e-6);
  EXPECT_NEAR(largest(ts::RobustLoss::kHuber), std::sqrt(2 * 3 * 50.0 - 9), 1e-6);
  EXPECT_NEAR(largest(ts::RobustLoss::kCauchy), 3 * std::sqrt(std::log(1 + (50 / 3.0) * (50 / 3.0))), 1e-6);
}

// ----------------------------------------------------------------------------- verdict and restarts

TEST(Identify, VarianceFactorBoundIsTheChiSquareQuantile) {
  // the 99.9 % quantile of chi^2 / dof: about 1 + 3.09 sqrt(2 / dof) for large dof
  EXPECT_NEAR(ts::variance_factor_bound(6900), 1.0 + 3.0902 * std::sqrt(2.0 / 6900), 0.002);
  EXPECT_NEAR(ts::variance_factor_bound(6900), 1.0537, 0.001);
  EXPECT_NEAR(ts::variance_factor_bound(2000), 2201.0 / 2000.0, 0.002);  // chi^2_0.999(2000) = 2200.7
  EXPECT_NEAR(ts::variance_factor_bound(10), 29.588 / 10.0, 0.03);       // chi^2_0.999(10) = 29.588
  EXPECT_TRUE(std::isnan(ts::variance_factor_bound(0)));
  // a local minimum at variance factor 1.51 with 6,900 residuals is far outside it
  EXPECT_LT(ts::variance_factor_bound(6900), 1.51);
}

TEST(Identify, VerdictRejectsAModelWithoutItsDrive) {
  // The data come from the 3-bar robot with its drive (2-66); the model has no drive. The best
  // stiffness cannot explain the motion: the verdict says so (it is not "good"), and the restarts,
  // which end at the same cost, stop after one.
  const ts::Model truth = three_bar_truth();
  const ts::MotionData d = synthetic_30hz(truth, 0.6, 1e-3, 0.0);
  ts::Model no_drive = truth;
  no_drive.drives.clear();
  ts::IdentifyOptions o;
  o.segment_s = 0.2;
  o.covariance = false;
  std::vector<std::string> notices;
  o.notice = [&](const std::string& line) { notices.push_back(line); };
  const auto r = ts::identify(no_drive, d, ts::parse_fit_spec(no_drive, "stiffness:c1+c2+c3+c4+c5+c6+c7+c8+c9"), o);
  std::printf("variance factor %g (bound %g), gap %g m, %d starts: %s: %s\n", r.variance_factor, r.variance_factor_bound,
              r.max_continuity_gap_m, r.starts, ts::to_string(r.verdict), r.verdict_reason.c_str());
  EXPECT_GT(r.variance_factor, 5.0);
  EXPECT_EQ(r.verdict, ts::FitVerdict::kPoorFit) << r.verdict_reason;
  EXPECT_NE(r.verdict_reason.find("cannot explain the data"), std::string::npos) << r.verdict_reason;
  EXPECT_EQ(r.starts, 2);  // one restart, then the early stop
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_EQ(notices, r.restart_log);
  EXPECT_EQ(notices[0].rfind("identify: restart 1 of 2: the best fit so far is rejected (variance factor ", 0), 0u) << notices[0];
  EXPECT_NE(notices[1].find("no more restarts"), std::string::npos) << notices[1];
  // the model with its drive, from the same start, fits: good
  const auto ok = ts::identify(truth, d, ts::parse_fit_spec(truth, "stiffness:c1+c2+c3+c4+c5+c6+c7+c8+c9"), o);
  EXPECT_EQ(ok.verdict, ts::FitVerdict::kGood) << ok.verdict_reason;
  EXPECT_EQ(ok.starts, 1);
  EXPECT_TRUE(ok.restart_log.empty());
}

TEST(Identify, RestartsUseTheStatisticalBoundAndStopEarly) {
  // Noise of 1.25 mm stated as 1 mm: the variance factor at the optimum is about 1.56, below the
  // old fixed threshold 2 but far above the 99.9 % bound of about 1.25 for these ~400
  // residuals. The fit is flagged, one restart runs and ends at the same cost, the restarts stop.
  const ts::Model truth = three_bar_truth();
  const ts::MotionData d = synthetic_30hz(truth, 0.6, 1.25e-3, 0.0, 3);
  ts::IdentifyOptions o;
  o.segment_s = 0.2;
  o.covariance = false;
  const auto r = ts::identify(truth, d, ts::parse_fit_spec(truth, "stiffness:c1+c2+c3+c4+c5+c6+c7+c8+c9"), o);
  std::printf("variance factor %g (bound %g), %d residuals, %d starts: %s\n", r.variance_factor, r.variance_factor_bound, r.nresidual,
              r.starts, r.verdict_reason.c_str());
  EXPECT_GT(r.variance_factor, 1.35);
  EXPECT_LT(r.variance_factor, 2.0);
  EXPECT_NEAR(r.variance_factor_bound, ts::variance_factor_bound(r.nresidual - r.nunknown), 0.0);
  EXPECT_LT(r.variance_factor_bound, 1.3);
  EXPECT_EQ(r.starts, 2);  // flagged; restart 1 ran and stopped the restarts
  EXPECT_EQ(r.verdict, ts::FitVerdict::kPoorFit) << r.verdict_reason;
  // stated at its true value, the same noise passes
  o.marker_sigma_m = 1.25e-3;
  const auto ok = ts::identify(truth, d, ts::parse_fit_spec(truth, "stiffness:c1+c2+c3+c4+c5+c6+c7+c8+c9"), o);
  EXPECT_EQ(ok.starts, 1);
  EXPECT_EQ(ok.verdict, ts::FitVerdict::kGood) << ok.verdict_reason;
  // a fixed threshold is still available, 0 is the statistical bound, others are refused
  o.restart_variance_factor = 0.5;
  EXPECT_THROW(ts::validate(o), tendyn::Error);
  o.restart_variance_factor = 0.0;
  o.restart_min_improvement = 1.0;
  EXPECT_THROW(ts::validate(o), tendyn::Error);
}

TEST(Identify, VerdictNamesAParameterTheDataDoNotDetermine) {
  // Released 0.5 m above the ground and recorded for 0.25 s: the robot never touches the ground,
  // so the friction has no effect on the data.
  ts::Model truth = three_bar_truth();
  for (int j = 0; j < truth.nrod(); ++j) truth.initial_state.p_WC(j).z() += 0.5;
  const ts::MotionData d = synthetic_30hz(truth, 0.25, 1e-3, 0.0);
  ts::IdentifyOptions o;
  o.segment_s = 0.5;
  const auto r = ts::identify(truth, d, ts::parse_fit_spec(truth, "stiffness:c1+c2+c3+c4+c5+c6+c7+c8+c9,friction"), o);
  std::printf("%s: %s\n", ts::to_string(r.verdict), r.verdict_reason.c_str());
  EXPECT_EQ(r.verdict, ts::FitVerdict::kNotIdentifiable) << r.verdict_reason;
  ASSERT_EQ(r.unidentifiable.size(), 1u);
  EXPECT_EQ(r.unidentifiable[0], "friction: no effect on the data");
  EXPECT_NE(r.verdict_reason.find("friction"), std::string::npos);
}

TEST(Identify, CovarianceAndCostsAreReproducible) {
  // ceres::Covariance orders the Jacobian's columns by the parameter blocks' addresses: the
  // standard deviations and correlations of two identical fits differed in the last bits. The
  // reported costs, variance factor, standard deviations and correlations must be bit-identical.
  const ts::Model truth = three_bar_truth();
  const ts::MotionData d = synthetic_30hz(truth, 0.6, 1e-3, 0.1);
  const ts::Model start = perturbed(truth);
  ts::IdentifyOptions o;
  o.segment_s = 0.1;
  o.max_iterations = 3;
  o.restarts = 0;
  const auto groups = ts::parse_fit_spec(start, "stiffness:c1+c2+c3,stiffness:c4+c5+c6,damping:c1+c2+c3+c4+c5+c6,friction");
  o.threads = 1;
  const auto a = ts::identify(start, d, groups, o);
  ASSERT_TRUE(a.covariance_ok) << a.covariance_message;
  for (int run = 0; run < 2; ++run) {
    const auto b = ts::identify(start, d, groups, o);
    ASSERT_TRUE(b.covariance_ok);
    EXPECT_EQ(a.initial_cost, b.initial_cost) << o.threads;
    EXPECT_EQ(a.final_cost, b.final_cost) << o.threads;
    EXPECT_EQ(a.variance_factor, b.variance_factor) << o.threads;
    EXPECT_EQ(a.solver_brief, b.solver_brief) << o.threads;
    for (std::size_t i = 0; i < a.parameters.size(); ++i) {
      EXPECT_EQ(a.parameters[i].fitted, b.parameters[i].fitted) << i;
      EXPECT_EQ(a.parameters[i].std, b.parameters[i].std) << i << " threads " << o.threads;
    }
    EXPECT_TRUE(a.correlation == b.correlation) << o.threads;
  }
}

TEST(Identify, FitSpecIdsMayContainPlus) {
  // the 6-bar builder names its rods rod_x-, rod_x+, ...: ids joined by '+' where an id ends in '+'
  ts::Model m = three_bar_truth();
  m.rod_ids = {"rod_x+", "rod_x-", "rod_y+"};
  m.cable_ids[0] = "c+";
  m.cable_ids[1] = "c++";
  auto elems = [&](const std::string& spec) { return ts::parse_fit_spec(m, spec).at(0).elements; };
  EXPECT_EQ(elems("mass:rod_x+"), (std::vector<int>{0}));
  EXPECT_EQ(elems("mass:rod_x++rod_x-"), (std::vector<int>{0, 1}));
  EXPECT_EQ(elems("mass:rod_x-+rod_x++rod_y+"), (std::vector<int>{1, 0, 2}));
  EXPECT_EQ(elems("stiffness:c++"), (std::vector<int>{1}));  // the longest id
  EXPECT_EQ(elems("stiffness:c+++c3"), (std::vector<int>{1, 2}));
  EXPECT_EQ(elems("stiffness:c3+c+"), (std::vector<int>{2, 0}));
  EXPECT_EQ(ts::parse_fit_spec(m, "mass").at(0).name, "mass:rod_x+");
  using tendyn::test::error_of;
  EXPECT_NE(error_of([&] { ts::parse_fit_spec(m, "mass:rod_z+"); }).find("no rod 'rod_z'"), std::string::npos);
  EXPECT_NE(error_of([&] { ts::parse_fit_spec(m, "mass:rod_x++"); }).find("empty id"), std::string::npos);
  EXPECT_NE(error_of([&] { ts::parse_fit_spec(m, "mass:rod_x++rod_x+"); }).find("listed twice"), std::string::npos);
}

TEST(Identify, MotionValuesAreBoundedWithThePlace) {
  const ts::Model m = three_bar_truth();
  const auto dir = std::filesystem::temp_directory_path() / "tendyn_identify_bounds_test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "motion.csv").string();
  auto err = [&](const std::string& text) {
    std::ofstream(path) << text;
    return tendyn::test::error_of([&] { ts::load_motion_csv(m, path); });
  };
  std::string e = err("t_s,n1_x_m,n1_y_m,n1_z_m\n0,1,2,3\n0.1,1,1e300,3\n");
  EXPECT_NE(e.find("motion.csv:3:7"), std::string::npos) << e;
  EXPECT_NE(e.find("above the limit"), std::string::npos) << e;
  e = err("t_s,n1_x_m,n1_y_m,n1_z_m,c1_tension_N\n0,1,2,3,1e10\n0.1,1,2,3,4\n");
  EXPECT_NE(e.find("motion.csv:2:9 (c1_tension_N)"), std::string::npos) << e;
  e = err("t_s,n1_x_m,n1_y_m,n1_z_m,c1_length_m\n0,1,2,3,-2e6\n0.1,1,2,3,4\n");
  EXPECT_NE(e.find("motion.csv:2:9 (c1_length_m)"), std::string::npos) << e;
  // 1e6 m is still accepted
  std::ofstream(path) << "t_s,n1_x_m,n1_y_m,n1_z_m\n0,1e6,2,3\n0.1,1,2,3\n";
  EXPECT_NO_THROW(ts::load_motion_csv(m, path));
  // data built in code: validate
  ts::MotionData d = synthetic_30hz(m, 0.1, 0.0, 0.0);
  d.p_W_marker_m(1, 4) = 1e300;
  e = tendyn::test::error_of([&] { ts::validate(m, d); });
  EXPECT_NE(e.find("marker 'n2' at sample 1: y = 1e+300 m is above the limit"), std::string::npos) << e;
  std::filesystem::remove_all(dir);
}
