// Fixed-step simulation of a tree model: classical 4th-order Runge-Kutta on (q, v) with ABA as
// the acceleration (free joints: q integrated in the embedding (p, quaternion) and the
// quaternion renormalised after each step). Joint torques come from a callback or a table.
//
// Two levels: `simulate` (the whole run: validation, RK4 loop, samples every k-th step, energies;
// used by `tendyn tree simulate` and `tendyn.tree.simulate`) and `Rk4` (one step, for callers
// that drive the loop themselves).
#pragma once
#include <tendyn/io/output_estimate.hpp>
#include <tendyn/tree/algorithms.hpp>

#include <Eigen/Core>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tendyn::tree {

/// tau(t [s], q (nq), v (nv)) -> tau (nv) [N m | N], written into the last argument (already sized
/// nv and set to zero before the call). Called at every RK4 stage (4 times per step) with the
/// stage's (t, q, v), and once per output sample; it should be a function of its arguments.
using TorqueFn = std::function<void(double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd&)>;

/// Piecewise-linear joint-torque schedule: rows (t [s], tau_1..tau_nv), strictly increasing t;
/// constant before the first and after the last row.
class TorqueSchedule {
 public:
  TorqueSchedule() = default;
  /// Throws tendyn::Error if rows are ragged, non-finite or t not increasing.
  TorqueSchedule(std::vector<double> t, std::vector<Eigen::VectorXd> tau);
  /// Reads a CSV file (io::CsvReader with an optional header: a first line with no number is
  /// the header): rows "t,tau_1,...,tau_nv" [s, N m | N], comma-separated, '#' comments and
  /// blank lines skipped, at most 256 MiB. Throws tendyn::Error naming path:line[:col].
  static TorqueSchedule load_csv(const std::string& file, int nv);
  /// tau(t) [N m | N] into `out` (sized nv by the caller; zero if the schedule is empty).
  /// Cost O(log rows), no allocation.
  void eval(double t, Eigen::VectorXd& out) const;
  [[nodiscard]] bool empty() const { return t_.empty(); }
  /// Number of rows.
  [[nodiscard]] std::size_t rows() const { return t_.size(); }
  /// Number of torques per row (0 if empty).
  [[nodiscard]] Eigen::Index width() const { return tau_.empty() ? 0 : tau_.front().size(); }
  [[nodiscard]] const std::vector<double>& times_s() const { return t_; }
  [[nodiscard]] const std::vector<Eigen::VectorXd>& torques() const { return tau_; }

 private:
  std::vector<double> t_;
  std::vector<Eigen::VectorXd> tau_;
};

/// RK4 integrator with all stage storage allocated at construction. Keeps a reference to
/// `model`, which must outlive it.
class Rk4 {
 public:
  explicit Rk4(const Model& model);
  /// Advances (q, v) from t by h [s]. Throws tendyn::SimulationError (with the time) on a
  /// non-finite torque or state.
  void step(double t, double h, Eigen::VectorXd& q, Eigen::VectorXd& v, const TorqueFn& torque, const std::vector<LinkWrench>& fext = {});

 private:
  const Model& model_;
  Data data_;
  // RK4 (core/integrate.hpp) on x = [q; v]; qs_, vs_, dq_, dv_ unpack one stage
  Eigen::VectorXd x_, k_[4], stage_, qs_, vs_, dq_, dv_, tau_;
  void deriv(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const TorqueFn& torque, const std::vector<LinkWrench>& fext,
             Eigen::VectorXd& dq, Eigen::VectorXd& dv);
};

/// Options of simulate().
struct SimulationOptions {
  /// Simulated time [s], >= 0. The run takes steps = round(duration_s / dt_s) RK4 steps and ends
  /// at steps * dt_s (so a duration that is not a multiple of dt_s is rounded to the nearest one).
  /// 0 gives the initial sample only; a positive duration shorter than dt_s / 2 (0 steps) is an
  /// error, not a silent empty run.
  double duration_s = 1.0;
  /// RK4 step [s], > 0 and finite.
  double dt_s = 1e-3;
  /// Sampling interval [s]: <= 0 records every step, otherwise a whole multiple of dt_s (to
  /// 1e-9 relative) and every (output_interval_s / dt_s)-th step is recorded. t = 0 and the
  /// final step are always recorded.
  double output_interval_s = 0.0;
};

/// Validates `options` and returns the number of RK4 steps. Throws tendyn::Error naming the
/// option and its value: dt_s not > 0 or not finite, duration_s negative or not finite,
/// duration_s > 0 but shorter than dt_s / 2, output_interval_s not finite or not a multiple of
/// dt_s, or more than 2^40 steps.
long simulation_steps(const SimulationOptions& options);

/// Number of output samples of a run with `steps` steps recorded every `stride` steps: t = 0,
/// every multiple of stride and the last step.
long sample_count(long steps, long stride);

/// `tendyn tree simulate`: the result file (sample_count rows of 2 + nq + 2 nv numbers: t, q, v,
/// tau, energy), held in memory as doubles until it is written, and, when frame_interval_s > 0,
/// the viewer frames (floor(duration / frame_interval_s) + 2, 6 numbers per link) in scene.json
/// and in memory. Throws tendyn::Error on options simulation_steps() rejects.
io::OutputEstimate estimate_simulate_output(const Model& model, const SimulationOptions& options, double frame_interval_s);

/// Samples of a run, one row per output time (row-major, so a row is one contiguous state).
struct SimulationResult {
  using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::VectorXd t_s;       ///< (n) sample times [s]: k * dt_s for the recorded steps k
  RowMatrix q;               ///< (n x nq) joint positions [rad | m; free joint: p [m], unit quaternion w,x,y,z]
  RowMatrix v;               ///< (n x nv) joint velocities [rad/s | m/s; free joint: w_L [rad/s], v_L [m/s]]
  RowMatrix tau;             ///< (n x nv) joint torques at the sample, torque(t, q, v) [N m | N]
  Eigen::VectorXd energy_J;  ///< (n) kinetic + gravitational potential energy [J]
  long steps = 0;            ///< RK4 steps taken
  double dt_s = 0.0;         ///< step [s]
  long output_stride = 1;    ///< samples every output_stride steps (and the last step)
};

/// Receives the state at t = 0 (step 0) and after every step (not only the output samples).
class Observer {
 public:
  virtual ~Observer() = default;
  /// `step` in 0..steps, t_s = step * dt_s; q (nq), v (nv) are the state after that step.
  virtual void on_step(long step, long steps, double t_s, const Eigen::VectorXd& q, const Eigen::VectorXd& v) = 0;
};

/// Simulates `model` from (q0, v0) with RK4 (Rk4 above) for options.duration_s.
/// - q0 (nq) is normalised (unit quaternions of free joints) before the first step; v0 (nv).
/// - torque(t, q, v, tau): joint torques (see TorqueFn); an empty function means zero torque.
/// - observer (optional): called at t = 0 and after every step; progress (optional): called after
///   every step with the fraction done in (0, 1].
/// Returns sample_count(steps, stride) samples: t = 0, every stride-th step and the last step.
/// Errors: tendyn::Error on bad options (simulation_steps) or wrong sizes / non-finite q0, v0
/// (naming the argument, the size and nq / nv); tendyn::SimulationError (with the time) when the
/// torque or the state becomes non-finite; exceptions thrown by `torque`, the observer or progress propagate
/// unchanged (no partial result).
/// Cost: 4 ABA + 4 torque calls per step, O(nlinks) each, plus one torque call and the energies
/// per sample; all storage is allocated before the loop (no allocation per step).
SimulationResult simulate(const Model& model, const SimulationOptions& options, const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                          const TorqueFn& torque = {}, Observer* observer = nullptr, const std::function<void(double)>& progress = {});

}  // namespace tendyn::tree
