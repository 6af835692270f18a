// Closed-form (Pott et al. 2009) and improved closed-form (Pott 2014) tension distribution.
#include <gtest/gtest.h>

#include <Eigen/QR>

#include <tendyn/cdpr/study.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/core/error.hpp>

namespace tendyn::cdpr {
namespace {

TEST(ClosedForm, MatchesTheFormulaAndHitsTheWrench) {
  SolverOptions o;
  o.f_min_N = 1.0;
  o.f_max_N = 100.0;
  for (int k = 0; k < 50; ++k) {
    const auto p = random_problem(6, 8, 100 + k, WrenchMode::uniform);
    const Eigen::VectorXd fm = Eigen::VectorXd::Constant(8, 50.5);
    const Eigen::VectorXd ref =
        fm + p.J.completeOrthogonalDecomposition().pseudoInverse() * (p.w - p.J * fm);
    const auto r = solve_tensions(Method::closed_form, p.J, p.w, o);
    EXPECT_LT((r.f_N - ref).norm(), 1e-9 * ref.norm());
    const bool inside = ref.minCoeff() >= o.f_min_N && ref.maxCoeff() <= o.f_max_N;
    EXPECT_EQ(r.status == Status::ok, inside);
    if (inside) {
      EXPECT_LT(r.residual_norm, 1e-9 * (1 + p.w.norm()));
    }
  }
}

TEST(ClosedForm, ImprovedMethodRecoversCasesThePlainOneMisses) {
  SolverOptions o;
  o.f_min_N = 0.0;
  o.f_max_N = 1.5;
  int plain_ok = 0, improved_ok = 0;
  for (int k = 0; k < 300; ++k) {
    const auto p = random_problem(3, 6, 500 + k, WrenchMode::feasible);
    const auto a = solve_tensions(Method::closed_form, p.J, p.w, o);
    const auto b = solve_tensions(Method::improved_closed_form, p.J, p.w, o);
    if (a.status == Status::ok) {
      ++plain_ok;
      EXPECT_EQ(b.status, Status::ok) << k;  // improved never loses a plain success
    }
    if (b.status == Status::ok) {
      ++improved_ok;
      EXPECT_GE(b.f_N.minCoeff(), o.f_min_N - 1e-12);
      EXPECT_LE(b.f_N.maxCoeff(), o.f_max_N + 1e-12);
      EXPECT_LT(b.residual_norm, 1e-9 * (1 + p.w.norm()));
    } else {
      EXPECT_EQ(b.status, Status::infeasible);
    }
  }
  std::printf("[ closed form ] plain ok %d, improved ok %d of 300\n", plain_ok, improved_ok);
  EXPECT_GT(improved_ok, plain_ok);
}

TEST(ClosedForm, NeedsFiniteUpperBound) {
  const auto p = random_problem(3, 4, 1);
  EXPECT_THROW(solve_tensions(Method::closed_form, p.J, p.w), Error);
}

}  // namespace
}  // namespace tendyn::cdpr
