// The tension-solver front end (src/cdpr/tension.cpp): equilibration by powers of two, honest
// statuses for answers outside the double range, w = 0, reasons.
#include <gtest/gtest.h>

#include <tendyn/cdpr/study.hpp>
#include <tendyn/cdpr/tension.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

namespace tendyn::cdpr {
namespace {

constexpr Method kAll[] = {Method::kExhaustive, Method::kLawsonHanson, Method::kExact, Method::kClosedForm, Method::kImprovedClosedForm};

bool closed(Method m) { return m == Method::kClosedForm || m == Method::kImprovedClosedForm; }

SolverOptions options_for(Method m) {
  SolverOptions o;
  if (closed(m)) o.f_max_N = 3.0;
  return o;
}

/// Seeded f0 ~ U[0, 1]^n (independent of the problem's own draws).
Eigen::VectorXd seeded_f0(int n, std::uint64_t seed) {
  const auto q = random_problem(1, n, 7000 + seed, WrenchMode::kUniform);
  return (q.J.row(0).transpose().array() + 1.0) / 2.0;
}

// The example: J ~ U[-1, 1] 6 x 8 with one column times 1e8 and w = J f0. Before the
// equilibration Lawson-Hanson loaded 1 cable with relative residual 6.6e-8 (Octave's lsqnonneg:
// 6 cables, 3e-16); the comparison against Octave itself is in nnls_test.cpp.
TEST(Equilibration, OneColumnTimes1e8IsSolvedToRoundOff) {
  for (int k = 0; k < 100; ++k) {
    const auto p = random_problem(6, 8, 300 + k, WrenchMode::kUniform);
    Eigen::MatrixXd J = p.J;
    J.col(k % 8) *= 1e8;
    const Eigen::VectorXd w = J * seeded_f0(8, k);
    for (Method m : {Method::kLawsonHanson, Method::kExact}) {
      const auto r = solve_tensions(m, J, w);
      EXPECT_EQ(r.status, Status::kOk) << to_string(m) << " problem " << k << ": " << r.reason;
      EXPECT_LT(r.residual_norm / w.norm(), 1e-12) << to_string(m) << " problem " << k;
      EXPECT_GE(r.f_N.minCoeff(), 0.0);
      if (m == Method::kLawsonHanson) {
        EXPECT_EQ(r.loaded_count, 6) << "problem " << k;
      } else {
        EXPECT_LT(kkt_violation(J, w, r.f_N), 1e-7) << "problem " << k;
      }
    }
  }
}

// Scaling column j by c is a change of cable j's tension unit: f_j -> f_j / c. Where the least-
// squares answer is unique (w outside the cone of the columns), the loaded set and the residual
// must not change. (Where it is not unique, i.e. J f = w has many non-negative solutions, the
// vertex lsqnonneg picks depends on the column scale - Octave's own lsqnonneg changes it too.)
TEST(Equilibration, ColumnScalingKeepsTheUniqueLeastSquaresAnswer) {
  int compared = 0;
  for (int k = 0; k < 300; ++k) {
    const auto p = random_problem(6, 8, 900 + k, WrenchMode::kUniform);
    const auto ref = solve_tensions(Method::kLawsonHanson, p.J, p.w);
    if (ref.residual_norm < 1e-6 * p.w.norm()) continue;  // feasible: not unique
    ++compared;
    for (double c : {1e8, 1e-8, 3e5}) {
      Eigen::MatrixXd J = p.J;
      J.col(k % 8) *= c;
      const auto r = solve_tensions(Method::kLawsonHanson, J, p.w);
      EXPECT_EQ(r.loaded_mask, ref.loaded_mask) << "problem " << k << " scale " << c;
      EXPECT_NEAR(r.residual_norm, ref.residual_norm, 1e-13 * p.w.norm()) << k << " " << c;
      Eigen::VectorXd f = r.f_N;
      f[k % 8] *= c;  // back to the unscaled unit
      EXPECT_LT((f - ref.f_N).norm(), 1e-9 * ref.f_N.norm()) << k << " " << c;
    }
  }
  EXPECT_GT(compared, 200);
}

/// 1e-12 |w| plus the rounding floor of evaluating J f: 64 eps sum_j |J_j| |f_j| (when a row of
/// J is 1e5 times larger and its entries cancel, that floor exceeds 1e-12 |w|).
double roundoff_bound(const Eigen::MatrixXd& J, const Eigen::VectorXd& w, const Eigen::VectorXd& f) {
  double s = 0.0;
  for (Eigen::Index j = 0; j < J.cols(); ++j) s += J.col(j).norm() * std::abs(f[j]);
  return 1e-12 * w.norm() + 64.0 * std::numeric_limits<double>::epsilon() * s;
}

// Rows scaled by 1e5 (one wrench component in other units): J f = w has the same solutions, so
// the exact (minimum-norm) answer is the same point and every residual stays at round-off.
// Before: Lawson-Hanson and exact stopped early on 10 of these 3000 problems (relative residual
// up to 7e-8); docs/CDPR.md.
TEST(Equilibration, RowTimes1e5KeepsTheExactAnswerAndRoundOffResiduals) {
  for (int k = 0; k < 3000; ++k) {
    auto p = random_problem(6, 8, 100 + k, WrenchMode::kUniform);
    p.w = p.J * seeded_f0(8, k);
    Eigen::MatrixXd J = p.J;
    Eigen::VectorXd w = p.w;
    J.row(k % 6) *= 1e5;
    w[k % 6] *= 1e5;
    for (Method m : {Method::kLawsonHanson, Method::kExact}) {
      const auto r = solve_tensions(m, J, w);
      EXPECT_EQ(r.status, Status::kOk) << to_string(m) << " problem " << k << ": " << r.reason;
      EXPECT_LE(r.residual_norm, roundoff_bound(J, w, r.f_N)) << to_string(m) << " " << k;
    }
    const auto ref = solve_tensions(Method::kExact, p.J, p.w);
    const auto r = solve_tensions(Method::kExact, J, w);
    EXPECT_EQ(r.loaded_mask, ref.loaded_mask) << "problem " << k;
    EXPECT_LT((r.f_N - ref.f_N).norm(), 1e-9 * ref.f_N.norm()) << "problem " << k;
  }
}

// Scaling J and w by powers of two is exact, so every method returns bit for bit the same
// answer, scaled, whatever the magnitude (here down to 1e-271 and up to 1e301).
TEST(Equilibration, PowerOfTwoScalingGivesBitIdenticalAnswers) {
  const auto p = random_problem(6, 8, 42, WrenchMode::kFeasible);
  for (Method m : kAll) {
    const SolverOptions o = options_for(m);
    const auto ref = solve_tensions(m, p.J, p.w, o);
    for (const auto& [kj, kw] : {std::pair{500, -300}, std::pair{-900, 100}, std::pair{0, 1000}, std::pair{-30, -30}}) {
      const Eigen::MatrixXd J = p.J * std::ldexp(1.0, kj);
      const Eigen::VectorXd w = p.w * std::ldexp(1.0, kw);
      SolverOptions os = o;
      os.f_min_N = std::ldexp(o.f_min_N, kw - kj);
      os.f_max_N = std::ldexp(o.f_max_N, kw - kj);
      const auto r = solve_tensions(m, J, w, os);
      EXPECT_EQ(r.status, ref.status) << to_string(m) << " 2^" << kj << ", 2^" << kw;
      EXPECT_EQ(r.loaded_mask, ref.loaded_mask) << to_string(m);
      for (int i = 0; i < 8; ++i) EXPECT_EQ(r.f_N[i], std::ldexp(ref.f_N[i], kw - kj)) << to_string(m) << " cable " << i;
      EXPECT_EQ(r.residual_norm, std::ldexp(ref.residual_norm, kw)) << to_string(m);
    }
  }
}

// |w|^2 overflows for entries near 1e155 (and 1e300). Before: Lawson-Hanson and exact returned
// status ok with f = 0 and residual inf. Now the answer is computed (finite: f ~ 1e155).
TEST(NonFinite, HugeWrenchIsSolvedWhenTheAnswerIsRepresentable) {
  const auto p = random_problem(3, 8, 1, WrenchMode::kFeasible);
  for (double scale : {1e155, 1e300}) {
    const Eigen::VectorXd w = p.w * scale;
    for (Method m : {Method::kExhaustive, Method::kLawsonHanson, Method::kExact}) {
      const auto ref = solve_tensions(m, p.J, p.w);
      const auto r = solve_tensions(m, p.J, w);
      EXPECT_EQ(r.status, ref.status) << to_string(m) << " " << scale << ": " << r.reason;
      EXPECT_TRUE(r.f_N.allFinite() && std::isfinite(r.tension_norm) && std::isfinite(r.residual_norm));
      EXPECT_EQ(r.loaded_mask, ref.loaded_mask) << to_string(m);
      EXPECT_NEAR(r.tension_norm / scale, ref.tension_norm, 1e-12 * ref.tension_norm);
      EXPECT_LT(r.residual_norm, 1e-12 * w.stableNorm()) << to_string(m);
    }
  }
}

// When the answer itself overflows (|w| ~ 1e300 against |J| ~ 1e-10: tensions ~ 1e310) no method
// may say ok: the status is non_finite with a reason.
TEST(NonFinite, OverflowingAnswerIsNeverOk) {
  const auto p = random_problem(3, 8, 1, WrenchMode::kFeasible);
  const Eigen::MatrixXd J = p.J * 1e-10;
  const Eigen::VectorXd w = Eigen::VectorXd::Constant(3, 1e300);
  for (Method m : kAll) {
    SolverOptions o;
    if (closed(m)) o.f_max_N = 1e300;
    const auto r = solve_tensions(m, J, w, o);
    EXPECT_EQ(r.status, Status::kNonFinite) << to_string(m) << ": " << r.reason;
    EXPECT_NE(std::string(r.reason).find("overflows"), std::string::npos) << to_string(m);
  }
}

// w = 0: f = 0 (or f = f_min when it meets the wrench) is the answer; no method may call it
// infeasible, and the closed forms never return a tension below f_min (before: the closed forms
// said infeasible for every w = 0 and left values like -5.7e-13 in f).
TEST(ZeroWrench, EveryMethodReturnsAValidAnswer) {
  for (int k = 0; k < 50; ++k) {
    const auto p = random_problem(3 + k % 4, 8, 60 + k, WrenchMode::kFeasible);
    const Eigen::VectorXd w = Eigen::VectorXd::Zero(p.J.rows());
    for (Method m : kAll) {
      const SolverOptions o = options_for(m);
      const auto r = solve_tensions(m, p.J, w, o);
      EXPECT_EQ(r.status, Status::kOk) << to_string(m) << " problem " << k << ": " << r.reason;
      EXPECT_STREQ(r.reason, "");
      EXPECT_GE(r.f_N.minCoeff(), 0.0) << to_string(m) << " problem " << k;  // exact bound
      EXPECT_LE(r.residual_norm, 1e-13 * (1.0 + r.tension_norm)) << to_string(m);
      if (!closed(m)) {
        EXPECT_EQ(r.tension_norm, 0.0) << to_string(m);
      }
    }
  }
}

TEST(ZeroWrench, LowerBoundIsReturnedWhenItMeetsTheWrench) {
  const auto p = random_problem(6, 8, 77, WrenchMode::kFeasible);
  SolverOptions o;
  o.f_min_N = 2.0;
  o.f_max_N = 3.0;
  const Eigen::VectorXd w = p.J * Eigen::VectorXd::Constant(8, 2.0);  // f = f_min is exact
  for (Method m : {Method::kClosedForm, Method::kImprovedClosedForm, Method::kExact}) {
    const auto r = solve_tensions(m, p.J, w, o);
    EXPECT_EQ(r.status, Status::kOk) << to_string(m) << ": " << r.reason;
    EXPECT_GE(r.f_N.minCoeff(), 2.0) << to_string(m);
    EXPECT_LE(r.f_N.maxCoeff(), 3.0) << to_string(m);
    EXPECT_LT(r.residual_norm, 1e-12 * w.norm()) << to_string(m);
  }
}

TEST(Reasons, EveryNonOkStatusSaysWhy) {
  int seen = 0;
  for (int k = 0; k < 100; ++k) {
    const auto p = random_problem(6, 8, 200 + k, WrenchMode::kUniform);
    for (Method m : kAll) {
      const auto r = solve_tensions(m, p.J, p.w, options_for(m));
      if (r.status == Status::kOk) {
        EXPECT_STREQ(r.reason, "");
      } else {
        ++seen;
        EXPECT_GT(std::strlen(r.reason), 10U) << to_string(m) << " " << to_string(r.status);
      }
    }
  }
  EXPECT_GT(seen, 50);  // uniform wrenches are infeasible about half of the time
}

// Exhaustive and Lawson-Hanson solve f >= 0. With bounds in the options a tension of their answer
// outside the bounds is reported (out_of_bounds, with a reason), never ok; their tensions are the
// same as without bounds. Exact keeps the bounds; the closed forms leave them only as infeasible.
// Before: status ok with cables at 0 against f_min.
TEST(Bounds, MethodsSolvingNonNegativeTensionsReportTheBoundsTheyBreak) {
  int below = 0, above = 0, inside_ok = 0;
  for (int k = 0; k < 60; ++k) {
    const auto p = random_problem(4 + k % 3, 8, 300 + k, WrenchMode::kFeasible);
    SolverOptions o;
    o.f_min_N = 0.2;
    o.f_max_N = k % 2 == 0 ? 0.9 : 50.0;
    for (Method m : kAll) {
      const auto r = solve_tensions(m, p.J, p.w, o);
      const double slack = 1e-9 * std::max(o.f_min_N, r.f_N.lpNorm<Eigen::Infinity>());
      const bool low = r.f_N.minCoeff()<o.f_min_N - slack, high = r.f_N.maxCoeff()> o.f_max_N + slack;
      if (m == Method::kExhaustive || m == Method::kLawsonHanson) {
        const auto r0 = solve_tensions(m, p.J, p.w);
        EXPECT_TRUE(r.f_N.isApprox(r0.f_N, 1e-9) || (r.f_N - r0.f_N).norm() < 1e-12) << to_string(m) << " " << k;
        if (low || high) {
          EXPECT_EQ(r.status, Status::kOutOfBounds) << to_string(m) << " problem " << k;
          EXPECT_NE(std::string(r.reason).find(low ? "below f_min" : "above f_max"), std::string::npos) << r.reason;
          (low ? below : above) += 1;
        } else {
          EXPECT_NE(r.status, Status::kOutOfBounds);
          inside_ok += r.status == Status::kOk;
        }
      } else if (m == Method::kExact) {
        EXPECT_FALSE(low || high) << to_string(m) << " problem " << k;
        EXPECT_NE(r.status, Status::kOutOfBounds);
      } else {  // the closed forms: outside the bounds only as "infeasible" (their documented verdict)
        if (low || high) {
          EXPECT_EQ(r.status, Status::kInfeasible) << to_string(m) << " problem " << k;
        }
        EXPECT_NE(r.status, Status::kOutOfBounds);
      }
    }
  }
  EXPECT_GT(below, 20);  // min-norm and NNLS answers unload cables
  EXPECT_GT(above, 0);
  EXPECT_EQ(to_string(Status::kOutOfBounds), std::string("out_of_bounds"));
  EXPECT_EQ(status_from_string("out_of_bounds"), Status::kOutOfBounds);
  (void)inside_ok;
}

}  // namespace
}  // namespace tendyn::cdpr

namespace tendyn::cdpr {
namespace {

// Lawson-Hanson: the fixed-size kernel (m <= 6, the default) against the general BoundedLS path
// (options.lawson_hanson_reference, the pre-issue-19 kernel) on random, badly scaled and nearly
// singular problems: the same loaded set, status, iteration count, and tensions to rounding.
TEST(LawsonHansonKernels, FixedSizeKernelFollowsTheGeneralKernelsPath) {
  int compared = 0, singular = 0, infeasible = 0, other_path = 0;
  for (int k = 0; k < 3000; ++k) {
    const int m = 1 + k % 6;
    const int n = 1 + (k / 6) % 16;
    auto p = random_problem(m, n, 40000 + k, (k / 96) % 2 ? WrenchMode::kUniform : WrenchMode::kFeasible);
    if (k % 7 == 0) p.J.col(k % n) *= 1e6;  // column spread
    const bool nearly_dependent_rows = k % 11 == 0 && m > 1;
    if (nearly_dependent_rows) p.J.row(m - 1) = p.J.row(0) + 1e-9 * p.J.row(m - 1);
    if (k % 13 == 0) p.w *= 1e-200;  // tiny wrench
    SolverOptions o;
    const auto a = solve_tensions(Method::kLawsonHanson, p.J, p.w, o);
    o.lawson_hanson_reference = true;
    const auto b = solve_tensions(Method::kLawsonHanson, p.J, p.w, o);
    ASSERT_EQ(a.loaded_mask, b.loaded_mask) << "k " << k;
    ASSERT_EQ(a.status, b.status) << "k " << k;
    EXPECT_STREQ(a.reason, b.reason) << "k " << k;
    singular += a.status == Status::kNearSingular;
    if (nearly_dependent_rows) {
      // cond(J) ~ 1e9: rounding differences of 1e-16 move f by ~1e-7; both kernels must flag the
      // problem the same way and load the same cables (asserted above), nothing more.
      ++compared;
      continue;
    }
    // The iteration count can differ when a rounding difference decides a near-tie (e.g. an
    // entering column whose step is zero to rounding); counted, and bounded below.
    if (a.iterations != b.iterations) {
      ++other_path;
      std::printf("[ path ] k %d: %d vs %d iterations, same answer\n", k, a.iterations, b.iterations);
    }
    const double fs = b.f_N.lpNorm<Eigen::Infinity>();
    for (int j = 0; j < n; ++j) EXPECT_NEAR(a.f_N[j], b.f_N[j], 1e-12 * fs) << "k " << k << " cable " << j;
    EXPECT_NEAR(a.tension_norm, b.tension_norm, 1e-12 * b.tension_norm) << "k " << k;
    EXPECT_NEAR(a.residual_norm, b.residual_norm, 1e-12 * p.w.lpNorm<Eigen::Infinity>()) << "k " << k;
    infeasible += a.status == Status::kInfeasible;
    ++compared;
  }
  EXPECT_EQ(compared, 3000);
  EXPECT_LE(other_path, 3);  // of 3000
  EXPECT_GT(singular, 50);   // both verdict paths exercised
  EXPECT_GT(infeasible, 100);
}

}  // namespace
}  // namespace tendyn::cdpr
