// Continuous tension distributions: the centroid of the feasible polygon (n = m + 2) against a
// direct polygon computation, the centred method, and the largest tension jump along a smooth
// trajectory as the pose step shrinks (zero in the limit for the continuous methods, not for the
// document's exhaustive method).
#include <gtest/gtest.h>

#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/cdpr/tension_problem.hpp>
#include <tendyn/core/error.hpp>

#include <Eigen/LU>
#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "test_util.hpp"

#include "support/error_of.hpp"

namespace tendyn::cdpr {
namespace {

using tendyn::test::error_of;

/// Centroid of {f : J f = w, lo <= f <= hi} for n = m + 2 by vertex enumeration: every vertex has
/// two tensions at a bound and the others from J f = w; the vertices are ordered by angle in the
/// coordinates of a null-space basis from a full-pivot LU (not the solver's QR) and the area
/// centroid is taken by the shoelace formula.
Eigen::VectorXd direct_centroid(const Eigen::MatrixXd& J, const Eigen::VectorXd& w, double lo, double hi) {
  const int m = static_cast<int>(J.rows()), n = static_cast<int>(J.cols());
  std::vector<Eigen::VectorXd> verts;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (double fi : {lo, hi})
        for (double fj : {lo, hi}) {
          Eigen::MatrixXd A(m, m);
          int c = 0;
          for (int k = 0; k < n; ++k)
            if (k != i && k != j) A.col(c++) = J.col(k);
          Eigen::FullPivLU<Eigen::MatrixXd> lu(A);
          if (lu.rank() < m) continue;
          const Eigen::VectorXd x = lu.solve(w - J.col(i) * fi - J.col(j) * fj);
          Eigen::VectorXd f(n);
          c = 0;
          for (int k = 0; k < n; ++k) f[k] = k == i ? fi : k == j ? fj : x[c++];
          if (f.minCoeff() < lo - 1e-9 || f.maxCoeff() > hi + 1e-9) continue;
          bool dup = false;
          for (const auto& v : verts) dup |= (v - f).norm() < 1e-9;
          if (!dup) verts.push_back(f);
        }
  const Eigen::MatrixXd N = Eigen::FullPivLU<Eigen::MatrixXd>(J).kernel();  // n x 2, not orthonormal
  EXPECT_EQ(N.cols(), 2);
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(n);
  for (const auto& v : verts) mean += v / static_cast<double>(verts.size());
  // coordinates: least squares in N (exact: v - mean lies in range(N))
  std::vector<Eigen::Vector2d> pts;
  for (const auto& v : verts) pts.push_back(N.colPivHouseholderQr().solve(v - mean));
  std::sort(pts.begin(), pts.end(),
            [](const Eigen::Vector2d& a, const Eigen::Vector2d& b) { return std::atan2(a.y(), a.x()) < std::atan2(b.y(), b.x()); });
  double A2 = 0, cx = 0, cy = 0;
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const auto& P = pts[k];
    const auto& Q = pts[(k + 1) % pts.size()];
    const double cr = P.x() * Q.y() - Q.x() * P.y();
    A2 += cr;
    cx += (P.x() + Q.x()) * cr;
    cy += (P.y() + Q.y()) * cr;
  }
  return mean + N * Eigen::Vector2d(cx / (3 * A2), cy / (3 * A2));
}

TEST(Centroid, HandMadePolygonIsTheUnitSquareMinusATriangle) {
  // f1 + 2 f2 + 3 f3 = 4, f in [0, 1]^3: in (f1, f2) the unit square minus the triangle
  // (0, 0), (1, 0), (0, 0.5) (where f3 would exceed 1): centroid (5/9, 11/18), f3 = 20/27.
  Eigen::MatrixXd J(1, 3);
  J << 1, 2, 3;
  Eigen::VectorXd w(1);
  w << 4;
  SolverOptions o;
  o.f_min_N = 0.0;
  o.f_max_N = 1.0;
  const TensionResult r = solve_tensions(Method::kCentroid, J, w, o);
  ASSERT_EQ(r.status, Status::kOk) << r.reason;
  EXPECT_NEAR(r.f_N[0], 5.0 / 9.0, 1e-14);
  EXPECT_NEAR(r.f_N[1], 11.0 / 18.0, 1e-14);
  EXPECT_NEAR(r.f_N[2], 20.0 / 27.0, 1e-14);
  // the centred point is another one: min |f - 0.5| on the plane: 0.5 + (4 - 3) / 14 (1, 2, 3)
  const TensionResult c = solve_tensions(Method::kCentred, J, w, o);
  ASSERT_EQ(c.status, Status::kOk) << c.reason;
  EXPECT_NEAR(c.f_N[0], 0.5 + 1.0 / 14, 1e-14);
  EXPECT_NEAR(c.f_N[2], 0.5 + 3.0 / 14, 1e-14);
  // and the direct computation agrees on the hand-made case
  EXPECT_LT((direct_centroid(J, w, 0.0, 1.0) - r.f_N).norm(), 1e-13);
}

TEST(Centroid, AgreesWithVertexEnumerationOnRandomProblems) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0), pos(0.0, 1.0);
  int checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int m = 1 + trial % 6, n = m + 2;
    Eigen::MatrixXd J(m, n);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) J(i, j) = u(rng);
    Eigen::VectorXd f0(n);
    for (int j = 0; j < n; ++j) f0[j] = 1.0 + 9.0 * pos(rng);  // strictly inside [0.5, 12]
    const Eigen::VectorXd w = J * f0;
    SolverOptions o;
    o.f_min_N = 0.5;
    o.f_max_N = 12.0;
    const TensionResult r = solve_tensions(Method::kCentroid, J, w, o);
    ASSERT_EQ(r.status, Status::kOk) << trial << " " << r.reason;
    const Eigen::VectorXd ref = direct_centroid(J, w, 0.5, 12.0);
    EXPECT_LT((r.f_N - ref).norm(), 1e-9 * ref.norm()) << trial;
    EXPECT_LT((J * r.f_N - w).norm(), 1e-12 * (1 + w.norm())) << trial;
    ++checked;
  }
  EXPECT_EQ(checked, 60);
}

TEST(Centroid, InputErrorsAndInfeasibleWrenches) {
  Eigen::MatrixXd J(2, 3);
  J << 1, 0, 1, 0, 1, 1;
  Eigen::VectorXd w(2);
  w << 1, 1;
  SolverOptions o;
  o.f_max_N = 10;
  EXPECT_NE(error_of([&] { (void)solve_tensions(Method::kCentroid, J, w, o); }).find("exactly 2 more cables"), std::string::npos);
  SolverOptions unbounded;
  Eigen::MatrixXd J1(1, 3);
  J1 << 1, 1, 1;
  Eigen::VectorXd w1(1);
  w1 << 1;
  EXPECT_NE(error_of([&] { (void)solve_tensions(Method::kCentroid, J1, w1, unbounded); }).find("finite f_max"), std::string::npos);
  // no tensions in [0, 1] sum to 5: infeasible, never ok
  o.f_max_N = 1;
  w1 << 5;
  EXPECT_EQ(solve_tensions(Method::kCentroid, J1, w1, o).status, Status::kInfeasible);
  EXPECT_EQ(solve_tensions(Method::kCentred, J1, w1, o).status, Status::kInfeasible);
  EXPECT_EQ(method_from_string("Barycentre"), Method::kCentroid);
  EXPECT_EQ(method_from_string("centered"), Method::kCentred);
}

/// Tensions along a straight line of poses of `model` with `steps` steps; returns the largest
/// tension jump and checks bounds and equilibrium at every row.
double jump_along(const Model& model, Method method, const Eigen::VectorXd& q0, const Eigen::VectorXd& q1, int steps, bool check) {
  TensionProblem p = make_tension_problem(model);
  PoseTrajectory traj;
  traj.q.resize(steps + 1, q0.size());
  for (int k = 0; k <= steps; ++k) traj.q.row(k) = (q0 + (q1 - q0) * (static_cast<double>(k) / steps)).transpose();
  const auto results = solve_tension_trajectory(model, p, method, traj);
  if (check) {
    for (std::size_t k = 0; k < results.size(); ++k) {
      const auto& r = results[k];
      EXPECT_EQ(r.status, Status::kOk) << to_string(method) << " row " << k << " " << r.reason;
      EXPECT_GE(r.f_N.minCoeff(), p.options.f_min_N - 1e-9) << k;
      EXPECT_LE(r.f_N.maxCoeff(), p.options.f_max_N + 1e-9) << k;
      // A t = -w in the document's sign convention is J f = w here
      update_tension_problem(model, pose_from_vector(model, traj.q.row(static_cast<Eigen::Index>(k)).transpose()), p);
      EXPECT_LT((p.J * r.f_N - p.w).norm(), 1e-9 * p.w.norm()) << k;
    }
  }
  return max_tension_jump(results).jump_N;
}

TEST(TensionContinuity, JumpOfContinuousMethodsShrinksWithTheStepExhaustiveDoesNot) {
  // planar4 (4 cables, 3 rows: redundancy 1) towards the edge of its workspace. Near the end the
  // zero-residual subset's norm becomes an IQR outlier of the exhaustive method (document step 4)
  // and it switches to a two-cable subset with a non-zero residual: a jump of about 45 N in c1
  // whatever the step. Exact and centred are projections onto the feasible set: their jump scales
  // with the step.
  const ModelFile mf = load_model(test::model_path("planar4.yaml"));
  Eigen::VectorXd q0(3), q1(3);
  q0 << 0.25, 0.15, 0.1;
  q1 << 0.296, 0.1776, 0.1184;
  double prev_centred = 0, prev_exact = 0;
  for (int steps : {40, 160, 640}) {
    const double ex = jump_along(mf.model, Method::kExhaustive, q0, q1, steps, false);
    const double ce = jump_along(mf.model, Method::kCentred, q0, q1, steps, steps == 640);
    const double xa = jump_along(mf.model, Method::kExact, q0, q1, steps, steps == 640);
    EXPECT_GT(ex, 40.0) << steps;
    if (steps > 40) {
      EXPECT_LT(ce, 0.3 * prev_centred) << steps;  // 4x finer step: about 4x smaller jump
      EXPECT_LT(xa, 0.3 * prev_exact) << steps;
    }
    prev_centred = ce;
    prev_exact = xa;
  }
  EXPECT_LT(prev_centred, 1.0);  // 0.56 N at 640 steps against the exhaustive method's 45 N
}

TEST(TensionContinuity, CentroidJumpShrinksWithTheStepOnTheEightCablePrinter) {
  // printer8: 8 cables, 6 rows (n = m + 2), tensions in [200, 30000] N.
  const ModelFile mf = load_model(test::model_path("printer8.yaml"));
  Eigen::VectorXd q0(6), q1(6);
  q0 << -1, -0.5, 3, 0, 0, -0.1;
  q1 << 1, 0.5, 3.5, 0, 0, 0.1;
  double prev = 0;
  for (int steps : {40, 160, 640}) {
    const double c = jump_along(mf.model, Method::kCentroid, q0, q1, steps, steps == 160);
    if (steps > 40) {
      EXPECT_LT(c, 0.3 * prev) << steps;
    }
    prev = c;
  }
  EXPECT_LT(prev, 15.0);  // 9.2 N at 640 steps (tensions of several kN)
}

TEST(TensionContinuity, MaxTensionJumpByHand) {
  std::vector<TensionResult> r(3);
  r[0].f_N = Eigen::Vector2d(1, 2);
  r[1].f_N = Eigen::Vector2d(1.5, 2);
  r[2].f_N = Eigen::Vector2d(1.5, -1);
  const TensionJump j = max_tension_jump(r);
  EXPECT_EQ(j.jump_N, 3.0);
  EXPECT_EQ(j.row, 2u);
  EXPECT_EQ(j.column, 1);
  EXPECT_EQ(max_tension_jump({}).column, -1);
  r[1].f_N = Eigen::Vector3d(1, 1, 1);
  EXPECT_NE(error_of([&] { (void)max_tension_jump(r); }).find("different cable counts"), std::string::npos);
}

}  // namespace
}  // namespace tendyn::cdpr
