// Lawson-Hanson NNLS: optimality conditions, iteration cap, and agreement with Octave's
// lsqnonneg on 1000 seeded random problems (sizes 3x4 .. 6x12).
#include <gtest/gtest.h>

#include <tendyn/cdpr/study.hpp>
#include <tendyn/cdpr/tension.hpp>

#include <fstream>
#include <iomanip>
#include <vector>

#include "cdpr/test_util.hpp"

namespace tendyn::cdpr {
namespace {

struct Sized {
  int m, n;
  WrenchMode mode;
};
Sized size_of(int k) {
  const int m = 3 + k % 4;                       // 3..6
  const int n = m + 1 + (k / 4) % (13 - m - 1);  // m+1..12
  return {m, n, (k / 2) % 2 == 0 ? WrenchMode::kUniform : WrenchMode::kFeasible};
}

TEST(LawsonHanson, SatisfiesNnlsOptimalityConditions) {
  for (int k = 0; k < 300; ++k) {
    const auto s = size_of(k);
    const auto p = random_problem(s.m, s.n, 1000 + k, s.mode);
    const auto r = solve_tensions(Method::kLawsonHanson, p.J, p.w);
    ASSERT_NE(r.status, Status::kIterationLimit) << k;
    EXPECT_GE(r.f_N.minCoeff(), 0.0);
    const Eigen::VectorXd g = p.J.transpose() * (p.w - p.J * r.f_N);  // -gradient
    for (int i = 0; i < s.n; ++i) {
      if (r.f_N[i] > 0)
        EXPECT_NEAR(g[i], 0.0, 1e-10 * (1 + p.w.norm())) << k;
      else
        EXPECT_LE(g[i], 1e-10 * (1 + p.w.norm())) << k;
    }
  }
}

TEST(LawsonHanson, IterationCapIsReported) {
  const auto p = random_problem(6, 12, 5, WrenchMode::kUniform);
  SolverOptions o;
  o.max_iterations = 1;
  const auto r = solve_tensions(Method::kLawsonHanson, p.J, p.w, o);
  EXPECT_EQ(r.status, Status::kIterationLimit);
}

struct OctaveRow {
  double residual = 0.0;
  int nnz = 0;
  std::uint64_t mask = 0;  // x_i > 1e-12 max(x), tendyn's loaded rule
};

/// Solves every problem with Octave's lsqnonneg in one run (tests/cdpr/lsqnonneg_compare.m).
std::vector<OctaveRow> octave_lsqnonneg(const std::vector<RandomProblem>& problems, const std::string& name) {
  const auto dir = test::temp_dir(name);
  const auto in = dir / "problems.txt";
  const auto out = dir / "octave.txt";
  {
    std::ofstream f(in);
    f << std::setprecision(17) << problems.size() << "\n";
    for (const auto& p : problems) {
      f << p.J.rows() << " " << p.J.cols() << "\n";
      for (Eigen::Index j = 0; j < p.J.cols(); ++j)
        for (Eigen::Index i = 0; i < p.J.rows(); ++i) f << p.J(i, j) << " ";
      f << "\n";
      for (Eigen::Index i = 0; i < p.w.size(); ++i) f << p.w[i] << " ";
      f << "\n";
    }
  }
  const std::string script = std::string(TENDYN_SOURCE_DIR) + "/tests/cdpr/lsqnonneg_compare.m";
  std::string log;
  const int rc = test::run_command(
      "octave --no-gui --quiet --norc --eval \"infile='" + in.string() + "'; outfile='" + out.string() + "'; source('" + script + "');\"",
      &log);
  EXPECT_EQ(rc, 0) << log;
  std::vector<OctaveRow> rows;
  std::ifstream f(out);
  OctaveRow r;
  double mask = 0.0;
  while (f >> r.residual >> r.nnz >> mask) {
    r.mask = static_cast<std::uint64_t>(mask);
    rows.push_back(r);
  }
  EXPECT_EQ(rows.size(), problems.size()) << "octave output ended early: " << log;
  return rows;
}

TEST(LawsonHanson, MatchesOctaveLsqnonnegOn1000Problems) {
  if (!test::have_program("octave")) GTEST_SKIP() << "octave not found on PATH: lsqnonneg comparison skipped";
  constexpr int kCount = 1000;
  std::vector<RandomProblem> problems;
  for (int k = 0; k < kCount; ++k) {
    const auto s = size_of(k);
    problems.push_back(random_problem(s.m, s.n, 5000 + k, s.mode));
  }
  const auto oct = octave_lsqnonneg(problems, "nnls_octave");
  ASSERT_EQ(oct.size(), problems.size());
  int worse = 0;
  double max_rel = 0.0;
  for (int k = 0; k < kCount; ++k) {
    const auto& p = problems[static_cast<std::size_t>(k)];
    const double res_oct = oct[static_cast<std::size_t>(k)].residual;
    const auto r = solve_tensions(Method::kLawsonHanson, p.J, p.w);
    const double rel = std::abs(r.residual_norm - res_oct) / p.w.norm();
    max_rel = std::max(max_rel, rel);
    if (rel > 1e-9) ++worse;
    EXPECT_LE(rel, 1e-9) << "problem " << k << " (" << p.J.rows() << "x" << p.J.cols() << "): ours " << r.residual_norm << " octave "
                         << res_oct;
  }
  RecordProperty("max_relative_residual_difference", std::to_string(max_rel));
  std::printf("[ lsqnonneg ] 1000 problems, max |r_ours - r_octave| / |w| = %.3g\n", max_rel);
  EXPECT_EQ(worse, 0);
}

// Badly scaled problems (issue 15): before the equilibration tendyn's Lawson-Hanson stopped
// early on them (the example: 1 cable loaded, relative residual 6.6e-8; lsqnonneg: 6,
// 3e-16). Families of 100 seeded 6 x 8 problems, w = J f0 with f0 ~ U[0, 1]:
//   0 one column times 1e8, w from the scaled J (the example)
//   1 one column times 1e8, w from the unscaled J (the same problem in another tension unit)
//   2 one column times 1e-8, w from the scaled J
// Required: the residual of lsqnonneg (to 1e-12 |w|) and a relative residual below 1e-12; the
// loaded set equal to lsqnonneg's (the active-set path is lsqnonneg's). Rows scaled by 1e5 are
// tested in tension_test.cpp only: there Octave's lsqnonneg itself follows rounding noise (it
// needed 78 s for 100 such problems and returned all 8 cables loaded in several of them).
TEST(LawsonHanson, MatchesOctaveLsqnonnegOnBadlyScaledProblems) {
  if (!test::have_program("octave")) GTEST_SKIP() << "octave not found on PATH: lsqnonneg comparison skipped";
  constexpr int kPer = 100, kFamilies = 3;
  std::vector<RandomProblem> problems, unscaled;
  for (int fam = 0; fam < kFamilies; ++fam) {
    for (int k = 0; k < kPer; ++k) {
      RandomProblem p = random_problem(6, 8, 300 + k, WrenchMode::kUniform);
      const auto q = random_problem(1, 8, 7000 + k, WrenchMode::kUniform);
      const Eigen::VectorXd f0 = (q.J.row(0).transpose().array() + 1.0) / 2.0;
      p.w = p.J * f0;
      unscaled.push_back(p);
      if (fam == 0 || fam == 2) {
        p.J.col(k % 8) *= fam == 0 ? 1e8 : 1e-8;
        p.w = p.J * f0;
      } else {
        p.J.col(k % 8) *= 1e8;
      }
      problems.push_back(p);
    }
  }
  const auto oct = octave_lsqnonneg(problems, "nnls_octave_scaled");
  ASSERT_EQ(oct.size(), problems.size());
  for (int fam = 0; fam < kFamilies; ++fam) {
    int same_as_octave = 0, same_as_unscaled = 0;
    double max_diff = 0.0, max_rel = 0.0;
    for (int k = 0; k < kPer; ++k) {
      const auto idx = static_cast<std::size_t>(fam * kPer + k);
      const auto& p = problems[idx];
      const auto r = solve_tensions(Method::kLawsonHanson, p.J, p.w);
      const auto u = solve_tensions(Method::kLawsonHanson, unscaled[idx].J, unscaled[idx].w);
      const double wn = p.w.norm();
      max_diff = std::max(max_diff, std::abs(r.residual_norm - oct[idx].residual) / wn);
      max_rel = std::max(max_rel, r.residual_norm / wn);
      EXPECT_EQ(r.status, Status::kOk) << "family " << fam << " problem " << k << ": " << r.reason;
      EXPECT_LT(r.residual_norm / wn, 1e-12) << "family " << fam << " problem " << k;
      EXPECT_LE(std::abs(r.residual_norm - oct[idx].residual), 1e-12 * wn) << fam << " " << k;
      EXPECT_EQ(r.loaded_mask, oct[idx].mask) << "family " << fam << " problem " << k;
      same_as_octave += r.loaded_mask == oct[idx].mask;
      same_as_unscaled += r.loaded_mask == u.loaded_mask;
    }
    std::printf(
        "[ lsqnonneg ] family %d: loaded set = lsqnonneg's in %d/%d, = the unscaled "
        "problem's in %d/%d; max |r - r_octave| / |w| %.2g, max |r| / |w| %.2g\n",
        fam, same_as_octave, kPer, same_as_unscaled, kPer, max_diff, max_rel);
  }
}

}  // namespace
}  // namespace tendyn::cdpr

// Issue 19: finish_result decides "J near singular" from the solver's own QR of its passive
// columns when that proves the answer, else by the rank-revealing QR of the column-equilibrated
// J as before. The verdict must equal the rank-revealing QR's on every problem.
#include <string>

#include "cdpr/dense_kernels.hpp"

namespace tendyn::cdpr {
namespace {

TEST(LawsonHanson, NearSingularVerdictEqualsTheRankRevealingQrs) {
  const SolverOptions o;
  detail::MinNormLS qr(6, 12);
  int flagged = 0, cases = 0;
  for (int k = 0; k < 600; ++k) {
    const int m = 3 + k % 4;
    const int n = m + (k / 4) % 7;
    auto p = random_problem(m, n, 700 + k, (k / 2) % 2 ? WrenchMode::kUniform : WrenchMode::kFeasible);
    // Rows nearly dependent by 10^-e: ratios on both sides of singular_rtol = 1e-8.
    const int e = (k / 28) % 14;
    if (e > 0) p.J.row(m - 1) = p.J.row(0) + std::pow(10.0, -e) * p.J.row(m - 1);
    if (k % 5 == 0) p.J.col(0) *= 1e4;  // column spread: the verdict is on the equilibrated J
    const auto r = solve_tensions(Method::kLawsonHanson, p.J, p.w, o);
    if (r.status == Status::kIterationLimit) continue;
    // The column-equilibrated J of tension.hpp (powers of two), then the pivot ratio.
    const int a = std::ilogb(p.J.cwiseAbs().maxCoeff()) + 1;
    Eigen::MatrixXd Jc = p.J * std::ldexp(1.0, -a);
    for (int j = 0; j < n; ++j) {
      const double cmax = Jc.col(j).cwiseAbs().maxCoeff();
      if (cmax > 0.0) Jc.col(j) *= std::ldexp(1.0, -(std::ilogb(cmax) + 1));
    }
    double ratio = 1.0;
    qr.factor(Jc.data(), m, m, n, o.rank_rtol, &ratio);
    const bool expect_singular = n >= m && ratio < o.singular_rtol;
    const bool got_singular = r.status == Status::kNearSingular && std::string(r.reason).find("rank-deficient") != std::string::npos;
    EXPECT_EQ(got_singular, expect_singular) << "k " << k << " ratio " << ratio;
    flagged += expect_singular ? 1 : 0;
    ++cases;
  }
  std::printf("[ verdict ] %d problems, %d near singular\n", cases, flagged);
  EXPECT_GT(flagged, 50);  // both verdicts are exercised
  EXPECT_LT(flagged, cases - 100);
}

}  // namespace
}  // namespace tendyn::cdpr
