// The exact lexicographic solver against NNLS (same optimal residual), against the other methods
// (never a larger norm among solutions with that residual) and its KKT conditions.
#include <gtest/gtest.h>

#include <Eigen/LU>

#include <tendyn/cdpr/study.hpp>
#include <tendyn/cdpr/tension.hpp>

namespace tendyn::cdpr {
namespace {

struct Case {
  int m, n;
  WrenchMode mode;
};
Case case_of(int k) {
  const int m = 3 + k % 4;
  const int n = m + 1 + (k / 4) % (13 - m - 1);
  return {m, n, (k / 2) % 2 == 0 ? WrenchMode::kUniform : WrenchMode::kFeasible};
}

TEST(Exact, OptimalResidualMinimalNormAndKkt) {
  Workspace ws(6, 12);
  SolverOptions o;
  o.residual_precision = 1e-9;
  int compared = 0;
  for (int k = 0; k < 400; ++k) {
    const auto c = case_of(k);
    const auto p = random_problem(c.m, c.n, 20000 + k, c.mode);
    TensionResult ex, lh, exh;
    solve_tensions(Method::kExact, p.J, p.w, o, ws, ex);
    solve_tensions(Method::kLawsonHanson, p.J, p.w, o, ws, lh);
    solve_tensions(Method::kExhaustive, p.J, p.w, o, ws, exh);
    const double wn = p.w.norm();
    ASSERT_NE(ex.status, Status::kIterationLimit) << k;
    EXPECT_NEAR(ex.residual_norm, lh.residual_norm, 1e-9 * wn) << "problem " << k;
    EXPECT_LE(kkt_violation(p.J, p.w, ex.f_N), 1e-9) << "problem " << k;
    EXPECT_GE(ex.f_N.minCoeff(), 0.0);
    for (const auto* other : {&lh, &exh}) {
      if (std::abs(other->residual_norm - ex.residual_norm) <= 1e-9 * wn) {
        ++compared;
        EXPECT_LE(ex.tension_norm, other->tension_norm * (1 + 1e-9)) << "problem " << k;
      }
    }
  }
  EXPECT_GT(compared, 400);  // the comparison actually happened on most problems
}

TEST(Exact, AgreesWithExhaustiveOnFeasibleProblems) {
  // With a fine residual precision the exhaustive search finds the same point (document method
  // = exact method when the outlier rule keeps the optimum).
  SolverOptions o;
  o.residual_precision = 1e-10;
  o.iqr_coefficient = 1e6;
  for (int k = 0; k < 100; ++k) {
    const auto p = random_problem(3 + k % 4, 8, 30000 + k, WrenchMode::kFeasible);
    const auto ex = solve_tensions(Method::kExact, p.J, p.w, o);
    const auto exh = solve_tensions(Method::kExhaustive, p.J, p.w, o);
    EXPECT_LT((ex.f_N - exh.f_N).norm(), 1e-7 * (1 + ex.tension_norm)) << k;
  }
}

TEST(Exact, BoundedTensionsSatisfyKktAndBounds) {
  SolverOptions o;
  o.f_min_N = 0.05;
  o.f_max_N = 0.8;
  for (int k = 0; k < 200; ++k) {
    const auto c = case_of(k);
    const auto p = random_problem(c.m, c.n, 40000 + k, c.mode);
    const auto ex = solve_tensions(Method::kExact, p.J, p.w, o);
    ASSERT_NE(ex.status, Status::kIterationLimit);
    EXPECT_GE(ex.f_N.minCoeff(), o.f_min_N);
    EXPECT_LE(ex.f_N.maxCoeff(), o.f_max_N);
    EXPECT_LE(kkt_violation(p.J, p.w, ex.f_N, o.f_min_N, o.f_max_N), 1e-9) << k;
    // When the improved closed form succeeds, both hit the wrench and exact has the smaller norm.
    const auto icf = solve_tensions(Method::kImprovedClosedForm, p.J, p.w, o);
    if (icf.status == Status::kOk) {
      EXPECT_LE(ex.residual_norm, 1e-9 * p.w.norm()) << k;
      EXPECT_LE(ex.tension_norm, icf.tension_norm * (1 + 1e-9)) << k;
    }
  }
}

TEST(Exact, KktCheckDetectsANonOptimalPoint) {
  const auto p = random_problem(6, 12, 77, WrenchMode::kFeasible);
  const auto ex = solve_tensions(Method::kExact, p.J, p.w);
  Eigen::VectorXd f = ex.f_N;
  // Move along the null space: same residual, larger norm -> stage-2 violation.
  Eigen::FullPivLU<Eigen::MatrixXd> lu(p.J);
  const Eigen::VectorXd nvec = lu.kernel().col(0);
  f += 0.05 * nvec / nvec.norm();
  f = f.cwiseMax(0.0);
  EXPECT_GT(kkt_violation(p.J, p.w, f), 1e-6);
}

}  // namespace
}  // namespace tendyn::cdpr

namespace tendyn::cdpr {
namespace {

TEST(Exact, DegenerateProblemsStillMeetKkt) {
  for (int k = 0; k < 100; ++k) {
    auto p = random_problem(3 + k % 4, 9, 60000 + k, k % 2 ? WrenchMode::kFeasible : WrenchMode::kUniform);
    const int n = static_cast<int>(p.J.cols());
    p.J.col(1) = p.J.col(0);                        // duplicate cable
    p.J.col(2).setZero();                           // slack-only cable
    if (k % 3 == 0) p.J.row(0) = p.J.row(1) * 2.0;  // rank-deficient J
    if (k % 3 == 0) p.w[0] = 2.0 * p.w[1];          // ... with w in its range
    if (k % 10 == 0) p.w.setZero();
    SolverOptions o;
    if (k % 4 == 1) {
      o.f_min_N = 0.01;
      o.f_max_N = 5.0;
    }
    const auto ex = solve_tensions(Method::kExact, p.J, p.w, o);
    ASSERT_NE(ex.status, Status::kIterationLimit) << k;
    EXPECT_LE(kkt_violation(p.J, p.w, ex.f_N, o.f_min_N, o.f_max_N), 1e-9) << "problem " << k;
    EXPECT_NEAR(ex.f_N[0], ex.f_N[1], 1e-9 * (1 + ex.tension_norm)) << k;  // min norm splits evenly
    EXPECT_NEAR(ex.f_N[2], o.f_min_N, 1e-12) << k;
    (void)n;
  }
}

}  // namespace
}  // namespace tendyn::cdpr
