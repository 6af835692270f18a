// Workspaces against published results (docs/VALIDATION.md, "published workspace results").
//
// "On the properties and the determination of the wrench-closure workspace of planar parallel
// cable-driven mechanisms", HAL lirmm-00198798 (abstract, hal-lirmm.ccsd.cnrs.fr/lirmm-00198798v1;
// the journal version is Gouttefarde & Gosselin, IEEE T-RO 22(3), 434-445, 2006, lirmm-00199376):
// the constant-orientation wrench-closure workspace (WCW) of a planar 3-DOF mechanism driven by
// four cables "is proved to be the union of two disconnected sets that may or may not exist" and
// "its boundary is shown to be composed of portions of conic sections".
//
// Why, in the form checked here. Scale each column of J (3 x 4, rows fx, fy, mz) by its cable
// length: w_j = [l_j; (R b_j) x l_j], l_j = a_j - p - R b_j, is affine in the position p. The
// null vector of W = [w_1 .. w_4] is g_i = (-1)^i det(W without column i) (cofactors; the
// positive scales l_j do not change its signs), and the pose is in the WCW iff rank W = 3 and
// J f = 0 has f > 0, i.e. iff all g_i > 0 (one set) or all g_i < 0 (the other set). Each g_i is
// a determinant of three affine columns whose p-parts share their two force rows, so its cubic
// part vanishes: g_i is a quadratic in (x, y), and the boundary lies on the conics g_i = 0.
//
// For planar4 (models/cdpr/planar4.yaml) at phi = 0 the conics factor into lines:
//   g_0 = g_1 = 0.4 (0.9 - y)(0.9 + y),  g_2 = 0.4 (0.9 - y)(0.9 - y + 2x),
//   g_3 = 0.4 (0.9 - y)(0.9 - y - 2x)   [m^4: rows fx, fy in m, mz in m^2 after the scaling],
// so the WCW is the triangle |x| < (0.9 - y) / 2, y > -0.9 with corners (0, 0.9), (+-0.9, -0.9)
// m: area 1.62 m^2, the x axis crossed at +-0.45 m, the y axis at +-0.9 m. At phi = 1 rad both
// sets are non-empty.
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/workspace.hpp>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/QR>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "test_util.hpp"

namespace tendyn::cdpr {
namespace {

/// The four signed minors g_i at a pose, from tendyn's structure matrix (columns times lengths).
std::array<double, 4> closure_minors(const Model& model, Data& data, const Pose& pose) {
  update_geometry(model, pose, data);
  Eigen::Matrix<double, 3, 4> W;
  for (int j = 0; j < 4; ++j) W.col(j) = data.J.col(j) * data.length_m[j];
  std::array<double, 4> g{};
  for (int i = 0; i < 4; ++i) {
    Eigen::Matrix3d M;
    for (int j = 0, k = 0; j < 4; ++j)
      if (j != i) M.col(k++) = W.col(j);
    g[static_cast<std::size_t>(i)] = (i % 2 == 0 ? 1.0 : -1.0) * M.determinant();
  }
  return g;
}

/// +1 / -1: every g_i of that sign (one of the two sets of the WCW); 0: mixed signs (outside).
int sign_class(const std::array<double, 4>& g) {
  if (std::all_of(g.begin(), g.end(), [](double v) { return v > 0.0; })) return 1;
  if (std::all_of(g.begin(), g.end(), [](double v) { return v < 0.0; })) return -1;
  return 0;
}

/// Least-squares conic c0 + c1 x + c2 y + c3 x^2 + c4 x y + c5 y^2 through samples (x, y, v).
Eigen::Matrix<double, 6, 1> fit_conic(const Eigen::Matrix3Xd& xyv) {
  Eigen::MatrixXd A(xyv.cols(), 6);
  for (int k = 0; k < xyv.cols(); ++k) {
    const double x = xyv(0, k), y = xyv(1, k);
    A.row(k) << 1.0, x, y, x * x, x * y, y * y;
  }
  return A.colPivHouseholderQr().solve(xyv.row(2).transpose());
}
double conic_value(const Eigen::Matrix<double, 6, 1>& c, double x, double y) {
  return c[0] + c[1] * x + c[2] * y + c[3] * x * x + c[4] * x * y + c[5] * y * y;
}
Eigen::Vector2d conic_gradient(const Eigen::Matrix<double, 6, 1>& c, double x, double y) {
  return Eigen::Vector2d(c[1] + 2.0 * c[3] * x + c[4] * y, c[2] + c[4] * x + 2.0 * c[5] * y);
}

struct ClosureGrid {
  WorkspaceGridResult result;
  std::vector<std::array<double, 4>> g;  // minors at each grid point
  double g_scale = 0.0;                  // largest |g_i| on the grid
  std::array<Eigen::Matrix<double, 6, 1>, 4> conic;
  double worst_conic_residual = 0.0;  // relative to g_scale
};

ClosureGrid closure_grid(const Model& model, double phi, int count) {
  WorkspaceOptions o;
  o.kind = WorkspaceKind::kClosure;
  WorkspaceGrid grid;
  grid.lo_m = Eigen::Vector3d(-1.2, -1.2, 0.0);
  grid.hi_m = Eigen::Vector3d(1.2, 1.2, 0.0);
  grid.count = {count, count, 1};
  grid.R_WP = pose_planar(0.0, 0.0, phi).R_WP;
  ClosureGrid cg;
  cg.result = evaluate_grid(model, o, grid);
  Data data = make_data(model);
  const auto N = cg.result.p_WP.cols();
  cg.g.resize(static_cast<std::size_t>(N));
  std::array<Eigen::Matrix3Xd, 4> samples;
  for (auto& s : samples) s.resize(3, N);
  for (int k = 0; k < N; ++k) {
    const Eigen::Vector3d p = cg.result.p_WP.col(k);
    const auto g = closure_minors(model, data, pose_planar(p.x(), p.y(), phi));
    cg.g[static_cast<std::size_t>(k)] = g;
    for (int i = 0; i < 4; ++i) {
      samples[static_cast<std::size_t>(i)].col(k) << p.x(), p.y(), g[static_cast<std::size_t>(i)];
      cg.g_scale = std::max(cg.g_scale, std::abs(g[static_cast<std::size_t>(i)]));
    }
  }
  for (int i = 0; i < 4; ++i) {
    const auto& s = samples[static_cast<std::size_t>(i)];
    cg.conic[static_cast<std::size_t>(i)] = fit_conic(s);
    for (int k = 0; k < N; ++k)
      cg.worst_conic_residual = std::max(
          cg.worst_conic_residual, std::abs(conic_value(cg.conic[static_cast<std::size_t>(i)], s(0, k), s(1, k)) - s(2, k)) / cg.g_scale);
  }
  return cg;
}

/// Distance estimate from p to the nearest conic g_i = 0: min_i |g_i(p)| / |grad g_i(p)| [m].
double distance_to_conics(const ClosureGrid& cg, const Eigen::Vector3d& p) {
  double d = std::numeric_limits<double>::infinity();
  for (const auto& c : cg.conic) {
    const double n = conic_gradient(c, p.x(), p.y()).norm();
    if (n > 0.0) d = std::min(d, std::abs(conic_value(c, p.x(), p.y())) / n);
  }
  return d;
}

/// planar4 at phi = 0: distance from the origin along (cos t, sin t) to the triangle's boundary.
double triangle_ray_distance(double t) {
  const double c = std::cos(t), s = std::sin(t);
  double r = std::numeric_limits<double>::infinity();
  if (s < 0.0) r = std::min(r, 0.9 / -s);                         // y = -0.9
  if (2.0 * c + s > 0.0) r = std::min(r, 0.9 / (2.0 * c + s));    // 2x + y = 0.9
  if (-2.0 * c + s > 0.0) r = std::min(r, 0.9 / (-2.0 * c + s));  // -2x + y = 0.9
  return r;
}

TEST(WorkspacePublished, PlanarFourCableClosureAtZeroOrientationIsTheConicTriangle) {
  const Model model = load_model(test::model_path("planar4.yaml")).model;
  const ClosureGrid cg = closure_grid(model, 0.0, 120);
  const auto& r = cg.result;
  // every minor is a conic (to round-off), the paper's boundary curves
  EXPECT_LT(cg.worst_conic_residual, 1e-12);
  // ... and here the line pairs of the file comment (g_0 = 0.324 - 0.4 y^2, g_2 = 0.324 + 0.72 x - ...)
  EXPECT_NEAR(cg.conic[0][0], 0.324, 1e-12);
  EXPECT_NEAR(cg.conic[0][5], -0.4, 1e-12);
  EXPECT_NEAR(cg.conic[2][1], 0.72, 1e-12);
  EXPECT_NEAR(cg.conic[2][4], -0.8, 1e-12);
  int inside = 0, near_conic = 0, compared = 0;
  for (int k = 0; k < r.p_WP.cols(); ++k) {
    const auto& g = cg.g[static_cast<std::size_t>(k)];
    const double x = r.p_WP(0, k), y = r.p_WP(1, k);
    const bool verdict = r.verdicts[static_cast<std::size_t>(k)].inside();
    inside += verdict;
    if (std::any_of(g.begin(), g.end(), [&](double v) { return std::abs(v) < 1e-9 * cg.g_scale; })) {
      ++near_conic;
      continue;
    }
    const int cls = sign_class(g);
    EXPECT_EQ(verdict, cls != 0) << "x " << x << " y " << y;
    EXPECT_NE(cls, -1) << "x " << x << " y " << y;  // only one of the two sets exists at phi = 0
    EXPECT_EQ(verdict, y > -0.9 && std::abs(x) < (0.9 - y) / 2.0) << "x " << x << " y " << y;
    ++compared;
  }
  EXPECT_EQ(near_conic, 0);
  EXPECT_EQ(compared, 120 * 120);
  EXPECT_GT(inside, 3000);
  EXPECT_EQ(r.undecided_count, 0);
  EXPECT_NEAR(r.measure, 1.62, 0.01 * 1.62) << "grid area";
}

TEST(WorkspacePublished, PlanarFourCableClosureIsTwoDisconnectedSetsAtOneRadian) {
  const Model model = load_model(test::model_path("planar4.yaml")).model;
  const double phi = 1.0;
  const int n = 120;
  const ClosureGrid cg = closure_grid(model, phi, n);
  const auto& r = cg.result;
  EXPECT_LT(cg.worst_conic_residual, 1e-12);
  std::vector<int> cls(static_cast<std::size_t>(r.p_WP.cols()), 0);
  int pos = 0, neg = 0, near_conic = 0;
  for (int k = 0; k < r.p_WP.cols(); ++k) {
    const auto& g = cg.g[static_cast<std::size_t>(k)];
    const bool verdict = r.verdicts[static_cast<std::size_t>(k)].inside();
    if (std::any_of(g.begin(), g.end(), [&](double v) { return std::abs(v) < 1e-9 * cg.g_scale; })) {
      ++near_conic;
      continue;
    }
    const int c = sign_class(g);
    EXPECT_EQ(verdict, c != 0) << "x " << r.p_WP(0, k) << " y " << r.p_WP(1, k);
    cls[static_cast<std::size_t>(k)] = verdict ? c : 0;
    pos += verdict && c > 0;
    neg += verdict && c < 0;
  }
  EXPECT_EQ(near_conic, 0);
  EXPECT_EQ(r.undecided_count, 0);
  // both sets present (areas about 0.15 and 0.05 m^2 on this grid) ...
  EXPECT_GT(pos, 300);
  EXPECT_GT(neg, 100);
  // ... and disconnected: no inside point touches an inside point of the other set
  for (int iy = 0; iy < n; ++iy)
    for (int ix = 0; ix < n; ++ix) {
      const int a = cls[static_cast<std::size_t>(iy * n + ix)];
      const int right = ix + 1 < n ? cls[static_cast<std::size_t>(iy * n + ix + 1)] : 0;
      const int up = iy + 1 < n ? cls[static_cast<std::size_t>((iy + 1) * n + ix)] : 0;
      EXPECT_FALSE(a * right < 0 || a * up < 0) << "cell " << ix << ", " << iy;
    }
  // the boundary lies on the conics: rays from the deepest point of each set
  WorkspaceOptions o;
  o.kind = WorkspaceKind::kClosure;
  for (int want : {1, -1}) {
    int best = -1;
    double depth = 0.0;
    for (int k = 0; k < r.p_WP.cols(); ++k) {
      if (cls[static_cast<std::size_t>(k)] != want) continue;
      const double d = distance_to_conics(cg, r.p_WP.col(k));
      if (d > depth) {
        depth = d;
        best = k;
      }
    }
    ASSERT_GE(best, 0);
    RaySpec spec;
    spec.start_m = r.p_WP.col(best);
    spec.R_WP = pose_planar(0.0, 0.0, phi).R_WP;
    spec.count = 90;
    spec.max_length_m = 3.0;
    spec.step_m = 0.01;
    spec.tol_m = 1e-7;
    const auto rays = cast_rays(model, o, spec);
    for (int k = 0; k < spec.count; ++k) {
      EXPECT_FALSE(rays.clipped[static_cast<std::size_t>(k)]) << "set " << want << " ray " << k;
      EXPECT_LT(distance_to_conics(cg, rays.boundary_m.col(k)), 1e-5) << "set " << want << " ray " << k;
    }
  }
}

TEST(WorkspaceClosure, RaysAndGridAgreeWithTheExactTriangle) {
  // internal oracle on the closure kind: ray casting against the exact triangle and the grid
  const Model model = load_model(test::model_path("planar4.yaml")).model;
  WorkspaceOptions o;
  o.kind = WorkspaceKind::kClosure;
  RaySpec spec;
  spec.count = 720;
  spec.max_length_m = 3.0;
  spec.step_m = 0.02;
  spec.tol_m = 1e-8;
  const auto rays = cast_rays(model, o, spec);
  double worst = 0.0;
  for (int k = 0; k < spec.count; ++k) {
    ASSERT_FALSE(rays.clipped[static_cast<std::size_t>(k)]) << "ray " << k;
    const double exact = triangle_ray_distance(2.0 * M_PI * k / spec.count);
    worst = std::max(worst, std::abs(rays.distance_m[k] - exact));
  }
  EXPECT_LT(worst, 1e-7);
  EXPECT_NEAR(rays.distance_m[0], 0.45, 1e-7);    // +x
  EXPECT_NEAR(rays.distance_m[180], 0.9, 1e-7);   // +y, the corner (0, 0.9)
  EXPECT_NEAR(rays.distance_m[360], 0.45, 1e-7);  // -x
  EXPECT_NEAR(rays.distance_m[540], 0.9, 1e-7);   // -y
  // (pi / N) sum r^2 of a triangle seen from inside: within 0.1 % of 1.62 m^2 with 720 rays
  EXPECT_NEAR(rays.measure, 1.62, 1e-3 * 1.62);
  WorkspaceGrid grid;
  grid.lo_m = Eigen::Vector3d(-1.2, -1.2, 0.0);
  grid.hi_m = Eigen::Vector3d(1.2, 1.2, 0.0);
  grid.count = {160, 160, 1};
  const auto g = evaluate_grid(model, o, grid);
  EXPECT_NEAR(g.measure, rays.measure, 0.01 * rays.measure) << "grid " << g.measure << " rays " << rays.measure;
  EXPECT_EQ(g.edge_inside_count, 0);
}

TEST(WorkspaceClosure, SpatialSevenCablesInsideExactlyWhereTheSignedMinorsShareASign) {
  // The same cofactor argument in 6 dimensions: with 7 cables the null vector of the 6 x 7
  // matrix W (columns of J times the lengths) is g_i = (-1)^i det(W without column i), and the
  // pose is in the WCW iff every g_i has the same strict sign. IPAnema-2-like frame (cable c8
  // left out), a 10^3 grid at two orientations.
  const Model full = load_model(test::model_path("ipanema2.yaml")).model;
  const Model model = make_model("ipanema2_7", Motion::kSpatial, full.p_WA.leftCols(7), full.p_PB.leftCols(7));
  WorkspaceOptions o;
  o.kind = WorkspaceKind::kClosure;
  Data data = make_data(model);
  for (const Eigen::Vector3d& rpy : {Eigen::Vector3d(0.0, 0.0, 0.0), Eigen::Vector3d(0.05, -0.05, 0.1)}) {
    WorkspaceGrid grid;
    grid.lo_m = Eigen::Vector3d(-4.0, -3.0, 0.0);
    grid.hi_m = Eigen::Vector3d(4.0, 3.0, 6.0);
    grid.count = {10, 10, 10};
    grid.R_WP = pose_from_xyz_rpy(Eigen::Vector3d::Zero(), rpy).R_WP;
    const auto r = evaluate_grid(model, o, grid);
    int inside = 0, compared = 0;
    for (int k = 0; k < r.p_WP.cols(); ++k) {
      Pose pose;
      pose.p_WP = r.p_WP.col(k);
      pose.R_WP = grid.R_WP;
      update_geometry(model, pose, data);
      Eigen::Matrix<double, 6, 7> W;
      for (int j = 0; j < 7; ++j) W.col(j) = data.J.col(j) * data.length_m[j];
      std::array<double, 7> g{};
      double scale = 0.0;
      for (int i = 0; i < 7; ++i) {
        Eigen::Matrix<double, 6, 6> M;
        for (int j = 0, c = 0; j < 7; ++j)
          if (j != i) M.col(c++) = W.col(j);
        g[static_cast<std::size_t>(i)] = (i % 2 == 0 ? 1.0 : -1.0) * M.determinant();
        scale = std::max(scale, std::abs(g[static_cast<std::size_t>(i)]));
      }
      if (std::any_of(g.begin(), g.end(), [&](double v) { return std::abs(v) < 1e-9 * scale; })) continue;
      const bool same_sign = std::all_of(g.begin(), g.end(), [](double v) { return v > 0.0; }) ||
                             std::all_of(g.begin(), g.end(), [](double v) { return v < 0.0; });
      const bool verdict = r.verdicts[static_cast<std::size_t>(k)].inside();
      EXPECT_EQ(verdict, same_sign) << "rpy " << rpy.transpose() << " p " << pose.p_WP.transpose();
      inside += verdict;
      ++compared;
    }
    EXPECT_GT(compared, 990);
    EXPECT_GT(inside, 20);  // 140 and 45 of 1000 (the tilt shrinks it)
    EXPECT_LT(inside, 500);
  }
}

}  // namespace
}  // namespace tendyn::cdpr
