// Interference: segment distances against analytic cases and brute-force sampling, segment
// clipping by convex shapes, the convex hull of points, and the trajectory / predicate front ends.
#include <gtest/gtest.h>

#include <tendyn/cdpr/interference.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "test_util.hpp"

#include "support/error_of.hpp"

namespace tendyn::cdpr {
namespace {

using Eigen::Vector3d;
using tendyn::test::error_of;

/// min over an (k+1) x (k+1) grid of sample points: an upper bound of the distance that
/// converges to it as k grows (error <= (|d1| + |d2|) / (2 k)).
double sampled_distance(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0, const Vector3d& b1, int k) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= k; ++i)
    for (int j = 0; j <= k; ++j) {
      const double s = static_cast<double>(i) / k, t = static_cast<double>(j) / k;
      best = std::min(best, ((a0 + s * (a1 - a0)) - (b0 + t * (b1 - b0))).norm());
    }
  return best;
}

TEST(SegmentDistance, AnalyticCases) {
  // skew: x axis segment at z = 0, y direction segment at z = 1 crossing above x = 0.3
  auto d = segment_distance({-1, 0, 0}, {1, 0, 0}, {0.3, -1, 1}, {0.3, 1, 1});
  EXPECT_NEAR(d.distance_m, 1.0, 1e-15);
  EXPECT_NEAR(d.s, 0.65, 1e-15);
  EXPECT_NEAR(d.t, 0.5, 1e-15);
  // skew lines whose closest points lie outside one segment: the end point counts
  d = segment_distance({-1, 0, 0}, {1, 0, 0}, {3, -1, 1}, {3, 1, 1});
  EXPECT_NEAR(d.distance_m, std::sqrt(4.0 + 1.0), 1e-14);
  EXPECT_EQ(d.s, 1.0);
  // parallel, overlapping in projection: the line distance
  d = segment_distance({0, 0, 0}, {2, 0, 0}, {1, 0.5, 0}, {3, 0.5, 0});
  EXPECT_NEAR(d.distance_m, 0.5, 1e-15);
  // parallel, disjoint projections: gap 1 along x, offset 0.5
  d = segment_distance({0, 0, 0}, {1, 0, 0}, {2, 0.5, 0}, {3, 0.5, 0});
  EXPECT_NEAR(d.distance_m, std::hypot(1.0, 0.5), 1e-15);
  // anti-parallel (reversed direction), disjoint
  d = segment_distance({0, 0, 0}, {1, 0, 0}, {3, 0.5, 0}, {2, 0.5, 0});
  EXPECT_NEAR(d.distance_m, std::hypot(1.0, 0.5), 1e-15);
  // collinear, overlapping: 0
  d = segment_distance({0, 0, 0}, {2, 0, 0}, {1, 0, 0}, {3, 0, 0});
  EXPECT_EQ(d.distance_m, 0.0);
  // crossing (touching) in their interiors
  d = segment_distance({-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0});
  EXPECT_EQ(d.distance_m, 0.0);
  // sharing an end point
  d = segment_distance({0, 0, 0}, {1, 2, 3}, {1, 2, 3}, {4, 4, 4});
  EXPECT_EQ(d.distance_m, 0.0);
  // degenerate: a point and a segment, two points
  d = segment_distance({0, 1, 0}, {0, 1, 0}, {-1, 0, 0}, {1, 0, 0});
  EXPECT_NEAR(d.distance_m, 1.0, 1e-15);
  d = segment_distance({0, 0, 0}, {0, 0, 0}, {3, 4, 0}, {3, 4, 0});
  EXPECT_NEAR(d.distance_m, 5.0, 1e-15);
  EXPECT_NE(error_of([] { (void)segment_distance({0, 0, std::nan("")}, {1, 0, 0}, {0, 0, 0}, {1, 1, 1}); }).find("a0"), std::string::npos);
}

TEST(SegmentDistance, AgreesWithBruteForceSamplingWhichConvergesFromAbove) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto rnd = [&] { return Vector3d(u(rng), u(rng), u(rng)); };
  for (int trial = 0; trial < 200; ++trial) {
    const Vector3d a0 = rnd(), a1 = rnd(), b0 = rnd();
    // every fourth pair parallel (b = a direction scaled, shifted)
    const Vector3d b1 = trial % 4 == 0 ? Vector3d(b0 + 0.7 * (a1 - a0)) : rnd();
    const double exact = segment_distance(a0, a1, b0, b1).distance_m;
    const double coarse = sampled_distance(a0, a1, b0, b1, 50);
    const double fine = sampled_distance(a0, a1, b0, b1, 400);
    const double bound = ((a1 - a0).norm() + (b1 - b0).norm()) / (2.0 * 400);
    ASSERT_GE(fine, exact - 1e-12) << trial;  // sampling never beats the exact minimum
    ASSERT_LE(fine, coarse + 1e-15) << trial;
    ASSERT_LE(fine - exact, bound + 1e-12) << trial;  // and converges to it
    // symmetric in the two segments and in their directions
    EXPECT_NEAR(segment_distance(b1, b0, a1, a0).distance_m, exact, 1e-12) << trial;
  }
}

TEST(ConvexShape, BoxClipsSegmentsExactly) {
  const ConvexShape box = box_shape({0.5, 0.5, 0.4});
  // through the middle along x from -2 to 2: 1 m inside
  auto c = clip_segment(box, {-2, 0, 0}, {2, 0, 0});
  EXPECT_NEAR(c.length_m, 1.0, 1e-15);
  EXPECT_NEAR(c.t_enter, 0.375, 1e-15);
  // from a top-face point going up: touches only
  c = clip_segment(box, {0.1, 0.1, 0.4}, {3, 3, 10});
  EXPECT_NEAR(c.length_m, 0.0, 1e-15);
  // from a bottom corner going up through the box diagonal towards (+x, +y): inside until it
  // leaves through x = 0.5 (corner (-0.5, -0.5, -0.4), direction (10, 10, 2.6))
  c = clip_segment(box, {-0.5, -0.5, -0.4}, {9.5, 9.5, 2.2});
  const double t_exit = 1.0 / 10.0;  // x reaches 0.5 at t = 0.1; z = -0.14 there (inside)
  EXPECT_NEAR(c.t_exit, t_exit, 1e-15);
  EXPECT_NEAR(c.length_m, t_exit * Vector3d(10, 10, 2.6).norm(), 1e-14);
  // lying in a face: inside (length of the part within the face)
  c = clip_segment(box, {-1, 0, 0.4}, {1, 0, 0.4});
  EXPECT_NEAR(c.length_m, 1.0, 1e-15);
  // outside entirely
  EXPECT_EQ(clip_segment(box, {1, 1, 1}, {2, 2, 2}).length_m, 0.0);
  EXPECT_NE(error_of([] { (void)box_shape({0.5, 0.0, 1.0}); }).find("half extents"), std::string::npos);
}

TEST(ConvexShape, HullOfCubeCornersIsTheCube) {
  Eigen::Matrix3Xd pts(3, 9);
  int k = 0;
  for (int x : {-1, 1})
    for (int y : {-1, 1})
      for (int z : {-1, 1}) pts.col(k++) = Vector3d(x, y, z);
  pts.col(8) = Vector3d(0.2, 0.1, 0.0);  // an interior point changes nothing
  const ConvexShape h = convex_hull_shape(pts);
  EXPECT_EQ(h.normals.cols(), 6);  // coplanar face triangles merged
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  const ConvexShape box = box_shape({1, 1, 1});
  for (int t = 0; t < 100; ++t) {
    const Vector3d p0(u(rng), u(rng), u(rng)), p1(u(rng), u(rng), u(rng));
    EXPECT_NEAR(clip_segment(h, p0, p1).length_m, clip_segment(box, p0, p1).length_m, 1e-12);
  }
  // flat: a square in z = 0; an in-plane segment is clipped, a crossing one has zero length
  Eigen::Matrix3Xd sq(3, 4);
  sq << -1, 1, 1, -1, -1, -1, 1, 1, 0, 0, 0, 0;
  const ConvexShape f = convex_hull_shape(sq);
  EXPECT_NEAR(clip_segment(f, {-3, 0, 0}, {3, 0, 0}).length_m, 2.0, 1e-14);
  EXPECT_NEAR(clip_segment(f, {0, 0, -1}, {0, 0, 1}).length_m, 0.0, 1e-14);
  Eigen::Matrix3Xd line(3, 3);
  line << 0, 1, 2, 0, 1, 2, 0, 1, 2;
  EXPECT_NE(error_of([&] { (void)convex_hull_shape(line); }).find("collinear"), std::string::npos);
}

TEST(Interference, PlanarModelsCrossingUpperCablesAndTheTrajectoryReport) {
  const ModelFile mf = load_model(test::model_path("planar4.yaml"));
  const Model& m = mf.model;
  // c1: (0.1, 0.1) -> (-1, 1) and c2: (-0.1, 0.1) -> (1, 1) cross (the model's comment says so)
  const Pose p0 = pose_planar(0, 0, 0);
  InterferenceOptions o;
  const PoseInterference at = pose_interference(m, p0, o);
  const auto pairs = cable_pairs(4);
  ASSERT_EQ(at.pair_distance_m.size(), 6);
  EXPECT_EQ(pairs[0], std::make_pair(0, 1));
  EXPECT_NEAR(at.pair_distance_m[0], 0.0, 1e-15);  // crossing: 0 up to rounding
  EXPECT_FALSE(at.free);
  // c3 and c4 (lower, not crossing): direct computation
  const Data d = [&] {
    Data x = make_data(m);
    update_geometry(m, p0, x);
    return x;
  }();
  const double d34 = segment_distance(d.p_WB.col(2), m.p_WA.col(2), d.p_WB.col(3), m.p_WA.col(3)).distance_m;
  EXPECT_NEAR(at.pair_distance_m[5], d34, 0.0);
  EXPECT_NEAR(d34, 0.2, 1e-15);  // the attachment points are 0.2 m apart and the cables diverge
  // trajectory: the first row is reported as the first interference
  PoseTrajectory traj;
  traj.q.resize(3, 3);
  traj.q << 0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.2, 0.0, 0.0;
  const auto r = trajectory_interference(m, traj, o);
  EXPECT_EQ(r.first_interference_row, 0);
  EXPECT_EQ(r.first_close_row[0], 0);
  EXPECT_EQ(r.first_close_row[5], -1);
  const std::string csv = interference_csv(m, r);
  EXPECT_EQ(csv.rfind("kind,cable_a,cable_b,value_m,at_row,first_row\npair,c1,c2,", 0), 0u) << csv;
  EXPECT_NE(csv.find("\npair,c3,c4,0.2,0,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nplatform,c1,,0,,\n"), std::string::npos) << csv;
  EXPECT_NE(error_of([&] {
              InterferenceOptions bad;
              bad.clearance_m = -1;
              (void)trajectory_interference(m, traj, bad);
            }).find("clearance_m"),
            std::string::npos);
  PoseTrajectory empty;
  empty.q.resize(0, 3);
  EXPECT_NE(error_of([&] { (void)trajectory_interference(m, empty, o); }).find("no pose"), std::string::npos);
}

TEST(Interference, PrinterLowerCablesRunThroughTheBoxAndTheClearanceSeparatesPairs) {
  const ModelFile mf = load_model(test::model_path("printer8.yaml"));
  const Model& m = mf.model;
  // yaw 90 degrees: l1's attachment (-0.5, 0.5, -0.4) turns to (-0.5, -0.5, -0.4), the corner
  // away from its anchor (10, 10, 2.2), so the cable runs through the box.
  const Pose pose = pose_from_xyz_rpy({0, 0, 2}, {0, 0, std::acos(-1.0) / 2});
  InterferenceOptions o;
  o.platform = box_shape({0.5, 0.5, 0.4});
  const PoseInterference at = pose_interference(m, pose, o);
  // upper cables leave the top face upwards: no length inside
  for (int i = 0; i < 4; ++i) EXPECT_LT(at.penetration_m[i], 1e-9) << i;
  // P at z = 2 (box z in [1.6, 2.4]): l1 from (-0.5, -0.5, 1.6) up to (10, 10, 2.2) is inside the
  // box until x = y = 0.5 (t = 1 / 10.5; z = 1.6 + 0.6 t stays within the box)
  const Vector3d B(-0.5, -0.5, 2 - 0.4), A(10, 10, 2.2);
  const Vector3d dir = A - B;
  const double t = 1.0 / dir.x();
  EXPECT_NEAR(at.penetration_m[4], t * dir.norm(), 1e-9);
  EXPECT_GT(at.penetration_m[4], 0.1);
  EXPECT_FALSE(at.free);
  EXPECT_FALSE(interference_free(m, pose, o));
  // printer8's lower cables cross pairwise (l1 from (-0.5, 0.5) to (10, 10), l2 from (0.5, 0.5)
  // to (-10, 10), both from z = -0.4 in P up to z = 2.2): they touch at the upright pose
  const PoseInterference up3 = pose_interference(m, pose_from_xyz_rpy({0, 0, 3}, {0, 0, 0}), InterferenceOptions{});
  const auto pairs = cable_pairs(8);
  const auto l1l2 = static_cast<Eigen::Index>(std::find(pairs.begin(), pairs.end(), std::make_pair(4, 5)) - pairs.begin());
  EXPECT_LT(up3.pair_distance_m[l1l2], 1e-12);
  EXPECT_FALSE(up3.free);
  // the upper cables alone: free with a clearance below their smallest pair distance, not above
  const Model upper = make_model("upper", Motion::kSpatial, m.p_WA.leftCols(4), m.p_PB.leftCols(4));
  InterferenceOptions cab;
  const PoseInterference c = pose_interference(upper, pose, cab);
  const double dmin = c.pair_distance_m.minCoeff();
  EXPECT_GT(dmin, 0.2);
  EXPECT_TRUE(c.free);
  cab.clearance_m = 0.999 * dmin;
  EXPECT_TRUE(interference_free(upper, pose, cab));
  cab.clearance_m = 1.001 * dmin;
  EXPECT_FALSE(interference_free(upper, pose, cab));
  // the hull predicate: the upper attachment points are coplanar (a flat square at z = 0.4), the
  // cables leave it upwards: free at clearance 0
  EXPECT_TRUE(interference_free(upper, pose, 0.0));
}

}  // namespace
}  // namespace tendyn::cdpr
