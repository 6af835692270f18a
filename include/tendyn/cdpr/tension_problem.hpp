// The tension-distribution problem of a CDPR model at a pose, assembled in one place for the CLI
// (`tendyn tension solve / trajectory`), Python (`tendyn.cdpr`) and user code.
//
// Source: document 002 (docs/CDPR.md, "Tension problem"), eqs. (1)-(3) J f = w, f >= 0, and its
// system (4), where the lower cables alone balance the (Fx, Fy, Mz) rows. At a pose x the problem is
//
//   J_S(x) f = w_S(x),   f_min <= f <= f_max   (exact and the closed forms; exhaustive and
//                                               lawson-hanson solve f >= 0, see tension.hpp)
//
// J_S: the structure matrix J(x) of geometry.hpp (eq. (3)) restricted to the selected wrench rows R
// (in the order given) and to the cables C of one group (in model order). w_S: the gravity-
// compensation wrench at x (gravity_compensation_wrench) restricted to R, or a wrench the caller
// gives. Cables outside C carry no tension in this problem. Units: f [N], w [N; N m] (moments
// about the platform point P, world axes), J [-; m].
//
// Model/Data idiom: make_tension_problem(model, group, rows) sizes a TensionProblem once;
// update_tension_problem(model, pose, problem) refills it for each pose without allocating.
#pragma once
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/tension.hpp>

#include <Eigen/Core>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tendyn::cdpr {

/// One tension problem: which cables and rows, the bounds and tolerances, and J, w at the last
/// pose given to update_tension_problem (zero before the first call).
struct TensionProblem {
  std::vector<int> cables;      ///< (n) model index of each column of J: the group's cables, or all
  std::vector<WrenchRow> rows;  ///< (m) selected wrench rows in order; empty = every row of the model
  std::vector<int> row_index;   ///< (m) row of the model's J (6 spatial, 3 planar) for each row of J
  SolverOptions options;        ///< bounds f_min_N, f_max_N [N] (the model's by default; infinity = no
                                ///< upper bound) and the solver tolerances; the caller may change them
  Data geometry;                ///< geometry of every model cable at the last pose
  Eigen::MatrixXd J;            ///< (m x n) restricted structure matrix [-; m]
  Eigen::VectorXd w;            ///< (m) gravity-compensation wrench restricted to the rows [N; N m]
  Eigen::VectorXd w_model;      ///< (6 or 3) the gravity-compensation wrench, every row [N; N m]
  [[nodiscard]] int ncable() const { return static_cast<int>(cables.size()); }
  [[nodiscard]] int nrow() const { return static_cast<int>(row_index.size()); }
};

/// The solver options of `model`: its tension bounds f_min_N = tension.min, f_max_N = tension.max
/// (infinity without one) and the default tolerances. The one source of a model's bounds
/// (make_tension_problem, the experiment and the Python bindings use it). Never throws.
[[nodiscard]] SolverOptions solver_options(const Model& model);

/// Sizes the problem for `model`: cables of `group` ("" = every cable, in model order), wrench
/// rows `rows` (empty = every row; a planar model has only fx, fy, mz), bounds from the model.
/// Throws tendyn::Error for a group with no cable ("cdpr model '<name>': no cable in group 'g'")
/// and for a row a planar model does not have. Cost O(n m), allocates.
TensionProblem make_tension_problem(const Model& model, const std::string& group = "", const std::vector<WrenchRow>& rows = {});

/// Fills problem.geometry, J and w for `pose` (update_geometry, then the row/column restriction;
/// the entries are copies, bit for bit those of J(x) and of the gravity wrench). No allocation.
/// Throws tendyn::Error from update_geometry (non-finite pose, a cable of zero length).
/// Cost O(n_model + m n).
void update_tension_problem(const Model& model, const Pose& pose, TensionProblem& problem);

/// Why `method` cannot solve `problem`: "more than 24 cables" (exhaustive: 2^n subsets), "needs a
/// finite f_max" (closed forms, centred and centroid, centred on (f_min + f_max) / 2), "needs
/// exactly 2 more cables than wrench rows" (centroid); "" when it can. Never throws.
std::string_view method_inapplicable_reason(Method method, const TensionProblem& problem);
/// method_inapplicable_reason(method, problem).empty().
bool method_applicable(Method method, const TensionProblem& problem);

/// Solves `problem` at its last pose: solve_tensions(method, problem.J, w or problem.w,
/// problem.options) (bounds: the model's unless the caller changed problem.options). `w` (m) may be
/// empty: the gravity-compensation wrench problem.w. Throws as solve_tensions, and tendyn::Error
/// when w has another size than the problem's rows. Allocates a workspace.
[[nodiscard]] TensionResult solve_tension_problem(Method method, const TensionProblem& problem,
                                                  const Eigen::VectorXd& w = Eigen::VectorXd());

/// Tensions of every model cable [N] from the problem's tensions f_N (n): f_model_N (resized to the
/// model's cable count, once) holds f_N at the problem's cables and 0 elsewhere.
void scatter_tensions(const Model& model, const TensionProblem& problem, const Eigen::VectorXd& f_N, Eigen::VectorXd& f_model_N);

/// Poses along a trajectory, with optional times and wrenches.
struct PoseTrajectory {
  /// (N x 3) planar (x [m], y [m], phi [rad]) or (N x 6) spatial (x, y, z [m], roll, pitch,
  /// yaw [rad]) poses, one per row (pose_from_vector).
  Eigen::MatrixXd q;
  Eigen::VectorXd t_s;  ///< (N) times [s], or empty: none
  /// (N x m) wrenches to balance [N; N m], one per row, columns in the order of the problem's rows;
  /// or empty (no columns): the gravity-compensation wrench of each pose.
  Eigen::MatrixXd w;
  /// (N) place of each row for error messages ("poses.csv:12"), or empty: "pose <k>" (0-based).
  std::vector<std::string> places;
};

/// Reads a pose CSV (io::CsvReader: header line, '#' comments and blank lines skipped). Columns,
/// by name with or without their unit suffix, in any order, others ignored:
///   x, y, phi (planar: x_m, y_m, phi_rad) or x, y, z, roll, pitch, yaw (spatial: ..._m, ..._rad),
///   t (t_s) optional, wrench columns fx fy fz (_N) mx my mz (_Nm) optional: those present are
///   taken in that order (their count must equal the problem's rows, checked when solving).
/// Throws tendyn::Error "path:line[:col]: reason": a missing file, empty file, missing pose
/// column ("path:1: missing column 'x' (or 'x_m')"), a row with another field count, a field that
/// is not a finite number. Cost O(file size); the file is bounded (io::CsvLimits).
PoseTrajectory read_pose_trajectory(const std::string& path, const Model& model);

/// Called after each solved row: row index, its pose, the problem at that pose (geometry, J, w)
/// and the result.
using TensionObserver = std::function<void(std::size_t row, const Pose& pose, const TensionProblem& problem, const TensionResult& result)>;

/// Solves `problem` with `method` at every pose of `trajectory` (update_tension_problem, then
/// solve_tensions with the row's wrench or problem.w). Returns one result per row (the tensions
/// of the problem's cables, in problem.cables order). Throws tendyn::Error: "<place>: ..." for a
/// bad pose or a zero-length cable, "<place of row 0>: K wrench columns but J has M rows", and
/// the errors of solve_tensions (bounds; an inapplicable method). Cost: N times one solve
/// (tension.hpp) plus O(n m) per row; one workspace for the whole trajectory.
std::vector<TensionResult> solve_tension_trajectory(const Model& model, TensionProblem& problem, Method method,
                                                    const PoseTrajectory& trajectory, const TensionObserver& observer = {});

/// The largest change of one cable's tension between consecutive rows of a trajectory: a measure of
/// the continuity of a tension distribution (a jump is a jolt on the real robot; it shrinks with the
/// pose step for a continuous method and does not for a discontinuous one).
struct TensionJump {
  double jump_N = 0.0;  ///< max over k >= 1 and cables c of |f_c(k) - f_c(k-1)| [N] (0: < 2 rows)
  std::size_t row = 0;  ///< k of that maximum (the jump is from row k - 1 to row k)
  int column = -1;      ///< the cable's column in the problem (problem.cables[column]); -1: none
};
/// max_tension_jump over results (one per row, as solve_tension_trajectory returns). NaN tensions
/// give a NaN jump. Throws tendyn::Error when two rows have different cable counts. O(N n).
[[nodiscard]] TensionJump max_tension_jump(const std::vector<TensionResult>& results);

/// The trajectory's CSV (the file `tendyn tension trajectory` writes): header
/// [t_s,]x_m,y_m,z_m,roll_rad,pitch_rad,yaw_rad (planar x_m,y_m,phi_rad),status,loaded,
/// residual_norm_N,tension_norm_N,<cable>.tension_N... (problem's cables), then one line per row;
/// numbers %.12g (io::CsvLine), every line ends with '\n'. Throws tendyn::Error when results and
/// trajectory differ in length.
std::string tension_trajectory_csv(const Model& model, const TensionProblem& problem, const PoseTrajectory& trajectory,
                                   const std::vector<TensionResult>& results);

}  // namespace tendyn::cdpr
