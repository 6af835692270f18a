// CDPR control and sensors (document 002's printer controller).
//
// Controller (one cycle, called at the control rate):
//  1. pose regulators: desired wrench on the platform (world axes, moments about P)
//       w_d = [ m (a_ref - g) + Kp e_p + Kd e_v ;  (r_C x m(a_ref - g)) + Kr e_R + Kw e_w ],
//     e_p = p_ref - p, e_R = log(q_ref q^-1) (world rotation vector), e_w = -omega (world);
//  2. optimal distribution f* = argmin |J f - w_d| then |f|, f_min <= f <= f_max (any solver of
//     tension.hpp; default exact) at the measured pose: the optimal tension profile; with
//     lower_profile = kSystem4 its lower part is replaced by the solution of document 002's
//     system (4) (see LowerProfile);
//  3. upper cables (position / orientation regulators): upper tensions f_u from J_u f_u = w_d -
//     J_l f_l, f_l the lower cables' measured forces (same solver, upper columns only);
//  4. lower cables: their winches follow the reference pose's cable lengths (kinematic, open
//     loop) minus an offset, at start the stretch l - l0 = f l0 / EA of the measured lower
//     force (so the start tensions are kept if the platform is on the reference). With tension control
//     (null-space regulator) the offset is corrected each cycle towards the optimal profile:
//       d(offset_i)/dt = clamp((f*_i - f_i) / tau_tension, +-tension_rate_max) / k_i,
//     k_i = EA_i / l0_i, f*_i and f_i the optimal and the measured lower tensions after a
//     first-order low-pass filter (time constant tau_filter, state reset by reset()). A slow
//     outer loop: at a corner the lower winches keep the kinematic stiffness of stage 1 and the
//     pose regulator (upper cables) absorbs the inertial step; the tensions then drift to f*;
//     without tension control the offset stays constant;
//  5. each tension target f_d becomes a winch rate through the cable elasticity:
//       l0_d = EA l / (EA + f_d),  u = EA/(EA + f_d) dl/dt + (l0_d - l0) / tau_winch
//     (l0 from the winch encoder, l and dl/dt = -J^T [v + a_ref T/2; omega] from the measured
//     pose and twist, T the control period: the rate held over the period is the one at its
//     middle; lower cables: the reference pose's length and rate), clamped by the model's rate
//     limit in the dynamics.
// Cost: two tension solves (6 x n, 6 x n_upper) and two geometry updates per cycle; no allocation.
// Sensors: lower-cable force (tension), lower-cable inclination (angle of the cable above the
// horizontal at the platform), IMU (specific force and angular rate in the platform frame), pose
// tracker; each with optional seeded Gaussian noise (sigma = 0 means exact).
#pragma once
#include <tendyn/cdpr/dynamics.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/core/enum_names.hpp>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tendyn::cdpr {

/// Where the optimal lower-group tension profile f*_l comes from (document 002, issue 18 item 8).
enum class LowerProfile {
  /// "full": the lower part of the 6 x n solution of step 2 (bounds f_min..f_max of this config,
  /// the model's 200 N minimum for printer8, so four lower cables cannot go below 400 N together).
  kFull,
  /// "system4": document 002's system (4): the lower group alone, rows (Fx, Fy, Mz), 3 x n_lower,
  /// f >= 0 (no minimum), solved with lower_method (default the document's exhaustive NNLS with
  /// outlier exclusion). Right-hand side: those rows of w_d - J_u f*_u, what the upper part f*_u
  /// of step 2 leaves (the document takes the upper group as solved by its refs. [7, 13] and does
  /// not state the upper law; ours is step 2). The upper part of f* is unchanged.
  kSystem4,
};
/// The names of LowerProfile (tendyn/core/enum_names.hpp).
constexpr EnumNames<LowerProfile, 2> enum_names(LowerProfile) {
  return {"lower profile", {{{LowerProfile::kFull, "full"}, {LowerProfile::kSystem4, "system4"}}}};
}
/// "full" or "system4" (any case, '-' = '_'); throws tendyn::Error naming the accepted names.
inline LowerProfile lower_profile_from_string(const std::string& name) { return enum_from_string<LowerProfile>(name); }
inline const char* to_string(LowerProfile profile) { return enum_to_string(profile); }

struct ControllerConfig {
  double kp_pos_Npm = 5.5e4;             ///< position stiffness [N/m]
  double kd_pos_Nspm = 8.8e3;            ///< position damping [N s/m]
  double kp_rot_Nmprad = 8.0e3;          ///< orientation stiffness [N m/rad]
  double kd_rot_Nmsprad = 1.3e3;         ///< orientation damping [N m s/rad]
  double tau_winch_s = 0.01;             ///< rest-length tracking time constant [s]
  double period_s = 0.002;               ///< control period T [s] (winch rates are held over it)
  double tau_tension_s = 0.1;            ///< tension (null-space) regulator time constant [s]
  double tension_rate_max_Nps = 1000.0;  ///< limit of its correction rate per cable [N/s]
  double tau_filter_s = 0.0;             ///< low-pass of the readings it uses (0 = off) [s]
  /// Tension bounds [N] of the full and upper solves (the lower system (4) keeps f >= 0 and the
  /// upper bound). Unset (the default): the model's, DynamicModel::geometry.f_min_N / f_max_N
  /// (tension.min / tension.max of the model file); set: an explicit override.
  std::optional<double> f_min_N;
  std::optional<double> f_max_N;
  /// Solver of the full and upper distributions. The f >= 0 methods (exhaustive, lawson-hanson)
  /// cannot honour a lower bound > 0: the Controller refuses them then (tendyn::Error).
  Method method = Method::kExact;
  /// Source of the optimal lower-group profile (see LowerProfile). Default: the document's own
  /// system (4) (issue 18 item 8; kFull was the default before).
  LowerProfile lower_profile = LowerProfile::kSystem4;
  /// Solver of system (4) when lower_profile = kSystem4 (f >= 0 and f <= f_max_N; exhaustive and
  /// lawson-hanson solve f >= 0 only: an answer above f_max_N is reported as
  /// Controller::lower_solution().status == Status::kOutOfBounds, not enforced).
  Method lower_method = Method::kExhaustive;
  bool tension_control = true;  ///< lower-cable (null-space) tension regulator on/off
  std::string upper_group = "upper";
  std::string lower_group = "lower";
};

struct Reference {
  Eigen::Vector3d p_W = Eigen::Vector3d::Zero();
  Eigen::Vector3d v_W = Eigen::Vector3d::Zero();
  Eigen::Vector3d a_W = Eigen::Vector3d::Zero();
  Eigen::Quaterniond q_WP = Eigen::Quaterniond::Identity();
};

struct Measurement {
  Pose pose;                                          ///< pose tracker
  Eigen::Vector3d v_W = Eigen::Vector3d::Zero();      ///< tracker velocity [m/s]
  Eigen::Vector3d gyro_P = Eigen::Vector3d::Zero();   ///< IMU angular rate [rad/s]
  Eigen::Vector3d accel_P = Eigen::Vector3d::Zero();  ///< IMU specific force [m/s^2]
  Eigen::VectorXd lower_force_N;                      ///< lower-cable force sensors
  Eigen::VectorXd lower_inclination_rad;              ///< lower-cable inclination sensors
  Eigen::VectorXd rest_length_m;                      ///< winch encoders (all cables)
};

struct SensorConfig {
  double force_sigma_N = 0.0;
  double inclination_sigma_rad = 0.0;
  double accel_sigma = 0.0;  ///< [m/s^2]
  double gyro_sigma = 0.0;   ///< [rad/s]
  double position_sigma_m = 0.0;
  double velocity_sigma_m_s = 0.0;
  std::uint64_t seed = 1;
};
/// The noise levels of `tendyn cdpr-experiment --noise` (and its tests): force 20 N, inclination
/// 1 mrad, accelerometer 0.02 m/s^2, gyro 1 mrad/s, position 0.2 mm, velocity 1 mm/s; Gaussian,
/// seeded with `seed`.
SensorConfig typical_sensor_noise(std::uint64_t seed);

/// Sensor models. measure() needs `data` filled by compute_derivative() at `x` (tensions, a_P).
class Sensors {
 public:
  Sensors(const DynamicModel& model, const SensorConfig& config, const std::string& lower_group = "lower");
  void measure(const DynamicModel& model, const StateVector& x, const DynamicData& data, Measurement& out);
  [[nodiscard]] const std::vector<int>& lower() const { return lower_; }

 private:
  double noise(double sigma);
  SensorConfig cfg_;
  std::vector<int> lower_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> normal_{0.0, 1.0};
};
Measurement make_measurement(const DynamicModel& model, const std::string& lower_group = "lower");

/// Keeps a pointer to `model`: the model must outlive the controller.
class Controller {
 public:
  /// Throws tendyn::Error "cdpr controller: ..." on a bad config: non-positive time constants,
  /// bounds without 0 <= f_min < f_max (after taking the model's for unset ones), a group with no
  /// cable, system4 without a spatial model and a lower group, and `method` exhaustive or
  /// lawson-hanson with f_min > 0 (they solve f >= 0 only and would break the bound).
  Controller(const DynamicModel& model, const ControllerConfig& config);
  /// Lower cables' kinematic rest lengths l0_ref = l(ref pose) - offset: the offset (stretch
  /// from the force sensors) is taken at the next call to update() (first call or after
  /// reset()), which also restarts the tension regulator's filters from that call's readings.
  void reset();
  /// One control cycle; writes in.winch_rate_m_s. No allocation. Throws tendyn::Error when the
  /// full or upper solve returns Status::kOutOfBounds (an f >= 0 method broke f_max): never uses
  /// such tensions silently. System (4) reports it in lower_solution().status instead.
  void update(const Reference& ref, const Measurement& meas, Inputs& in);
  /// The tension bounds in force [N]: the config's overrides, else the model's.
  [[nodiscard]] double f_min_N() const { return opt_.f_min_N; }
  [[nodiscard]] double f_max_N() const { return opt_.f_max_N; }
  [[nodiscard]] const Eigen::VectorXd& optimal_tensions() const { return f_opt_; }
  [[nodiscard]] const Eigen::VectorXd& target_tensions() const { return f_des_; }
  [[nodiscard]] const Eigen::Matrix<double, 6, 1>& desired_wrench() const { return w_d_; }
  [[nodiscard]] const std::vector<int>& upper() const { return upper_; }
  [[nodiscard]] const std::vector<int>& lower() const { return lower_; }
  [[nodiscard]] const TensionResult& last_solution() const { return res_full_; }
  /// System (4) of the last update (lower_profile kSystem4; zero otherwise): its (3 x n_lower)
  /// matrix (rows Fx, Fy, Mz of the lower columns of J [-; m]), right-hand side [N; N m] and solution.
  [[nodiscard]] const Eigen::MatrixXd& lower_system_J() const { return J4_; }
  [[nodiscard]] const Eigen::VectorXd& lower_system_w() const { return w4_; }
  [[nodiscard]] const TensionResult& lower_solution() const { return res_low_; }

 private:
  const DynamicModel* model_;
  ControllerConfig cfg_;
  SolverOptions opt_;
  std::vector<int> upper_, lower_;
  Model geo_;  // geometry with the controller's mass properties
  Data data_, ref_data_;
  Workspace ws_, ws_up_, ws_low_;  // one per problem size (no resizing in the loop)
  TensionResult res_full_, res_up_, res_low_;
  SolverOptions opt_low_;  // system (4): f >= 0
  Eigen::MatrixXd J4_;     // (3 x n_lower) rows Fx, Fy, Mz of the lower columns
  Eigen::VectorXd w4_;     // (3) its right-hand side
  Eigen::MatrixXd Ju_;
  Eigen::VectorXd wu_, f_opt_, f_des_, offset_;
  Eigen::VectorXd f_meas_lp_, f_opt_lp_;  // (n) filtered lower readings (lower entries used)
  Eigen::Matrix<double, 6, 1> w_d_, twist_;
  bool have_offset_ = false;
};

}  // namespace tendyn::cdpr
