// Document 002's two-stage dynamic experiment on the printer: track a printing path through one
// layer at 0.15 m/s (stop-and-go trapezoidal speed at each direction change), stage 1 without
// and stage 2 with the lower-cable tension (null-space) regulator; compare the worst-case norm of
// the lower-group tension vector and the tracking errors.
//
// Start state (issue 18 item 8): each stage starts at rest at the first path point with the upper
// cables at the optimal profile and the lower cables at StageStart (default: the optimal profile,
// the behaviour before issue 18). Document 002 does not state the pretension its uncontrolled stage
// starts from; its remark that the uncontrolled lower tensions "exceed [the optimal values] almost
// twice" (text at Fig. 4) and the halving of the worst-case norm (Fig. 6) depend on it, so it is an
// option here (a factor of the optimum or a value in N) and the comparison reports the ratio as a
// function of it (pretension_sweep). The optimal lower-group profile is the controller's
// (ControllerConfig::lower_profile, default the document's system (4)). Results and the ratio
// against the pretension: docs/VALIDATION.md, "Document 002: the two-stage printer experiment".
#pragma once
#include <tendyn/cdpr/control.hpp>
#include <tendyn/cdpr/dynamics.hpp>

#include <Eigen/Core>

#include <cstddef>
#include <string>
#include <vector>

namespace tendyn::cdpr {

/// Start state of the lower cables of one stage. "x<factor>" (e.g. "x1.8"; "optimal" = "x1"): each
/// lower cable at factor * its optimal tension at the start pose; "<value>N" (e.g. "900N"): each
/// lower cable at that tension [N]. When the start differs from the optimum (any factor but 1) the
/// upper tensions are re-solved (controller method and bounds) to balance the desired wrench with
/// the given lower tensions, J_u f_u = w_d - J_l f_l, so the stage starts near equilibrium.
struct StageStart {
  enum class Kind { kFactor, kTension };
  Kind kind = Kind::kFactor;
  double value = 1.0;  ///< factor [-] (kFactor, >= 0) or tension [N] (kTension, >= 0); finite
};
/// Parses "optimal", "x<factor>" or "<value>N" (case-insensitive, no spaces). Throws tendyn::Error
/// naming the accepted forms for anything else, a negative or non-finite number.
StageStart stage_start_from_string(const std::string& text);
/// "x1", "x1.8", "900N" (%g).
std::string to_string(const StageStart& start);

struct ExperimentConfig {
  double speed_m_s = 0.15;
  double accel_m_s2 = 0.5;         ///< acceleration at the direction changes
  double layer_z_m = 3.0;          ///< height of P while printing the layer
  double carriage_offset_m = 0.0;  ///< carriages' z offset from the model's lower anchors
  /// Path corners (x, y) [m] in the layer; default: 6 x 8 m wall outline and a zigzag infill.
  std::vector<Eigen::Vector2d> path;
  double dt_s = 1e-3;                                ///< RK4 step
  double control_dt_s = 2e-3;                        ///< controller period (500 Hz)
  double sample_dt_s = 0.05;                         ///< CSV sample period
  double settle_s = 2.0;                             ///< hold at the first corner before moving
  Eigen::Vector3d wind_N = Eigen::Vector3d::Zero();  ///< constant external force
  StageStart start_without;                          ///< lower-cable start state of stage 1 (no tension control)
  StageStart start_with;                             ///< lower-cable start state of stage 2 (tension control)
  /// Start-up transient [s]: the "after transient" scores use the samples with t >= transient_s
  /// (default: the 2 s settle hold before the platform moves). >= 0, finite.
  double transient_s = 2.0;
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
  Eigen::Matrix3Xd p_WA;                                     ///< (3 x n) anchors at this time (carriages moved) [m]
  double pos_err_m = 0.0, rot_err_rad = 0.0;
  Eigen::VectorXd f_N, f_opt_N;
  double lower_norm_N = 0.0, opt_lower_norm_N = 0.0;
};

struct StageResult {
  bool tension_control = false;
  StageStart start;          ///< the start state used
  double transient_s = 0.0;  ///< start-up transient of the "after" scores [s]
  std::vector<Sample> samples;
  double worst_lower_norm_N = 0.0;      ///< max over time of |f_lower|
  double worst_opt_lower_norm_N = 0.0;  ///< max over time of |f*_lower| (optimal profile)
  double peak_lower_tension_N = 0.0, peak_opt_lower_tension_N = 0.0;
  double mean_lower_norm_N = 0.0, mean_opt_lower_norm_N = 0.0;  ///< time averages
  double max_dev_opt_N = 0.0, rms_dev_opt_N = 0.0;              ///< |f_lower - f*_lower| over time
  double max_pos_err_m = 0.0, rms_pos_err_m = 0.0;
  double max_rot_err_rad = 0.0, rms_rot_err_rad = 0.0;
  double max_winch_rate_m_s = 0.0;  ///< largest commanded |dl0/dt| (before the model's clamp)
  /// The same after the start-up transient (samples with t >= transient_s) [N]
  double worst_lower_norm_after_N = 0.0, worst_opt_lower_norm_after_N = 0.0;
  double mean_lower_norm_after_N = 0.0, peak_lower_tension_after_N = 0.0, peak_opt_lower_tension_after_N = 0.0;
  double wall_s = 0.0;
};

/// Controlled / uncontrolled ratios of the lower-group tension norm (document 002, Fig. 6).
/// "At the worst configuration": both stages at the instant t_worst where the uncontrolled stage's
/// |f_lower| peaks (the stages share their sample times), |f_with(t_worst)| / |f_without(t_worst)|.
struct StageComparison {
  double transient_s = 0.0;                                            ///< [s]
  double ratio_worst_norm = 0.0;                                       ///< max_t |f_with| / max_t |f_without|, whole stage
  double ratio_worst_norm_after = 0.0;                                 ///< the same over t >= transient_s
  double ratio_mean_norm_after = 0.0;                                  ///< time means over t >= transient_s
  double t_worst_s = 0.0, ratio_at_worst = 0.0;                        ///< whole stage [s], [-]
  double without_at_worst_N = 0.0, with_at_worst_N = 0.0;              ///< |f_lower| at t_worst_s [N]
  double t_worst_after_s = 0.0, ratio_at_worst_after = 0.0;            ///< t >= transient_s [s], [-]
  double without_at_worst_after_N = 0.0, with_at_worst_after_N = 0.0;  ///< at t_worst_after_s [N]
  /// Uncontrolled peak lower tension over the optimum's peak lower tension (both stage 1, whole
  /// stage): the document's "exceed them almost twice".
  double peak_over_opt_without = 0.0;
  double peak_over_opt_without_after = 0.0;  ///< the same over t >= transient_s
};
/// Compares two stages run with the same config (same sample times). Throws tendyn::Error when
/// their sample counts differ or a stage has no sample at or after its transient. Cost O(samples).
StageComparison compare_stages(const StageResult& without, const StageResult& with);

/// Runs one stage on `model` (start state cfg.start_with or cfg.start_without by
/// `tension_control`). Throws tendyn::Error for a bad config, SimulationError if the state blows up.
StageResult run_stage(const DynamicModel& model, const ExperimentConfig& cfg, bool tension_control);

/// One row of pretension_sweep: stage 1 started at `factor` x the optimum, stage 2 as configured.
struct PretensionRow {
  double factor = 1.0;
  StageComparison cmp;
  double worst_without_N = 0.0, worst_with_N = 0.0;              ///< whole stage
  double worst_without_after_N = 0.0, worst_with_after_N = 0.0;  ///< t >= transient_s
  double peak_without_N = 0.0, peak_opt_N = 0.0;                 ///< stage 1 peak lower tension, optimum's peak
};
/// The ratio as a function of the uncontrolled stage's pretension: stage 2 once with cfg, stage 1
/// once per factor (start_without = x factor). Factors >= 0, finite, at least one (tendyn::Error).
/// Cost: (1 + factors) stages (~4 s each for the default layer).
std::vector<PretensionRow> pretension_sweep(const DynamicModel& model, const ExperimentConfig& cfg, const std::vector<double>& factors);
/// CSV (%.12g): pretension_factor, worst_without_N, worst_with_N, ratio_worst_norm,
/// worst_without_after_N, worst_with_after_N, ratio_worst_norm_after, ratio_mean_norm_after,
/// t_worst_s, ratio_at_worst, t_worst_after_s, ratio_at_worst_after, peak_without_N, peak_opt_N,
/// peak_over_opt_without, transient_s.
std::string pretension_sweep_csv(const std::vector<PretensionRow>& rows);

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
/// The comparison's lines for the summary (start states, after-transient and worst-configuration
/// ratios).
std::string comparison_summary(const StageResult& without, const StageResult& with, const StageComparison& cmp);

}  // namespace tendyn::cdpr
