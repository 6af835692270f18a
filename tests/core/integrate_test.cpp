// core/integrate.hpp: RK4 and Dormand-Prince 5(4) orders, error estimate scaling, step control and
// the adaptive driver, on problems with known solutions.
#include <gtest/gtest.h>

#include <tendyn/core/integrate.hpp>

#include <cmath>
#include <limits>
#include <numbers>

namespace tendyn {
namespace {

// Scratch of one integration of size n (the caller's workspace in the modules).
struct Work {
  explicit Work(Eigen::Index n) {
    for (auto& v : k) v.setZero(n);
    stage.setZero(n);
    err.setZero(n);
  }
  Eigen::VectorXd k[7];
  Eigen::VectorXd stage, err;
};

// y' = -y (n = 1) or the harmonic oscillator x'' = -w^2 x as (x, v) (n = 2), w = 3 rad/s.
constexpr double kOmega = 3.0;
void decay(const Eigen::VectorXd& y, Eigen::VectorXd& out) { out[0] = -y[0]; }
void oscillator(const Eigen::VectorXd& y, Eigen::VectorXd& out) {
  out[0] = y[1];
  out[1] = -kOmega * kOmega * y[0];
}

// Max-norm error at t = T of n fixed RK4 steps.
template <class F>
double rk4_error(F f, const Eigen::VectorXd& y0, double T, int n, const Eigen::VectorXd& exact) {
  Work w(y0.size());
  Eigen::VectorXd y = y0;
  const double h = T / n;
  for (int i = 0; i < n; ++i) {
    f(y, w.k[0]);
    rk4_step(y, i * h, h, w.k[0], w.k[1], w.k[2], w.k[3], w.stage, [&](double, Eigen::VectorXd& out) { f(w.stage, out); });
  }
  return (y - exact).cwiseAbs().maxCoeff();
}

// Same with fixed Dormand-Prince steps (5th-order solution propagated, every step taken).
template <class F>
double dopri5_error(F f, const Eigen::VectorXd& y0, double T, int n, const Eigen::VectorXd& exact) {
  Work w(y0.size());
  Eigen::VectorXd y = y0;
  const double h = T / n;
  for (int i = 0; i < n; ++i) {
    f(y, w.k[0]);
    dopri5_trial(y, i * h, h, w.k, w.stage, w.err, 1.0, 1.0, [&](double, Eigen::VectorXd& out) { f(w.stage, out); });
    y = w.stage;
  }
  return (y - exact).cwiseAbs().maxCoeff();
}

TEST(Integrate, Rk4IsFourthOrder) {
  const Eigen::VectorXd y0 = Eigen::VectorXd::Ones(1);
  const Eigen::VectorXd e1 = Eigen::VectorXd::Constant(1, std::exp(-2.0));
  const double a = rk4_error(decay, y0, 2.0, 20, e1), b = rk4_error(decay, y0, 2.0, 40, e1);
  EXPECT_NEAR(std::log2(a / b), 4.0, 0.1) << a << " " << b;

  const Eigen::VectorXd x0 = Eigen::Vector2d(1.0, 0.0);
  const double T = 2.0;
  const Eigen::VectorXd e2 = Eigen::Vector2d(std::cos(kOmega * T), -kOmega * std::sin(kOmega * T));
  const double c = rk4_error(oscillator, x0, T, 100, e2), d = rk4_error(oscillator, x0, T, 200, e2);
  EXPECT_NEAR(std::log2(c / d), 4.0, 0.1) << c << " " << d;
  EXPECT_LT(d, 1e-5);
}

TEST(Integrate, Rk4EvaluatesAtTheStageTimes) {
  // y' = 3 t^2: Simpson's rule is exact for it, so one step from t0 gives (t0 + h)^3 - t0^3 exactly
  // only if the stages are evaluated at t0 + h/2, t0 + h/2, t0 + h.
  Work w(1);
  Eigen::VectorXd y = Eigen::VectorXd::Zero(1);
  const double t0 = 0.5, h = 0.25;
  w.k[0][0] = 3.0 * t0 * t0;
  int calls = 0;
  rk4_step(y, t0, h, w.k[0], w.k[1], w.k[2], w.k[3], w.stage, [&](double t, Eigen::VectorXd& out) {
    ++calls;
    out[0] = 3.0 * t * t;
  });
  EXPECT_EQ(calls, 3);
  EXPECT_DOUBLE_EQ(y[0], std::pow(t0 + h, 3) - std::pow(t0, 3));
}

TEST(Integrate, Dopri5IsFifthOrderAndItsErrorEstimateScalesAsH5) {
  const Eigen::VectorXd x0 = Eigen::Vector2d(1.0, 0.0);
  const double T = 2.0;
  const Eigen::VectorXd e2 = Eigen::Vector2d(std::cos(kOmega * T), -kOmega * std::sin(kOmega * T));
  const double a = dopri5_error(oscillator, x0, T, 100, e2), b = dopri5_error(oscillator, x0, T, 200, e2);
  EXPECT_NEAR(std::log2(a / b), 5.0, 0.25) << a << " " << b;

  // Local error estimate of one step: O(h^5) (the embedded 4th-order solution's local error), so
  // halving h divides it by about 32. atol = 1, rtol = 0: the result is the plain RMS error.
  Work w(2);
  auto estimate = [&](double h) {
    oscillator(x0, w.k[0]);
    return dopri5_trial(x0, 0.0, h, w.k, w.stage, w.err, 0.0, 1.0, [&](double, Eigen::VectorXd& out) { oscillator(w.stage, out); });
  };
  const double e_h = estimate(0.02), e_h2 = estimate(0.01);
  EXPECT_NEAR(std::log2(e_h / e_h2), 5.0, 0.2) << e_h << " " << e_h2;
  EXPECT_GT(e_h2, 0.0);
  // stage holds the 5th-order solution at t = h
  EXPECT_NEAR(w.stage[0], std::cos(kOmega * 0.01), 1e-11);
  EXPECT_NEAR(w.stage[1], -kOmega * std::sin(kOmega * 0.01), 1e-10);
}

TEST(Integrate, Dopri5ControlAcceptsRejectsAndBoundsTheNextStep) {
  const double inf = std::numeric_limits<double>::infinity();
  AdaptiveStep r = dopri5_control(0.0, 0.1, inf);
  EXPECT_TRUE(r.accepted);
  EXPECT_DOUBLE_EQ(r.h_next, 0.5);  // factor 5
  EXPECT_DOUBLE_EQ(r.h_used, 0.1);
  r = dopri5_control(0.0, 0.1, 0.2);
  EXPECT_DOUBLE_EQ(r.h_next, 0.2);  // ceiling
  r = dopri5_control(0.5, 0.1, inf);
  EXPECT_TRUE(r.accepted);
  EXPECT_DOUBLE_EQ(r.h_next, 0.1 * 0.9 * std::pow(0.5, -0.2));
  r = dopri5_control(2.0, 0.1, inf);
  EXPECT_FALSE(r.accepted);
  EXPECT_DOUBLE_EQ(r.error, 2.0);
  EXPECT_DOUBLE_EQ(r.h_next, 0.1 * 0.9 * std::pow(2.0, -0.2));
  r = dopri5_control(1e9, 0.1, inf);
  EXPECT_FALSE(r.accepted);
  EXPECT_DOUBLE_EQ(r.h_next, 0.1 * 0.2);  // floor
  r = dopri5_control(std::numeric_limits<double>::quiet_NaN(), 0.1, inf);
  EXPECT_FALSE(r.accepted);
  EXPECT_DOUBLE_EQ(r.h_next, 0.1 * 0.2);
}

TEST(Integrate, AdaptiveDriverHitsTheEndTimeAndMeetsTheTolerance) {
  Work w(2);
  Eigen::VectorXd y = Eigen::Vector2d(1.0, 0.0);
  double t = 0.0;
  const double t_end = 1.3;
  const double rtol = 1e-9, atol = 1e-12;
  auto trial = [&](double h) {
    oscillator(y, w.k[0]);
    const double err =
        dopri5_trial(y, t, h, w.k, w.stage, w.err, rtol, atol, [&](double, Eigen::VectorXd& out) { oscillator(w.stage, out); });
    const AdaptiveStep r = dopri5_control(err, h, 0.5);
    if (r.accepted) {
      y = w.stage;
      t += h;
    }
    return r;
  };
  double h = 1.0;  // far too large: the first trials are rejected
  long rejected = 0;
  int accepted = 0;
  const double t_reached = adaptive_integrate(
      0.0, t_end, h, trial, [&] { ++accepted; }, rejected);
  EXPECT_EQ(t_reached, t_end);  // exactly
  EXPECT_NEAR(t, t_end, 1e-14);
  EXPECT_GT(rejected, 0);
  EXPECT_GT(accepted, 10);
  EXPECT_LT(accepted, 400);
  EXPECT_NEAR(y[0], std::cos(kOmega * t_end), 1e-7);
  EXPECT_NEAR(y[1], -kOmega * std::sin(kOmega * t_end), 1e-7);
  EXPECT_GT(h, 0.0);
  EXPECT_LE(h, 0.5);

  // adaptive_advance: a step limited by h_limit keeps the step size for the next one
  double h2 = 0.01;
  long rej2 = 0;
  const AdaptiveStep s = adaptive_advance(h2, 0.004, trial, rej2);
  EXPECT_TRUE(s.accepted);
  EXPECT_EQ(s.h_used, 0.004);
  EXPECT_EQ(h2, 0.01);
  EXPECT_EQ(rej2, 0);
}

}  // namespace
}  // namespace tendyn
