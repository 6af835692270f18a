// Identification of a cable-driven parallel robot's cable stiffness and damping and of its
// platform's mass, centre of mass and inertia from pose and tension logs (issue 16, item 3).
//
// Cables (the force law of dynamics.hpp): f_i = k_i (l_i - l0_i) + c_i (dl_i/dt - dl0_i/dt),
// k_i = EA_i / l0_i, while taut. Two linear least-squares fits per cable, on the taut samples:
//  - kStiffness: rest lengths l0_i(t) logged; f = EA x + c s with x = (l - l0)/l0, s = dl/dt - dl0/dt;
//    unknowns EA_i [N] (and c_i [N s/m]).
//  - kStiffnessRestLength: l0_i constant and unknown (winch held); f = k l - (k l0) + c dl/dt;
//    unknowns k_i [N/m], k_i l0_i [N] (and c_i): l0 = (k l0)/k, EA = k l0, standard deviations by
//    first-order propagation of the covariance.
// Rates by the local quadratic rule of core/differentiate.hpp (interior samples only).
//
// Platform: Newton-Euler of the rigid platform about its reference point P is linear in the 10
// inertial parameters pi = (m, m c (3), I_P (6)) (c = p_PC in the platform frame [m], I_P the
// inertia about P in platform axes [kg m^2], order xx, xy, xz, yy, yz, zz; Atkeson, An,
// Hollerbach 1986; Khalil & Dombre 2002, ch. 12):
//   m (a_P - g) + R (alpha x h + w x (w x h))        = sum_i f_i u_i               (world)
//   I_P alpha + w x (I_P w) + h x R^T (a_P - g)      = R^T sum_i (R p_PB_i) x f_i u_i (platform)
// h = m c, w and alpha the angular velocity and acceleration in platform axes. The accelerations
// come from the pose log: a_P from the local quadratic fit of p_WP; omega_W and alpha_W from the
// same fit of the rotation vectors log(R_j R_k^T) of the window's rotations relative to the
// centre sample k (the first and second derivative of that chart at k are exactly omega_W and
// alpha_W), then w = R^T omega_W, alpha = R^T alpha_W. No external force is assumed; cables that
// are slack simply contribute f = 0.
#pragma once
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/core/differentiate.hpp>
#include <tendyn/core/enum_names.hpp>

#include <Eigen/Core>

#include <string>
#include <vector>

namespace tendyn::cdpr {

/// A pose and tension log of a CDPR (N samples, n cables). Columns that the log does not have
/// are empty matrices (0 columns).
struct PlatformLog {
  Eigen::VectorXd t_s;              ///< (N) sample times [s], strictly increasing
  Eigen::MatrixXd pose;             ///< (N x 6) x, y, z [m], roll, pitch, yaw [rad] of P, or empty
  Eigen::MatrixXd tension_N;        ///< (N x n) measured cable tensions [N]
  Eigen::MatrixXd length_m;         ///< (N x n) measured cable lengths [m], or empty (then from the pose)
  Eigen::MatrixXd rest_length_m;    ///< (N x n) logged rest lengths [m], or empty
  Eigen::MatrixXd carriage_z_m;     ///< (N x n) carriage offsets along world z [m], or empty (fixed anchors)
  std::vector<std::string> places;  ///< (N) "path:line" of each sample (empty for logs built in code)
  [[nodiscard]] long nsample() const { return static_cast<long>(t_s.size()); }
};

/// Reads a platform log CSV (io::CsvReader: header required, '#' comments, 256 MiB bound). Columns
/// by name with their unit (the unit suffix may be left out), any order, others ignored:
///   t_s; x_m, y_m, z_m, roll_rad, pitch_rad, yaw_rad (all six or none);
///   <cable>.tension_N (required, every cable); <cable>.length_m, <cable>.rest_length_m,
///   <cable>.carriage_z_m (optional; each all cables or none).
/// Throws tendyn::Error "path:line:col (column): reason" for bad numbers and empty cells,
/// "path:1: missing column 'c1.tension_N'", "path:1: has some length columns but not 'c3.length_m'",
/// times not increasing.
[[nodiscard]] PlatformLog read_platform_log(const std::string& path, const Model& model);

/// Header of a platform log for `model` with the chosen optional columns (no newline).
[[nodiscard]] std::string platform_log_header(const Model& model, bool lengths, bool rest_lengths, bool carriages = false);

/// Which cable parameters are unknown.
enum class StiffnessFit {
  kStiffness,            ///< EA from logged rest lengths
  kStiffnessRestLength,  ///< k and a constant rest length
};
/// The names of StiffnessFit (tendyn/core/enum_names.hpp).
constexpr EnumNames<StiffnessFit, 2> enum_names(StiffnessFit) {
  return {"stiffness fit", {{{StiffnessFit::kStiffness, "stiffness"}, {StiffnessFit::kStiffnessRestLength, "stiffness-rest-length"}}}};
}
/// "stiffness", "stiffness-rest-length".
[[nodiscard]] inline const char* to_string(StiffnessFit fit) { return enum_to_string(fit); }
/// Inverse of to_string(StiffnessFit); tendyn::Error "unknown stiffness fit 'x' (valid: ...)".
[[nodiscard]] inline StiffnessFit stiffness_fit_from_string(const std::string& name) { return enum_from_string<StiffnessFit>(name); }

struct CableFitOptions {
  StiffnessFit fit = StiffnessFit::kStiffness;
  bool damping = false;     ///< also fit c_i (needs the rates: lengths and rest lengths differentiated)
  int half_width = 1;       ///< window half width of the rate rule (core/differentiate.hpp)
  double taut_min_N = 1.0;  ///< samples with a measured tension at or below this are left out [N]
};

/// Per-cable result (NaN where a quantity is not part of the fit).
struct CableFit {
  std::string name;
  double EA_N = 0.0, EA_std_N = 0.0;                    ///< axial stiffness E A and its standard deviation
  double k_Npm = 0.0, k_std_Npm = 0.0;                  ///< stiffness EA / l0 (kStiffnessRestLength: fitted; else EA / mean l0)
  double rest_length_m = 0.0, rest_length_std_m = 0.0;  ///< constant rest length (kStiffnessRestLength), else mean logged l0
  double damping_Nspm = 0.0, damping_std_Nspm = 0.0;    ///< c and its std (0 when not fitted)
  double rms_N = 0.0;                                   ///< residual rms [N]
  long nsample = 0;                                     ///< taut samples used
};

struct CableIdentification {
  std::vector<CableFit> cables;  ///< (n) in model order
  Eigen::MatrixXd residual_N;    ///< (N' x n) measured - fitted tension, NaN where a sample was left out
  Eigen::VectorXd t_s;           ///< (N') times of the residual rows (interior samples when rates are used)
  /// With damping: noise share of the length rates (core/differentiate.hpp, d1); above
  /// kDerivativeNoiseWarning the damping is biased towards zero by about that share. Else empty.
  DerivativeNoise length_noise;
  int suggested_half_width = 0;  ///< as PlatformIdentification's, for the length rates
};

/// Fits every cable. Needs tension and lengths (logged, or from the pose and the model's anchors),
/// and rest lengths for kStiffness. Throws tendyn::Error: missing columns ("cable fit 'stiffness'
/// needs rest lengths"), a cable with fewer taut samples than unknowns, a singular fit ("cable c3:
/// the lengths do not vary, stiffness and rest length cannot be separated"), and for
/// kStiffnessRestLength a log whose rest-length columns vary over a cable's taut samples by more
/// than 1e-3 of its lengths' spread ("cable c3: fit 'stiffness-rest-length' assumes a constant
/// rest length, but the logged rest length varies from ... to ...; use fit 'stiffness'").
[[nodiscard]] CableIdentification identify_cables(const Model& model, const PlatformLog& log, const CableFitOptions& options = {});

struct PlatformFitOptions {
  int half_width = 1;          ///< window half width for velocities and accelerations of the pose
  bool row_weighting = true;   ///< weight the 6 wrench rows by 1 / their residual rms of an ordinary fit
  double max_condition = 1e8;  ///< larger condition number of the scaled regressor: error
};

/// Platform mass properties identified from a pose + tension log.
struct PlatformIdentification {
  Eigen::Matrix<double, 10, 1> pi = Eigen::Matrix<double, 10, 1>::Zero();      ///< m, m c, I_P (xx xy xz yy yz zz)
  Eigen::Matrix<double, 10, 1> pi_std = Eigen::Matrix<double, 10, 1>::Zero();  ///< standard deviations
  Eigen::Matrix<double, 10, 10> cov = Eigen::Matrix<double, 10, 10>::Zero();   ///< covariance of pi
  double mass_kg = 0.0, mass_std_kg = 0.0;
  Eigen::Vector3d com_P_m = Eigen::Vector3d::Zero();                          ///< p_PC [m]
  Eigen::Vector3d com_std_m = Eigen::Vector3d::Zero();                        ///< first-order std of h / m
  Eigen::Matrix3d inertia_C_kgm2 = Eigen::Matrix3d::Zero();                   ///< about the COM, platform axes
  Eigen::Matrix3d inertia_P_kgm2 = Eigen::Matrix3d::Zero();                   ///< about P, platform axes
  Eigen::Matrix<double, 6, 1> rms_row = Eigen::Matrix<double, 6, 1>::Zero();  ///< residual rms of Fx..Fz [N], Mx..Mz [N m]
  Eigen::Matrix<double, 6, 1> row_weight = Eigen::Matrix<double, 6, 1>::Ones();
  Eigen::MatrixXd residual;  ///< (N' x 6) measured - fitted wrench (force world [N], moment platform [N m])
  Eigen::VectorXd t_s;       ///< (N') times of the residual rows
  double condition_number = 0.0;
  long nsample = 0;
  /// Noise share of the accelerations differentiated from the pose columns (x, y, z, roll, pitch,
  /// yaw) at the fit's half width (core/differentiate.hpp). Above kDerivativeNoiseWarning the
  /// parameters are biased (towards zero) by about that share, which pi_std does not contain.
  DerivativeNoise pose_noise;
  /// When pose_noise.worst(2) > kDerivativeNoiseWarning: the smallest half width (1, 2, 4, ...,
  /// at most 64 and (N - 1) / 8) whose share is below it, or 0 when none is; else 0.
  int suggested_half_width = 0;
};

/// The 6 x 10 platform regressor at one sample: rows force (world) and moment about P (platform
/// axes) of the equations in the header; R = R_WP, w, alpha in platform axes, a_P_W and g in W.
[[nodiscard]] Eigen::Matrix<double, 6, 10> platform_regressor(const Eigen::Matrix3d& R_WP, const Eigen::Vector3d& w_P,
                                                              const Eigen::Vector3d& alpha_P, const Eigen::Vector3d& a_P_W,
                                                              const Eigen::Vector3d& gravity_W);

/// Identifies pi from the log's poses and tensions (model: anchors, attachments, gravity).
/// Throws tendyn::Error: no pose columns, too few samples for the window, a cable of zero length,
/// poorly exciting data ("the data do not excite ...: condition number ..."). Cost O(N (n + h)).
[[nodiscard]] PlatformIdentification identify_platform(const Model& model, const PlatformLog& log, const PlatformFitOptions& options = {});

}  // namespace tendyn::cdpr
