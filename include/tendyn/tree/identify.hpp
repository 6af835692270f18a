// Identification of the inertial parameters of a tree robot from joint torques and motion.
//
// Sources: the inverse dynamics of a rigid-body tree is linear in the 10 standard inertial
// parameters of each link (Atkeson, An, Hollerbach, "Estimation of inertial parameters of
// manipulator loads and links", Int. J. Robotics Research 5(3), 1986; Khalil & Dombre,
// "Modeling, Identification and Control of Robots", 2002, ch. 12):
//
//   tau = Y(q, v, a) pi,   pi = (pi_1, ..., pi_N),
//   pi_i = (m, m c_x, m c_y, m c_z, I_xx, I_xy, I_xz, I_yy, I_yz, I_zz)   (link i)
//
// with m [kg], m c = first moment [kg m] (c = p_LC, link frame) and I = rotational inertia about
// the link ORIGIN in link axes [kg m^2] (I_O = I_C - m skew(c)^2). Y is built directly from the
// recursive Newton-Euler algorithm (Featherstone 2008, Table 5.1): the spatial force of link i,
// f_i = I_i a_i + v_i x* I_i v_i (gravity as the base acceleration), is linear in pi_i, f_i =
// Phi(v_i, a_i) pi_i (6 x 10); joint j's torque collects S_j^T X*_{j<-i} f_i over its subtree.
//
// Not every parameter affects the torques: the identifiable combinations are the base parameters
// (Gautier, "Numerical calculation of the base inertial parameters of robots", J. Robotic
// Systems 8(4), 1991): the QR decomposition with column pivoting of the regressor stacked over
// random states, W P = Q [R1 R2], gives the rank r, the independent columns (the first r of P)
// and beta = pi_1 + R1^-1 R2 pi_2 (pi_1, pi_2 the independent and dependent parameters), so
// that W pi = W_1 beta for every pi.
//
// Identification: weighted linear least squares W_1 beta = tau on the stacked samples, covariance
// sigma^2 (W_1^T W_1)^-1 (Gautier & Khalil 1990; sigma^2 = |residual|^2 / (rows - r)).
// Assumptions: no external forces (no contact), no joint friction; every velocity coordinate's
// torque is measured (for a floating base: the base wrench rows too, zero for a free-flying robot).
#pragma once
#include <tendyn/core/differentiate.hpp>
#include <tendyn/core/enum_names.hpp>
#include <tendyn/tree/data.hpp>
#include <tendyn/tree/model.hpp>

#include <Eigen/Core>

#include <string>
#include <vector>

namespace tendyn::tree {

/// Standard inertial parameters per link (m, m c (3), I_O (6)).
constexpr int kInertialParametersPerLink = 10;

/// pi (10 nlinks) of the model's links, in the order of the header comment. Cost O(nlinks).
[[nodiscard]] Eigen::VectorXd inertial_parameters(const Model& model);

/// Names of the 10 nlinks parameters: "<link>.m_kg", ".mcx_kgm", ".mcy_kgm", ".mcz_kgm",
/// ".Ixx_kgm2", ".Ixy_kgm2", ".Ixz_kgm2", ".Iyy_kgm2", ".Iyz_kgm2", ".Izz_kgm2".
[[nodiscard]] std::vector<std::string> inertial_parameter_names(const Model& model);

/// A copy of `model` with the links' mass properties set from pi (10 nlinks). A link with m = 0
/// must have m c = 0 (its COM is then the origin). Throws tendyn::Error naming the link when pi
/// has the wrong size, is not finite, or is not physically consistent (m < 0, m = 0 with a
/// first moment, I_C not positive semidefinite or violating the triangle inequality: validate()).
[[nodiscard]] Model with_inertial_parameters(const Model& model, const Eigen::VectorXd& pi);

/// Joint-torque regressor Y (nv x 10 nlinks) at (q, v, a): tau = Y pi equals rnea(q, v, a) for
/// the model's own pi (tested to 1e-12). External wrenches are not part of Y. Uses data's
/// kinematics (X_PL, V, A); Y must be sized nv x 10 nlinks. Sizes of q, v, a checked
/// (tendyn::Error). Cost O(nlinks depth) plus one RNEA; no allocation.
void joint_torque_regressor(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                            Eigen::Ref<Eigen::MatrixXd> Y);
/// Same, returning a new matrix.
[[nodiscard]] Eigen::MatrixXd joint_torque_regressor(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                                     const Eigen::VectorXd& a);

/// False for the massless links of a fictitious floating-base chain (Joint::fictitious, zero mass
/// and inertia: document 003's chain, ModelBuilder::add_floating6): their parameters are known
/// zeros and are not identified (their columns of K are zero). True for every other link.
[[nodiscard]] bool has_inertial_parameters(const Model& model, int link);

/// Options of base_parameters().
struct BaseParameterOptions {
  int samples = 40;         ///< random states stacked (q from random_configuration, v, a uniform in [-2, 2])
  unsigned seed = 1;        ///< generator seed (the result is deterministic)
  double tolerance = 1e-8;  ///< |R_kk| <= tolerance |R_00| ends the rank
};

/// The identifiable combinations of the standard parameters (Gautier 1991, see the header).
struct BaseParameters {
  int rank = 0;                  ///< r, number of base parameters
  int nparam = 0;                ///< 10 nlinks
  std::vector<int> independent;  ///< (r) standard-parameter index of each base parameter
  std::vector<int> dependent;    ///< (nparam - r) the other parameters
  /// (r x nparam) the map beta = K pi: K = [I  R1^-1 R2] P^T, coefficients below 1e-10 set to 0.
  Eigen::MatrixXd K;
  /// (r) readable form of each base parameter, e.g. "trunk.Izz_kgm2 + 0.16 left_thigh.m_kg".
  std::vector<std::string> names;
  /// beta = K pi (r).
  [[nodiscard]] Eigen::VectorXd base(const Eigen::VectorXd& pi) const { return K * pi; }
};

/// Base parameters of `model` from the regressor stacked over random states (the parameters of
/// links without inertial parameters, has_inertial_parameters() false, left out). Throws
/// tendyn::Error on options out of range (samples < 1, tolerance not in (0, 1)).
/// Cost: samples regressors + one QR of (samples nv) x (10 nlinks).
[[nodiscard]] BaseParameters base_parameters(const Model& model, const BaseParameterOptions& options = {});

/// A joint-torque and motion log: N samples with q, v, a and the measured torques.
struct MotionLog {
  Eigen::VectorXd t_s;              ///< (N) sample times [s]
  Eigen::MatrixXd q;                ///< (N x nq) [rad | m; free joint: p [m], quaternion w, x, y, z]
  Eigen::MatrixXd v;                ///< (N x nv) [rad/s | m/s]
  Eigen::MatrixXd a;                ///< (N x nv) [rad/s^2 | m/s^2]
  Eigen::MatrixXd tau;              ///< (N x nv) measured torques [N m | N]
  std::vector<std::string> places;  ///< (N) "path:line" of each sample (empty for logs built in code)
  /// 0: v and a were logged; 1: a differentiated from v (or v from q with a logged); 2: v and a from q.
  int differentiated_order = 0;
  bool differentiated_from_q = false;  ///< the differentiated columns are q (else v)
  /// When differentiated: the noise share of the derivatives (core/differentiate.hpp) of the
  /// differentiated columns at the half width used; above kDerivativeNoiseWarning in derivative
  /// `differentiated_order` the identified parameters are biased by about that share, outside
  /// their std.
  DerivativeNoise derivative_noise;
  /// When that share is above kDerivativeNoiseWarning: the smallest half width (1, 2, 4, ..., at
  /// most 64 and (N - 1) / 8) below it, or 0 when none is; else 0.
  int suggested_half_width = 0;
  [[nodiscard]] long nsample() const { return static_cast<long>(t_s.size()); }
};

/// Reads a motion log CSV (io::CsvReader: header required, '#' comments, 256 MiB bound). Columns
/// by name, in any order, others ignored (the result file of `tendyn tree simulate` is a log):
///   t_s; q:<joint>_rad | _m (free joint: q:<joint>.x_m .. .z_m, .qw .. .qz);
///   v:<joint>_radps | _mps (free joint: v:<joint>.wx_radps .. .vz_mps) optional;
///   a:<joint>_radps2 | _mps2 (free joint: a:<joint>.wx_radps2 .. .vz_mps2) optional;
///   tau:<joint>_Nm | _N (free joint: tau:<joint>.wx_Nm .. .vz_N).
/// Missing accelerations are differentiated from v, missing v and a from q (1-DOF joints only),
/// with differentiate_quadratic(t, ., half_width) (core/differentiate.hpp); the first and last
/// half_width samples are then dropped. Throws tendyn::Error "path:line:col (column): reason"
/// (bad number, empty cell), "path:1: missing column 'q:hip_rad'", "v without ... free joint".
[[nodiscard]] MotionLog read_motion_log(const std::string& path, const Model& model, int half_width = 1);

/// Header of the motion-log CSV for `model` (t_s, q, v, a, tau columns; no newline).
[[nodiscard]] std::string motion_log_header(const Model& model);

/// How the rows of the stacked system are weighted.
enum class Weighting {
  kNone,   ///< ordinary least squares
  kJoint,  ///< Gautier & Khalil: each joint's rows divided by that joint's residual rms of an
           ///< ordinary fit (torques of different size and noise weigh alike)
};
/// The names of Weighting (tendyn/core/enum_names.hpp).
constexpr EnumNames<Weighting, 2> enum_names(Weighting) {
  return {"weighting", {{{Weighting::kNone, "none"}, {Weighting::kJoint, "joint"}}}};
}
/// "none", "joint".
[[nodiscard]] inline const char* to_string(Weighting weighting) { return enum_to_string(weighting); }
/// Inverse of to_string(Weighting); throws tendyn::Error "unknown weighting 'x' (valid: none, joint)".
[[nodiscard]] inline Weighting weighting_from_string(const std::string& name) { return enum_from_string<Weighting>(name); }

/// Options of identify_inertial_parameters().
struct IdentifyOptions {
  Weighting weighting = Weighting::kNone;
  BaseParameterOptions base;   ///< how the base parameters are found (from the model, not the data)
  double max_condition = 1e8;  ///< larger cond(W_1) (column-scaled) = data not exciting enough: error
};

/// Result of identify_inertial_parameters().
struct Identification {
  BaseParameters base;
  Eigen::VectorXd beta;          ///< (r) identified base parameters [SI units of the combinations]
  Eigen::VectorXd beta_std;      ///< (r) standard deviations sqrt(diag(cov))
  Eigen::MatrixXd beta_cov;      ///< (r x r) covariance sigma^2 (W_1^T W_1)^-1 (weighted system)
  Eigen::VectorXd beta_nominal;  ///< (r) K pi of the nominal model
  /// (10 nlinks) standard parameters with K pi = beta closest to the nominal ones: pi_nominal +
  /// K^+ (beta - K pi_nominal) (minimum-norm correction; the unidentifiable part stays nominal).
  Eigen::VectorXd pi;
  bool physically_consistent = false;  ///< with_inertial_parameters(model, pi) succeeds
  std::string consistency_note;        ///< why not (empty when consistent)
  Eigen::MatrixXd residual;            ///< (N x nv) tau - Y pi, unweighted [N m | N]
  Eigen::VectorXd rms_joint;           ///< (nv) residual rms per coordinate [N m | N]
  Eigen::VectorXd joint_weight;        ///< (nv) row weights used (1 without weighting)
  double rms_total = 0.0;              ///< over every row [N m | N]
  double sigma = 0.0;                  ///< rms of the weighted residual with (rows - r) degrees of freedom
  double condition_number = 0.0;       ///< of the column-scaled weighted base regressor
  long nsample = 0, nrow = 0;
};

/// Identifies the base parameters of `nominal` from `log` (every sample: Y(q, v, a) rows; all nv
/// torques). Throws tendyn::Error naming the reason: log sizes that do not match the model, fewer
/// rows than base parameters, data that do not excite every base parameter (condition number
/// above options.max_condition: "data do not excite ...: condition number ..."), non-finite data.
/// Cost O(N nv nparam r) plus the base-parameter QR.
[[nodiscard]] Identification identify_inertial_parameters(const Model& nominal, const MotionLog& log, const IdentifyOptions& options = {});

}  // namespace tendyn::tree
