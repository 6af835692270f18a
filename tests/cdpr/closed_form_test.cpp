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
    const auto p = random_problem(6, 8, 100 + k, WrenchMode::kUniform);
    const Eigen::VectorXd fm = Eigen::VectorXd::Constant(8, 50.5);
    const Eigen::VectorXd ref = fm + p.J.completeOrthogonalDecomposition().pseudoInverse() * (p.w - p.J * fm);
    const auto r = solve_tensions(Method::kClosedForm, p.J, p.w, o);
    EXPECT_LT((r.f_N - ref).norm(), 1e-9 * ref.norm());
    const bool inside = ref.minCoeff() >= o.f_min_N && ref.maxCoeff() <= o.f_max_N;
    EXPECT_EQ(r.status == Status::kOk, inside);
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
    const auto p = random_problem(3, 6, 500 + k, WrenchMode::kFeasible);
    const auto a = solve_tensions(Method::kClosedForm, p.J, p.w, o);
    const auto b = solve_tensions(Method::kImprovedClosedForm, p.J, p.w, o);
    if (a.status == Status::kOk) {
      ++plain_ok;
      EXPECT_EQ(b.status, Status::kOk) << k;  // improved never loses a plain success
    }
    if (b.status == Status::kOk) {
      ++improved_ok;
      EXPECT_GE(b.f_N.minCoeff(), o.f_min_N - 1e-12);
      EXPECT_LE(b.f_N.maxCoeff(), o.f_max_N + 1e-12);
      EXPECT_LT(b.residual_norm, 1e-9 * (1 + p.w.norm()));
    } else {
      EXPECT_EQ(b.status, Status::kInfeasible);
    }
  }
  std::printf("[ closed form ] plain ok %d, improved ok %d of 300\n", plain_ok, improved_ok);
  EXPECT_GT(improved_ok, plain_ok);
}

// Issue 15: tensions within the method's slack (1e-12 f_max) below f_min were returned as they
// were (e.g. -5.7e-13 for f_min = 0; 4189 such values in this sweep before, none are allowed
// now), and w = 0 was called infeasible. Feasible (w = J f0 scaled) and zero wrenches, many sizes.
TEST(ClosedForm, NeverReturnsATensionJustOutsideTheBounds) {
  int ok = 0;
  for (int m = 2; m <= 6; ++m) {
    for (int n = m + 1; n <= m + 4; ++n) {
      for (double fmax : {1.0, 100.0, 1000.0, 30000.0}) {
        for (int k = 0; k < 100; ++k) {
          for (int zero = 0; zero < 2; ++zero) {
            const auto p = random_problem(m, n, 100 * k + n, WrenchMode::kFeasible);
            SolverOptions o;
            o.f_max_N = fmax;
            const Eigen::VectorXd w = zero ? Eigen::VectorXd::Zero(m) : Eigen::VectorXd(p.w * (0.3 * fmax));
            for (Method meth : {Method::kClosedForm, Method::kImprovedClosedForm}) {
              const auto r = solve_tensions(meth, p.J, w, o);
              for (int i = 0; i < n; ++i) {
                const double f = r.f_N[i];
                ASSERT_FALSE(f < 0.0 && f >= -1e-12 * fmax) << f << " " << to_string(meth);
                ASSERT_FALSE(f > fmax && f <= fmax * (1 + 1e-12)) << f << " " << to_string(meth);
              }
              if (r.status == Status::kOk) {
                ++ok;
                ASSERT_GE(r.f_N.minCoeff(), 0.0);
                ASSERT_LE(r.f_N.maxCoeff(), fmax);
              }
              if (zero) {
                EXPECT_EQ(r.status, Status::kOk) << to_string(meth) << ": " << r.reason;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(ok, 16000);
}

TEST(ClosedForm, NeedsFiniteUpperBound) {
  const auto p = random_problem(3, 4, 1);
  EXPECT_THROW(solve_tensions(Method::kClosedForm, p.J, p.w), Error);
}

}  // namespace
}  // namespace tendyn::cdpr
