// Step derivatives and rollout gradients (derivatives.hpp) against central finite differences of
// the double step, and their value against step() itself.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/derivatives.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "support/error_of.hpp"
#include "support/tensegrity_fixtures.hpp"

namespace ts = tendyn::tensegrity;
using tendyn::test::error_of;

namespace {

Eigen::VectorXd rest_lengths(const ts::Model& m) {
  Eigen::VectorXd u(m.ncable());
  for (int k = 0; k < m.ncable(); ++k) u[k] = m.cables[static_cast<std::size_t>(k)].rest_length_m;
  return u;
}

// The state after `steps` steps of step() (compliant ground, no split) from the model's start
// with rest lengths u, plus a small random velocity so that every term moves.
ts::State settled(const ts::Model& m, int steps, double h, const Eigen::VectorXd& u, unsigned seed, double sigma_mps = 0.05) {
  ts::Data d = ts::make_data(m);
  d.cable_rest_length_m = u;
  ts::State s = m.initial_state;
  ts::normalize_quaternions(m, s);
  ts::compute_derivative(m, s, d);
  for (int i = 0; i < steps; ++i) ts::step(m, d, s, h, ts::StepOptions{});
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0.0, sigma_mps);
  for (int j = 0; j < m.nrod(); ++j)
    for (int c = 7; c < 13; ++c) s.x[ts::State::kStride * j + c] += n(rng);
  return s;
}

// The state after one double step() with rest lengths u, never split.
Eigen::VectorXd double_step(const ts::Model& m, const ts::State& s0, const Eigen::VectorXd& u, double h) {
  ts::Data d = ts::make_data(m);
  d.cable_rest_length_m = u;
  ts::State s = s0;
  ts::compute_derivative(m, s, d);
  ts::StepOptions o;
  o.locate_slack_events = false;
  ts::step(m, d, s, h, o);
  return s.x;
}

struct Fd {
  double A = 0, B = 0, P = 0;  // max |J_fd - J| / max |J| per block
};

// Central differences of step_value, eps relative to max(1, |value|); compares every block.
Fd check_fd(const ts::Model& m, const ts::State& s, const Eigen::VectorXd& u, double h, const std::vector<ts::ParameterGroup>& params,
            double eps) {
  const ts::StepDerivatives D = ts::step_derivatives(m, s, u, h, params);
  auto rel = [](const Eigen::MatrixXd& fd, const Eigen::MatrixXd& J) {
    return J.size() == 0 ? 0.0 : (fd - J).cwiseAbs().maxCoeff() / std::max(J.cwiseAbs().maxCoeff(), 1e-300);
  };
  Fd out;
  Eigen::MatrixXd fd(m.nx(), m.nx());
  for (int i = 0; i < m.nx(); ++i) {
    const double e = eps * std::max(1.0, std::abs(s.x[i]));
    ts::State sp = s, sm = s;
    sp.x[i] += e;
    sm.x[i] -= e;
    fd.col(i) = (ts::step_value(m, sp, u, h) - ts::step_value(m, sm, u, h)) / (2 * e);
  }
  out.A = rel(fd, D.A);
  fd.resize(m.nx(), m.ncable());
  for (int k = 0; k < m.ncable(); ++k) {
    const double e = eps * std::max(1.0, std::abs(u[k]));
    Eigen::VectorXd up = u, um = u;
    up[k] += e;
    um[k] -= e;
    fd.col(k) = (ts::step_value(m, s, up, h) - ts::step_value(m, s, um, h)) / (2 * e);
  }
  out.B = rel(fd, D.B);
  fd.resize(m.nx(), static_cast<Eigen::Index>(params.size()));
  const Eigen::VectorXd theta = ts::parameter_values(m, params);
  for (std::size_t p = 0; p < params.size(); ++p) {
    const auto pi = static_cast<Eigen::Index>(p);
    const double e = eps * std::max(1.0, std::abs(theta[pi]));
    ts::Model mp = m, mm = m;
    Eigen::VectorXd tp = theta, tm = theta;
    tp[pi] += e;
    tm[pi] -= e;
    ts::set_parameter_values(mp, params, tp);
    ts::set_parameter_values(mm, params, tm);
    fd.col(pi) = (ts::step_value(mp, s, u, h) - ts::step_value(mm, s, u, h)) / (2 * e);
  }
  out.P = rel(fd, D.P);
  std::printf("[ fd rel err ] %s: A %.2e  B %.2e  P %.2e\n", m.name.c_str(), out.A, out.B, out.P);
  return out;
}

ts::Model three_bar_compliant() {
  ts::Model m = tendyn::test::shipped_model("three_bar_lying.yaml").model;
  m.ground.type = ts::Ground::Type::kCompliant;
  return m;
}

}  // namespace

TEST(StepDerivatives, ValueEqualsTheDoubleStep) {
  for (const char* name : {"prism3.yaml", "superball.yaml"}) {
    const ts::Model m = tendyn::test::shipped_model(name).model;
    const Eigen::VectorXd u = rest_lengths(m);
    const ts::State s = settled(m, 20, 1e-3, u, 1);
    const ts::StepDerivatives D = ts::step_derivatives(m, s, u, 1e-3);
    const Eigen::VectorXd ref = double_step(m, s, u, 1e-3);
    EXPECT_LE((D.x_next - ref).cwiseAbs().maxCoeff(), 1e-12) << name;
    EXPECT_LE((ts::step_value(m, s, u, 1e-3) - ref).cwiseAbs().maxCoeff(), 1e-12) << name;
    EXPECT_FALSE(D.slack_crossing) << name;
  }
  const ts::Model m = three_bar_compliant();
  const Eigen::VectorXd u = rest_lengths(m);
  const ts::State s = settled(m, 200, 5e-4, u, 2);
  const ts::StepDerivatives D = ts::step_derivatives(m, s, u, 5e-4);
  EXPECT_LE((D.x_next - double_step(m, s, u, 5e-4)).cwiseAbs().maxCoeff(), 1e-12);
  // without a slack event step()'s default options take the same step
  ts::Data d = ts::make_data(m);
  ts::State s2 = s;
  ts::compute_derivative(m, s2, d);
  ts::step(m, d, s2, 5e-4, ts::StepOptions{});
  EXPECT_LE((D.x_next - s2.x).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(StepDerivatives, PrismMatchesFiniteDifferences) {
  const ts::Model m = tendyn::test::shipped_model("prism3.yaml").model;
  Eigen::VectorXd u = rest_lengths(m);
  u[0] += 0.01;  // an unequal command
  const ts::State s = settled(m, 20, 1e-3, u, 3);
  const Fd e = check_fd(m, s, u, 1e-3, ts::parse_fit_spec(m, "stiffness:all,damping:all,mass:all"), 1e-6);
  EXPECT_LE(e.A, 1e-6);
  EXPECT_LE(e.B, 1e-6);
  EXPECT_LE(e.P, 1e-6);
}

TEST(StepDerivatives, ThreeBarOnCompliantGroundMatchesFiniteDifferences) {
  const ts::Model m = three_bar_compliant();
  const Eigen::VectorXd u = rest_lengths(m);
  const ts::State s = settled(m, 200, 5e-4, u, 4);
  // the settled robot has rod ends in the ground (depth ~ 3e-5 m): the contact terms are active
  const Eigen::MatrixX3d p = ts::node_positions(m, s);
  EXPECT_LT(p.col(2).minCoeff(), -1e-6);
  const Fd e = check_fd(m, s, u, 5e-4, ts::parse_fit_spec(m, "stiffness:all,mass:all,friction,ground_stiffness,ground_damping"), 1e-7);
  EXPECT_LE(e.A, 1e-6);
  EXPECT_LE(e.B, 1e-6);
  EXPECT_LE(e.P, 1e-6);
}

TEST(StepDerivatives, SixBarMatchesFiniteDifferences) {
  const ts::Model m = tendyn::test::shipped_model("superball.yaml").model;
  const Eigen::VectorXd u = rest_lengths(m);
  const ts::State s = settled(m, 20, 2e-3, u, 5);
  const Fd e = check_fd(m, s, u, 2e-3, ts::parse_fit_spec(m, "stiffness:all,damping:all"), 1e-6);
  EXPECT_LE(e.A, 1e-6);
  EXPECT_LE(e.B, 1e-6);
  EXPECT_LE(e.P, 1e-6);
}

TEST(RolloutGrad, MatchesFiniteDifferencesOfTheLoss) {
  const ts::Model m = three_bar_compliant();
  const double h = 5e-4;
  const Eigen::VectorXd u0 = rest_lengths(m);
  // resting on the ground, then sliding: friction works above its slip velocity (below it the
  // regularised friction is a stiff viscous law, whose RK4 map at this step amplifies tiny motions)
  ts::State s0 = settled(m, 200, h, u0, 6, 0.0);
  for (int j = 0; j < m.nrod(); ++j) {
    s0.x[ts::State::kStride * j + 7] += 0.05;
    s0.x[ts::State::kStride * j + 8] += 0.02;
  }
  const int N = 40;
  Eigen::MatrixXd U(N, m.ncable());
  for (int k = 0; k < N; ++k)
    for (int c = 0; c < m.ncable(); ++c) U(k, c) = u0[c] + 0.002 * std::sin(0.1 * k + c);
  ts::RolloutLoss L;
  L.target_node = 0;
  L.target_m = Eigen::Vector3d(0.5, 0.2, 0.1);
  L.target_weight = 3.0;
  L.running_target_weight = 0.1;
  L.control_weight = 2.0;
  const auto params = ts::parse_fit_spec(m, "stiffness:c1+c2,mass:rod2,friction");
  const ts::RolloutGradient g = ts::rollout_grad(m, s0, U, h, L, params);
  // The rollout is piecewise smooth: a rod end touching down or lifting off switches the ground
  // force inside a stage, and a finite difference straddling that switch is off by up to 30 %
  // (the gradient is that of the branch taken). Here the contact set stays the same all along,
  // so finite differences are a fair check.
  for (int k = 0; k <= N; ++k) {
    ts::State sk;
    sk.x = g.states.row(k).transpose();
    const Eigen::MatrixX3d p = ts::node_positions(m, sk);
    for (int i = 0; i < m.nnode(); ++i) ASSERT_EQ(p(i, 2) < 0.0, ts::node_positions(m, s0)(i, 2) < 0.0) << "node " << i << " step " << k;
  }
  auto loss_of = [&](const ts::Model& mm, const ts::State& s, const Eigen::MatrixXd& UU) {
    return ts::rollout_grad(mm, s, UU, h, L, {}).loss;  // (the value; the gradient is not used)
  };
  EXPECT_NEAR(loss_of(m, s0, U), g.loss, 1e-15 * g.loss);
  const double eps = 1e-6;
  double worst = 0.0;
  const double scale_u = g.dL_dcontrols.cwiseAbs().maxCoeff();
  for (int k : {0, 17, N - 1})
    for (int c = 0; c < m.ncable(); ++c) {
      Eigen::MatrixXd Up = U, Um = U;
      Up(k, c) += eps;
      Um(k, c) -= eps;
      const double fd = (loss_of(m, s0, Up) - loss_of(m, s0, Um)) / (2 * eps);
      worst = std::max(worst, std::abs(fd - g.dL_dcontrols(k, c)) / scale_u);
    }
  // The ground's normal force max(0, k d - c v_z) also switches where the damping would pull
  // (an end moving up fast): a rod end's height moves such a switch by a stage within ~1e-7 m
  // here, so the start state is differenced with 1e-8 (the difference converges to the gradient
  // as the step shrinks: 1e-6 -> 1e-2, 1e-8 -> 1e-6, 1e-9 -> 1e-7 relative for the worst entry).
  const double scale_x = g.dL_dstate0.cwiseAbs().maxCoeff(), eps_x = 1e-8;
  double worst_x = 0.0;
  for (int i = 0; i < m.nx(); ++i) {
    ts::State sp = s0, sm = s0;
    sp.x[i] += eps_x;
    sm.x[i] -= eps_x;
    const double fd = (loss_of(m, sp, U) - loss_of(m, sm, U)) / (2 * eps_x);
    worst_x = std::max(worst_x, std::abs(fd - g.dL_dstate0[i]) / scale_x);
  }
  double worst_p = 0.0;
  const Eigen::VectorXd theta = ts::parameter_values(m, params);
  for (int p = 0; p < theta.size(); ++p) {
    const double e = 1e-6 * std::max(1.0, std::abs(theta[p]));
    ts::Model mp = m, mm = m;
    Eigen::VectorXd tp = theta, tm = theta;
    tp[p] += e;
    tm[p] -= e;
    ts::set_parameter_values(mp, params, tp);
    ts::set_parameter_values(mm, params, tm);
    const double fd = (loss_of(mp, s0, U) - loss_of(mm, s0, U)) / (2 * e);
    worst_p = std::max(worst_p, std::abs(fd - g.dL_dparameters[p]) / std::max(std::abs(g.dL_dparameters[p]), 1e-12));
  }
  std::printf("[ fd rel err ] rollout_grad: controls %.2e  state0 %.2e  params %.2e\n", worst, worst_x, worst_p);
  EXPECT_LE(worst, 1e-6);
  EXPECT_LE(worst_x, 1e-6);
  EXPECT_LE(worst_p, 1e-6);
}

TEST(RolloutGrad, CentreOfMassTargetMatchesFiniteDifferences) {
  // (on the ground: a free prism's internal forces cannot move its centre of mass, dL/du = 0)
  const ts::Model m = three_bar_compliant();
  const double h = 5e-4;
  const Eigen::VectorXd u0 = rest_lengths(m);
  const ts::State s0 = settled(m, 200, h, u0, 7);
  Eigen::MatrixXd U = u0.transpose().replicate(25, 1);
  U.col(1).array() += 0.02;
  ts::RolloutLoss L;
  L.target_node = -1;
  L.target_m = Eigen::Vector3d(0.1, 0.0, 0.3);
  L.target_weight = 1.0;
  const ts::RolloutGradient g = ts::rollout_grad(m, s0, U, h, L);
  const double eps = 1e-6;
  double worst = 0.0;
  for (int c = 0; c < m.ncable(); ++c) {
    Eigen::MatrixXd Up = U, Um = U;
    Up(3, c) += eps;
    Um(3, c) -= eps;
    const double fd = (ts::rollout_grad(m, s0, Up, h, L).loss - ts::rollout_grad(m, s0, Um, h, L).loss) / (2 * eps);
    worst = std::max(worst, std::abs(fd - g.dL_dcontrols(3, c)) / g.dL_dcontrols.cwiseAbs().maxCoeff());
  }
  std::printf("[ fd rel err ] rollout_grad, centre of mass: controls %.2e (max |dL/du| %.3g)\n", worst,
              g.dL_dcontrols.cwiseAbs().maxCoeff());
  EXPECT_GT(g.dL_dcontrols.cwiseAbs().maxCoeff(), 1e-3);
  EXPECT_LE(worst, 1e-6);
  // the rollout is the chain of single steps (the dual numbers' values differ from the doubles in
  // the last bit: ceres::Jet divides as a * (1 / b); 25 steps with contact amplify that to ~1e-12)
  ts::State s = s0;
  for (int k = 0; k < 25; ++k) s.x = ts::step_value(m, s, U.row(k).transpose(), h);
  EXPECT_LE((g.states.row(25).transpose() - s.x).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(StepDerivatives, BadInputIsRefusedWithTheReason) {
  const ts::Model prism = tendyn::test::shipped_model("prism3.yaml").model;
  const Eigen::VectorXd u = rest_lengths(prism);
  const ts::State s = prism.initial_state;
  ts::Model imp = tendyn::test::shipped_model("three_bar_lying.yaml").model;
  EXPECT_NE(error_of([&] { ts::step_derivatives(imp, imp.initial_state, rest_lengths(imp), 1e-3); }).find("impulse ground"),
            std::string::npos);
  EXPECT_NE(error_of([&] { ts::step_derivatives(imp, imp.initial_state, rest_lengths(imp), 1e-3); }).find("type: compliant"),
            std::string::npos);
  ts::Model driven = tendyn::test::shipped_model("three_bar.yaml").model;
  driven.ground.type = ts::Ground::Type::kCompliant;
  EXPECT_NE(error_of([&] { ts::step_derivatives(driven, driven.initial_state, rest_lengths(driven), 1e-3); }).find("has drives"),
            std::string::npos);
  ts::Model motorised = tendyn::test::shipped_model("three_bar_motorised.yaml").model;  // winches, end-caps
  motorised.ground.type = ts::Ground::Type::kCompliant;
  motorised.drives.clear();
  EXPECT_NE(error_of([&] { ts::step_derivatives(motorised, motorised.initial_state, rest_lengths(motorised), 1e-3); }).find("ideal rods"),
            std::string::npos);
  ts::State bad = s;
  bad.x.conservativeResize(bad.x.size() - 1);
  EXPECT_NE(error_of([&] { ts::step_derivatives(prism, bad, u, 1e-3); }).find("step_derivatives(state): the state has 38 entries"),
            std::string::npos);
  EXPECT_NE(error_of([&] { ts::step_derivatives(prism, s, u.head(3), 1e-3); }).find("step_derivatives(rest_length_m): 3 rest lengths"),
            std::string::npos);
  Eigen::VectorXd un = u;
  un[2] = std::nan("");
  EXPECT_NE(error_of([&] { ts::step_derivatives(prism, s, un, 1e-3); }).find("not finite"), std::string::npos);
  EXPECT_NE(error_of([&] { ts::step_derivatives(prism, s, u, 0.0); }).find("(h_s)"), std::string::npos);
  EXPECT_NE(
      error_of([&] { ts::step_derivatives(prism, s, u, 1e-3, ts::parse_fit_spec(prism, "rest_length:all")); }).find("are the controls"),
      std::string::npos);
  ts::ParameterGroup g{ts::ParameterKind::kMass, {7}, "mass:x"};
  EXPECT_NE(error_of([&] { ts::step_derivatives(prism, s, u, 1e-3, {g}); }).find("element 7 is outside"), std::string::npos);
  // a winch parameter (built in code; parse_fit_spec refuses it on a model without winches)
  EXPECT_NE(error_of([&] {
              ts::step_derivatives(prism, s, u, 1e-3, {{ts::ParameterKind::kWinchKp, {0}, "winch_kp:c"}});
            }).find("a winch parameter"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              ts::step_derivatives(prism, s, u, 1e-3, {{ts::ParameterKind::kFriction, {}, "friction"}});
            }).find("needs a compliant ground"),
            std::string::npos);
  Eigen::MatrixXd U(3, 2);
  U.setConstant(0.2);
  EXPECT_NE(error_of([&] { ts::rollout_grad(prism, s, U, 1e-3, ts::RolloutLoss{}); }).find("rollout_derivatives(controls): 2 columns"),
            std::string::npos);
  ts::RolloutLoss L;
  L.target_node = 99;
  EXPECT_NE(error_of([&] { ts::rollout_grad(prism, s, u.transpose(), 1e-3, L); }).find("loss.target_node"), std::string::npos);
}
