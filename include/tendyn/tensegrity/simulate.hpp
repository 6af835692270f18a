// Simulation driver: integrates a tensegrity model over time, monitors the "normal mode"
// (document 000: no cable goes slack and no strain exceeds the limit during the whole run),
// detects blow-ups, and reports outputs to an observer at a fixed output interval.
#pragma once
#include <tendyn/tensegrity/integrate.hpp>

#include <functional>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

struct SimulationOptions {
  double duration_s = 5.0;
  Integrator integrator = Integrator::kRK4;
  double dt_s = 1e-3;                ///< fixed step (rk4, lie-verlet) or first trial step (dopri5)
  Tolerance tolerance;               ///< dopri5 error control
  double output_interval_s = 0.01;   ///< observer call interval; <= 0 means every step
  double strain_limit = 1.0;         ///< over-strain threshold on (l - l0)/l0 (1.0 = 100 %)
  double slack_tolerance = 0.0;      ///< a cable is slack when its strain < -slack_tolerance
  /// Blow-up guard: the run stops with SimulationError when the total energy exceeds its initial
  /// value by more than energy_growth_limit * max(|E0|, kinetic0 + elastic0, 1e-9 J).
  double energy_growth_limit = 1e3;
  bool stop_on_abnormal = false;     ///< stop at the first slack or over-strain event
  /// Fixed-step integrators: when a tension-only cable goes slack or taut inside a step, redo the
  /// step split at the (linearly interpolated) crossing time, so the kink of the force law falls on
  /// a step boundary and RK4 keeps its order (up to 3 splits per step).
  bool locate_slack_events = true;
};

/// Normal-mode monitor, evaluated at every integration step.
struct MonitorReport {
  bool normal_mode = true;
  double first_slack_time_s = -1.0;
  int first_slack_cable = -1;
  double first_overstrain_time_s = -1.0;
  int first_overstrain_cable = -1;
  Eigen::VectorXd max_strain;  ///< (ncable) over the run
  Eigen::VectorXd min_strain;  ///< (ncable) over the run
  std::vector<double> slack_first_time_s;  ///< (ncable) first time slack, -1 if never
};

struct SimulationSummary {
  MonitorReport monitor;
  Energy initial_energy, final_energy;
  double max_abs_energy_drift_J = 0.0;  ///< max |E(t) - E(0)| over output samples and steps
  Eigen::Vector3d com_initial_m, com_final_m;
  double max_com_displacement_m = 0.0;
  double com_floor_path_m = 0.0;  ///< length of the COM's track projected on the floor (x, y)
  Eigen::Vector3d linear_momentum_initial, linear_momentum_final;
  Eigen::Vector3d angular_momentum_initial, angular_momentum_final;
  long steps = 0;
  long rejected_steps = 0;
  long split_steps = 0;  ///< fixed steps split at slack events
  double wall_time_s = 0.0;
  bool stopped_early = false;  ///< stop_on_abnormal triggered
  State final_state;
  Eigen::VectorXd final_length_m, final_strain, final_tension_N;
};

/// Receives the state at every output time (including t = 0 and the final time).
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_output(const Model& model, const State& state, const Data& data, const Energy& energy) = 0;
};

/// Runs the model from `initial` (model.initial_state if null) for options.duration_s.
/// `controller` (optional) is installed as Data::controller: actuation through the API.
/// `progress(fraction)` is called every step if set. Throws SimulationError on a non-finite state,
/// an energy blow-up or a collapsing element (with the time and the reason), tendyn::Error on bad
/// options. Cost: steps * evaluations per step * O(nrod + ncable); no allocation inside the loop.
SimulationSummary simulate(const Model& model, const SimulationOptions& options, Observer* observer = nullptr,
                           const std::function<void(double)>& progress = {}, const State* initial = nullptr,
                           const std::function<void(double, const State&, Data&)>& controller = {});

/// Validates options (positive step, duration, etc.); throws tendyn::Error naming the option.
void validate(const SimulationOptions& options);

}  // namespace tendyn::tensegrity
