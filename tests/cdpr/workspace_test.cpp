// Workspaces (include/tendyn/cdpr/workspace.hpp): the exact feasibility test against brute force,
// a point-mass robot's region against its analytic boundary, grid against ray casting, threads.
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/workspace.hpp>
#include <tendyn/core/error.hpp>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <functional>
#include <numbers>
#include <random>
#include <string>

#include "support/cli_run.hpp"
#include "support/error_of.hpp"
#include "test_util.hpp"

namespace tendyn::cdpr {
namespace {

Model planar_model(const Eigen::Matrix3Xd& p_WA, const Eigen::Matrix3Xd& p_PB, double f_min, double f_max, double mass) {
  Model m = make_model("test", Motion::kPlanar, p_WA, p_PB);
  m.f_min_N = f_min;
  m.f_max_N = f_max;
  m.platform_mass_kg = mass;
  m.gravity_W = Eigen::Vector3d(0.0, -9.81, 0.0);
  validate_model(m);
  return m;
}

// Brute force: the smallest bound violation over every basic solution of J f = w (n - m tensions
// at a bound, the other m solved). With J of full row rank and finite bounds the feasible set, if
// not empty, is a bounded polytope and has a vertex, which is such a basic solution: the smallest
// violation is 0 exactly when the problem is feasible.
double brute_force_violation(const Eigen::MatrixXd& J, const Eigen::VectorXd& w, double lo, double hi) {
  const int m = static_cast<int>(J.rows()), n = static_cast<int>(J.cols());
  double best = std::numeric_limits<double>::infinity();
  for (unsigned fixed = 0; fixed < (1u << n); ++fixed) {
    if (__builtin_popcount(fixed) != n - m) continue;
    std::vector<int> at, freec;
    for (int i = 0; i < n; ++i) (fixed & (1u << i) ? at : freec).push_back(i);
    for (unsigned side = 0; side < (1u << at.size()); ++side) {
      Eigen::VectorXd rhs = w;
      for (std::size_t k = 0; k < at.size(); ++k) rhs -= J.col(at[k]) * ((side & (1u << k)) ? hi : lo);
      Eigen::MatrixXd B(m, m);
      for (int k = 0; k < m; ++k) B.col(k) = J.col(freec[static_cast<std::size_t>(k)]);
      Eigen::FullPivLU<Eigen::MatrixXd> lu(B);
      if (lu.rank() < m) continue;
      const Eigen::VectorXd t = lu.solve(rhs);
      double v = 0.0;
      for (int k = 0; k < m; ++k) v = std::max({v, lo - t[k], t[k] - hi});
      best = std::min(best, v);
    }
  }
  return best;
}

TEST(Workspace, FeasibilityAgreesWithBruteForceOnRandomPlanarRobots) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  int inside = 0, outside = 0, compared = 0;
  for (int robot = 0; robot < 40; ++robot) {
    const int n = 4 + robot % 2;  // 4 or 5 cables, 3 rows
    Eigen::Matrix3Xd A = Eigen::Matrix3Xd::Zero(3, n), B = Eigen::Matrix3Xd::Zero(3, n);
    for (int i = 0; i < n; ++i) {
      const double a = 2.0 * M_PI * (i + 0.3 * U(rng)) / n;
      A.col(i) << 1.5 * std::cos(a), 1.5 * std::sin(a), 0.0;
      B.col(i) << 0.2 * U(rng), 0.2 * U(rng), 0.0;
    }
    const Model model = planar_model(A, B, 1.0, 40.0, 1.0);
    WorkspaceOptions o;
    if (robot % 3 == 0) {  // a box of external wrenches on two rows: 4 vertices
      o.wrench_lo = Eigen::Vector3d(-2.0, 0.0, -0.1);
      o.wrench_hi = Eigen::Vector3d(2.0, 0.0, 0.1);
    }
    WorkspaceEvaluator e(model, o);
    for (int k = 0; k < 30; ++k) {
      const Pose pose = pose_planar(0.8 * U(rng), 0.8 * U(rng), 0.5 * U(rng));
      const PoseVerdict v = e.evaluate(pose);
      ASSERT_NE(v.cls, PoseClass::kUndecided);
      const Eigen::MatrixXd& W = e.wrench_vertices();
      const Eigen::MatrixXd J = e.problem().J;
      double worst = 0.0;
      for (int c = 0; c < W.cols(); ++c) worst = std::max(worst, brute_force_violation(J, W.col(c), 1.0, 40.0));
      if (worst > 1e-9 * 40.0 && worst < 1e-6 * 40.0) continue;  // too close to the boundary to call
      ++compared;
      const bool bf_inside = worst <= 1e-9 * 40.0;
      EXPECT_EQ(v.inside(), bf_inside) << "robot " << robot << " pose " << k << " violation " << worst;
      (bf_inside ? inside : outside)++;
      if (v.inside()) {  // the certificate holds the last vertex within the bounds
        const Eigen::VectorXd& f = e.last_tensions();
        EXPECT_GE(f.minCoeff(), 1.0 - 1e-9);
        EXPECT_LE(f.maxCoeff(), 40.0 + 1e-9);
        EXPECT_LE((J * f - W.col(W.cols() - 1)).norm(), 1e-8);
      }
      // the capacity margin's sign is the verdict's (away from the boundary)
      if (std::isfinite(v.margin) && std::abs(v.margin) > 1e-7) {
        EXPECT_EQ(v.margin > 0.0, v.inside());
      }
    }
  }
  EXPECT_GT(compared, 1100);
  EXPECT_GT(inside, 100);
  EXPECT_GT(outside, 100);
}

// Point mass (every attachment at P) hung from the corners of the square [-a, a]^2, gravity -y,
// tensions in [0, F], the rows fx, fy only (the moment row is identically zero).
//
// Analytic region. The cables can exert the wrenches Z = {sum_i t_i u_i : 0 <= t_i <= F}, a
// Minkowski sum of the segments [0, F u_i]: a convex polygon whose edges are translates of those
// segments, so its outward edge normals are +-n_j, n_j = (-u_jy, u_jx), and its support function
// is h(n) = F sum_i max(0, n.u_i). The pose is inside iff w = (0, m g) (the cables must carry the
// weight) lies in Z, i.e. iff for every j
//     F sum_i min(0, n_j.u_i) <= n_j.w = m g u_jx <= F sum_i max(0, n_j.u_i),
// with n_j.u_i = u_jx u_iy - u_jy u_ix. g(x, y) below is the smallest slack of these 8
// inequalities; the boundary is g = 0.
// On the axis x = 0 it has a closed form: the upper cables make the angle alpha with the
// horizontal, sin(alpha) = (a - y) / sqrt(a^2 + (a - y)^2); vertical balance gives
// (t1 + t2) sin(alpha) = m g + (t3 + t4) sin(beta) >= m g, so max(t1, t2) >= m g / (2 sin alpha),
// reached with t1 = t2 and the lower cables slack: the pose is inside iff sin(alpha) >= s =
// m g / (2 F), i.e. y <= y* = a (1 - s / sqrt(1 - s^2)).
struct PointMass {
  double a = 1.0, F = 20.0, mass = 1.0, g = 9.81;
  Model model() const {
    Eigen::Matrix3Xd A(3, 4);
    A << -a, a, a, -a, a, a, -a, -a, 0, 0, 0, 0;
    return planar_model(A, Eigen::Matrix3Xd::Zero(3, 4), 0.0, F, mass);
  }
  WorkspaceOptions options() const {
    WorkspaceOptions o;
    o.kind = WorkspaceKind::kStatic;
    o.rows = {WrenchRow::kFx, WrenchRow::kFy};
    return o;
  }
  double slack(double x, double y) const {
    const double ax[4] = {-a, a, a, -a}, ay[4] = {a, a, -a, -a};
    double u[4][2];
    for (int i = 0; i < 4; ++i) {
      const double dx = ax[i] - x, dy = ay[i] - y, l = std::hypot(dx, dy);
      u[i][0] = dx / l;
      u[i][1] = dy / l;
    }
    double best = std::numeric_limits<double>::infinity();
    for (int j = 0; j < 4; ++j) {
      double hi = 0.0, lo = 0.0;
      for (int i = 0; i < 4; ++i) {
        const double c = u[j][0] * u[i][1] - u[j][1] * u[i][0];
        hi += F * std::max(0.0, c);
        lo += F * std::min(0.0, c);
      }
      const double nw = mass * g * u[j][0];
      best = std::min({best, hi - nw, nw - lo});
    }
    return best;
  }
  double y_star() const {
    const double s = mass * g / (2.0 * F);
    return a * (1.0 - s / std::sqrt(1.0 - s * s));
  }
};

TEST(Workspace, PointMassRegionMatchesAnalyticBoundary) {
  const PointMass pm;
  const Model model = pm.model();
  WorkspaceGrid grid;
  grid.lo_m = Eigen::Vector3d(-0.99, -0.99, 0.0);
  grid.hi_m = Eigen::Vector3d(0.99, 0.99, 0.0);
  grid.count = {120, 120, 1};
  const auto r = evaluate_grid(model, pm.options(), grid);
  int in = 0, out = 0, undecided_band = 0;
  for (int i = 0; i < r.p_WP.cols(); ++i) {
    const double g = pm.slack(r.p_WP(0, i), r.p_WP(1, i));
    if (std::abs(g) < 1e-6 * pm.F) {
      ++undecided_band;
      continue;
    }
    EXPECT_EQ(r.verdicts[static_cast<std::size_t>(i)].inside(), g > 0.0) << "x " << r.p_WP(0, i) << " y " << r.p_WP(1, i) << " slack " << g;
    (g > 0.0 ? in : out)++;
    // margin = the slack (the facets are the same hyperplanes, normals of unit length)
    EXPECT_NEAR(r.verdicts[static_cast<std::size_t>(i)].margin, g, 1e-9 * pm.F);
  }
  EXPECT_GT(in, 2000);
  EXPECT_GT(out, 500);
  EXPECT_LT(undecided_band, 10);
}

TEST(Workspace, PointMassRayFindsClosedFormBoundaryOnAxis) {
  const PointMass pm;
  const Model model = pm.model();
  RaySpec spec;
  spec.start_m = Eigen::Vector3d(0.0, 0.0, 0.0);
  spec.count = 4;  // ray 1 points along +y
  spec.max_length_m = 0.98;
  spec.step_m = 0.05;
  spec.tol_m = 1e-7;
  const auto r = cast_rays(model, pm.options(), spec);
  EXPECT_NEAR(r.distance_m[1], pm.y_star(), 2e-7);
  EXPECT_FALSE(r.clipped[1]);
  EXPECT_TRUE(r.clipped[3]);  // straight down stays inside up to the frame
  EXPECT_TRUE(r.verdicts[1].inside());
  EXPECT_NEAR(pm.y_star(), 0.747024, 1e-6);  // the number itself (a = 1 m, F = 20 N, 1 kg)
}

TEST(Workspace, GridAndRayCastingAgreeOnPlanar4) {
  // planar4's static workspace at phi = 0 is a wedge narrowing upwards that continues below the
  // frame (a platform hanging below every anchor is held); compare inside the disc of radius R
  const Model model = load_model(test::model_path("planar4.yaml")).model;
  const double R = 1.0;
  WorkspaceOptions o;
  o.kind = WorkspaceKind::kStatic;
  RaySpec spec;
  spec.count = 720;
  spec.max_length_m = R;
  spec.step_m = 0.02;
  spec.tol_m = 1e-5;
  const auto rays = cast_rays(model, o, spec);
  WorkspaceGrid grid;
  grid.lo_m = Eigen::Vector3d(-R, -R, 0.0);
  grid.hi_m = Eigen::Vector3d(R, R, 0.0);
  grid.count = {300, 300, 1};
  const double h = 2.0 * R / 300;
  const auto g = evaluate_grid(model, o, grid);
  ASSERT_GT(g.inside_count, 1000);
  EXPECT_EQ(g.undecided_count, 0);
  int in_disc = 0;
  for (int i = 0; i < g.p_WP.cols(); ++i)
    if (g.verdicts[static_cast<std::size_t>(i)].inside() && g.p_WP.col(i).norm() <= R) ++in_disc;
  const double grid_area = in_disc * g.cell_measure;
  // star-shaped from the centre: the two area estimates agree to the grid's resolution
  EXPECT_NEAR(rays.measure, grid_area, 0.01 * grid_area) << "rays " << rays.measure << " grid " << grid_area;
  int clipped = 0;
  for (bool c : rays.clipped) clipped += c;
  EXPECT_GT(clipped, 10);   // downwards
  EXPECT_LT(clipped, 360);  // the wedge's sides are found
  // every ray boundary point has the outside just beyond it
  WorkspaceEvaluator e(model, o);
  for (int k = 0; k < spec.count; ++k) {
    if (rays.clipped[static_cast<std::size_t>(k)]) continue;
    const Eigen::Vector3d d = rays.direction.col(k);
    Pose p;
    p.p_WP = rays.boundary_m.col(k) - 1e-6 * d;
    EXPECT_TRUE(e.evaluate(p).inside()) << "ray " << k;
    p.p_WP = rays.boundary_m.col(k) + 2e-5 * d;
    EXPECT_FALSE(e.evaluate(p).inside()) << "ray " << k;
  }
  // grid boundary points: never beyond the ray-cast boundary (first exits of a star-shaped
  // region), and nearly all within two cells of it (a boundary nearly along a ray is the exception)
  auto ray_radius = [&](double angle) {  // linear between the two neighbouring rays
    const double t = angle / (2 * M_PI) * spec.count;
    const int k0 = static_cast<int>(std::floor(t)) % spec.count, k1 = (k0 + 1) % spec.count;
    const double f = t - std::floor(t);
    return (1 - f) * rays.distance_m[k0] + f * rays.distance_m[k1];
  };
  int checked = 0, close = 0;
  for (int i : g.boundary) {
    const Eigen::Vector3d p = g.p_WP.col(i);
    const double r = p.head<2>().norm();
    if (r > R - 2 * h || r < 1e-9) continue;
    double a = std::atan2(p.y(), p.x());
    if (a < 0) a += 2 * M_PI;
    const double rr = ray_radius(a);
    EXPECT_LE(r, rr + 1e-3) << "grid point " << p.transpose();
    ++checked;
    close += r >= rr - 2 * h;
  }
  EXPECT_GT(checked, 200);
  EXPECT_GT(close, 0.95 * checked) << close << " of " << checked;
}

TEST(Workspace, ResultsAreIdenticalForAnyThreadCount) {
  const Model model = load_model(test::model_path("printer8.yaml")).model;
  WorkspaceOptions o;
  WorkspaceGrid grid;
  grid.lo_m = Eigen::Vector3d(-9.0, -9.0, 0.5);
  grid.hi_m = Eigen::Vector3d(9.0, 9.0, 14.0);
  grid.count = {9, 9, 10};
  o.threads = 1;
  const auto r1 = evaluate_grid(model, o, grid);
  for (int t : {2, 3}) {
    o.threads = t;
    const auto rt = evaluate_grid(model, o, grid);
    ASSERT_EQ(rt.verdicts.size(), r1.verdicts.size());
    for (std::size_t i = 0; i < r1.verdicts.size(); ++i) {
      EXPECT_EQ(rt.verdicts[i].cls, r1.verdicts[i].cls);
      EXPECT_EQ(std::memcmp(&rt.verdicts[i].margin, &r1.verdicts[i].margin, sizeof(double)), 0);
      EXPECT_EQ(std::memcmp(&rt.verdicts[i].residual, &r1.verdicts[i].residual, sizeof(double)), 0);
    }
    EXPECT_EQ(rt.boundary, r1.boundary);
  }
  EXPECT_GT(r1.inside_count, 0);
  EXPECT_LT(r1.inside_count, static_cast<int>(r1.verdicts.size()));
}

TEST(Workspace, FeasibleWithBoxIsInsideStaticAndZeroBoxIsStatic) {
  const Model model = load_model(test::model_path("planar4.yaml")).model;
  WorkspaceGrid grid;
  grid.lo_m = Eigen::Vector3d(-1.0, -1.0, 0.0);
  grid.hi_m = Eigen::Vector3d(1.0, 1.0, 0.0);
  grid.count = {60, 60, 1};
  WorkspaceOptions st;
  st.kind = WorkspaceKind::kStatic;
  WorkspaceOptions zero;
  zero.wrench_lo = Eigen::Vector3d::Zero();
  zero.wrench_hi = Eigen::Vector3d::Zero();
  WorkspaceOptions box;
  box.wrench_lo = Eigen::Vector3d(-3.0, -3.0, -0.2);
  box.wrench_hi = Eigen::Vector3d(3.0, 3.0, 0.2);
  const auto a = evaluate_grid(model, st, grid), b = evaluate_grid(model, zero, grid), c = evaluate_grid(model, box, grid);
  EXPECT_EQ(a.inside_count, b.inside_count);
  EXPECT_LT(c.inside_count, a.inside_count);
  EXPECT_GT(c.inside_count, 0);
  for (std::size_t i = 0; i < a.verdicts.size(); ++i) {
    EXPECT_EQ(a.verdicts[i].cls, b.verdicts[i].cls);
    if (c.verdicts[i].inside()) {
      EXPECT_TRUE(a.verdicts[i].inside());
      EXPECT_LE(c.verdicts[i].margin, a.verdicts[i].margin + 1e-12);  // a larger set: a smaller margin
    }
  }
}

// The capacity margin by brute force, independent of the library's facet enumeration: every set
// of m - 1 columns of J, its normal from Eigen's FullPivLU kernel, the signed distance of every
// required wrench to both supporting hyperplanes of the available wrench set.
double brute_force_margin(const Eigen::MatrixXd& J, const Eigen::MatrixXd& wrenches, double lo, double hi) {
  const int m = static_cast<int>(J.rows()), n = static_cast<int>(J.cols());
  double best = std::numeric_limits<double>::infinity();
  for (unsigned set = 0; set < (1u << n); ++set) {
    if (__builtin_popcount(set) != m - 1) continue;
    Eigen::MatrixXd S(m - 1, m);
    int r = 0;
    for (int i = 0; i < n; ++i)
      if (set & (1u << i)) S.row(r++) = J.col(i).transpose();
    Eigen::FullPivLU<Eigen::MatrixXd> lu(S);
    lu.setThreshold(1e-9);
    if (lu.rank() < m - 1) continue;
    Eigen::VectorXd c = lu.kernel().col(0);
    c.normalize();
    double up = 0.0, down = 0.0;  // max and min of c . (J f) over the tension box
    for (int i = 0; i < n; ++i) {
      const double s = c.dot(J.col(i));
      up += s * (s > 0.0 ? hi : lo);
      down += s * (s > 0.0 ? lo : hi);
    }
    for (int k = 0; k < wrenches.cols(); ++k) {
      const double cw = c.dot(wrenches.col(k));
      best = std::min({best, up - cw, cw - down});
    }
  }
  return best;
}

// Every cable number the margin's null-space path takes (n = m + 1, m + 2) and one it does not
// (n = m + 3, the elimination), spatial and planar, against the brute force above.
TEST(Workspace, CapacityMarginEqualsTheBruteForceDistanceToEveryFacet) {
  const Model printer = load_model(test::model_path("printer8.yaml")).model;
  std::vector<Model> models;
  for (int n : {8, 7}) {  // 6 rows: 8 cables (n = m + 2), 7 (n = m + 1)
    models.push_back(make_model("printer" + std::to_string(n), Motion::kSpatial, printer.p_WA.leftCols(n), printer.p_PB.leftCols(n)));
    models.back().f_min_N = printer.f_min_N;
    models.back().f_max_N = printer.f_max_N;
    models.back().platform_mass_kg = printer.platform_mass_kg;
    models.back().gravity_W = printer.gravity_W;
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int n : {4, 5, 6}) {  // 3 rows (fx, fy, mz): n = m + 1, m + 2, m + 3
    Eigen::Matrix3Xd a(3, n), b(3, n);
    for (int i = 0; i < n; ++i) {
      const double t = 2.0 * std::numbers::pi * (i + 0.3 * u(rng)) / n;
      a.col(i) << 2.0 * std::cos(t), 2.0 * std::sin(t), 0.0;
      b.col(i) << 0.2 * std::cos(t + 0.4 * u(rng)), 0.2 * std::sin(t + 0.4 * u(rng)), 0.0;
    }
    models.push_back(planar_model(a, b, 1.0, 100.0, 2.0));
  }
  int compared = 0;
  for (const Model& model : models) {
    const bool planar = model.motion == Motion::kPlanar;
    WorkspaceOptions o;
    const int m = planar ? 3 : 6;
    o.wrench_lo = Eigen::VectorXd::Constant(m, -2.0);
    o.wrench_hi = Eigen::VectorXd::Constant(m, 2.0);
    o.wrench_lo.tail(planar ? 1 : 3).setConstant(-0.1);
    o.wrench_hi.tail(planar ? 1 : 3).setConstant(0.1);
    WorkspaceEvaluator ev(model, o);
    for (int i = 0; i < 60; ++i) {
      const Pose pose = planar
                            ? pose_from_xyz_rpy(Eigen::Vector3d(0.8 * u(rng), 0.8 * u(rng), 0.0), Eigen::Vector3d(0.0, 0.0, 0.3 * u(rng)))
                            : pose_from_xyz_rpy(Eigen::Vector3d(6.0 * u(rng), 6.0 * u(rng), 8.0 + 4.0 * u(rng)),
                                                Eigen::Vector3d(0.1 * u(rng), 0.1 * u(rng), 0.2 * u(rng)));
      const PoseVerdict v = ev.evaluate(pose);
      ASSERT_NE(v.cls, PoseClass::kUndefined);
      const double want = brute_force_margin(ev.problem().J, ev.wrench_vertices(), model.f_min_N, model.f_max_N);
      EXPECT_NEAR(v.margin, want, 1e-9 * model.f_max_N) << model.name << " pose " << i;
      if (std::abs(v.margin) > 1e-7) {
        EXPECT_EQ(v.margin > 0.0, v.inside()) << model.name << " pose " << i;
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 300);
}

// ------------------------------------------------------------------ ellipsoids of wrenches
TEST(WorkspaceEllipsoid, ZeroShapeEqualsThePointWrench) {
  const Model model = load_model(test::model_path("planar4.yaml")).model;
  WorkspaceGrid grid;
  grid.lo_m = Eigen::Vector3d(-1.0, -1.0, 0.0);
  grid.hi_m = Eigen::Vector3d(1.0, 1.0, 0.0);
  grid.count = {30, 30, 1};
  const Eigen::Vector3d w0(2.0, -3.0, 0.1);
  WorkspaceOptions point;
  point.wrench_lo = point.wrench_hi = w0;
  WorkspaceOptions ell;
  ell.wrench_centre = w0;
  ell.wrench_shape = Eigen::Matrix3d::Zero();
  const auto a = evaluate_grid(model, point, grid), b = evaluate_grid(model, ell, grid);
  EXPECT_GT(a.inside_count, 50);
  EXPECT_EQ(a.inside_count, b.inside_count);
  for (std::size_t i = 0; i < a.verdicts.size(); ++i) {
    EXPECT_EQ(a.verdicts[i].cls, b.verdicts[i].cls);
    if (std::isfinite(a.verdicts[i].margin)) {
      EXPECT_EQ(a.verdicts[i].margin, b.verdicts[i].margin);
    }
  }
}

// A disc of radius rho of force on the point mass: inside iff the weight's distance to the
// boundary of Z (the analytic slack, PointMass) is at least rho; the margin is slack - rho.
TEST(WorkspaceEllipsoid, SphereOnThePointMassAgainstTheDistanceToTheBoundary) {
  const PointMass pm;
  const Model model = pm.model();
  const double rho = 3.0;
  WorkspaceOptions o = pm.options();
  o.kind = WorkspaceKind::kFeasible;
  o.wrench_centre = Eigen::Vector2d::Zero();
  o.wrench_shape = rho * Eigen::Matrix2d::Identity();
  WorkspaceGrid grid;
  grid.lo_m = Eigen::Vector3d(-0.99, -0.99, 0.0);
  grid.hi_m = Eigen::Vector3d(0.99, 0.99, 0.0);
  grid.count = {80, 80, 1};
  const auto r = evaluate_grid(model, o, grid);
  int in = 0, out_near = 0, band = 0;
  for (int i = 0; i < r.p_WP.cols(); ++i) {
    const double g = pm.slack(r.p_WP(0, i), r.p_WP(1, i));
    const PoseVerdict& v = r.verdicts[static_cast<std::size_t>(i)];
    if (std::abs(g - rho) < 1e-6 * pm.F) {
      ++band;
      continue;
    }
    EXPECT_EQ(v.inside(), g > rho) << "x " << r.p_WP(0, i) << " y " << r.p_WP(1, i) << " slack " << g;
    (g > rho ? in : out_near) += (g > 0.0);
    EXPECT_NEAR(v.margin, g - rho, 1e-9 * pm.F);
  }
  EXPECT_GT(in, 1000);
  EXPECT_GT(out_near, 300);  // poses in the static workspace that the disc pushes out
  EXPECT_LT(band, 10);
}

// The exact ellipsoid test against its bounding box (box inside => ellipsoid inside) and against
// 2000 wrenches sampled on its surface (a sampled infeasible wrench => the exact test says outside).
TEST(WorkspaceEllipsoid, BoundingBoxAndSurfaceSamplingNeverContradictTheExactTest) {
  const Model model = load_model(test::model_path("planar4.yaml")).model;
  const Eigen::Vector3d c(1.0, -1.0, 0.05);
  Eigen::Matrix3d E;  // a tilted ellipsoid: E = R diag(6, 3, 0.3) R^T
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.4, Eigen::Vector3d(0.3, 0.5, 1.0).normalized()).toRotationMatrix();
  E = R * Eigen::Vector3d(6.0, 3.0, 0.3).asDiagonal() * R.transpose();
  WorkspaceOptions ell;
  ell.wrench_centre = c;
  ell.wrench_shape = E;
  WorkspaceOptions box;  // the bounding box: half-widths |E e_k| along each row
  box.wrench_lo = c - E.rowwise().norm();
  box.wrench_hi = c + E.rowwise().norm();
  WorkspaceGrid grid;
  grid.lo_m = Eigen::Vector3d(-0.9, -0.9, 0.0);
  grid.hi_m = Eigen::Vector3d(0.9, 0.9, 0.0);
  grid.count = {24, 24, 1};
  const auto a = evaluate_grid(model, ell, grid), b = evaluate_grid(model, box, grid);
  int box_in = 0, ell_only = 0;
  for (std::size_t i = 0; i < a.verdicts.size(); ++i) {
    if (b.verdicts[i].inside()) {
      ++box_in;
      EXPECT_TRUE(a.verdicts[i].inside()) << i;
      EXPECT_GE(a.verdicts[i].margin, b.verdicts[i].margin - 1e-12);
    } else if (a.verdicts[i].inside()) {
      ++ell_only;
    }
  }
  EXPECT_GT(box_in, 10);
  EXPECT_GT(ell_only, 10);  // the box is strictly larger: the ellipsoid test is not the box's
  // sampling: 2000 points of the unit sphere (Fibonacci), mapped to the surface c + E u
  const int K = 2000;
  std::vector<Eigen::Vector3d> u(K);
  const double golden = std::numbers::pi * (3.0 - std::sqrt(5.0));
  for (int k = 0; k < K; ++k) {
    const double z = 1.0 - (2.0 * k + 1.0) / K, rr = std::sqrt(1.0 - z * z);
    u[static_cast<std::size_t>(k)] = Eigen::Vector3d(rr * std::cos(golden * k), rr * std::sin(golden * k), z);
  }
  WorkspaceEvaluator e(model, ell);
  Workspace ws(3, 4);
  TensionResult tr;
  int sampled_out = 0, exact_out_sampling_in = 0, poses = 0;
  for (int i = 0; i < a.p_WP.cols(); i += 7) {
    Pose pose;
    pose.p_WP = a.p_WP.col(i);
    const PoseVerdict v = e.evaluate(pose);
    if (v.cls == PoseClass::kUndefined) continue;
    ++poses;
    const TensionProblem& p = e.problem();
    const double Jmax = p.J.cwiseAbs().maxCoeff();
    bool any_out = false;
    for (int k = 0; k < K && !any_out; ++k) {
      const Eigen::VectorXd w = p.w - (c + E * u[static_cast<std::size_t>(k)]);
      solve_tensions(Method::kExact, p.J, w, p.options, ws, tr);
      any_out = !(tr.residual_norm <= 1e-9 * (w.norm() + Jmax * tr.tension_norm));
    }
    if (any_out) {
      ++sampled_out;
      EXPECT_FALSE(v.inside()) << "sampling found an infeasible wrench at pose " << i << ", the exact test said inside";
    } else if (!v.inside()) {
      ++exact_out_sampling_in;  // allowed: the sampling misses the worst direction
    }
  }
  std::printf("%d poses: sampling found an infeasible wrench at %d, the exact test alone said outside at %d more\n", poses, sampled_out,
              exact_out_sampling_in);
  EXPECT_GT(poses, 50);
  EXPECT_GT(sampled_out, 10);
}

TEST(WorkspaceEllipsoid, BadShapeNamesTheReason) {
  const Model model = load_model(test::model_path("planar4.yaml")).model;
  WorkspaceOptions o;
  o.wrench_centre = Eigen::Vector3d::Zero();
  o.wrench_shape = Eigen::Matrix2d::Identity();
  EXPECT_NE(tendyn::test::error_of([&] {
              WorkspaceEvaluator e(model, o);
            }).find("wrench ellipsoid: centre of 3 values and shape 2 x 2, the problem has 3 rows (fx, fy, mz)"),
            std::string::npos);
  o.wrench_shape = Eigen::Vector3d(1.0, -2.0, 1.0).asDiagonal();
  EXPECT_NE(tendyn::test::error_of([&] { WorkspaceEvaluator e(model, o); }).find("not positive semi-definite (smallest eigenvalue -2)"),
            std::string::npos);
  o.wrench_shape = Eigen::Matrix3d::Identity();
  o.wrench_shape(0, 1) = 0.5;
  EXPECT_NE(tendyn::test::error_of([&] { WorkspaceEvaluator e(model, o); }).find("shape is not symmetric: (fx, fy) = 0.5 but (fy, fx) = 0"),
            std::string::npos);
  o.wrench_shape = Eigen::Matrix3d::Identity();
  o.wrench_shape(2, 2) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(tendyn::test::error_of([&] { WorkspaceEvaluator e(model, o); }).find("shape (mz, mz) is not finite"), std::string::npos);
  o.wrench_shape = Eigen::Matrix3d::Identity();
  o.wrench_centre[1] = std::numeric_limits<double>::infinity();
  EXPECT_NE(tendyn::test::error_of([&] { WorkspaceEvaluator e(model, o); }).find("centre row fy is not finite"), std::string::npos);
  o.wrench_centre = Eigen::Vector3d::Zero();
  o.wrench_lo = o.wrench_hi = Eigen::Vector3d::Zero();
  EXPECT_NE(tendyn::test::error_of([&] { WorkspaceEvaluator e(model, o); }).find("a box is given too"), std::string::npos);
  o.wrench_lo = o.wrench_hi = Eigen::VectorXd();
  o.kind = WorkspaceKind::kStatic;
  EXPECT_NE(
      tendyn::test::error_of([&] { WorkspaceEvaluator e(model, o); }).find("wrench ellipsoid: kind 'static' takes no external wrench set"),
      std::string::npos);
}

TEST(Workspace, ClosureOfPointMassIsTheAnchorTriangle) {
  // three cables to a point: they positively span the plane iff the point is inside the triangle
  Eigen::Matrix3Xd A(3, 3);
  A << -1.0, 1.0, 0.2, -0.8, -0.6, 1.0, 0, 0, 0;
  const Model model = planar_model(A, Eigen::Matrix3Xd::Zero(3, 3), 0.0, 100.0, 1.0);
  WorkspaceOptions o;
  o.kind = WorkspaceKind::kClosure;
  o.rows = {WrenchRow::kFx, WrenchRow::kFy};
  WorkspaceGrid grid;
  grid.lo_m = Eigen::Vector3d(-1.2, -1.2, 0.0);
  grid.hi_m = Eigen::Vector3d(1.2, 1.2, 0.0);
  grid.count = {80, 80, 1};
  const auto r = evaluate_grid(model, o, grid);
  auto cross = [](const Eigen::Vector2d& p, const Eigen::Vector2d& q, const Eigen::Vector2d& x) {
    return (q - p).x() * (x - p).y() - (q - p).y() * (x - p).x();
  };
  int in = 0;
  for (int i = 0; i < r.p_WP.cols(); ++i) {
    const Eigen::Vector2d x = r.p_WP.col(i).head<2>();
    const double c0 = cross(A.col(0).head<2>(), A.col(1).head<2>(), x);
    const double c1 = cross(A.col(1).head<2>(), A.col(2).head<2>(), x);
    const double c2 = cross(A.col(2).head<2>(), A.col(0).head<2>(), x);
    const double m = std::min({c0, c1, c2}), M = std::max({c0, c1, c2});
    if (std::min(std::abs(m), std::abs(M)) < 1e-9 && m * M <= 0) continue;
    const bool inside = (m > 0) || (M < 0);
    EXPECT_EQ(r.verdicts[static_cast<std::size_t>(i)].inside(), inside) << x.transpose();
    in += inside;
    EXPECT_TRUE(std::isnan(r.verdicts[static_cast<std::size_t>(i)].margin));
  }
  EXPECT_GT(in, 500);
  // the full planar problem (3 rows incl. mz) with 3 cables cannot be in closure: no f > 0 with J f = 0
  WorkspaceOptions full;
  full.kind = WorkspaceKind::kClosure;
  const Model planar4 = load_model(test::model_path("planar4.yaml")).model;  // outlives the evaluator
  WorkspaceEvaluator e(planar4, full);
  EXPECT_TRUE(e.evaluate(pose_planar(0.0, 0.0, 0.0)).inside());   // 4 cables, crossed upper pair
  EXPECT_FALSE(e.evaluate(pose_planar(3.0, 0.0, 0.0)).inside());  // outside the frame
}

TEST(Workspace, OrientationWorkspaceMatchesSinglePoses) {
  const Model model = load_model(test::model_path("planar4.yaml")).model;
  WorkspaceOptions o;
  o.kind = WorkspaceKind::kStatic;
  const auto poses =
      orientation_grid(model, Eigen::Vector3d(0.3, 0.1, 0.0), Eigen::Vector3d(0, 0, -1.5), Eigen::Vector3d(0, 0, 1.5), {1, 1, 61});
  ASSERT_EQ(poses.size(), 61u);
  o.threads = 2;
  const auto v = evaluate_poses(model, o, poses);
  WorkspaceEvaluator e(model, o);
  int in = 0;
  for (std::size_t i = 0; i < poses.size(); ++i) {
    EXPECT_EQ(v[i].cls, e.evaluate(poses[i]).cls);
    in += v[i].inside();
  }
  EXPECT_GT(in, 0);
  EXPECT_LT(in, 61);  // +-1.5 rad is beyond what the crossed upper pair can hold
}

TEST(Workspace, CableThroughAnAnchorIsUndefinedNotInside) {
  const PointMass pm;
  const Model model = pm.model();  // the evaluator keeps a reference: the model must outlive it
  WorkspaceEvaluator e(model, pm.options());
  EXPECT_EQ(e.evaluate(pose_planar(-1.0, 1.0, 0.0)).cls, PoseClass::kUndefined);
}

using tendyn::test::error_of;

TEST(Workspace, BadInputNamesTheArgument) {
  const Model model = load_model(test::model_path("planar4.yaml")).model;
  WorkspaceOptions o;
  o.wrench_lo = Eigen::Vector2d(0, 0);
  o.wrench_hi = Eigen::Vector2d(1, 1);
  EXPECT_NE(
      error_of([&] { WorkspaceEvaluator e(model, o); }).find("wrench box: 2 lower and 2 upper values, the problem has 3 rows (fx, fy, mz)"),
      std::string::npos);
  o.wrench_lo = Eigen::Vector3d(0, 5, 0);
  o.wrench_hi = Eigen::Vector3d(1, 3, 0);
  EXPECT_NE(
      tendyn::test::error_of([&] { WorkspaceEvaluator e(model, o); }).find("row fy: lower bound 5 > upper bound 3 (empty wrench set)"),
      std::string::npos);
  o.kind = WorkspaceKind::kStatic;
  o.wrench_lo = Eigen::Vector3d(0, 0, 0);
  o.wrench_hi = Eigen::Vector3d(1, 1, 0);
  EXPECT_NE(tendyn::test::error_of([&] { WorkspaceEvaluator e(model, o); }).find("kind 'static' takes no external wrench set"),
            std::string::npos);
  WorkspaceOptions b;
  b.f_min_N = 50;
  b.f_max_N = 10;
  EXPECT_NE(error_of([&] { WorkspaceEvaluator e(model, b); }).find("f_min_N 50 >= f_max_N 10"), std::string::npos);
  b = WorkspaceOptions{};
  b.f_min_N = -1;
  EXPECT_NE(error_of([&] { WorkspaceEvaluator e(model, b); }).find("f_min_N -1 must be finite and >= 0"), std::string::npos);
  WorkspaceGrid g;
  g.count = {0, 3, 1};
  EXPECT_NE(error_of([&] { evaluate_grid(model, {}, g); }).find("grid x: count 0 must be >= 1"), std::string::npos);
  g.count = {3, 3, 2};
  EXPECT_NE(error_of([&] { evaluate_grid(model, {}, g); }).find("planar model takes no z axis"), std::string::npos);
  g.count = {3, 3, 1};
  g.lo_m.y() = 1.0;
  EXPECT_NE(error_of([&] { evaluate_grid(model, {}, g); }).find("grid y: lower bound 1 > upper bound 0"), std::string::npos);
  RaySpec r;
  r.start_m = Eigen::Vector3d(5.0, 0.0, 0.0);
  EXPECT_NE(error_of([&] { cast_rays(model, {}, r); }).find("ray start (5, 0, 0) m is not inside the feasible workspace"),
            std::string::npos);
  r.start_m.setZero();
  r.tol_m = 1.0;
  EXPECT_NE(error_of([&] { cast_rays(model, {}, r); }).find("rays: tol_m 1 > step_m 0.05"), std::string::npos);
  EXPECT_NE(
      error_of([] { workspace_kind_from_string("fesible"); }).find("unknown workspace kind 'fesible' (valid: feasible, static, closure)"),
      std::string::npos);
}

// ------------------------------------------------------------------ tendyn cdpr workspace
std::string read_text(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(WorkspaceCli, WritesGridRaysOrientationsAndSummary) {
  const auto dir = test::temp_dir("ws_cli");
  std::filesystem::remove_all(dir / "out");
  const auto r = tendyn::test::run_cli("cdpr workspace " + test::model_path("planar4.yaml") +
                                       " --kind static --grid -1:1:40,-1:1:40 --rays 16 --start 0,0"
                                       " --orientation-grid -1:1:9 --at 0,0 -q -o " +
                                       (dir / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("grid 40 x 40 x 1:"), std::string::npos) << r.out;
  const std::string grid = read_text(dir / "out" / "grid.csv");
  EXPECT_EQ(grid.rfind("x_m,y_m,z_m,status,capacity_margin_N,residual_norm_N\n", 0), 0u);
  EXPECT_EQ(read_text(dir / "out" / "rays.csv").rfind("azimuth_rad,elevation_rad,distance_m,x_m,y_m,z_m,status,capacity_margin_N\n", 0),
            0u);
  EXPECT_EQ(std::count(grid.begin(), grid.end(), '\n'), 1 + 40 * 40);
  const std::string rays = read_text(dir / "out" / "rays.csv");
  EXPECT_EQ(std::count(rays.begin(), rays.end(), '\n'), 17);
  const std::string orient = read_text(dir / "out" / "orientations.csv");
  EXPECT_EQ(std::count(orient.begin(), orient.end(), '\n'), 10);
  const std::string summary = read_text(dir / "out" / "summary.json");
  EXPECT_NE(summary.find("\"kind\": \"static\""), std::string::npos);
  EXPECT_NE(summary.find("\"area_m2\""), std::string::npos);
  EXPECT_NE(summary.find("\"empty\": false"), std::string::npos);
  // the same files for another thread count
  const auto r2 = tendyn::test::run_cli("cdpr workspace " + test::model_path("planar4.yaml") +
                                        " --kind static --grid -1:1:40,-1:1:40 --rays 16 --start 0,0"
                                        " --orientation-grid -1:1:9 --at 0,0 --threads 2 -q -o " +
                                        (dir / "out2").string());
  ASSERT_EQ(r2.code, 0) << r2.out;
  EXPECT_EQ(read_text(dir / "out2" / "grid.csv"), grid);
  EXPECT_EQ(read_text(dir / "out2" / "rays.csv"), rays);
}

// --wrench-set ellipsoid: the CLI's verdicts are the library's; bad shapes exit 2 naming the option
TEST(WorkspaceCli, WrenchSetEllipsoidMatchesTheLibraryAndBadShapesExit2) {
  const auto dir = test::temp_dir("ws_cli_ell");
  std::filesystem::remove_all(dir / "out");
  const std::string m = test::model_path("planar4.yaml");
  const auto r = tendyn::test::run_cli(
      "cdpr workspace " + m + " --wrench-set ellipsoid:fx=1:4,fy=0:3,mz=0:0.1 --grid -1:1:16,-1:1:16 -q -o " + (dir / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(read_text(dir / "out" / "summary.json"));
  const Model model = load_model(m).model;
  WorkspaceOptions o;
  o.wrench_centre = Eigen::Vector3d(1.0, 0.0, 0.0);
  o.wrench_shape = Eigen::Vector3d(4.0, 3.0, 0.1).asDiagonal();
  WorkspaceGrid g;
  g.lo_m = Eigen::Vector3d(-1, -1, 0);
  g.hi_m = Eigen::Vector3d(1, 1, 0);
  g.count = {16, 16, 1};
  const auto lib = evaluate_grid(model, o, g);
  EXPECT_GT(lib.inside_count, 10);
  EXPECT_EQ(j["grid"]["inside"].get<int>(), lib.inside_count);
  EXPECT_EQ(j["wrench_ellipsoid"]["centre"]["fx"].get<double>(), 1.0);
  EXPECT_EQ(j["wrench_ellipsoid"]["shape"][1][1].get<double>(), 3.0);
  // the full form gives the same
  const auto r2 = tendyn::test::run_cli("cdpr workspace " + m +
                                        " --wrench-set ellipsoid:centre=1:0:0,shape=4:0:0:0:3:0:0:0:0.1 --grid -1:1:16,-1:1:16 -q -o " +
                                        (dir / "out2").string());
  ASSERT_EQ(r2.code, 0) << r2.out;
  EXPECT_EQ(read_text(dir / "out2" / "grid.csv"), read_text(dir / "out" / "grid.csv"));
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--wrench-set ellipsoid:centre=0:0:0,shape=1:0:0:0:-1:0:0:0:1",
       "--wrench-set: wrench ellipsoid: shape is not positive semi-definite (smallest eigenvalue -1)"},
      {"--wrench-set ellipsoid:centre=0:0:0,shape=1:2:0:0:1:0:0:0:1",
       "--wrench-set: wrench ellipsoid: shape is not symmetric: (fx, fy) = 2"},
      {"--wrench-set ellipsoid:centre=0:0,shape=1:0:0:1",
       "--wrench-set: centre has 2 and shape 4 values, the problem's 3 rows need 3 and 9"},
      {"--wrench-set ellipsoid:fx=nan:1", "--wrench-set ellipsoid fx"},
      {"--wrench-set ellipsoid:fx=0:-1", "--wrench-set ellipsoid fx: semi-axis -1 < 0"},
      {"--wrench-set ellipsoid:fz=0:1", "--wrench-set ellipsoid: row 'fz' is not a row of the problem (fx, fy, mz)"},
      {"--wrench-set sphere:1", "--wrench-set: 'sphere:1': expected box:ROW=LO:HI"},
      {"--wrench-set box:fx=2:1", "--wrench-set: wrench box: row fx: lower bound 2 > upper bound 1"},
      {"--wrench-box fx=0:1 --wrench-set ellipsoid:fx=0:1", "--wrench-box, --wrench-set: give one wrench set, not both"},
      {"--kind static --wrench-set ellipsoid:fx=0:1", "--wrench-set: only with --kind feasible"},
  };
  for (const auto& c : cases) {
    const auto rb = tendyn::test::run_cli("cdpr workspace " + m + " " + c.args + " -q -o " + (dir / "bad").string());
    EXPECT_EQ(rb.code, 2) << c.args << "\n" << rb.out;
    EXPECT_NE(rb.out.find(c.message), std::string::npos) << c.args << "\n" << rb.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad")) << c.args;
  }
}

TEST(WorkspaceCli, EmptyWorkspaceIsReported) {
  const auto dir = test::temp_dir("ws_cli_empty");
  // 1 N of tension cannot hold a 1 kg platform anywhere
  const auto r = tendyn::test::run_cli("cdpr workspace " + test::model_path("planar4.yaml") +
                                       " --kind static --fmax 1.5 --grid -1:1:10,-1:1:10 -q -o " + (dir / "out").string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warning: the static workspace is EMPTY on this grid"), std::string::npos) << r.out;
  EXPECT_NE(read_text(dir / "out" / "summary.json").find("\"empty\": true"), std::string::npos);
}

TEST(WorkspaceCli, BadInputExits2WithThePlace) {
  const auto dir = test::temp_dir("ws_cli_bad");
  const std::string m = test::model_path("planar4.yaml");
  const std::string o = " -q -o " + (dir / "out").string();
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--wrench-box fx=5:3", "--wrench-box: wrench box: row fx: lower bound 5 > upper bound 3 (empty wrench set)"},
      {"--wrench-box fz=0:1", "--wrench-box: row 'fz' is not a row of the problem (fx, fy, mz)"},
      {"--wrench-box fx", "--wrench-box: 'fx': expected ROW=LO:HI"},
      {"--kind static --wrench-box fx=-1:1", "--wrench-box: only with --kind feasible"},
      {"--kind feasable", "unknown workspace kind 'feasable' (valid: feasible, static, closure)"},
      {"--fmin 50 --fmax 10", "--fmin/--fmax: workspace: f_min_N 50 >= f_max_N 10"},
      {"--grid -1:1:10", "--grid: 1 axes given, this model needs 2"},
      {"--grid 1:-1:10,-1:1:10", "--grid x: lower bound 1 > upper bound -1"},
      {"--grid -1:1:0,-1:1:10", "--grid x: count '0' must be a whole number >= 1"},
      {"--rays 8 --start 5,0", "--start: ray start (5, 0, 0) m is not inside the feasible workspace"},
      {"--rays 8 --start 0", "--start: expected x,y [m], got 1 values"},
      {"--cloud-outside", "--cloud-outside: only with --html"},
  };
  for (const auto& c : cases) {
    const auto r = tendyn::test::run_cli("cdpr workspace " + m + " " + c.args + o);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "out")) << c.args;
  }
}

// scene.json in the result set: the robot and the grid's inside points as a cloud coloured by the
// capacity margin (values = grid.csv's margins of the inside rows), the boundary highlighted.
TEST(WorkspaceCli, SceneHoldsTheGridAsACloud) {
  const auto dir = test::temp_dir("ws_cli_scene");
  std::filesystem::remove_all(dir / "out");
  const auto r = tendyn::test::run_cli("cdpr workspace " + test::model_path("planar4.yaml") + " --grid -1:1:16,-1:1:16 -q -o " +
                                       (dir / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto scene = nlohmann::json::parse(read_text(dir / "out" / "scene.json"));
  const auto summary = nlohmann::json::parse(read_text(dir / "out" / "summary.json"));
  EXPECT_EQ(scene["kind"], "cdpr");
  EXPECT_EQ(scene["frames"]["t_s"].size(), 1u);
  ASSERT_EQ(scene["clouds"].size(), 1u);
  const auto& c = scene["clouds"][0];
  EXPECT_EQ(c["value_label"], "capacity margin [N]");
  const int inside = summary["grid"]["inside"];
  ASSERT_GT(inside, 0);
  ASSERT_EQ(c["values"].size(), static_cast<std::size_t>(inside));
  EXPECT_EQ(c["highlight"].size(), summary["grid"]["boundary_points"].get<std::size_t>());
  // the margins are grid.csv's, inside rows in order
  std::istringstream grid(read_text(dir / "out" / "grid.csv"));
  std::string line;
  std::getline(grid, line);
  std::size_t k = 0;
  while (std::getline(grid, line)) {
    if (line.find(",inside,") == std::string::npos) continue;
    const auto a = line.find(",inside,") + 8;
    const double m = std::stod(line.substr(a, line.find(',', a) - a));
    ASSERT_LT(k, c["values"].size());
    EXPECT_NEAR(c["values"][k].get<double>(), m, 1e-6 * std::max(1.0, std::abs(m))) << line;
    ++k;
  }
  EXPECT_EQ(k, c["values"].size());
}

}  // namespace
}  // namespace tendyn::cdpr
