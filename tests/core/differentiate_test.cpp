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
  EXPECT_THROW((void)differentiate_quadratic(t, x, 1), Error);              // not increasing
  EXPECT_THROW((void)differentiate_quadratic(Eigen::VectorXd::LinSpaced(4, 0, 1), x, 2), Error);  // too short
  EXPECT_THROW((void)differentiate_quadratic(Eigen::VectorXd::LinSpaced(3, 0, 1), x, 1), Error);  // sizes
  EXPECT_THROW((void)differentiate_quadratic(Eigen::VectorXd::LinSpaced(4, 0, 1), x, 0), Error);
}

}  // namespace
}  // namespace tendyn
