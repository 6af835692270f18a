// The document's exhaustive method: the random 6 x 12 study (more loaded cables and a smaller
// norm than lsqnonneg in most cases), near-singular flags, bad input.
#include <gtest/gtest.h>

#include <tendyn/cdpr/study.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/core/error.hpp>

#include <limits>

namespace tendyn::cdpr {
namespace {

TEST(Exhaustive, RandomStudyLoadsMoreCablesWithSmallerNormThanLawsonHanson) {
  const auto rows = run_random_study(6, 12, 200, 1, {Method::kExhaustive, Method::kLawsonHanson});
  const auto s = summarize_study(rows, 0, 1);
  std::printf("[ study ] more loaded %d/%d, smaller norm %d/%d, median reduction %.1f%%\n",
              s.a_more_loaded, s.problems, s.a_smaller_norm, s.problems,
              100 * s.median_norm_reduction);
  EXPECT_GT(s.a_more_loaded, s.problems / 2);
  EXPECT_GT(s.a_smaller_norm, s.problems / 2);
  EXPECT_LT(s.max_rel_residual_a, 1e-6);
}

TEST(Exhaustive, ResidualRoundingTradesResidualForNorm) {
  // A coarse precision may accept a small residual for a smaller norm, never a larger norm.
  const auto p = random_problem(6, 12, 3, WrenchMode::kFeasible);
  SolverOptions fine, coarse;
  fine.residual_precision = 1e-12;
  coarse.residual_precision = 1e-1;
  const auto a = solve_tensions(Method::kExhaustive, p.J, p.w, fine);
  const auto b = solve_tensions(Method::kExhaustive, p.J, p.w, coarse);
  EXPECT_LE(b.tension_norm, a.tension_norm * (1 + 1e-12));
  EXPECT_LT(b.residual_norm, 0.051 * p.w.norm() + 1e-12);
}

TEST(Exhaustive, FlagsConstructedSingularStructureMatrix) {
  // Rows 2 = 2 x row 1: rank 2 < 3, and the wrench is not in the range.
  Eigen::MatrixXd J(3, 4);
  J << 1, 0.5, -0.3, 0.2,  //
      2, 1.0, -0.6, 0.4,   //
      0.1, -0.7, 0.4, 0.9;
  const Eigen::Vector3d w(1, 1, 0.5);
  for (Method m : {Method::kExhaustive, Method::kLawsonHanson, Method::kExact}) {
    const auto r = solve_tensions(m, J, w);
    EXPECT_EQ(r.status, Status::kNearSingular) << to_string(m);
    EXPECT_TRUE(r.f_N.allFinite());
  }
  // Nearly singular: a tiny perturbation keeps the flag and keeps tensions bounded.
  Eigen::MatrixXd Jn = J;
  Jn(1, 0) += 1e-11;
  for (Method m : {Method::kExhaustive, Method::kLawsonHanson, Method::kExact}) {
    const auto r = solve_tensions(m, Jn, w);
    EXPECT_EQ(r.status, Status::kNearSingular) << to_string(m);
  }
}

TEST(Exhaustive, WellConditionedFeasibleProblemIsOk) {
  Eigen::MatrixXd J(2, 3);
  J << 1, -1, 0, 0, 0, 1;
  const Eigen::Vector2d w(0.0, 1.0);
  const auto r = solve_tensions(Method::kExhaustive, J, w);
  EXPECT_EQ(r.status, Status::kOk);
  EXPECT_NEAR(r.f_N[2], 1.0, 1e-14);
  EXPECT_NEAR(r.f_N[0], 0.0, 1e-14);
  EXPECT_EQ(r.loaded_count, 1);
}

TEST(Exhaustive, TiesGoToTheMostLoadedCables) {
  // Cables 1 and 2 identical: {1}, {2} give norm 1, {1,2} gives norm 1/sqrt(2) -> the pair.
  Eigen::MatrixXd J(1, 2);
  J << 1, 1;
  const Eigen::VectorXd w = Eigen::VectorXd::Ones(1);
  const auto r = solve_tensions(Method::kExhaustive, J, w);
  EXPECT_EQ(r.loaded_count, 2);
  EXPECT_NEAR(r.f_N[0], 0.5, 1e-14);
}

TEST(Solvers, RejectBadInput) {
  Eigen::MatrixXd J = Eigen::MatrixXd::Identity(3, 4);
  Eigen::VectorXd w = Eigen::VectorXd::Ones(3);
  Eigen::MatrixXd Jnan = J;
  Jnan(1, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(solve_tensions(Method::kExact, Jnan, w), Error);
  EXPECT_THROW(solve_tensions(Method::kExact, J, Eigen::VectorXd::Ones(4)), Error);
  Eigen::VectorXd wnan = w;
  wnan[0] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(solve_tensions(Method::kLawsonHanson, J, wnan), Error);
  SolverOptions o;
  o.f_min_N = 2;
  o.f_max_N = 1;
  EXPECT_THROW(solve_tensions(Method::kExact, J, w, o), Error);
  EXPECT_THROW(solve_tensions(Method::kExhaustive, Eigen::MatrixXd::Ones(3, 25), w), Error);
  EXPECT_THROW(method_from_string("simplex"), Error);
  try {
    solve_tensions(Method::kExact, J, Eigen::VectorXd::Ones(4));
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("wrench has 4 entries but J has 3 rows"), std::string::npos);
  }
}

}  // namespace
}  // namespace tendyn::cdpr

namespace tendyn::cdpr {
namespace {

TEST(Exhaustive, OutlierRuleRejectsHugeTensionsLikeTheDocumentsExample4) {
  // Only the nearly antiparallel pair (c1, c2) can hold w, with tensions ~1e7: a near-singular
  // configuration. The IQR rule rejects that subset; the result is flagged, not silently huge.
  Eigen::MatrixXd J(2, 3);
  J << 1, -1, 0,  //
      0, 1e-7, -1;
  const Eigen::Vector2d w(0.0, 1.0);
  const auto r = solve_tensions(Method::kExhaustive, J, w);
  EXPECT_EQ(r.status, Status::kNearSingular);
  EXPECT_GE(r.outliers, 1);
  EXPECT_LT(r.tension_norm, 10.0);
  const auto lh = solve_tensions(Method::kLawsonHanson, J, w);
  EXPECT_GT(lh.tension_norm, 1e6);  // lsqnonneg does return the huge tensions ...
  EXPECT_EQ(lh.status, Status::kNearSingular);  // ... but we flag them
}

}  // namespace
}  // namespace tendyn::cdpr
