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
  const int m = 3 + k % 4;                // 3..6
  const int n = m + 1 + (k / 4) % (13 - m - 1);  // m+1..12
  return {m, n, (k / 2) % 2 == 0 ? WrenchMode::uniform : WrenchMode::feasible};
}

TEST(LawsonHanson, SatisfiesNnlsOptimalityConditions) {
  for (int k = 0; k < 300; ++k) {
    const auto s = size_of(k);
    const auto p = random_problem(s.m, s.n, 1000 + k, s.mode);
    const auto r = solve_tensions(Method::lawson_hanson, p.J, p.w);
    ASSERT_NE(r.status, Status::iteration_limit) << k;
    EXPECT_GE(r.f_N.minCoeff(), 0.0);
    const Eigen::VectorXd g = p.J.transpose() * (p.w - p.J * r.f_N);  // -gradient
    for (int i = 0; i < s.n; ++i) {
      if (r.f_N[i] > 0) EXPECT_NEAR(g[i], 0.0, 1e-10 * (1 + p.w.norm())) << k;
      else EXPECT_LE(g[i], 1e-10 * (1 + p.w.norm())) << k;
    }
  }
}

TEST(LawsonHanson, IterationCapIsReported) {
  const auto p = random_problem(6, 12, 5, WrenchMode::uniform);
  SolverOptions o;
  o.max_iterations = 1;
  const auto r = solve_tensions(Method::lawson_hanson, p.J, p.w, o);
  EXPECT_EQ(r.status, Status::iteration_limit);
}

TEST(LawsonHanson, MatchesOctaveLsqnonnegOn1000Problems) {
  if (!test::have_program("octave")) GTEST_SKIP() << "octave not found on PATH: lsqnonneg comparison skipped";
  const auto dir = test::temp_dir("nnls_octave");
  const auto in = dir / "problems.txt";
  const auto out = dir / "octave.txt";
  constexpr int kCount = 1000;
  std::vector<RandomProblem> problems;
  {
    std::ofstream f(in);
    f << std::setprecision(17) << kCount << "\n";
    for (int k = 0; k < kCount; ++k) {
      const auto s = size_of(k);
      problems.push_back(random_problem(s.m, s.n, 5000 + k, s.mode));
      const auto& p = problems.back();
      f << s.m << " " << s.n << "\n";
      for (int j = 0; j < s.n; ++j)
        for (int i = 0; i < s.m; ++i) f << p.J(i, j) << " ";
      f << "\n";
      for (int i = 0; i < s.m; ++i) f << p.w[i] << " ";
      f << "\n";
    }
  }
  const std::string script = std::string(TENDYN_SOURCE_DIR) + "/tests/cdpr/lsqnonneg_compare.m";
  std::string log;
  const int rc = test::run_command("octave --no-gui --quiet --norc --eval \"infile='" + in.string() +
                                       "'; outfile='" + out.string() + "'; source('" + script + "');\"",
                                   &log);
  ASSERT_EQ(rc, 0) << log;
  std::ifstream f(out);
  int worse = 0;
  double max_rel = 0.0;
  for (int k = 0; k < kCount; ++k) {
    double res_oct = 0.0;
    int loaded_oct = 0;
    ASSERT_TRUE(f >> res_oct >> loaded_oct) << "octave output ended at problem " << k;
    const auto& p = problems[static_cast<std::size_t>(k)];
    const auto r = solve_tensions(Method::lawson_hanson, p.J, p.w);
    const double rel = std::abs(r.residual_norm - res_oct) / p.w.norm();
    max_rel = std::max(max_rel, rel);
    if (rel > 1e-9) ++worse;
    EXPECT_LE(rel, 1e-9) << "problem " << k << " (" << p.J.rows() << "x" << p.J.cols()
                         << "): ours " << r.residual_norm << " octave " << res_oct;
  }
  RecordProperty("max_relative_residual_difference", std::to_string(max_rel));
  std::printf("[ lsqnonneg ] 1000 problems, max |r_ours - r_octave| / |w| = %.3g\n", max_rel);
  EXPECT_EQ(worse, 0);
}

}  // namespace
}  // namespace tendyn::cdpr
