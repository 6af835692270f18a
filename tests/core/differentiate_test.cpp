// Local quadratic least-squares derivatives (core/differentiate.hpp).
#include <tendyn/core/differentiate.hpp>
#include <tendyn/core/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace tendyn {
namespace {

// A quadratic is reproduced exactly by any window, on uneven times.
TEST(Differentiate, QuadraticIsExactOnUnevenTimes) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  const int n = 30;
  Eigen::VectorXd t(n);
  t[0] = 0.0;
  for (int k = 1; k < n; ++k) t[k] = t[k - 1] + 0.01 * u(rng);
  Eigen::MatrixXd x(n, 2);
  for (int k = 0; k < n; ++k) {
    x(k, 0) = 1.0 - 2.0 * t[k] + 3.0 * t[k] * t[k];
    x(k, 1) = 5.0 * t[k];
  }
  for (int h : {1, 3}) {
    const QuadraticDerivatives d = differentiate_quadratic(t, x, h);
    ASSERT_EQ(d.first_row, h);
    ASSERT_EQ(d.d1.rows(), n - 2 * h);
    for (Eigen::Index i = 0; i < d.d1.rows(); ++i) {
      const double tk = t[i + h];
      EXPECT_NEAR(d.value(i, 0), 1.0 - 2.0 * tk + 3.0 * tk * tk, 1e-12);
      EXPECT_NEAR(d.d1(i, 0), -2.0 + 6.0 * tk, 1e-9);
      EXPECT_NEAR(d.d2(i, 0), 6.0, 1e-6);
      EXPECT_NEAR(d.d1(i, 1), 5.0, 1e-9);
      EXPECT_NEAR(d.d2(i, 1), 0.0, 1e-6);
    }
  }
}

// Three samples, uniform spacing: the central differences; sin(t) with error O(dt^2).
TEST(Differentiate, ThreePointRuleIsCentralDifferences) {
  const double dt = 0.01;
  Eigen::VectorXd t(3);
  t << 1.0 - dt, 1.0, 1.0 + dt;
  Eigen::MatrixXd x(3, 1);
  for (int k = 0; k < 3; ++k) x(k, 0) = std::sin(t[k]);
  const QuadraticDerivatives d = differentiate_quadratic(t, x, 1);
  EXPECT_NEAR(d.d1(0, 0), (x(2, 0) - x(0, 0)) / (2 * dt), 1e-11);
  EXPECT_NEAR(d.d2(0, 0), (x(2, 0) - 2 * x(1, 0) + x(0, 0)) / (dt * dt), 1e-7);
  EXPECT_NEAR(d.d1(0, 0), std::cos(1.0), dt * dt);
  EXPECT_NEAR(d.d2(0, 0), -std::sin(1.0), dt * dt);
}

TEST(Differentiate, BadInputIsAnError) {
  Eigen::VectorXd t(4);
  t << 0.0, 0.1, 0.1, 0.3;
  const Eigen::MatrixXd x = Eigen::MatrixXd::Zero(4, 1);
  EXPECT_THROW((void)differentiate_quadratic(t, x, 1), Error);                                    // not increasing
  EXPECT_THROW((void)differentiate_quadratic(Eigen::VectorXd::LinSpaced(4, 0, 1), x, 2), Error);  // too short
  EXPECT_THROW((void)differentiate_quadratic(Eigen::VectorXd::LinSpaced(3, 0, 1), x, 1), Error);  // sizes
  EXPECT_THROW((void)differentiate_quadratic(Eigen::VectorXd::LinSpaced(4, 0, 1), x, 0), Error);
}

// Errors in variables: the white-noise level of a signal is estimated from the samples (uneven
// times), its share of the variance of the derivatives falls with the window, and a noise-free
// signal has none. x = sin(2 pi t) sampled at about 500 Hz with noise 1e-4: at h = 1 the second
// derivative is mostly noise (std of c2 noise ~ sqrt(6) 1e-4 / dt^2 = 61 against a signal rms of
// 28), at h = 16 below 1 %.
TEST(Differentiate, NoiseShareOfTheDerivativesIsEstimatedFromTheData) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(0.9, 1.1);
  std::normal_distribution<double> g(0.0, 1.0);
  const int n = 2000;
  Eigen::VectorXd t(n);
  t[0] = 0.0;
  for (int k = 1; k < n; ++k) t[k] = t[k - 1] + 0.002 * u(rng);
  Eigen::MatrixXd x(n, 2);
  for (int k = 0; k < n; ++k) {
    x(k, 0) = std::sin(2.0 * M_PI * t[k]) + 1e-4 * g(rng);
    x(k, 1) = std::sin(2.0 * M_PI * t[k]);
  }
  const DerivativeNoise d1 = derivative_noise(t, x, 1);
  EXPECT_NEAR(d1.sample_std[0], 1e-4, 0.1e-4);
  EXPECT_LT(d1.sample_std[1], 1e-7);
  EXPECT_GT(d1.d2_noise_fraction[0], 0.5);
  EXPECT_LT(d1.d2_noise_fraction[1], 1e-6);
  EXPECT_LT(d1.d1_noise_fraction[0], 1e-3);  // rates suffer far less
  Eigen::Index col = -1;
  EXPECT_EQ(d1.worst(2, &col), d1.d2_noise_fraction[0]);
  EXPECT_EQ(col, 0);
  double prev = 1.0;
  for (int h : {2, 4, 8, 16}) {
    const double f = derivative_noise(t, x, h).d2_noise_fraction[0];
    EXPECT_LT(f, prev) << h;
    prev = f;
  }
  const int h = smoothing_for_noise(t, x, 2, kDerivativeNoiseWarning);
  EXPECT_GT(h, 1);
  EXPECT_LE(derivative_noise(t, x, h).worst(2), kDerivativeNoiseWarning);
  EXPECT_GT(derivative_noise(t, x, h / 2).worst(2), kDerivativeNoiseWarning);
  EXPECT_EQ(smoothing_for_noise(t, x.col(1), 2), 1);
  EXPECT_EQ(smoothing_for_noise(t, x, 2, 1e-12, 4), 0);  // no window up to 4 is that clean
  EXPECT_THROW((void)derivative_noise(t.head(2), x.topRows(2), 1), Error);
}

}  // namespace
}  // namespace tendyn
