// Workspaces of a cable-driven parallel robot: the poses where the cables, with tensions in
// [f_min, f_max], can hold the platform against a set of wrenches (docs/CDPR.md, "Workspaces").
//
// Kinds (WorkspaceKind):
//  * static    J(x) f = w_g(x) has a solution f_min <= f <= f_max, w_g the gravity-compensation
//              wrench (gravity_compensation_wrench).
//  * feasible  the wrench-feasible workspace (Gouttefarde, Daney, Merlet, IEEE T-RO 27(1), 2011):
//              J(x) f = w_g(x) - w_e has a bounded solution for EVERY external wrench w_e on the
//              platform in a box [lo, hi]. The set of wrenches the cables can exert,
//              {J f : f_min <= f <= f_max}, is convex (a zonotope), so it contains the box shifted
//              by w_g iff it contains the box's vertices: the test solves one problem per vertex
//              (2^k for k rows with lo < hi), not a sampling. Without a box it is `static`.
//              Or an ellipsoid of external wrenches {c + E u : |u| <= 1} (E symmetric positive
//              semi-definite): exact, no sampling, by the facets of Z (below): the required set
//              {w_g - c - E u} lies in Z iff its centre w_g - c does (the exact solver) and for
//              every facet normal n with offsets d-, d+: d- + |E n| <= n.(w_g - c) <= d+ - |E n|
//              (the support function of the ellipsoid along n is |E n|).
//  * closure   the wrench-closure workspace (Gouttefarde & Gosselin, IEEE T-RO 22(3), 2006):
//              the columns of J positively span the wrench space, i.e. rank J = m and J f = 0 for
//              some f > 0. Bounds and gravity play no part.
//
// Exactness: each (J, w) is decided by the exact bounded least-squares solver (tension.hpp,
// Method::kExact): the pose is inside iff min |J f - w| over f_min <= f <= f_max is at most
// feasibility_rtol (|w| + |J|_max |f|) (round-off of a solution f). The minimiser f is the
// certificate of a feasible pose; for an infeasible one the positive minimal residual is (the
// solver's KKT conditions hold at f). Closure solves J f = 0 with f >= 1 (f > 0 up to scale) after a
// rank test of J (rank tolerance 1e-10 relative to the largest singular value).
//
// Capacity margin (Guay, Cardou, Cruz-Ruiz, Caro, "Measuring how well a structure supports
// varying external wrenches", New Advances in Mechanisms, Transmissions and Applications,
// Springer 2014; computed by the hyperplane-shifting method of Bouchard, Gosselin, Moore, ASME J.
// Mechanisms Robotics 2(1), 2010): the smallest signed distance from a vertex of the required
// wrench set {w_g - w_e} to a facet hyperplane of the available wrench set Z = {J f : f_min <= f
// <= f_max}. Every facet of the zonotope Z is normal to m - 1 linearly independent columns of J;
// for the unit normal c of such a set the two facet offsets are
//     d+ = sum_i max(c.a_i f_min, c.a_i f_max),   d- = sum_i min(c.a_i f_min, c.a_i f_max)
// and margin = min over facets c and vertices w of min(d+ - c.w, c.w - d-) (for an ellipsoid of
// wrenches, over its centre w minus |E c|). Positive: every
// required wrench lies inside Z at least that far from its boundary; negative: some vertex
// violates a facet by that much. Units: the Euclidean norm of mixed rows [N and N m] (select rows
// to compare like with like). Defined when rank J = m; NaN for closure, rank-deficient J, a
// pose outside the geometry's domain, or more than WorkspaceOptions::max_margin_facets column
// sets. With an infinite f_max a facet with c.a_i > 0 has d+ = +infinity (the set is a cone).
//
// Threads: evaluate_grid, evaluate_poses and cast_rays run on the shared WorkerPool
// (core/worker_pool.hpp); every pose is evaluated by the same arithmetic whichever thread takes it
// and results are written by index, so the results are bit-identical for any thread count.
#pragma once
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/cdpr/tension_problem.hpp>
#include <tendyn/core/enum_names.hpp>

#include <Eigen/Core>

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace tendyn::cdpr {

enum class WorkspaceKind { kFeasible, kStatic, kClosure };
/// The names of WorkspaceKind (tendyn/core/enum_names.hpp).
constexpr EnumNames<WorkspaceKind, 3> enum_names(WorkspaceKind) {
  return {"workspace kind",
          {{{WorkspaceKind::kFeasible, "feasible"}, {WorkspaceKind::kStatic, "static"}, {WorkspaceKind::kClosure, "closure"}}}};
}
/// "feasible", "static", "closure" (any case, '-' = '_'). Throws tendyn::Error naming the accepted names.
inline WorkspaceKind workspace_kind_from_string(const std::string& name) { return enum_from_string<WorkspaceKind>(name); }
/// "feasible", "static", "closure".
inline const char* to_string(WorkspaceKind kind) { return enum_to_string(kind); }

struct WorkspaceOptions {
  WorkspaceKind kind = WorkspaceKind::kFeasible;
  std::string group;            ///< cables of this group only ("" = every cable)
  std::vector<WrenchRow> rows;  ///< wrench rows kept (empty = every row of the model)
  /// (m) or empty: the box of external wrenches on the platform [N; N m], rows as `rows`
  /// (moments about the platform point P, world axes). kind feasible only; empty = no box.
  Eigen::VectorXd wrench_lo, wrench_hi;
  /// (m) and (m x m) or empty: the ellipsoid of external wrenches {centre + shape u : |u| <= 1}
  /// [N; N m], rows as `rows`; shape symmetric positive semi-definite (its eigenvalues are the
  /// semi-axes; a diagonal shape is an axis-aligned ellipsoid). kind feasible only, not with a box.
  /// A zero shape is the single wrench `centre`. The exact test needs the facets: more than
  /// max_margin_facets column sets is an error (not a silent NaN) with a non-zero shape.
  Eigen::VectorXd wrench_centre;
  Eigen::MatrixXd wrench_shape;
  /// Tension bounds [N]; NaN = the model's (tension.min, tension.max; max may be infinite).
  double f_min_N = std::numeric_limits<double>::quiet_NaN();
  double f_max_N = std::numeric_limits<double>::quiet_NaN();
  bool margin = true;  ///< compute the capacity margin (kinds static and feasible)
  /// Inside iff the minimal residual <= feasibility_rtol (|w| + |J|_max |f|).
  double feasibility_rtol = 1e-9;
  /// The margin is not computed (NaN) when J has more than this many sets of m - 1 columns.
  int max_margin_facets = 20000;
  int threads = 1;  ///< threads of the pose loops; <= 0: one per hardware thread
};

enum class PoseClass : std::uint8_t {
  kInside,     ///< the pose belongs to the workspace
  kOutside,    ///< it does not (certificate: a positive minimal residual)
  kUndefined,  ///< a cable has zero length at the pose (its direction is undefined): not inside
  kUndecided   ///< the solver hit its iteration cap: not inside (never seen on the shipped models)
};
/// The names of PoseClass (tendyn/core/enum_names.hpp).
constexpr EnumNames<PoseClass, 4> enum_names(PoseClass) {
  return {"pose class",
          {{{PoseClass::kInside, "inside"},
            {PoseClass::kOutside, "outside"},
            {PoseClass::kUndefined, "undefined"},
            {PoseClass::kUndecided, "undecided"}}}};
}
/// "inside", "outside", "undefined", "undecided".
inline const char* to_string(PoseClass c) { return enum_to_string(c); }

struct PoseVerdict {
  PoseClass cls = PoseClass::kOutside;
  /// capacity margin [N, N m mixed] (see the file comment); NaN when not computed
  double margin = std::numeric_limits<double>::quiet_NaN();
  double residual = 0.0;  ///< the largest minimal residual |J f - w| over the wrench vertices
  [[nodiscard]] bool inside() const { return cls == PoseClass::kInside; }
};

/// Per-thread evaluator: the tension problem, the solver workspace and the wrench vertices, sized
/// once. Not thread safe (one per thread); the model must outlive it.
class WorkspaceEvaluator {
 public:
  /// Validates the options against the model. Throws tendyn::Error naming the argument:
  /// "wrench box: 2 values, the problem has 3 rows (fx, fy, mz)", "wrench box: row fy: lower
  /// bound 5 > upper bound 3 (empty wrench set)", a non-finite bound, a box with kind static or
  /// closure, "f_min_N: -1 < 0", "f_min_N 5 >= f_max_N 3", feasibility_rtol <= 0, and the errors
  /// of make_tension_problem (group, rows).
  WorkspaceEvaluator(const Model& model, const WorkspaceOptions& options);
  /// It keeps a reference to the model: a temporary would dangle, so it is refused at compile time.
  WorkspaceEvaluator(Model&& model, const WorkspaceOptions& options) = delete;
  ~WorkspaceEvaluator();
  WorkspaceEvaluator(WorkspaceEvaluator&&) noexcept;
  WorkspaceEvaluator& operator=(WorkspaceEvaluator&&) noexcept;

  /// Decides one pose (see the file comment). Throws only on a non-finite pose. Cost: one exact
  /// solve per wrench vertex (stops at the first infeasible one) plus, with the margin or an
  /// ellipsoid, C(n, m - 1) eliminations of (m - 1) x m matrices. Ellipsoid at a pose where
  /// rank J < m: outside when the ellipsoid leaves the column space of J, else undecided.
  PoseVerdict evaluate(const Pose& pose);
  /// The tensions [N] (problem cables, problem.cables order) of the last vertex solved by
  /// evaluate(): for an inside pose the certificate of the last wrench vertex.
  [[nodiscard]] const Eigen::VectorXd& last_tensions() const;
  /// The problem (cables, rows, bounds) and the required wrench vertices (m x K) at the last pose
  /// (an ellipsoid: its centre w_g - c, K = 1).
  [[nodiscard]] const TensionProblem& problem() const;
  [[nodiscard]] const Eigen::MatrixXd& wrench_vertices() const;
  /// Names of the problem's rows ("fx", ...), in order.
  [[nodiscard]] std::vector<std::string> row_names() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Called on the calling thread between blocks of poses with the fraction done (0..1).
using WorkspaceProgress = std::function<void(double fraction)>;

/// A grid of platform positions at one orientation. Cell-centred: along each axis k the points are
/// lo_k + (i + 1/2) (hi_k - lo_k) / count_k, i = 0..count_k - 1, so each point stands for a cell of
/// volume prod_k (hi_k - lo_k) / count_k. Planar models use x and y only (count[2] must be 1;
/// the z bounds are ignored and the "volume" is an area [m^2]).
struct WorkspaceGrid {
  Eigen::Vector3d lo_m = Eigen::Vector3d::Zero();
  Eigen::Vector3d hi_m = Eigen::Vector3d::Zero();
  std::array<int, 3> count{1, 1, 1};
  Eigen::Matrix3d R_WP = Eigen::Matrix3d::Identity();  ///< platform orientation (planar: about z)
};

struct WorkspaceGridResult {
  Eigen::Matrix3Xd p_WP;              ///< (3 x N) grid points, x fastest, then y, then z [m]
  std::vector<PoseVerdict> verdicts;  ///< (N)
  int inside_count = 0;
  int undefined_count = 0;  ///< poses where a cable has zero length
  int undecided_count = 0;
  double cell_measure = 0.0;  ///< volume [m^3] (area [m^2] planar) of one cell
  double measure = 0.0;       ///< inside_count * cell_measure: the workspace's volume (area)
  /// indices of inside points with an outside (or undefined) axis neighbour in the grid
  std::vector<int> boundary;
  int edge_inside_count = 0;  ///< inside points on the grid's outer layer (region clipped)
};

/// Evaluates every grid point. Throws tendyn::Error naming the argument: a count < 1 or above
/// 10^8 points in all, lo > hi or non-finite bounds, planar count[2] != 1; and the options'
/// errors (WorkspaceEvaluator). Cost: N evaluate() calls on options.threads threads.
WorkspaceGridResult evaluate_grid(const Model& model, const WorkspaceOptions& options, const WorkspaceGrid& grid,
                                  const WorkspaceProgress& progress = {});

/// Evaluates a list of poses (e.g. an orientation workspace at one point, orientation_grid).
/// Returns one verdict per pose. Throws as evaluate_grid (options) and on a non-finite pose.
std::vector<PoseVerdict> evaluate_poses(const Model& model, const WorkspaceOptions& options, const std::vector<Pose>& poses,
                                        const WorkspaceProgress& progress = {});

/// Poses at position p_WP_m with roll, pitch, yaw on a (cell-centred, as WorkspaceGrid) grid of
/// [rpy_lo, rpy_hi] [rad] with counts; a count of 1 with lo == hi fixes that angle. Planar models:
/// only yaw (phi) may vary (roll and pitch counts must be 1 and their bounds 0). Order: roll
/// fastest. Throws tendyn::Error on counts < 1, lo > hi, non-finite values.
std::vector<Pose> orientation_grid(const Model& model, const Eigen::Vector3d& p_WP_m, const Eigen::Vector3d& rpy_lo_rad,
                                   const Eigen::Vector3d& rpy_hi_rad, const std::array<int, 3>& count);

/// Ray casting for the boundary: from `start_m` (inside the workspace) along `count` directions
/// at orientation R_WP, march with steps of step_m until the first pose that is not inside (or
/// max_length_m), then bisect to tol_m. Directions: planar, angles 2 pi k / count in the x-y plane
/// (k = 0 along +x); spatial, the Fibonacci sphere (z_k = 1 - (2k + 1)/count, golden-angle
/// azimuth), near-uniform in solid angle. A region that a ray leaves and re-enters within one step
/// is reported at its first exit.
struct RaySpec {
  Eigen::Vector3d start_m = Eigen::Vector3d::Zero();
  Eigen::Matrix3d R_WP = Eigen::Matrix3d::Identity();
  int count = 64;
  double max_length_m = 10.0;
  double step_m = 0.05;
  double tol_m = 1e-4;
};

struct RayResult {
  Eigen::Matrix3Xd direction;         ///< (3 x count) unit directions
  Eigen::VectorXd distance_m;         ///< (count) distance from the start to the boundary [m]
  Eigen::Matrix3Xd boundary_m;        ///< (3 x count) start + distance direction: the last inside point [m]
  std::vector<bool> clipped;          ///< the ray reached max_length_m still inside
  std::vector<PoseVerdict> verdicts;  ///< (count) verdict at each boundary point (inside side)
  /// The region's volume [m^3] (planar: area [m^2]) if it is star-shaped from the start:
  /// spatial (4 pi / 3 count) sum r^3, planar (pi / count) sum r^2.
  double measure = 0.0;
  int evaluations = 0;  ///< poses evaluated in all
};

/// Throws tendyn::Error naming the argument: "ray start (x, y, z) m is not inside the <kind>
/// workspace (outside|undefined...)", count < 1, max_length_m, step_m or tol_m <= 0 or
/// non-finite, tol_m > step_m, planar start with z != 0; and the options' errors.
RayResult cast_rays(const Model& model, const WorkspaceOptions& options, const RaySpec& spec, const WorkspaceProgress& progress = {});

}  // namespace tendyn::cdpr
