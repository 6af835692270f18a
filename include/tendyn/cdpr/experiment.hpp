// Document 002's two-stage dynamic experiment on the printer: track a printing path through one
// layer at 0.15 m/s (stop-and-go trapezoidal speed at each direction change), stage 1 without
// and stage 2 with the lower-cable tension (null-space) regulator; compare the worst-case norm of
// the lower-group tension vector and the tracking errors.
#pragma once
#include <tendyn/cdpr/control.hpp>
#include <tendyn/cdpr/dynamics.hpp>

#include <Eigen/Core>

#include <cstddef>
#include <string>
#include <vector>

namespace tendyn::cdpr {

struct ExperimentConfig {
  double speed_m_s = 0.15;
  double accel_m_s2 = 0.5;        ///< acceleration at the direction changes
  double layer_z_m = 3.0;         ///< height of P while printing the layer
  double carriage_offset_m = 0.0; ///< carriages' z offset from the model's lower anchors
  /// Path corners (x, y) [m] in the layer; default: 6 x 8 m wall outline and a zigzag infill.
  std::vector<Eigen::Vector2d> path;
  double dt_s = 1e-3;             ///< RK4 step
  double control_dt_s = 2e-3;     ///< controller period (500 Hz)
  double sample_dt_s = 0.05;      ///< CSV sample period
  double settle_s = 2.0;          ///< hold at the first corner before moving
  Eigen::Vector3d wind_N = Eigen::Vector3d::Zero();  ///< constant external force
  ControllerConfig controller;
  SensorConfig sensors;
};

/// The default layer path (outline + infill with 90/180 degree direction changes).
std::vector<Eigen::Vector2d> default_layer_path();

/// Reference at time t along the path (trapezoidal speed per segment, stop at each corner).
Reference layer_reference(const ExperimentConfig& cfg, double t_s);
/// Duration of the path including the settle time [s].
double layer_duration(const ExperimentConfig& cfg);

struct Sample {
  double t_s = 0.0;
  Eigen::Vector3d p_ref = Eigen::Vector3d::Zero(), p = Eigen::Vector3d::Zero();
  Eigen::Quaterniond q_WP = Eigen::Quaterniond::Identity();  ///< platform orientation
  Eigen::Matrix3Xd p_WA;  ///< (3 x n) anchors at this time (carriages moved) [m]
  double pos_err_m = 0.0, rot_err_rad = 0.0;
  Eigen::VectorXd f_N, f_opt_N;
  double lower_norm_N = 0.0, opt_lower_norm_N = 0.0;
};

struct StageResult {
  bool tension_control = false;
  std::vector<Sample> samples;
  double worst_lower_norm_N = 0.0;      ///< max over time of |f_lower|
  double worst_opt_lower_norm_N = 0.0;  ///< max over time of |f*_lower| (optimal profile)
  double peak_lower_tension_N = 0.0, peak_opt_lower_tension_N = 0.0;
  double mean_lower_norm_N = 0.0, mean_opt_lower_norm_N = 0.0;  ///< time averages
  double max_dev_opt_N = 0.0, rms_dev_opt_N = 0.0;  ///< |f_lower - f*_lower| over time
  double max_pos_err_m = 0.0, rms_pos_err_m = 0.0;
  double max_rot_err_rad = 0.0, rms_rot_err_rad = 0.0;
  double max_winch_rate_m_s = 0.0;  ///< largest commanded |dl0/dt| (before the model's clamp)
  double wall_s = 0.0;
};

/// Runs one stage on `model`. Throws SimulationError if the state blows up.
StageResult run_stage(const DynamicModel& model, const ExperimentConfig& cfg, bool tension_control);

/// CSV (%.12g, units in the column names): t_s, p_ref_{x,y,z}_m, p_{x,y,z}_m, pos_err_m, rot_err_rad,
/// <cable>.tension_N..., <cable>.tension_opt_N... (optimal profile), lower_norm_N, opt_lower_norm_N.
std::string stage_csv(const DynamicModel& model, const StageResult& stage);
/// Indices of the samples a viewer shows: the first, then each sample at least `period_s` [s]
/// (less 1e-9 s) after the previously chosen one, and the last. Throws tendyn::Error for a
/// negative or non-finite period. Cost O(samples).
std::vector<std::size_t> frame_samples(const StageResult& stage, double period_s);
/// The platform pose of a sample (p_WP = p, R_WP from q_WP).
Pose sample_pose(const Sample& sample);
/// Human-readable comparison of the two stages (also used by the CLI).
std::string experiment_summary(const StageResult& without, const StageResult& with);

}  // namespace tendyn::cdpr
