// Batched rollouts: N robots of one model (different states and controls) stepped side by side,
// for policy search, sampling-based control and learning. Each robot has its own State and Data;
// the Model is shared read-only. A call of step_batch() advances every running robot by the same
// number of fixed steps, robots spread over persistent worker threads (core/worker_pool.hpp):
// each robot's result is bit-identical to stepping it alone with step() and
// t_end_s = t_r + (k + 1) h (t_r: its time at the call), for any thread count.
//
// Typical loop (a controller that sets rest lengths every control period T = nstep h):
//   Batch b = make_batch(model, 64);            // 64 copies of model.initial_state
//   BatchStepOptions o; o.h_s = 1e-3; o.nstep = 10;
//   for (...) { set_rest_lengths(model, b, L); step_batch(model, b, o); /* read b.states */ }
#pragma once
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/model.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <Eigen/Core>

#include <string>
#include <vector>

namespace tendyn::tensegrity {

/// N robots of one model. Index r is robot r everywhere.
struct Batch {
  std::vector<State> states;  ///< (N) current states; states[r].time_s is robot r's time [s]
  std::vector<Data> datas;    ///< (N) each holds f(states[r]) between calls (step()'s precondition)
  /// (N) "" while robot r runs; the SimulationError text once it failed (blow-up, collapsing
  /// element, rest length outside its limits). A failed robot's state is left as the failing step
  /// left it (it may be non-finite); it is not stepped again until set_state() gives it a new one.
  std::vector<std::string> error;
  std::vector<double> error_time_s;  ///< (N) [s] the time of the failure, NaN while running
  [[nodiscard]] int size() const { return static_cast<int>(states.size()); }
  /// Robots that have not failed.
  [[nodiscard]] int nrunning() const;
};

/// `count` robots, all starting from `initial` (model.initial_state if null), with their
/// derivatives computed. Throws tendyn::Error when count < 1 or the state does not fit the model.
/// Cost: count make_data() (allocates; once per batch).
Batch make_batch(const Model& model, int count, const State* initial = nullptr);

/// Gives robot r a new state (and clears its error). Throws tendyn::Error naming r when r is out
/// of range or the state does not fit the model; SimulationError is caught into error[r].
/// Cost: one evaluation.
void set_state(const Model& model, Batch& batch, int r, const State& state);

/// Sets the rest lengths of every cable of every robot from the rows of `rest_length_m`
/// (N x ncable) [m], then refreshes each robot's derivative (step()'s precondition). A cable with
/// a winch gets the value as its winch's target (command_rest_length()): the motor moves the rest
/// length toward it. Cables with a drive are overwritten by the drive at every evaluation, as in
/// simulate(). A rest length outside
/// its cable's limits throws tendyn::Error naming the robot, the cable and the value (nothing is
/// changed then). Cost: N evaluations, no allocation.
void set_rest_lengths(const Model& model, Batch& batch, const Eigen::Ref<const Eigen::MatrixXd>& rest_length_m);

/// Options of step_batch().
struct BatchStepOptions {
  double h_s = 1e-3;  ///< [s] fixed step, > 0
  int nstep = 1;      ///< steps per call, >= 1
  StepOptions step;   ///< integrator (rk4 or lie-verlet; dopri5 is refused) and slack events
  int threads = 0;    ///< 0 = all hardware threads; results do not depend on it
};

/// Advances every running robot by options.nstep steps of options.h_s: robot r's step k ends at
/// t_r + (k + 1) h (t_r its time at the call), as simulate() stamps it. A robot whose step throws
/// SimulationError stops there (error[r], error_time_s[r]); the others go on. Returns the number
/// of robots that failed during this call. Throws tendyn::Error for bad options (h_s, nstep,
/// dopri5: robots would drift apart in time). Cost: N nstep steps (see step()) over
/// min(threads, N) threads of WorkerPool::shared() (started once per process, woken per call:
/// microseconds), each thread taking a contiguous share of the robots and helping the others at
/// the end (parallel_for_balanced); no allocation inside the steps.
int step_batch(const Model& model, Batch& batch, const BatchStepOptions& options);

// Per-robot models (domain randomisation: each robot with its own masses, stiffnesses, damping,
// rest lengths, limits, ground, gravity and winch gains). `models` holds one model per robot
// (models[r] for robot r); all must have the structure of the model the batch was made for (the
// same rods, nodes, cables and winches by index, the same node kinds), only parameters differ.
// Robot r then equals stepping it alone with step(*models[r], ...), for any thread count.

/// Throws tendyn::Error "<what>: ..." naming the first robot whose model is null, has another
/// structure than models[0] (counts, element nodes, node kinds, winch cables), or whose state and
/// data do not fit it; or when models.size() differs from the robot count. O(N (nrod + nnode + ncable)).
void check_batch_models(const std::vector<const Model*>& models, const Batch& batch, const std::string& what);

/// step_batch() with robot r stepped by *models[r] (check_batch_models first). Same options,
/// errors, results per robot and cost.
int step_batch(const std::vector<const Model*>& models, Batch& batch, const BatchStepOptions& options);

/// Commands every cable of every robot from the rows of `command_m` (N x ncable) [m] as
/// command_rest_length() does: the target of the cable's winch when it has one, else its rest
/// length. Each value must lie within models[r]'s cable limits (tendyn::Error naming the robot,
/// the cable and the value; nothing changed then). Refreshes each running robot's derivative.
/// Cost: N evaluations, no allocation.
void command_rest_lengths(const std::vector<const Model*>& models, Batch& batch, const Eigen::Ref<const Eigen::MatrixXd>& command_m);

/// External forces on the nodes of every robot from the rows of `f_W_ext_N` (N x 3 nnode) [N],
/// row r = (f_x, f_y, f_z) of node 0, node 1, ... (they replace the models' constant forces in
/// each robot's Data until set again). Non-finite values throw tendyn::Error naming the robot
/// (nothing changed then). Refreshes each running robot's derivative with models[r].
void set_external_forces(const std::vector<const Model*>& models, Batch& batch, const Eigen::Ref<const Eigen::MatrixXd>& f_W_ext_N);

}  // namespace tendyn::tensegrity
