// Form-finding: the equilibrium shape of a tensegrity from its topology, rod lengths and cable
// rest lengths (zero gravity, no external forces, no ground).
//
// Method: (1) dynamic relaxation: the model is simulated from its initial configuration (any
// guess with the right rod lengths) with heavy relative-velocity damping (document 000 eq. 3) on
// every element until the kinetic energy is negligible; (2) Newton polish: the rod residuals
// R = (net force, net torque about the COM) of all rods are driven to zero by Gauss-Newton steps
// on the 6 nrod pose perturbations, with a finite-difference Jacobian and a rank-revealing
// (complete orthogonal decomposition) least-squares solve, which handles the 6 rigid-body modes
// and infinitesimal mechanisms (minimum-norm steps). The node residual reported is, at each rod
// end, the element force on the node plus the rod's axial force, which vanishes exactly when the
// rod's net force and torque do.
#pragma once
#include <tendyn/tensegrity/simulate.hpp>

#include <vector>

namespace tendyn::tensegrity {

struct FormFindingOptions {
  double relax_duration_s = 60.0;  ///< dynamic-relaxation time
  double damping_Nspm = -1.0;      ///< relaxation damping per element; < 0: sqrt(k_max m_min)
  double dt_s = -1.0;              ///< relaxation step; < 0: 0.05 sqrt(m_min / (k_max n_cable_per_node))
  double tolerance_N = 1e-10;      ///< Newton stops when every node residual is below this
  int max_newton_iterations = 30;
};

struct FormFindingResult {
  State state;                     ///< the equilibrium (velocities zero)
  double max_node_residual_N = 0;  ///< max over nodes of |residual force|
  int slack_cables = 0;            ///< tension-only elements slack at the equilibrium
  int newton_iterations = 0;
  bool converged = false;  ///< max_node_residual_N <= tolerance_N
};

/// Finds an equilibrium near model.initial_state. Throws SimulationError if the relaxation blows up.
FormFindingResult find_equilibrium(const Model& model, const FormFindingOptions& options = {});

/// Max node residual force [N] of `state` (see above) with zero velocities.
double max_node_residual(const Model& model, const State& state);

// ---------------------------------------------------------------------------------------------
// Settling on the ground: the rest state of a model under its gravity on its ground.
//
// Method: (1) placing (optional): the model is translated so that its lowest rod end touches the
// ground plane z = ground.height_m; (2) damped settle with kinetic damping (dynamic relaxation,
// Barnes): the model (drives removed, so every cable at its nominal rest length; its own gravity,
// ground, cable damping) is stepped with RK4 and, whenever the total kinetic energy has passed a
// peak (it falls from one step to the next), every rod's velocity is set to zero; this ends when
// the fastest rod end has stayed below speed_tolerance_mps for quiet_time_s of simulated time;
// (3) contact polish: the rod ends within contact_tolerance_m of the ground are the contacts;
// they are pinned at their (x, y) on the plane and Gauss-Newton (finite-difference Jacobian,
// minimum-norm least squares) solves the rods' force and torque balance (cable forces, gravity,
// a reaction force at each contact) together with the pins. A contact whose normal reaction
// comes out negative is released and the polish repeated. The result is a static equilibrium
// whose reactions are checked against the Coulomb cone of ground.friction. (4) stability: the
// tangent stiffness of the rest state (finite differences of the rods' forces and torques, the
// contacts held by stiff springs around their reactions) must have no negative eigenvalue; an
// unstable balance (e.g. on a line through two contacts) is pushed 1 mm along its unstable mode,
// towards the lower centre of mass, and steps (2)-(4) are repeated. (5) keep_centroid_xy: the rest
// state is translated horizontally so that the mean (x, y) of the rod centres is that of
// model.initial_state (the point planners steer starts where the model put it); skipped for models
// with world anchors.
//
// Residual: max over rods of |net force| and |net torque about the COM| / (L / 2) [N], with the
// cable forces (damping off, zero velocity), gravity and the contact reactions. The polish also
// holds the contacts on their pins to tolerance_N / k_max [m] (k_max: the stiffest cable).

struct SettleOptions {
  bool place_on_ground = true;        ///< first translate the model so its lowest rod end is on the ground
  double dt_s = -1.0;                 ///< RK4 step; < 0: 0.05 sqrt(m_min / (4 k_max)) (as find_equilibrium)
  double max_duration_s = 60.0;       ///< simulated-time limit of the damped settle [s]
  double speed_tolerance_mps = 1e-4;  ///< the settle ends when every rod end is slower than this ...
  double quiet_time_s = 0.1;          ///< ... for this long (simulated) [s]
  double contact_tolerance_m = 1e-3;  ///< rod ends at most this far above the ground are contacts [m]
  double tolerance_N = 1e-9;          ///< the polish stops when the residual is below this [N]
  int max_newton_iterations = 30;
  bool allow_slack = false;      ///< false: a slack tension-only cable at rest is an error
  bool keep_centroid_xy = true;  ///< translate the rest state back over the start's centroid (x, y)
};

struct SettleResult {
  State state;                                     ///< the rest state (velocities zero, time 0)
  double max_residual_N = 0.0;                     ///< residual of `state` (see above) [N]
  double max_node_speed_mps = 0.0;                 ///< fastest rod end at the end of the damped settle [m/s]
  double min_cable_tension_N = 0.0;                ///< smallest tension of a tension-only cable at rest [N] (inf: none)
  int slack_cables = 0;                            ///< tension-only cables slack at rest (0 unless allow_slack)
  long steps = 0;                                  ///< RK4 steps of the damped settle
  int kinetic_resets = 0;                          ///< times the velocities were set to zero
  double settle_time_s = 0.0;                      ///< simulated time of the damped settle [s]
  int newton_iterations = 0;                       ///< polish iterations (all rounds)
  std::vector<int> contact_nodes;                  ///< node indices resting on the ground
  std::vector<Eigen::Vector3d> contact_force_W_N;  ///< reaction of the ground on each contact [N]
  double min_normal_force_N = 0.0;                 ///< smallest normal reaction [N]
  double max_friction_ratio = 0.0;                 ///< max |tangential| / normal reaction (<= ground.friction)
  double min_stiffness_eigenvalue = 0.0;           ///< smallest eigenvalue of the rest state's tangent stiffness (>= 0: stable)
  int unstable_pushes = 0;                         ///< unstable balances found and pushed off before the stable one
};

/// Puts `model` at rest on its ground (see the method above) and returns the rest state.
/// Requirements: a ground (impulse or compliant) and gravity pointing down (gravity_W.z < 0),
/// otherwise tendyn::Error naming what is missing. Errors: SimulationError when the damped
/// settle is not quiet within max_duration_s (with the speed reached), when the polish does not
/// reach tolerance_N, when no rod end touches the ground, or when a reaction needs more friction
/// than ground.friction; tendyn::Error naming the cable when a tension-only cable is slack at
/// rest (unless allow_slack). Cost: max_duration_s / dt_s RK4 steps at most, then per Newton
/// iteration (6 nrod + 3 ncontact) evaluations of the forces and one dense least-squares solve of
/// that size.
SettleResult settle_on_ground(const Model& model, const SettleOptions& options = {});

/// Residual [N] (definition above) of `state` resting on the ground with reactions
/// `contact_force_W_N` at `contact_nodes` (the rest of the ground ignored).
double max_residual_on_ground(const Model& model, const State& state, const std::vector<int>& contact_nodes,
                              const std::vector<Eigen::Vector3d>& contact_force_W_N);

}  // namespace tendyn::tensegrity
