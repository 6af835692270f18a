// Second formulation of the rod-and-cable dynamics: Lagrange equations in quaternion coordinates,
// a DAE with one unit-quaternion constraint per rod (document 001, chapter 2, eqs. 2-1 to 2-54).
// The Newton-Euler engine (dynamics.hpp) is the reference; both compute the same physics (same
// rods, same cable law including tension-only slack and the model's damping law, same drives and
// controller, same external node forces, gravity and compliant ground) and agree to integration
// accuracy (tests/tensegrity/lagrange_test.cpp). Theory, choices and measurements:
// docs/LAGRANGE.md. The impulse ground is not part of this formulation (see lagrange_simulate).
//
// Coordinates (eq. 2-52). Per rod i, q_i = (p_i, s_i): p_i the centre of mass in W [m] and
// s_i = (e0, e1, e2, e3) a unit quaternion IN THE DOCUMENT'S CONVENTION. The document's rod axis
// (2-25) v(s) = (2(e1e3 - e0e2), 2(e0e1 + e2e3), 2(e0^2 + e3^2) - 1) is the third ROW of the
// rotation matrix (2-8), so s is the conjugate of tendyn's q_WB (State):
//     s = conj(q_WB) = (w, -x, -y, -z),   rod axis v(s) = q_WB * z.
// With this s, the document's C(s) (2-13) gives C(s) s' = -w_B (body-frame angular velocity), so
// the kinetic energy (2-5) 1/2 s'^T C^T I_B C s' is exactly 1/2 w_B^T I_B w_B with the body inertia
// diag(I_t, I_t, I_a) of the Rod. The flat state is Y = [q; q'] (14 nrod numbers, eq. 2-52):
// all q_i first (7 per rod), then all q'_i.
//
// Nodes (2-24): r = p + d v(s), d = -(1 - a) L for end 0 and a L for end 1 (a = com_ratio;
// the document's a = 1/2 gives its (l/2)(-1)^j). Anchors are fixed points.
//
// Equations of motion per rod (2-46), (2-50):
//   [ M_i      Phi_q^T ] [ q''_i    ]   [ B_i = Q_i - b_i - f_g,i ]
//   [ Phi_q    0       ] [ lambda_i ] = [ gamma_i                 ]
// M_i = diag(m I3, C^T I_B C) (2-15); b = M' q' - dT/dq (the document's q'^T Mbar q', 2-43/2-44),
// in closed form b_s = 2 C(s')^T I_B C(s) s', b_p = 0; f_g = (-m g_W, 0) (2-19, any gravity
// direction); Q = H(q) (D f + f_ext) the generalised cable + external node forces (2-28..2-36);
// Phi_i = |s_i|^2 - 1 (2-1), Phi_q = 2 s^T (2-48), gamma = -2 |s'|^2 (2-49), plus optional
// Baumgarte terms.
//
// Sign convention of the cable force (differs from the printed (2-31), whose sign contradicts
// (2-23)): f_k is the force of cable k on its FIRST node, f_k = T_k u_k (u_k unit vector from
// the first node to the second, T_k >= 0 the tension of the model's law, as in
// compute_element_forces), and D (nnode x ncable) holds +1 at the first node, -1 at the second
// (the document's pattern 2-34), so F = D f are node forces and Q_c = H D f = -dU_s/dq (2-36).
//
// Singular mass matrix: C s = 0, so M_i is singular along s (the constraint fixes that direction);
// for a thin rod (I_a = 0) also along the spin. For a thin rod the solver's mass matrix uses
// I_a,reg = thin_rod_axial_inertia_factor * I_t, while the velocity term b keeps the true I_a = 0.
// This does not change the motion: multiplying the rotational rows by C(s) (C C^T = 4 I3) gives
// the body-frame Euler equations; the two transverse ones hold I_t only and are the true ones,
// the axial one becomes 4 I_a,reg w3' = (axial torque = 0, nodes lie on the axis) - (true
// gyroscopic axial term = (I_t - I_t) w1 w2 = 0), i.e. the energy-free spin stays constant,
// exactly the Newton-Euler engine's choice w_a' = 0; the axis motion is independent of the spin
// (tested for two factors). mass_matrix() returns the true (singular) M.
//
// Units SI. Allocation: make_lagrange_data, lagrange_simulate, linearize (automatic
// differentiation), incidence_matrix and the overloads that return a state by value allocate;
// functions with output arguments resize them on first use only; lagrange_derivative and the step
// functions never allocate (checked with a counting operator new, controller and ground on).
#pragma once
#include <tendyn/core/enum_names.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <functional>

namespace tendyn::tensegrity {

/// How the drift of |s_i| = 1 is controlled (the DAE (2-50) only keeps Phi'' = 0).
enum class QuaternionStabilisation {
  /// After every step: s <- s/|s|, s' <- (s' - s^ (s^ . s'))/|s| (s^ = s/|s|). This keeps the
  /// rotation and the angular velocity the state stands for, and puts Phi and Phi' at round-off.
  kProjection,
  /// gamma = -2|s'|^2 - 2 alpha Phi' - beta^2 Phi inside every evaluation (no projection).
  kBaumgarte,
  kNone,  ///< the plain index-1 DAE of the document (drift grows with time)
};
/// The names of QuaternionStabilisation (tendyn/core/enum_names.hpp).
constexpr EnumNames<QuaternionStabilisation, 3> enum_names(QuaternionStabilisation) {
  return {"quaternion stabilisation",
          {{{QuaternionStabilisation::kProjection, "projection"},
            {QuaternionStabilisation::kBaumgarte, "baumgarte"},
            {QuaternionStabilisation::kNone, "none"}}}};
}
/// "projection" | "baumgarte" | "none" -> QuaternionStabilisation (any case, '-' = '_'). Throws
/// tendyn::Error "unknown quaternion stabilisation '<name>' (valid: projection, baumgarte, none)".
inline QuaternionStabilisation quaternion_stabilisation_from_string(const std::string& name) {
  return enum_from_string<QuaternionStabilisation>(name);
}
/// "projection", "baumgarte", "none".
inline const char* to_string(QuaternionStabilisation stabilisation) { return enum_to_string(stabilisation); }

struct LagrangeOptions {
  QuaternionStabilisation stabilisation = QuaternionStabilisation::kProjection;
  double baumgarte_alpha_per_s = 10.0;  ///< [1/s] for kBaumgarte
  double baumgarte_beta_per_s = 10.0;   ///< [1/s] for kBaumgarte
  /// Thin rods (I_a = 0): axial inertia used by the solver = factor * I_t (> 0; motion unchanged).
  double thin_rod_axial_inertia_factor = 1.0;
};

/// Y = [q; q'] (eq. 2-52), 14 nrod numbers, q_i = (p_i, s_i) in the document's convention.
struct LagrangeState {
  double time_s = 0.0;
  Eigen::VectorXd y;
  static constexpr int kNq = 7;  ///< coordinates per rod
  [[nodiscard]] int nrod() const { return static_cast<int>(y.size() / 14); }
  [[nodiscard]] Eigen::Map<const Eigen::Matrix<double, 7, 1>> q(int rod) const {
    return Eigen::Map<const Eigen::Matrix<double, 7, 1>>(y.data() + kNq * rod);
  }
  [[nodiscard]] Eigen::Map<Eigen::Matrix<double, 7, 1>> q(int rod) { return Eigen::Map<Eigen::Matrix<double, 7, 1>>(y.data() + kNq * rod); }
  [[nodiscard]] Eigen::Map<const Eigen::Matrix<double, 7, 1>> qdot(int rod) const {
    return Eigen::Map<const Eigen::Matrix<double, 7, 1>>(y.data() + y.size() / 2 + kNq * rod);
  }
  [[nodiscard]] Eigen::Map<Eigen::Matrix<double, 7, 1>> qdot(int rod) {
    return Eigen::Map<Eigen::Matrix<double, 7, 1>>(y.data() + y.size() / 2 + kNq * rod);
  }
};

/// Scratch and results of the Lagrange formulation. Made once by make_lagrange_data (allocates).
struct LagrangeData {
  LagrangeOptions options;
  /// Rest lengths (cable_rest_length_m), external node forces (f_W_ext_node) and the optional
  /// controller callback are taken from here, exactly as in the Newton-Euler engine: drives and
  /// controller are applied by update_rest_lengths() at every evaluation. The controller receives
  /// the Newton-Euler State of the Lagrange state (converted only when a controller is set).
  Data ne;
  Eigen::Matrix3Xd p_W_node, v_W_node;  ///< (3 x nnode) of the last evaluation
  Eigen::Matrix3Xd f_W_cable;           ///< (3 x ncable) f_k: force of cable k on its first node [N]
  Eigen::Matrix3Xd f_W_node;            ///< (3 x nnode) D f + f_ext [N]
  Eigen::VectorXd Q;                    ///< (7 nrod) generalised cable + external forces H (D f + f_ext)
  Eigen::VectorXd lambda;               ///< (nrod) constraint multipliers of (2-50)
  Eigen::VectorXd ydot;                 ///< (14 nrod) [q'; q''] of the last evaluation (2-54)
  // integrator scratch
  Eigen::VectorXd stage[7];
  Eigen::VectorXd y_err;
  LagrangeState tmp, saved;
  Eigen::VectorXd stretch_start_m;
  State ne_state;  ///< conversion scratch for the controller
};

LagrangeData make_lagrange_data(const Model& model, const LagrangeOptions& options = {});

// ---- conversions (exact) -------------------------------------------------------------------
/// Newton-Euler State -> Lagrange state: s = conj(q_WB), s' = -1/2 s (x) [0, w_W], p' = v_WC.
/// `out.y` is resized on first use. O(nrod).
void to_lagrange_state(const Model& model, const State& in, LagrangeState& out);
LagrangeState to_lagrange_state(const Model& model, const State& in);
/// Lagrange state -> Newton-Euler State: q_WB = conj(s)/|s|, w_W = -2 vec(conj(s) (x) s')/|s|^2.
void to_newton_euler_state(const Model& model, const LagrangeState& in, State& out);
State to_newton_euler_state(const Model& model, const LagrangeState& in);
/// Quaternion rates (document's s) of a world angular velocity, and back. |s| = 1 assumed for
/// the first; the second is exact for any s != 0.
Eigen::Vector4d quaternion_rates(const Eigen::Vector4d& s, const Eigen::Vector3d& w_W);
Eigen::Vector3d angular_velocity_W(const Eigen::Vector4d& s, const Eigen::Vector4d& sdot);

// ---- the terms of the equations of motion (model-based control API) ------------------------
/// C(s) of (2-13), 3x4: w = C(s) s' (= -w_B with the convention above); C(s) s = 0.
Eigen::Matrix<double, 3, 4> quaternion_velocity_matrix(const Eigen::Vector4d& s);
/// Rod axis v(s) (2-25) and its Jacobian dv/ds (3x4, the transpose of the printed 2-26).
Eigen::Vector3d rod_axis(const Eigen::Vector4d& s);
Eigen::Matrix<double, 3, 4> rod_axis_jacobian(const Eigen::Vector4d& s);
/// M_i (2-15), 7x7, with the rod's true inertia (singular along s, and along the spin if I_a = 0).
Eigen::Matrix<double, 7, 7> rod_mass_matrix(const Rod& rod, const Eigen::Vector4d& s);
/// M(q) (2-17), (7 nrod)^2 block diagonal; q = state.y.head(7 nrod). Resizes M. O(nrod^2) fill.
void mass_matrix(const Model& model, const Eigen::VectorXd& q, Eigen::MatrixXd& M);
/// Velocity term b(q, q') = M'(q) q' - dT/dq (the document's q'^T Mbar q', 2-43/2-44), (7 nrod).
void velocity_term(const Model& model, const LagrangeState& state, Eigen::VectorXd& b);
/// Gravity term f_g = dU_g/dq = (-m g_W, 0, 0, 0, 0) per rod (2-19/2-20), (7 nrod); it stands on
/// the left-hand side of (2-46).
void gravity_term(const Model& model, Eigen::VectorXd& f_g);
/// Kinetic energy 1/2 q'^T M q' (2-18) [J].
double kinetic_energy(const Model& model, const LagrangeState& state);
/// Node positions r(q) (2-24) and velocities r' = H^T q' into data.p_W_node / v_W_node. O(nnode).
void lagrange_node_kinematics(const Model& model, const LagrangeState& state, LagrangeData& data);
/// H(q) = dr/dq (2-28/2-29) as a (7 nrod) x (3 nnode) matrix: column block of node j holds
/// (I3; d_j dv/ds^T) in the rows of its rod, zero for anchors. Generalised force of node forces F
/// (3 nnode, stacked) is H F. Resizes H.
void node_jacobian(const Model& model, const Eigen::VectorXd& q, Eigen::MatrixXd& H);
/// Incidence matrix D (2-33/2-34), nnode x ncable: +1 at a cable's first node, -1 at its second.
/// The document's 3D form is kron(D, I3).
Eigen::MatrixXd incidence_matrix(const Model& model);
/// Cable forces f_k (3 x ncable, on the first node) and Q_c = H D f (7 nrod), for the state and
/// the rest lengths in data.ne.cable_rest_length_m (not updated here: call update_rest_lengths or
/// lagrange_derivative for the drives). Tension-only slack and damping exactly as in
/// compute_element_forces; lengths, rates, tensions and slack flags are written to data.ne.
/// External node forces are NOT included. Throws SimulationError on a zero-length cable.
void cable_generalized_forces(const Model& model, const LagrangeState& state, LagrangeData& data, Eigen::VectorXd& Q_c);
/// Constraint values Phi_i = |s_i|^2 - 1 (2-1), (nrod).
void constraint(const Model& model, const Eigen::VectorXd& q, Eigen::VectorXd& phi);
/// Constraint Jacobian Phi_q (nrod x 7 nrod), row i = (0, 0, 0, 2 s_i^T) in rod i's columns (2-48).
void constraint_jacobian(const Model& model, const Eigen::VectorXd& q, Eigen::MatrixXd& Phi_q);
/// The augmented system (2-50) of one rod, 8x8 matrix and right-hand side, as solved by
/// lagrange_derivative (with the solver's I_a,eff); requires lagrange_derivative (or
/// cable_generalized_forces + external forces) to have filled data.Q for this state.
void augmented_system(const Model& model, const LagrangeState& state, const LagrangeData& data, int rod, Eigen::Matrix<double, 8, 8>& A,
                      Eigen::Matrix<double, 8, 1>& rhs);

// ---- evaluation and integration -------------------------------------------------------------
/// Y' = (q', q'') of (2-54) into data.ydot (and lambda, Q, node kinematics): rest lengths from the
/// drives / controller at state.time_s, cable + external (+ compliant ground) forces, gravity,
/// velocity term, and the augmented system (2-50) solved per rod in closed form: the
/// translational block is m I3, and for the quaternion block the rows of C(s)/2 and s^T are
/// mutually orthogonal with norm |s| (for any s != 0), so
///   s'' = 1/2 C^T a + s gamma / (2|s|^2),  a = I_B^-1 C B_s / (8 |s|^4),  lambda = s^T B_s / (2|s|^2)
/// (exact; equal to an LU solve of the 8x8 system, tested). O(nrod + nnode + ncable), no
/// allocation. Throws SimulationError on a zero-length cable.
void lagrange_derivative(const Model& model, const LagrangeState& state, LagrangeData& data);

/// One classical RK4 step of size h [s] on (2-54), then the quaternion stabilisation of
/// data.options. Self-contained (4 evaluations, no precondition). No allocation.
void lagrange_step_rk4(const Model& model, LagrangeData& data, LagrangeState& state, double h);

/// One attempted Dormand-Prince 5(4) step (the tableau and error norm of step_dopri5, over the 14n
/// components of Y); on acceptance the state is advanced and stabilised, else left unchanged.
/// 7 evaluations. Throws SimulationError when h < tol.h_min_s.
AdaptiveStep lagrange_step_dopri5(const Model& model, LagrangeData& data, LagrangeState& state, double h, const Tolerance& tol);

/// Result of lagrange_simulate.
struct LagrangeRun {
  LagrangeState final_state;
  long steps = 0;                         ///< accepted steps
  long rejected_steps = 0;                ///< dopri5
  long split_steps = 0;                   ///< rk4 steps split at slack events
  double max_constraint_violation = 0.0;  ///< max over steps and rods of | |s_i| - 1 |
};
/// Integrates from `initial` (model.initial_state, if null) for opt.duration_s with the Lagrange
/// form. Uses of `opt`: integrator (rk4, or dopri5 with opt.tolerance; lie-verlet is an Error),
/// dt_s (rk4: the duration is split into round(duration/dt) equal steps, as simulate() does;
/// dopri5: first trial step), locate_slack_events (rk4: a step in which a tension-only cable changes
/// between slack and taut is redone split at the interpolated crossing, exactly as simulate();
/// costs two extra evaluations per step). The monitor, output and blow-up options of simulate() are
/// not used. `observer(state, data)` (optional) is called after every accepted step with data
/// evaluated at that state; `controller` is installed as data.ne.controller.
/// Throws tendyn::Error on bad options or an impulse ground (it acts between steps in simulate(), not
/// as a force; the compliant ground is supported), SimulationError on a non-finite state.
LagrangeRun lagrange_simulate(const Model& model, const SimulationOptions& opt, const LagrangeOptions& options = {},
                              const State* initial = nullptr,
                              const std::function<void(const LagrangeState&, const LagrangeData&)>& observer = {},
                              const std::function<void(double, const State&, Data&)>& controller = {});
/// Shorthand: fixed RK4 steps of about dt_s, no slack-event location.
LagrangeRun lagrange_simulate(const Model& model, double duration_s, double dt_s, const LagrangeOptions& options = {},
                              const State* initial = nullptr,
                              const std::function<void(const LagrangeState&, const LagrangeData&)>& observer = {},
                              const std::function<void(double, const State&, Data&)>& controller = {});

/// Linearisation of Y' = F(Y, l0) about (state, current rest lengths): A = dF/dY (14n x 14n) and
/// B = dF/dl0 over the cables listed in `cables` (default, empty: the cables of model.drives in
/// their order) (14n x ncols). Rest lengths are those of the drives / controller at state.time_s,
/// held fixed (open loop); the slack set is the one of the state (the force law is piecewise
/// smooth). Exact derivatives by forward-mode automatic differentiation of the same evaluation
/// (Eigen AutoDiff); allocates; cost about (14n + ncols) evaluations.
void linearize(const Model& model, const LagrangeState& state, LagrangeData& data, Eigen::MatrixXd& A, Eigen::MatrixXd& B,
               const std::vector<int>& cables = {});

}  // namespace tendyn::tensegrity
