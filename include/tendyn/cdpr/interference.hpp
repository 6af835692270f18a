// Interference of a cable-driven parallel robot: cable-cable distances and cable-platform
// collision, at a pose, along a trajectory, and as a predicate for workspace code.
//
// Cables are straight segments B_i (attachment point in world) -> A_i (frame anchor), as in
// geometry.hpp (no sag, no pulley radius). Two cables interfere when their segments come closer than
// a clearance [m]. The platform is a convex shape (an axis-aligned box in the platform frame, or the
// convex hull of the attachment points) written as half-spaces; a cable collides with the platform
// when a length of more than a tolerance of its segment lies inside the shape. A cable always
// touches the platform at its own attachment point (distance 0), so the measure of cable-platform
// interference is that length (the segment clipped by the half-spaces, exact up to rounding), not a
// distance. A flat shape (coplanar attachment points) can only hold a length of a cable lying in
// its plane: give a box with a thickness for a plate.
//
// Units: metres. Errors: tendyn::Error naming the argument and the reason.
#pragma once
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/tension_problem.hpp>

#include <Eigen/Core>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tendyn::cdpr {

/// Closest points of the segments a(s) = a0 + s (a1 - a0) and b(t) = b0 + t (b1 - b0), s, t in
/// [0, 1].
struct SegmentDistance {
  double distance_m = 0.0;  ///< |a(s) - b(t)|, the minimum over both segments [m]
  double s = 0.0;           ///< parameter of the closest point on a
  double t = 0.0;           ///< parameter of the closest point on b
};

/// Exact minimum distance between two segments (closest points by the clamped normal equations;
/// parallel segments, including collinear overlapping ones, and segments of zero length handled:
/// for parallel segments one of the minimising pairs is returned). Throws tendyn::Error on a
/// non-finite point. O(1).
SegmentDistance segment_distance(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                                 const Eigen::Vector3d& b1);

/// A convex shape as the intersection of half-spaces normal_k . x <= offset_k.
struct ConvexShape {
  Eigen::Matrix3Xd normals;   ///< (3 x K) unit outward normals
  Eigen::VectorXd offsets_m;  ///< (K) offsets [m]
  std::string description;    ///< e.g. "box 1 x 1 x 0.8 m", "hull of 8 attachment points"
};

/// Axis-aligned box in the platform frame: half sizes half_extents_m (each > 0) around centre_m.
/// Throws tendyn::Error on a non-positive or non-finite size.
ConvexShape box_shape(const Eigen::Vector3d& half_extents_m, const Eigen::Vector3d& centre_m = Eigen::Vector3d::Zero());

/// Convex hull of points (3 x k, k >= 3), as half-spaces: every plane through three points with
/// all points on one side (1e-9 of the points' extent), duplicates removed; coplanar points give
/// the flat polygon (the plane's two half-spaces and one per edge). Throws tendyn::Error when the
/// points are fewer than 3, non-finite or collinear (no area: give a box). O(k^4), k <= 64.
ConvexShape convex_hull_shape(const Eigen::Matrix3Xd& points_m);

/// The shape moved by a pose: normals R n, offsets o + (R n) . p (shape given in the platform frame).
ConvexShape transform_shape(const ConvexShape& shape_P, const Pose& pose);

/// Part of the segment p(t) = p0 + t (p1 - p0), t in [0, 1], inside the shape (clipped by every
/// half-space; exact up to rounding).
struct SegmentClip {
  double t_enter = 1.0, t_exit = 0.0;  ///< the interval inside (t_enter > t_exit: none)
  double length_m = 0.0;               ///< (t_exit - t_enter) |p1 - p0| when inside, else 0 [m]
};
/// Clips the segment by `shape` (in the same frame as the points). A segment lying in a face
/// counts as inside (slack 1e-12 of the segment's and shape's size).
SegmentClip clip_segment(const ConvexShape& shape, const Eigen::Vector3d& p0, const Eigen::Vector3d& p1);

struct InterferenceOptions {
  /// Cable pairs closer than this [m] interfere (>= 0); pairs within 1e-9 m (touching or crossing
  /// cables) always do.
  double clearance_m = 0.0;
  /// A cable interferes with the platform when more than this length [m] of it lies inside the
  /// platform shape (> 0; the default 1 micrometre ignores the contact at the attachment point).
  double penetration_tol_m = 1e-6;
  /// Platform shape in the platform frame; none: cable-platform collision is not checked.
  std::optional<ConvexShape> platform;
};

/// The index pairs (i, j), i < j, of n cables in order (0,1), (0,2), ..., (n-2, n-1).
std::vector<std::pair<int, int>> cable_pairs(int n);

/// Interference at one pose.
struct PoseInterference {
  /// (n (n - 1) / 2) distance of each pair of cable_pairs(n) [m]; NaN for a pair whose cables
  /// share their attachment point (their distance is 0 by construction and says nothing; such
  /// pairs are not checked).
  Eigen::VectorXd pair_distance_m;
  /// (n) length of each cable inside the platform shape [m] (0 without a shape).
  Eigen::VectorXd penetration_m;
  /// No pair closer than the clearance and no penetration above the tolerance.
  bool free = true;
};

/// Interference at `pose` (update_geometry, then every pair and every cable). Throws tendyn::Error
/// as update_geometry (a zero-length cable, a non-finite pose) and for bad options (negative or
/// non-finite clearance, non-positive tolerance). O(n^2 + n K).
PoseInterference pose_interference(const Model& model, const Pose& pose, const InterferenceOptions& options);

/// The predicate for workspace code: pose_interference(model, pose, options).free.
bool interference_free(const Model& model, const Pose& pose, const InterferenceOptions& options);
/// Same with only a clearance [m] and the convex hull of the attachment points as the platform
/// (no platform check when the attachment points are fewer than 3 or collinear).
bool interference_free(const Model& model, const Pose& pose, double clearance_m);

/// Interference along a trajectory.
struct TrajectoryInterference {
  std::vector<std::pair<int, int>> pairs;   ///< cable_pairs(n)
  Eigen::VectorXd min_distance_m;           ///< (pairs) minimum over the rows [m]; NaN: pair not checked
  std::vector<std::size_t> min_row;         ///< (pairs) row of that minimum
  std::vector<long> first_close_row;        ///< (pairs) first row closer than the clearance, -1: none
  Eigen::VectorXd max_penetration_m;        ///< (n) maximum length inside the platform [m]
  std::vector<long> first_penetration_row;  ///< (n) first row above the tolerance, -1: none
  long first_interference_row = -1;         ///< first row that is not interference-free, -1: none
  std::size_t rows = 0;
};

/// pose_interference at every row of `trajectory` (its wrench columns are ignored). Throws
/// tendyn::Error "<place>: ..." for a bad pose or a zero-length cable, and for bad options; an
/// empty trajectory is an error. O(rows (n^2 + n K)).
TrajectoryInterference trajectory_interference(const Model& model, const PoseTrajectory& trajectory, const InterferenceOptions& options);

/// CSV of a trajectory result: one line per pair "cable_a,cable_b,min_distance_m,min_row,
/// first_close_row" then one per cable "cable,,max_penetration_m,,first_penetration_row" under the
/// header kind,cable_a,cable_b,value_m,row,first_row (kind "pair" or "platform"); %.12g numbers,
/// empty fields for NaN or -1.
std::string interference_csv(const Model& model, const TrajectoryInterference& result);

}  // namespace tendyn::cdpr
