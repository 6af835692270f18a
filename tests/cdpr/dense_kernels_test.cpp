#include "cdpr/dense_kernels.hpp"

#include <gtest/gtest.h>

#include <Eigen/QR>

#include <limits>
#include <vector>

#include <tendyn/cdpr/study.hpp>

namespace tendyn::cdpr::detail {
namespace {

TEST(MinNormLS, MatchesCompleteOrthogonalDecompositionOnRankDeficientMatrices) {
  MinNormLS ls(6, 12);
  for (int seed = 0; seed < 200; ++seed) {
    const int m = 1 + seed % 6;
    const int k = 1 + (seed / 6) % 12;
    auto p = random_problem(m, k, static_cast<std::uint64_t>(seed), WrenchMode::kUniform);
    Eigen::MatrixXd A = p.J;
    if (seed % 3 == 0 && k > 1) A.col(k - 1) = A.col(0) * 2.0;  // rank deficient
    if (seed % 5 == 0 && m > 1) A.row(m - 1) = A.row(0);        // dependent rows
    Eigen::VectorXd x(k);
    ls.solve(A.data(), m, m, k, p.w.data(), x.data(), 1e-10);
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(A);
    cod.setThreshold(1e-10);
    const Eigen::VectorXd ref = cod.solve(p.w);
    EXPECT_LT((x - ref).norm(), 1e-9 * (1.0 + ref.norm())) << "seed " << seed << " m " << m << " k " << k;
  }
}

TEST(MinNormLS, ReportsRankAndPivotRatio) {
  MinNormLS ls(3, 4);
  Eigen::MatrixXd A(3, 4);
  A << 1, 2, 3, 4, 2, 4, 6, 8, 0, 1, 0, 1;  // rank 2
  Eigen::Vector3d b(1, 2, 3);
  Eigen::Vector4d x;
  double ratio = 1.0;
  EXPECT_EQ(ls.solve(A.data(), 3, 3, 4, b.data(), x.data(), 1e-10, &ratio), 2);
  EXPECT_LT(ratio, 1e-12);
}

TEST(GivensQR, AppendRemoveSolveMatchesDirectLeastSquares) {
  auto p = random_problem(6, 6, 7, WrenchMode::kUniform);
  GivensQR qr(6, 6);
  qr.reset(6);
  std::vector<int> cols;
  for (int j : {0, 2, 4, 5, 1}) {
    ASSERT_TRUE(qr.append(p.J.col(j).data(), 1e-13));
    cols.push_back(j);
  }
  qr.remove(1);  // drops column 2
  cols.erase(cols.begin() + 1);
  qr.remove(3);  // drops column 1
  cols.erase(cols.begin() + 3);
  ASSERT_EQ(qr.size(), 3);
  Eigen::MatrixXd A(6, 3);
  for (int j = 0; j < 3; ++j) A.col(j) = p.J.col(cols[j]);
  Eigen::VectorXd z(3);
  qr.solve(p.w.data(), z.data());
  const Eigen::VectorXd ref = A.colPivHouseholderQr().solve(p.w);
  EXPECT_LT((z - ref).norm(), 1e-12 * (1 + ref.norm()));
  // A column in the span of the kept ones is refused.
  const Eigen::VectorXd dep = A.col(0) + A.col(2);
  EXPECT_FALSE(qr.append(dep.data(), 1e-10));
  EXPECT_EQ(qr.size(), 3);
}

}  // namespace
}  // namespace tendyn::cdpr::detail

#include <Eigen/SVD>

namespace tendyn::cdpr::detail {
namespace {

TEST(GivensQR, SigmaMinLowerBoundIsABoundWithinSqrtM) {
  // 1 / |R^-1|_F <= sigma_min(R) <= sqrt(m) / |R^-1|_F; 0 unless the kept columns are square.
  GivensQR qr(6, 12);
  for (int seed = 0; seed < 100; ++seed) {
    const int m = 1 + seed % 6;
    auto p = random_problem(m, m, static_cast<std::uint64_t>(40 + seed), WrenchMode::kUniform);
    if (seed % 4 == 0 && m > 1) p.J.col(m - 1) = p.J.col(0) + 1e-6 * p.J.col(m - 1);
    qr.reset(m);
    for (int j = 0; j < m; ++j) {
      EXPECT_EQ(qr.sigma_min_lower_bound(), 0.0);
      ASSERT_TRUE(qr.append(p.J.col(j).data(), 1e-13));
    }
    const double smin = Eigen::JacobiSVD<Eigen::MatrixXd>(p.J).singularValues()(m - 1);
    const double lb = qr.sigma_min_lower_bound();
    EXPECT_LE(lb, smin + 1e-13) << seed;  // smin itself is known to ~eps |A|
    EXPECT_GE(lb * std::sqrt(static_cast<double>(m)), smin - 1e-13) << seed;
  }
}

}  // namespace
}  // namespace tendyn::cdpr::detail
