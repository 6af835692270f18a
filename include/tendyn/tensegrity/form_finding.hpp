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
  bool converged = false;          ///< max_node_residual_N <= tolerance_N
};

/// Finds an equilibrium near model.initial_state. Throws SimulationError if the relaxation blows up.
FormFindingResult find_equilibrium(const Model& model, const FormFindingOptions& options = {});

/// Max node residual force [N] of `state` (see above) with zero velocities.
double max_node_residual(const Model& model, const State& state);

}  // namespace tendyn::tensegrity
