// Simulation driver: integrates a tensegrity model over time, monitors the "normal mode"
// (document 000: no cable goes slack and no strain exceeds the limit during the whole run),
// detects blow-ups, and reports outputs to an observer at a fixed output interval.
//
// One step of the driver is the public function step(): simulate() calls it, so stepping a model
// by hand (a closed control loop in C++ or Python) runs the very same code and gives the same bytes.
#pragma once
#include <tendyn/tensegrity/integrate.hpp>

#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

struct SimulationOptions {
  double duration_s = 5.0;
  Integrator integrator = Integrator::kRK4;
  double dt_s = 1e-3;               ///< fixed step (rk4, lie-verlet) or first trial step (dopri5)
  Tolerance tolerance;              ///< dopri5 error control
  double output_interval_s = 0.01;  ///< observer call interval; <= 0 means every step
  double strain_limit = 1.0;        ///< over-strain threshold on (l - l0)/l0 (1.0 = 100 %)
  /// A tension-only cable is slack when its strain < -slack_tolerance, or (under
  /// CableForceSign::kClampTension, model.hpp) when the clamp has unloaded it although l > l0.
  double slack_tolerance = 0.0;
  /// Blow-up guard: the run stops with SimulationError when the total energy exceeds its initial
  /// value by more than energy_growth_limit * max(|E0|, kinetic0 + elastic0, 1e-9 J). Not applied
  /// to models with force actuators (Model::force_actuators: their work is not part of the
  /// energy); a non-finite state stops every run.
  double energy_growth_limit = 1e3;
  bool stop_on_abnormal = false;  ///< stop at the first slack or over-strain event
  /// Fixed-step integrators: when a tension-only cable goes slack or taut inside a step, redo the
  /// step split at the (linearly interpolated) crossing time, so the kink of the force law falls on
  /// a step boundary and RK4 keeps its order (up to 3 splits per step).
  bool locate_slack_events = true;
  /// How simulate() calls its `controller` argument [s]. 0 (default): at every evaluation of the
  /// dynamics (every integrator stage, installed as Data::controller): a continuous law of
  /// (t, state). > 0: a sampled controller, called at the step boundaries t0, t0 + T, t0 + 2T, ...
  /// (not at the end time) with the state there; what it writes into the Data (rest lengths of
  /// cables without a drive, external node forces) is held until its next call (zero-order hold).
  /// With rk4 / lie-verlet T must be a whole number of steps dt; dopri5 shortens its steps to land
  /// on the call times. Ignored without a controller.
  double control_period_s = 0.0;
};

/// The part of SimulationOptions that one step needs.
struct StepOptions {
  Integrator integrator = Integrator::kRK4;
  Tolerance tolerance;              ///< dopri5 error control
  bool locate_slack_events = true;  ///< fixed steps: split at slack/taut crossings (SimulationOptions)
};
/// The step options of a run's options.
StepOptions step_options(const SimulationOptions& options);

/// What one step did.
struct StepResult {
  double h_s = 0.0;       ///< [s] the step taken (dopri5: the accepted trial; fixed: h)
  double h_next_s = 0.0;  ///< [s] dopri5: the step the error control suggests next; fixed: h
  int splits = 0;         ///< fixed steps: sub-steps cut at slack events or ground impacts (0: one plain step)
  int rejected = 0;       ///< dopri5: trials rejected (and retried with a smaller step) before acceptance
};

/// Advances `state` by one step of simulate()'s loop, in place:
///  * rk4 / lie-verlet: one step of size h_s; a tension-only cable going slack or taut inside the
///    step (options.locate_slack_events) or a rod end hitting an impulse ground redoes the step
///    split at the event (document 001's impulses applied there);
///  * dopri5: one accepted Dormand-Prince 5(4) step, trying h_s first and retrying with the
///    smaller step the error control suggests after each rejection.
/// Quaternions are renormalised. Data::controller (if set) is called at every evaluation.
/// No preparatory call is needed: the integrators start from data.xdot = f(state), and step()
/// evaluates it first unless data already holds it, i.e. unless `model`, `state` (x and time_s)
/// and data's inputs (cable_rest_length_m, f_W_ext_node, winch_target_m) are bit for bit those of
/// the last step() or prepare_step() on this data (Data::evaluated); after a step they are, so
/// steps chain at no extra cost, and a state or input changed by hand between steps is
/// re-evaluated. Not detected: a model edited in place or Data::controller replaced between
/// steps (call prepare_step() after either).
/// Postcondition: data holds f(new state). state.time_s is
/// the start time + the step taken, or `t_end_s` when given (fixed steps only, stamped after the
/// last evaluation): simulate() passes t0 + (k + 1) h so that its time grid does not accumulate
/// round-off over a long run; step by hand the same way to reproduce simulate() bit for bit.
/// Errors: tendyn::Error on h_s <= 0 or non-finite, on t_end_s with dopri5, on dopri5 with the
/// impulse ground; SimulationError (with the time) when the state becomes non-finite, an element
/// collapses, a dopri5 step falls below tolerance.h_min_s, or the controller leaves a rest length
/// outside its cable's limits. Cost: (4 rk4, 2-3 lie-verlet, 7 per dopri5 trial) evaluations,
/// each O(nrod + nnode + ncable), times (1 + splits), one more when data did not hold f(state),
/// and a comparison and a copy of the state and inputs (O(nx + ncable + nnode)); no allocation.
StepResult step(const Model& model, Data& data, State& state, double h_s, const StepOptions& options,
                double t_end_s = std::numeric_limits<double>::quiet_NaN());

/// data.xdot = f(state) (compute_derivative) and a record of it in data.evaluated, which the next
/// step() on this state and data then reuses instead of evaluating again. Optional: step() calls it
/// itself when needed; call it after editing the model in place or replacing Data::controller.
/// Errors: those of compute_derivative. Cost: one evaluation plus a copy of the state and inputs.
void prepare_step(const Model& model, const State& state, Data& data);

/// Normal-mode monitor, evaluated at every integration step.
struct MonitorReport {
  bool normal_mode = true;
  double first_slack_time_s = -1.0;
  int first_slack_cable = -1;
  double first_overstrain_time_s = -1.0;
  int first_overstrain_cable = -1;
  Eigen::VectorXd max_strain;              ///< (ncable) over the run
  Eigen::VectorXd min_strain;              ///< (ncable) over the run
  std::vector<double> slack_first_time_s;  ///< (ncable) first time slack, -1 if never
};

struct SimulationSummary {
  MonitorReport monitor;
  Energy initial_energy, final_energy;
  double max_abs_energy_drift_J = 0.0;  ///< max |E(t) - E(0)| over output samples and steps
  Eigen::Vector3d com_initial_m, com_final_m;
  double max_com_displacement_m = 0.0;
  double com_floor_path_m = 0.0;  ///< length of the COM's track projected on the floor (x, y)
  Eigen::Vector3d linear_momentum_initial_kgmps, linear_momentum_final_kgmps;
  Eigen::Vector3d angular_momentum_initial_kgm2ps, angular_momentum_final_kgm2ps;
  long steps = 0;
  long rejected_steps = 0;
  long split_steps = 0;  ///< fixed steps split at slack events
  double wall_time_s = 0.0;
  double observer_time_s = 0.0;  ///< part of wall_time_s spent in the observer (writing outputs) [s]
  bool stopped_early = false;    ///< stop_on_abnormal triggered
  State final_state;
  Eigen::VectorXd final_length_m, final_strain, final_tension_N;
};

/// Receives the state at every output time (including t = 0 and the final time).
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_output(const Model& model, const State& state, const Data& data, const Energy& energy) = 0;
};

/// Runs the model from `initial` (model.initial_state if null) for options.duration_s, one step()
/// per step.
/// `controller` (optional): actuation through the API, called at every evaluation as
/// Data::controller (options.control_period_s = 0) or sampled every control_period_s (see there).
/// A sampled controller must not change the rest length of a cable that has a drive (tendyn::Error:
/// the drive would overwrite it at the next evaluation). Rest lengths set by a controller are
/// checked against each cable's limits and rate limit (SimulationError naming the cable; a jump of
/// a sampled controller counts as a change over one step).
/// `progress(fraction)` is called every step if set. Throws SimulationError on a non-finite state,
/// an energy blow-up or a collapsing element (with the time and the reason), tendyn::Error on bad
/// options. Cost: steps * evaluations per step * O(nrod + ncable); no allocation inside the loop.
SimulationSummary simulate(const Model& model, const SimulationOptions& options, Observer* observer = nullptr,
                           const std::function<void(double)>& progress = {}, const State* initial = nullptr,
                           const std::function<void(double, const State&, Data&)>& controller = {});

/// Validates options (positive step, duration, etc.); throws tendyn::Error naming the option.
/// Also refuses a run whose step count duration_s / dt_s is above kMaxSteps or that would run no
/// step (0 < duration_s < dt_s / 2), like the tree module.
void validate(const SimulationOptions& options);

/// Largest number of steps duration_s / dt_s a run may take (1e9: hours of wall time).
inline constexpr double kMaxSteps = 1e9;

/// Number of fixed steps of a run: round(duration_s / dt_s) (the step is then duration_s / n).
/// Throws tendyn::Error naming duration and dt when it is above kMaxSteps, or 0 although
/// duration_s > 0. Options must be finite and positive (validate() checks that first).
long fixed_step_count(const SimulationOptions& options);

/// Steps between outputs: 1 without an output interval, round(output_interval_s / dt_s) (>= 1),
/// or `steps` when the interval is longer than the run (outputs at t = 0 and at the end only).
long output_stride(const SimulationOptions& options, long steps);

}  // namespace tendyn::tensegrity
