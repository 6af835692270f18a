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
  std::printf("[ study ] more loaded %d/%d, smaller norm %d/%d, median reduction %.1f%%\n", s.a_more_loaded, s.problems, s.a_smaller_norm,
              s.problems, 100 * s.median_norm_reduction);
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
  EXPECT_GT(lh.tension_norm, 1e6);              // lsqnonneg does return the huge tensions ...
  EXPECT_EQ(lh.status, Status::kNearSingular);  // ... but we flag them
}

}  // namespace
}  // namespace tendyn::cdpr

// Issue 19: the updating kernel (depth-first subset tree, factorisations grown one column at a
// time, optionally on several threads) against the issue-5 kernel that refactorises every subset
// (options.exhaustive_refactor).
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/tension_problem.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "cdpr/tension_internal.hpp"
#include "cdpr/test_util.hpp"

namespace tendyn::cdpr {
namespace {

/// Solves with the reference and the updating kernel; expects the same selected set, status,
/// outlier count and tensions to 1e-10 relative. Returns |f_new - f_ref|_inf / |f_ref|_inf.
double expect_same_as_reference(const Eigen::MatrixXd& J, const Eigen::VectorXd& w, const std::string& what, double precision = 1e-6) {
  SolverOptions ref, upd;
  ref.exhaustive_refactor = true;
  ref.residual_precision = upd.residual_precision = precision;
  const auto a = solve_tensions(Method::kExhaustive, J, w, ref);
  const auto b = solve_tensions(Method::kExhaustive, J, w, upd);
  EXPECT_EQ(a.loaded_mask, b.loaded_mask) << what;
  EXPECT_EQ(a.status, b.status) << what;
  EXPECT_EQ(a.outliers, b.outliers) << what;
  EXPECT_EQ(a.iterations, b.iterations) << what;
  const double scale = std::max(a.f_N.lpNorm<Eigen::Infinity>(), 1e-300);
  const double d = (a.f_N - b.f_N).lpNorm<Eigen::Infinity>() / scale;
  EXPECT_LE(d, 1e-10) << what;
  EXPECT_LE(std::abs(a.residual_norm - b.residual_norm), 1e-10 * (w.norm() + a.residual_norm)) << what;
  return d;
}

TEST(ExhaustiveUpdating, SelectsTheSameSubsetsAsTheReferenceKernelOnRandomProblems) {
  int problems = 0;
  double worst = 0.0;
  for (int k = 0; k < 400; ++k) {
    const int m = 1 + k % 6;
    const int n = 1 + (k / 6) % 12;
    const auto mode = (k / 72) % 2 == 0 ? WrenchMode::kFeasible : WrenchMode::kUniform;
    const auto p = random_problem(m, n, 5000 + k, mode);
    worst = std::max(worst, expect_same_as_reference(
                                p.J, p.w, "random " + std::to_string(m) + "x" + std::to_string(n) + " seed " + std::to_string(5000 + k)));
    ++problems;
  }
  // A fine residual rounding (the refined wide residuals decide; Exact.AgreesWithExhaustive...).
  for (int k = 0; k < 60; ++k) {
    const auto p = random_problem(3 + k % 4, 8, 30000 + k, WrenchMode::kFeasible);
    worst = std::max(worst, expect_same_as_reference(p.J, p.w, "precision 1e-10 seed " + std::to_string(30000 + k), 1e-10));
    ++problems;
  }
  // More than 6 rows: the kernel without a compile-time row count.
  for (int k = 0; k < 6; ++k) {
    const auto p = random_problem(7 + k % 2, 6 + 2 * (k % 3), 700 + k, k % 2 ? WrenchMode::kUniform : WrenchMode::kFeasible);
    worst = std::max(worst, expect_same_as_reference(p.J, p.w, "7-8 rows seed " + std::to_string(700 + k)));
    ++problems;
  }
  // Larger ones, as in the benchmarks.
  for (int k = 0; k < 4; ++k) {
    const auto p = random_problem(6, 14, 1000 + k, k % 2 ? WrenchMode::kUniform : WrenchMode::kFeasible);
    worst = std::max(worst, expect_same_as_reference(p.J, p.w, "6x14 seed " + std::to_string(1000 + k)));
    ++problems;
  }
  std::printf("[ kernels ] %d problems, max |f_new - f_ref| / |f_ref| = %.2g\n", problems, worst);
}

TEST(ExhaustiveUpdating, SelectsTheSameSubsetsOnStructuredAndSingularProblems) {
  // Exact column and row dependences, zero columns, the document's example-4 outlier pair,
  // badly scaled columns: the subsets the condition bound rejects go to the reference kernel.
  for (int k = 0; k < 120; ++k) {
    const int m = 2 + k % 5;
    const int n = m + 1 + (k / 5) % 6;
    auto p = random_problem(m, n, 9000 + k, k % 2 ? WrenchMode::kUniform : WrenchMode::kFeasible);
    Eigen::MatrixXd J = p.J;
    switch (k % 6) {
      case 0: J.col(n - 1) = J.col(0); break;                 // duplicate cable
      case 1: J.col(1) = -2.0 * J.col(0); break;              // antiparallel pair
      case 2: J.row(m - 1) = J.row(0); break;                 // dependent rows
      case 3: J.col(2).setZero(); break;                      // slack geometry
      case 4: J.col(1) = -J.col(0) + 1e-7 * J.col(2); break;  // near-singular pair
      case 5:
        J.col(0) *= 1e6;
        J.col(n - 1) *= 1e-5;
        break;  // badly scaled
    }
    const Eigen::VectorXd f0 = random_problem(n, 1, 9500 + k).J.col(0).cwiseAbs();
    expect_same_as_reference(J, J * f0, "structured case " + std::to_string(k % 6) + " k " + std::to_string(k));
    expect_same_as_reference(J, p.w, "structured (w) case " + std::to_string(k % 6) + " k " + std::to_string(k));
  }
  Eigen::MatrixXd J(2, 3);
  J << 1, -1, 0,  //
      0, 1e-7, -1;
  expect_same_as_reference(J, Eigen::Vector2d(0.0, 1.0), "example 4");
}

TEST(ExhaustiveUpdating, SelectsTheSameSubsetsOnThePrinterModel) {
  const auto file = load_model(test::model_path("printer8.yaml"));
  for (const auto& [group, rows] :
       {std::pair<std::string, std::vector<WrenchRow>>{"", {}},
        std::pair<std::string, std::vector<WrenchRow>>{"lower", {WrenchRow::kFx, WrenchRow::kFy, WrenchRow::kMz}}}) {
    auto prob = make_tension_problem(file.model, group, rows);
    for (int k = 0; k < 8; ++k) {
      const double s = 0.7 * k;
      update_tension_problem(file.model, pose_from_xyz_rpy({std::sin(s), 2.0 * std::cos(s), 5.0 + k}, {0.0, 0.0, 0.05 * k}), prob);
      expect_same_as_reference(prob.J, prob.w, "printer8 group '" + group + "' pose " + std::to_string(k));
    }
  }
}

TEST(ExhaustiveQuartiles, OrderStatisticsEqualSorting) {
  // The histogram selection (n >= 16 columns) against a full sort: spread values, ties, every
  // value in one histogram bucket, signed zeros, infinities and negatives; ranks at both ends.
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> logn(0.0, 2.0);
  std::vector<std::vector<double>> cases;
  std::vector<double> v(200000);
  for (double& x : v) x = logn(rng);
  cases.push_back(v);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 1.0 + 1e-9 * static_cast<double>(i % 977);  // one bucket
  cases.push_back(v);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 5);  // ties
  cases.push_back(v);
  v.assign(70000, 0.0);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double u = logn(rng) * (i % 3 == 0 ? -1.0 : 1.0);
    v[i] = i % 101 == 0 ? -0.0 : (i % 103 == 0 ? HUGE_VAL : (i % 107 == 0 ? -HUGE_VAL : u));
  }
  cases.push_back(v);
  std::vector<std::uint32_t> hist;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const std::vector<double>& x = cases[c];
    const std::size_t n = x.size();
    std::vector<double> sorted = x, buf(n);
    std::sort(sorted.begin(), sorted.end());
    const std::vector<std::vector<std::size_t>> rank_sets = {
        {0, 1, n - 2, n - 1}, {(n - 1) / 4, (n - 1) / 4 + 1, 3 * (n - 1) / 4, 3 * (n - 1) / 4 + 1}, {n / 2, n / 2}, {17}};
    for (const auto& ranks : rank_sets) {
      double out[4];
      detail::order_statistics(x.data(), n, ranks.data(), static_cast<int>(ranks.size()), out, hist, buf.data());
      for (std::size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(out[i], sorted[ranks[i]]) << "case " << c << " rank " << ranks[i];
    }
    EXPECT_EQ(x, cases[c]);  // input not reordered
  }
  const std::size_t bad[1] = {5};
  double out[1];
  std::vector<double> buf(5);
  EXPECT_THROW(detail::order_statistics(cases[0].data(), 5, bad, 1, out, hist, buf.data()), Error);
}

TEST(ExhaustiveUpdating, IsBitIdenticalForAnyThreadCount) {
  for (int k = 0; k < 8; ++k) {
    // 2^10 .. 2^12 subsets: the threaded walk; n = 16: also the histogram quartiles
    const int n = k < 6 ? 10 + k % 3 : 16;
    const auto p = random_problem(6, n, 300 + k, k % 2 ? WrenchMode::kUniform : WrenchMode::kFeasible);
    SolverOptions o;
    o.threads = 1;
    const auto a = solve_tensions(Method::kExhaustive, p.J, p.w, o);
    for (int threads : {2, 3, 4, 0}) {
      o.threads = threads;
      Workspace ws(6, n);
      TensionResult b;
      for (int rep = 0; rep < 2; ++rep) {  // also the second call with sized thread scratch
        solve_tensions(Method::kExhaustive, p.J, p.w, o, ws, b);
        EXPECT_EQ(a.loaded_mask, b.loaded_mask) << threads;
        EXPECT_EQ(a.status, b.status) << threads;
        EXPECT_EQ(a.outliers, b.outliers) << threads;
        EXPECT_EQ(a.tension_norm, b.tension_norm) << threads;
        EXPECT_EQ(a.residual_norm, b.residual_norm) << threads;
        for (int i = 0; i < n; ++i) EXPECT_EQ(a.f_N[i], b.f_N[i]) << threads << " cable " << i;
      }
    }
  }
}

}  // namespace
}  // namespace tendyn::cdpr
