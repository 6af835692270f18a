// Exact derivatives of one simulation step and gradients of a rollout loss, for gradient-based
// control and parameter fitting (and the PyTorch bridge, python/tendyn/torch.py).
//
// The step is the one step() takes by default: one classical RK4 step of size h from the state,
// quaternions renormalised after, with every cable's rest length held at the given control for
// the whole step (zero-order hold). Its derivatives are forward-mode dual numbers (ceres::Jet)
// pushed through the same laws (src/tensegrity/law.hpp) and the same RK4 stages the double kernel
// evaluates: exact to rounding, not finite differences.
//
// What is differentiable: the force laws are smooth except where a tension-only cable goes slack
// or taut and where a rod end touches the compliant ground (the derivative is that of the branch
// taken at the start values). The impulse ground (impacts located inside a step and applied as
// velocity jumps) is not differentiable: refused, use `ground: {type: compliant}`.
// Differences from step() with its default options: step() splits a step at a slack/taut event
// of a tension-only cable (locate_slack_events); here the step is never split
// (StepDerivatives::slack_crossing tells when step() would have split it: its value then differs
// from step()'s, and equals step() with locate_slack_events = false).
//
// Stiff regimes: below its slip velocity the compliant ground's regularised friction is a viscous
// law of rate mu F_n / (v_slip m) [1/s]; when the step h times that rate is beyond RK4's stability
// bound (~2.8), as for a resting 3-bar (models/three_bar_lying.yaml) at the default 1 mm/s and
// h = 0.5 ms, the step map amplifies tiny motions and rollout gradients grow exponentially with the
// horizon: exact for the discrete map, useless for optimisation. Raise Ground::slip_velocity_mps
// (1 cm/s there) or shorten the step.
//
// Supported models: the documents' ideal rods (no body points, end-caps, general inertia or
// winches: Model::require_ideal_rods), no drives (the controls are the rest lengths), ground none
// or compliant.
#pragma once
#include <tendyn/tensegrity/identify.hpp>
#include <tendyn/tensegrity/model.hpp>

#include <Eigen/Core>

#include <string>
#include <vector>

namespace tendyn::tensegrity {

/// Parameters one can differentiate with respect to: ParameterGroup of identify.hpp with the kinds
/// kStiffness, kDamping (cables), kMass (rods; the rod's inertia scales with its mass), kFriction,
/// kGroundStiffness, kGroundDamping (compliant ground). The derivative with respect to a group is
/// that of adding the same small amount to every element of the group (for a group of equal
/// values: the derivative with respect to the shared value). kRestLength (they are the controls)
/// and kInitialState (it is the state) are refused. Parse them with parse_fit_spec(model,
/// "stiffness:all,mass:rod1,...").

/// One step and its Jacobians. nx = model.nx() = 13 nrod, nu = model.ncable(), np = number of
/// parameter groups.
struct StepDerivatives {
  Eigen::VectorXd x_next;  ///< (nx) the state after the step
  Eigen::MatrixXd A;       ///< (nx x nx) d x_next / d x
  Eigen::MatrixXd B;       ///< (nx x nu) d x_next / d u, u = the cables' rest lengths [m]
  Eigen::MatrixXd P;       ///< (nx x np) d x_next / d theta (parameter groups, in their order)
  /// A tension-only cable changed between slack and taut within the step (by the start and end
  /// stretches): step() with locate_slack_events would have split it, and the derivative is
  /// one-sided there.
  bool slack_crossing = false;
};

/// The value and Jacobians of one RK4 step of size h_s [s] from `state` (its time is ignored: no
/// drive, nothing depends on time) with cable rest lengths `rest_length_m` (ncable) [m].
/// Errors (tendyn::Error naming the argument): state of the wrong size or non-finite, rest
/// lengths of the wrong size or non-finite, h_s not > 0 and finite, an unsupported model (impulse
/// ground, drives, body geometry or winches: see above), an unsupported parameter kind or element
/// outside the model. SimulationError when a cable collapses to zero length during the step.
/// Cost: ceil((nx + nu + np) / 8) RK4 steps in 8-direction dual numbers, each about 7 plain steps
/// (bench/tensegrity_derivatives.cpp: 41 plain steps for the 3-prism, 87 for the 6-bar); allocates.
StepDerivatives step_derivatives(const Model& model, const State& state, const Eigen::VectorXd& rest_length_m, double h_s,
                                 const std::vector<ParameterGroup>& parameters = {});

/// The state after one such step without derivatives (the double template; equals x_next).
Eigen::VectorXd step_value(const Model& model, const State& state, const Eigen::VectorXd& rest_length_m, double h_s);

/// The current value of each parameter group in the model (the mean over its elements).
Eigen::VectorXd parameter_values(const Model& model, const std::vector<ParameterGroup>& parameters);

/// Sets every element of each group to the group's value (mass: the rod's inertia is scaled with
/// it). Errors as step_derivatives for the kinds, and values that must be > 0 (mass) or >= 0.
void set_parameter_values(Model& model, const std::vector<ParameterGroup>& parameters, const Eigen::VectorXd& values);

/// A rollout of N steps and its per-step Jacobians: states.row(k) = x_k (k = 0..N, x_0 the start),
/// x_{k+1} = step(x_k, controls.row(k)).
struct RolloutDerivatives {
  Eigen::MatrixXd states;                ///< (N + 1 x nx)
  std::vector<Eigen::MatrixXd> A, B, P;  ///< N each: (nx x nx), (nx x nu), (nx x np)
  int slack_crossings = 0;               ///< steps with StepDerivatives::slack_crossing
};

/// Runs `controls` (N x ncable rest lengths [m], one row per step) from `state0` with steps of
/// h_s, keeping each step's Jacobians. Memory O(N nx (nx + nu + np)). Errors as step_derivatives
/// (controls: argument "controls", naming the row).
RolloutDerivatives rollout_derivatives(const Model& model, const State& state0, const Eigen::MatrixXd& controls, double h_s,
                                       const std::vector<ParameterGroup>& parameters = {});

/// Gradients of a scalar loss with respect to the rollout's inputs.
struct RolloutGradient {
  double loss = 0.0;               ///< the loss value (rollout_grad; 0 from backpropagate)
  Eigen::MatrixXd dL_dcontrols;    ///< (N x nu)
  Eigen::VectorXd dL_dstate0;      ///< (nx)
  Eigen::VectorXd dL_dparameters;  ///< (np)
  Eigen::MatrixXd states;          ///< (N + 1 x nx) the rollout
};

/// Reverse accumulation through stored Jacobians: given dL/dx_k for every state of the rollout
/// (N + 1 x nx, row 0 the start state) and the loss's direct dependence on the controls
/// (N x nu, or empty for none), returns dL/du_k, dL/dx_0 and dL/dtheta of
/// L(x_0, ..., x_N, u_0, ..., u_{N-1}, theta) with x_{k+1} = step(x_k, u_k, theta):
///   lambda_N = G_N,  lambda_k = G_k + A_k^T lambda_{k+1},  dL/du_k = B_k^T lambda_{k+1} + H_k,
///   dL/dtheta = sum_k P_k^T lambda_{k+1}.  Cost O(N nx (nx + nu + np)).
/// tendyn::Error on shapes that do not match the rollout.
RolloutGradient backpropagate(const RolloutDerivatives& rollout, const Eigen::MatrixXd& dL_dstates,
                              const Eigen::MatrixXd& dL_dcontrols_direct = Eigen::MatrixXd());

/// A loss that is a sum over the steps (all terms optional: weight 0 switches a term off):
///   L = target_weight |p(x_N) - target|^2 + running_target_weight sum_{k=1..N} |p(x_k) - target|^2
///     + control_weight sum_{k=0..N-1} |u_k - control_reference|^2
/// with p(x) the position of node `target_node` (a rod end, index into model.nodes) or, for
/// target_node = -1, the rods' centre of mass [m].
struct RolloutLoss {
  int target_node = -1;
  Eigen::Vector3d target_m = Eigen::Vector3d::Zero();
  double target_weight = 0.0;           ///< [1/m^2]
  double running_target_weight = 0.0;   ///< [1/m^2]
  double control_weight = 0.0;          ///< [1/m^2]
  Eigen::VectorXd control_reference_m;  ///< (ncable) [m]; empty: the model's rest lengths
};

/// The loss of the rollout of `controls` from `state0` and its gradients (rollout_derivatives then
/// backpropagate). Errors as rollout_derivatives, plus a target node outside the model or an
/// anchor, negative weights, a control reference of the wrong size.
RolloutGradient rollout_grad(const Model& model, const State& state0, const Eigen::MatrixXd& controls, double h_s, const RolloutLoss& loss,
                             const std::vector<ParameterGroup>& parameters = {});

}  // namespace tendyn::tensegrity
