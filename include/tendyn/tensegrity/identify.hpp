// Parameter identification of a tensegrity from its recorded motion (docs/IDENTIFY.md).
//
// Data: time-stamped positions of a subset of nodes (motion-capture markers, NaN = missing),
// optionally cable lengths and tensions (MotionData, read from CSV by load_motion_csv).
// Unknowns: the selected model parameters (ParameterGroup: per-cable or grouped stiffness,
// damping, rest length; rod mass; compliant-ground friction, stiffness, damping; the initial
// state), and, for multiple shooting, the state at the start of every segment.
// Problem: weighted nonlinear least squares solved by Ceres' Levenberg-Marquardt,
//   min  sum_samples sum_markers rho(|(p_sim - p_meas) / sigma|^2)  +  sum_segments |W (x_end,k - x_start,k+1)|^2
// with bounds (stiffness, damping, friction >= 0; rest length, mass > 0).
//
// Model of the prediction: the Newton-Euler equations of dynamics.hpp (the same laws: cable
// law with the model's damping law and force sign, drives, gravity, constant external forces,
// compliant ground) integrated by fixed-step RK4 between the samples (each sample interval cut
// into ceil(dt / options.dt_s) equal steps), with the quaternions renormalised after every step
// as step_rk4 does. The evaluation is one template on the scalar type (double, or ceres::Jet for
// exact forward-mode derivatives through the integrator); tests/tensegrity/identify_test.cpp
// checks it against simulate() (same step, locate_slack_events off) to round-off and its
// derivatives against central finite differences. Not supported (tendyn::Error): the impulse
// ground (impacts located inside steps are not differentiable; use `ground: {type: compliant}`),
// API controllers, slack-event splitting (a kink of the force law inside a step costs accuracy,
// not correctness).
//
// Multiple shooting (Bock and Plitt 1984): the data are cut into segments of about
// options.segment_s; each segment is integrated from its own start state (unknowns: per rod the
// centre of mass, the unit rod axis (Ceres SphereManifold: the spin angle about the axis changes
// no node and no force, so it is not an unknown), the COM velocity and the world angular
// velocity), and continuity residuals tie each segment's end state to the next one's start.
// The first segment starts from model.initial_state (fixed, unless `initial_state` is fitted).
//
// Covariance (ceres::Covariance, sparse QR of SuiteSparse) of the fitted parameters from the Jacobian at the
// optimum, the segment states marginalised, scaled by the a-posteriori variance factor
// s^2 = 2 cost / (nresidual - nunknown_tangent): standard deviations and correlations.
//
// Determinism: the segments' residual blocks are evaluated in parallel (options.threads) before
// each evaluation of the problem, each independently; Ceres then runs in one thread, summing the
// cost and the gradient in block order, and the linear solver (sparse normal Cholesky,
// SuiteSparse) runs in one thread; the covariance comes from a problem over one buffer in a fixed
// order: results are bit-identical from call to call and for any options.threads (tested).
#pragma once
#include <tendyn/core/enum_names.hpp>
#include <tendyn/tensegrity/model.hpp>

#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

/// Recorded motion of a model (all positions in W [m], times [s]).
struct MotionData {
  std::vector<double> t_s;        ///< (nsample) strictly increasing sample times
  std::vector<int> marker_nodes;  ///< node index of each marker (no anchor, no repeat)
  /// (nsample x 3 nmarker) marker positions, columns (x, y, z) per marker; NaN = missing.
  Eigen::MatrixXd p_W_marker_m;
  std::vector<int> length_cables;   ///< cables with a measured length
  Eigen::MatrixXd cable_length_m;   ///< (nsample x nlength) NaN = missing
  std::vector<int> tension_cables;  ///< cables with a measured tension
  Eigen::MatrixXd cable_tension_N;  ///< (nsample x ntension) NaN = missing
  /// Cables whose winch (position control) received a recorded target (`<cable>_target_m`).
  std::vector<int> target_cables;
  /// (nsample x ntarget) the recorded target rest lengths [m] (no missing value): they replace the
  /// model's drive of the cable, linearly interpolated between samples, held outside.
  Eigen::MatrixXd winch_target_m;
  std::vector<int> encoder_cables;  ///< cables whose winch's encoder was recorded (`<cable>_encoder_m`)
  /// (nsample x nencoder) the rest length the winch's encoder reads [m] (rest_length + reeled-out
  /// length, what the position loop compares with the target); NaN = missing.
  Eigen::MatrixXd winch_encoder_m;
  [[nodiscard]] int nsample() const { return static_cast<int>(t_s.size()); }
  [[nodiscard]] int nmarker() const { return static_cast<int>(marker_nodes.size()); }
};

/// Reads a motion CSV (docs/IDENTIFY.md): header `t_s,<node>_x_m,<node>_y_m,<node>_z_m,...`
/// (node ids of the model, the three columns of a node together in any order of nodes), and
/// optional `<cable>_length_m` / `<cable>_tension_N` columns, and on a model with winches
/// `<cable>_target_m` (the position loop's recorded target, every sample present) and
/// `<cable>_encoder_m` (the encoder's rest length) of a position-controlled winch's cable. An empty cell is a missing value (a
/// marker must be missing in all three coordinates or none). Throws tendyn::Error with
/// "path:line:col" and the reason: unknown node or cable, a column that is neither, a repeated
/// column, a partial marker, a target or encoder column of a cable without a position-controlled
/// winch, a missing target value, times not strictly increasing, fewer than 2 samples, no marker and
/// no length or tension column, a value above kMaxMotionPosition_m (markers, lengths) or
/// kMaxMotionTension_N (tensions) in magnitude. Cost O(file size).
MotionData load_motion_csv(const Model& model, const std::string& path);

/// Largest magnitude of a measured marker coordinate or cable length [m], and of a measured tension
/// [N], that load_motion_csv and validate accept (a larger value is a unit or export error, and
/// its squared residual would overflow).
inline constexpr double kMaxMotionPosition_m = 1e6;
inline constexpr double kMaxMotionTension_N = 1e9;

/// Checks sizes, node and cable indices, time order and finite times of `data` against `model`,
/// and that every measured value is finite and within kMaxMotionPosition_m / kMaxMotionTension_N
/// (what load_motion_csv guarantees; for data built in code). Throws tendyn::Error.
void validate(const Model& model, const MotionData& data);

/// The CSV text of `data` in the format load_motion_csv reads (missing values as empty cells).
std::string motion_csv(const Model& model, const MotionData& data);

/// What one fitted parameter is.
enum class ParameterKind {
  kStiffness,        ///< cable stiffness [N/m]
  kDamping,          ///< cable damping [N s/m]
  kRestLength,       ///< cable rest length [m] (the drive offset u(t) is added to it)
  kMass,             ///< rod mass [kg] (the rod's inertia is scaled with it)
  kFriction,         ///< compliant-ground friction coefficient
  kGroundStiffness,  ///< compliant-ground stiffness [N/m]
  kGroundDamping,    ///< compliant-ground damping [N s/m]
  kInitialState,     ///< the first segment's start state (13 numbers per rod, 11 unknowns per rod)
  // Winch parameters (Winch, model.hpp), elements: cables with a winch; models with winches only.
  kWinchCoulombFriction,  ///< Winch::coulomb_friction_Nm [N m, motor side]
  kWinchViscousFriction,  ///< Winch::viscous_friction_Nmsprad [N m s/rad, motor side]
  kWinchNoLoadSpeed,      ///< Winch::no_load_speed_radps [rad/s] (the speed limit of the DC line)
  kWinchKp,               ///< Winch::kp_per_m [1/m]
  kWinchKi,               ///< Winch::ki_per_ms [1/(m s)]
  kWinchKd,               ///< Winch::kd_s_per_m [s/m]
};
/// The names of ParameterKind (tendyn/core/enum_names.hpp).
constexpr EnumNames<ParameterKind, 14> enum_names(ParameterKind) {
  return {"parameter",
          {{{ParameterKind::kStiffness, "stiffness"},
            {ParameterKind::kDamping, "damping"},
            {ParameterKind::kRestLength, "rest_length"},
            {ParameterKind::kMass, "mass"},
            {ParameterKind::kFriction, "friction"},
            {ParameterKind::kGroundStiffness, "ground_stiffness"},
            {ParameterKind::kGroundDamping, "ground_damping"},
            {ParameterKind::kInitialState, "initial_state"},
            {ParameterKind::kWinchCoulombFriction, "winch_coulomb_friction"},
            {ParameterKind::kWinchViscousFriction, "winch_viscous_friction"},
            {ParameterKind::kWinchNoLoadSpeed, "winch_no_load_speed"},
            {ParameterKind::kWinchKp, "winch_kp"},
            {ParameterKind::kWinchKi, "winch_ki"},
            {ParameterKind::kWinchKd, "winch_kd"}}}};
}
/// "stiffness" | "damping" | "rest_length" | "mass" | "friction" | "ground_stiffness" |
/// "ground_damping" | "initial_state" | "winch_coulomb_friction" | "winch_viscous_friction" |
/// "winch_no_load_speed" | "winch_kp" | "winch_ki" | "winch_kd". Throws tendyn::Error "unknown parameter 'x' (valid: ...)".
inline ParameterKind parameter_kind_from_string(const std::string& name) { return enum_from_string<ParameterKind>(name); }
inline const char* to_string(ParameterKind kind) { return enum_to_string(kind); }

/// One unknown (or, for kInitialState, the set of start-state unknowns). Elements: cable indices
/// (stiffness, damping, rest length, winch parameters: cables with a winch) or rod indices (mass), empty for ground parameters and the
/// initial state. A group of several elements has ONE value shared by all of them (its nominal
/// value is their mean).
struct ParameterGroup {
  ParameterKind kind = ParameterKind::kStiffness;
  std::vector<int> elements;
  std::string name;  ///< "stiffness:c1", "rest_length:c1+c2", "friction", ...
};

/// Parses the --fit list (docs/IDENTIFY.md): comma-separated items `kind[:selection]`; for cable
/// and rod kinds the selection is `all` (one unknown per element, the default), one id, or ids
/// joined by `+` (one unknown shared by them); ground kinds and `initial_state` take none. An id
/// may itself contain `+` (the 6-bar builder's `rod_x+`): the selection is read left to right,
/// each time taking the longest id of the model that ends at a `+` or at the end.
/// Winch kinds select among the cables with a winch (`all`: every winch's cable).
/// Throws tendyn::Error "--fit: ..." naming the item and the reason (unknown kind, unknown id,
/// an element fitted twice, a ground parameter without a compliant ground, a winch parameter on a
/// cable without a winch or a model without winches, empty list).
std::vector<ParameterGroup> parse_fit_spec(const Model& model, const std::string& spec);

/// Per-residual robust loss (applied as r' = sign(r) sqrt(rho(r^2)) on each weighted residual).
enum class RobustLoss { kNone, kHuber, kCauchy };
/// The names of RobustLoss (tendyn/core/enum_names.hpp).
constexpr EnumNames<RobustLoss, 3> enum_names(RobustLoss) {
  return {"robust loss", {{{RobustLoss::kNone, "none"}, {RobustLoss::kHuber, "huber"}, {RobustLoss::kCauchy, "cauchy"}}}};
}
/// "none" | "huber" | "cauchy"; tendyn::Error "unknown robust loss 'x' (valid: none, huber, cauchy)".
inline RobustLoss robust_loss_from_string(const std::string& name) { return enum_from_string<RobustLoss>(name); }
inline const char* to_string(RobustLoss loss) { return enum_to_string(loss); }

struct IdentifyOptions {
  double dt_s = 1e-3;             ///< largest integration step (RK4) [s]
  double segment_s = 1.0;         ///< multiple-shooting segment length [s] (>= one sample interval)
  double marker_sigma_m = 1e-3;   ///< marker noise (residual weight 1/sigma) [m]
  double length_sigma_m = 1e-3;   ///< cable-length noise [m]
  double tension_sigma_N = 0.1;   ///< tension noise [N]
  double encoder_sigma_m = 1e-4;  ///< winch encoder noise (rest-length columns `<cable>_encoder_m`) [m]
  /// Continuity residuals: position and axis difference / continuity_sigma_m, velocity
  /// difference / (continuity_sigma_m * 10 /s), angular velocity difference / (continuity_sigma_m * 100 /s).
  double continuity_sigma_m = 1e-4;
  RobustLoss loss = RobustLoss::kNone;
  double loss_scale = 3.0;   ///< where the robust loss starts, in sigmas
  int max_iterations = 100;  ///< Levenberg-Marquardt iterations
  /// Ceres: stop when an iteration changes the cost by less (relative). The cost is in squared
  /// sigmas: 1e-5 of a cost near nresidual/2 is far below what the data can tell apart.
  double function_tolerance = 1e-5;
  double parameter_tolerance = 1e-8;  ///< Ceres: stop when the step is smaller (relative)
  double gradient_tolerance = 1e-10;  ///< Ceres: stop when the max gradient is smaller (relative)
  int threads = 1;                    ///< segment evaluation threads (results do not depend on it: see Determinism)
  bool covariance = true;             ///< compute standard deviations and correlations
  /// Restarts after a fit that stopped in a local minimum (variance factor above
  /// restart_variance_factor, or a continuity gap above restart_gap_sigmas * continuity_sigma_m):
  /// restart k (1..restarts) first fits with continuity_sigma_m * 10^(k+1) from the same start
  /// (a continuation: the parameters move while the segments may stay apart), then the full
  /// problem from there; the lowest full cost wins; stops at the first fit that passes.
  /// 0: a single fit. A fit that passes costs nothing more; each restart about two more fits.
  int restarts = 2;
  /// s^2 above this marks a failed fit. 0 (the default): the statistical bound of the residual
  /// count, variance_factor_bound(nresidual - nunknown) (the 99.9 % quantile of chi^2 / dof);
  /// a value >= 1 is used as it is.
  double restart_variance_factor = 0.0;
  double restart_gap_sigmas = 5.0;  ///< a gap above this many continuity_sigma_m marks a failed fit
  /// A restart that does not lower the best cost by at least this fraction stops the restarts
  /// (the misfit is then the model's, not the start's: more restarts give the same answer).
  double restart_min_improvement = 0.05;
  /// Called after every Levenberg-Marquardt iteration with (iteration, cost, max gradient);
  /// throwing from it aborts identify() with that exception.
  std::function<void(int, double, double)> progress;
  /// Called with one line (no newline) when a restart starts (and why) and when the restarts stop
  /// early; the same lines are kept in IdentifyResult::restart_log.
  std::function<void(const std::string&)> notice;
};

/// The 99.9 % upper bound of the a-posteriori variance factor s^2 = chi^2 / dof of a fit whose
/// weighted residuals are standard normal (the stated sigmas are the noise and the model explains
/// the data): the chi-square quantile by Wilson and Hilferty (1931),
///   (1 - 2 / (9 dof) + z sqrt(2 / (9 dof)))^3,  z = 3.0902 (the normal 99.9 % quantile),
/// about 1 + z sqrt(2 / dof) for large dof (1.053 for 6,900 residuals, 1.098 for 2,000).
/// NaN for dof < 1.
double variance_factor_bound(int dof);

/// What the statistics of a fit say (IdentifyResult::verdict, docs/IDENTIFY.md "Verdict").
enum class FitVerdict {
  kGood,             ///< variance factor and continuity gaps within their bounds, every parameter determined
  kPoorFit,          ///< the statistics reject the fit and every start ends at about the same cost: the
                     ///< model cannot explain the data (an unmodelled element, a value not fitted) or the
                     ///< sigmas are below the real noise
  kLocalMinimum,     ///< the statistics reject the fit but the starts ended at different costs (the last
                     ///< restart still lowered it), or the residuals are at the noise while the segments do not join
  kNotConverged,     ///< the statistics reject the fit and the solver stopped at the iteration limit
  kNotIdentifiable,  ///< the statistics accept the fit but the data do not determine some parameters
};
/// The names of FitVerdict (tendyn/core/enum_names.hpp).
constexpr EnumNames<FitVerdict, 5> enum_names(FitVerdict) {
  return {"fit verdict",
          {{{FitVerdict::kGood, "good"},
            {FitVerdict::kPoorFit, "poor fit"},
            {FitVerdict::kLocalMinimum, "local minimum suspected"},
            {FitVerdict::kNotConverged, "not converged"},
            {FitVerdict::kNotIdentifiable, "not identifiable"}}}};
}
/// "good" | "poor fit" | "local minimum suspected" | "not converged" | "not identifiable".
inline const char* to_string(FitVerdict verdict) { return enum_to_string(verdict); }
/// Throws tendyn::Error naming the option when a value is out of range.
void validate(const IdentifyOptions& options);

/// Most integration steps of one pass over the data (identify_step_count); each pass runs in
/// ceres::Jet (about 10 times a double step) several times per iteration, so 10^7 steps are
/// already minutes per iteration (10 s of data at the default dt_s = 1 ms is 10^4).
inline constexpr double kIdentifyMaxSteps = 1e7;

/// RK4 steps of one pass over the sample times `t_s` with steps of at most `dt_s`: the sum over
/// the sample intervals of max(1, ceil(interval / dt_s)), as a double (never overflows). Needs
/// dt_s > 0; never throws.
double identify_step_count(const std::vector<double>& t_s, double dt_s);

/// One fitted parameter group.
struct FittedParameter {
  std::string name;
  ParameterKind kind = ParameterKind::kStiffness;
  std::vector<int> elements;
  double nominal = 0.0;                                   ///< the model's value (mean over the group's elements) [SI]
  double fitted = 0.0;                                    ///< [SI]
  double std = std::numeric_limits<double>::quiet_NaN();  ///< standard deviation [SI]; NaN without covariance
};

struct IdentifyResult {
  Model model;                              ///< the model with the fitted values (and fitted initial state if selected)
  std::vector<FittedParameter> parameters;  ///< one per group except initial_state
  Eigen::MatrixXd correlation;              ///< (nparameter^2) correlations; empty without covariance
  bool covariance_ok = false;
  std::string covariance_message;                                     ///< why the covariance is missing (rank-deficient Jacobian, ...)
  double variance_factor = std::numeric_limits<double>::quiet_NaN();  ///< s^2 = 2 cost / dof
  // solver
  std::string solver_report;  ///< Ceres' FullReport() (with wall times)
  std::string solver_brief;   ///< Ceres' BriefReport() (deterministic: for files)
  std::string termination;    ///< CONVERGENCE, NO_CONVERGENCE, ...
  bool converged = false;
  int iterations = 0;                           ///< Levenberg-Marquardt iterations, all starts together
  int starts = 1;                               ///< fits tried: 1 + the restarts run (IdentifyOptions::restarts)
  int winning_start = 0;                        ///< the start of the result: 0 the model's values, k restart k
  double initial_cost = 0.0, final_cost = 0.0;  ///< 1/2 |r|^2 with weighted residuals
  double solve_time_s = 0.0;                    ///< wall time (not for files: outputs stay deterministic)
  int nsegment = 0, nresidual = 0, nunknown = 0;
  // fit quality
  /// (nsample x 3 nmarker) simulated marker positions of the fitted multiple-shooting solution
  /// (each segment from its fitted start state), at every sample (also where a marker is missing).
  Eigen::MatrixXd p_W_fit_m;
  /// (nsample x 3 nmarker) one run of the fitted model from the fitted first state over the whole
  /// data (no restart), and the same run of the nominal model: the prediction quality.
  Eigen::MatrixXd p_W_free_fitted_m, p_W_free_nominal_m;
  double marker_rms_m = 0.0;               ///< RMS over present marker coordinates, fit
  double marker_rms_free_fitted_m = 0.0;   ///< same, one free run of the fitted model
  double marker_rms_free_nominal_m = 0.0;  ///< same, one free run of the nominal model
  double max_continuity_gap_m = 0.0;       ///< largest position gap between segments at the optimum
  // verdict
  double variance_factor_bound = std::numeric_limits<double>::quiet_NaN();  ///< the bound used (see restart_variance_factor)
  double continuity_gap_bound_m = 0.0;                                      ///< restart_gap_sigmas * continuity_sigma_m
  FitVerdict verdict = FitVerdict::kGood;
  std::string verdict_reason;  ///< one sentence: the numbers behind the verdict
  /// Parameters the data do not determine (their names, each with why), also when the verdict is
  /// another one: no effect on the residuals, a rank-deficient Jacobian, a standard deviation larger
  /// than the value, a correlation above 0.999 in magnitude.
  std::vector<std::string> unidentifiable;
  std::vector<std::string> restart_log;  ///< the IdentifyOptions::notice lines, in order
};

/// Models with winches, end-caps, body points or rods of general inertia (not differentiable by the
/// Jet path) take a second path: single shooting from model.initial_state over the whole record
/// by simulate_motion's prediction, derivatives by central differences (Ceres' numeric
/// differentiation, relative step 1e-3), one thread (options.threads is not used); residuals: markers and encoder columns (the
/// length and tension columns too); no segments and no restarts (IdentifyResult::nsegment = 1,
/// starts = 1, max_continuity_gap_m and continuity_gap_bound_m NaN); initial_state and mass are not fitted there (tendyn::Error). Cost per iteration:
/// 2 nparameter + 1 simulations of the record in double.
/// Fits the selected parameters of `model` to `data` (see the file comment). The model's values
/// are the starting point and the nominal values of the report. Throws tendyn::Error on bad
/// input (data not matching the model, impulse ground, bad options, no parameter, more than
/// kIdentifyMaxSteps steps per pass over the data: checked before any work),
/// SimulationError when Ceres fails (no trial point can be simulated). Cost per
/// Levenberg-Marquardt iteration: ceil((nparameter + 12 nrod) / 8) simulations of the data in
/// ceres::Jet<double, 8> (each about 10 times a double simulation), for the trial point and, when
/// accepted, reused as its Jacobian (Ceres' projected line search asks for it first), plus a
/// sparse Cholesky of the normal equations; the covariance adds a sparse QR of the Jacobian.
/// The 3-bar robot, 10 s of 30 Hz data: about 0.45 s of CPU per Jacobian (docs/BENCHMARKS.md).
/// A fit flagged as a local minimum (IdentifyOptions::restarts) runs up to `restarts` more
/// continuations, each about two fits; result.starts and result.winning_start say what ran.
IdentifyResult identify(const Model& model, const MotionData& data, const std::vector<ParameterGroup>& parameters,
                        const IdentifyOptions& options = {});

/// The unknowns, weighted residuals and their Jacobian (ambient coordinates: 12 numbers per rod
/// and segment, p_WC, unit axis, v_WC, w_W) at the starting point of identify() (or at
/// `unknowns` if given, same layout as IdentifyEvaluation::unknowns), by the automatic
/// differentiation identify() uses. For tests and diagnostics (finite differences of
/// `residuals_at` are the oracle). Allocates; cost one Jacobian evaluation.
struct IdentifyEvaluation {
  Eigen::VectorXd unknowns;   ///< parameters (one per group except initial_state), then per segment per rod 12 numbers
  Eigen::VectorXd residuals;  ///< weighted residuals
  Eigen::MatrixXd jacobian;   ///< d residuals / d unknowns (dense)
  int nparameter = 0;         ///< the leading parameter entries of `unknowns`
};
IdentifyEvaluation evaluate_identification(const Model& model, const MotionData& data, const std::vector<ParameterGroup>& parameters,
                                           const IdentifyOptions& options = {}, const Eigen::VectorXd* unknowns = nullptr,
                                           bool jacobian = true);

/// Simulates `model` over the times of `data` with the identification's integrator (RK4 steps of
/// at most dt_s between samples) from model.initial_state at data.t_s[0], and returns the node
/// positions at the samples (nsample x 3 nnode). For synthetic data and tests. Throws like
/// identify().
Eigen::MatrixXd simulate_samples(const Model& model, const std::vector<double>& t_s, double dt_s);

/// The prediction of the identification of a model with winches, end-caps, body points or rods
/// of general inertia (docs/IDENTIFY.md "Models with winches and end-caps"): `model` simulated by
/// the simulator's step() (RK4, steps of at most dt_s between samples, no slack-event splitting)
/// from model.initial_state at t_s[0], the winch targets of data's target columns replacing the
/// drives of their cables. Returns `data` with its marker and encoder columns replaced by the
/// simulated values (markers at every sample; length and tension columns by the simulated cable
/// lengths and tensions); its target columns are kept. For synthetic data and tests; works for
/// every model (the ideal ones too). Throws tendyn::Error for data not matching the model or
/// dt_s <= 0, SimulationError when the run fails.
MotionData simulate_motion(const Model& model, const MotionData& data, double dt_s);

}  // namespace tendyn::tensegrity
