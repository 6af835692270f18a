// World-frame Newton-Euler dynamics of rods and elastic elements (document 000, eqs. 1-5).
//
// Pipeline (each stage reads what the previous one wrote into Data):
//   forward_kinematics   -> node positions/velocities, rod axes
//   compute_element_forces -> element lengths, rates, tensions, forces on nodes
//   compute_accelerations  -> rod forces/torques and the state derivative
// compute_derivative() runs all three. None allocates: Data is sized by make_data().
//
// Rotational dynamics of an axisymmetric rod with body inertia diag(I_t, I_t, I_a) in the world
// frame (document 000 eq. 4, d/dt(I_W w) = tau):  I_W w' = tau - w x (I_W w), where
// I_W w = I_t w + (I_a - I_t) w_a e, w_a = w . e, e the rod axis. Because I_W^-1 is
// (I - e e^T)/I_t + e e^T / I_a in closed form, no 3x3 solve is needed, and for a thin rod
// (I_a = 0) the axial equation is simply w_a' = 0: forces applied on the axis give no axial torque
// and the axial spin carries no energy, so the singular inertia is never inverted.
// Quaternion kinematics (eq. 5): q' = 1/2 [0, w] (x) q.
#pragma once
#include <tendyn/tensegrity/model.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

/// Mutable quantities and scratch for one model. Made once (allocates), reused every step.
struct Data {
  Eigen::Matrix3Xd p_W_node;   // (3 x nnode) node positions [m]
  Eigen::Matrix3Xd v_W_node;   // (3 x nnode) node velocities [m/s]
  Eigen::Matrix3Xd e_W_rod;    // (3 x nrod) unit rod axes (end 0 -> end 1)
  Eigen::Matrix3Xd f_W_node;   // (3 x nnode) element + external forces on nodes [N]
  Eigen::Matrix3Xd f_W_rod;    // (3 x nrod) total force on each rod [N], gravity included
  Eigen::Matrix3Xd tau_W_rod;  // (3 x nrod) torque about each rod's COM [N m]

  Eigen::VectorXd cable_rest_length_m;    // (ncable) current rest lengths (actuation changes these)
  Eigen::VectorXd cable_length_m;         // (ncable)
  Eigen::VectorXd cable_rate_mps;         // (ncable) dl/dt
  Eigen::VectorXd cable_tension_N;        // (ncable) axial force, > 0 pulls; 0 when slack (< 0 only
                                          // under CableForceSign::kPaperLaw, model.hpp)
  std::vector<std::uint8_t> cable_slack;  // (ncable) 1 if a tension-only element carries no force:
                                          // l <= l0, or its damped force was clamped (kClampTension)

  std::vector<Eigen::Vector3d> f_W_ext_node;  // (nnode) external forces [N], from the model

  // Winches (Model::winches; empty without). The target is what a drive or a controller commands:
  // the rest length the position loop steers to [m] (Winch::Control::kPosition), or the command
  // fraction u itself (kVoltage) or the motor torque (kTorque). The rest length of a winch's cable follows the motor angle.
  Eigen::VectorXd winch_target_m;   // (nwinch) [m] (kPosition), [-] (kVoltage) or [N m] (kTorque); starts at the rest length / 0
  Eigen::VectorXd winch_command;    // (nwinch) u in [-limit, limit] of the last evaluation
  Eigen::VectorXd winch_torque_Nm;  // (nwinch) motor torque tau_m of the last evaluation (motor side)
  std::vector<int> winch_of_cable;  // (ncable) winch index, -1 without (topology, from make_data)

  // Force actuators (Model::force_actuators; empty without). The command is ForceActuator::ctrl
  // from make_data, ctrl + u(t) of a drive on the actuator's cable at every evaluation, or what a
  // controller writes here (it persists); it is clamped to the ctrl range when the force is made.
  Eigen::VectorXd actuator_ctrl;       // (nactuator) command (units of the actuator: N, m, ...)
  Eigen::VectorXd actuator_force_N;    // (nactuator) actuator force F of the last evaluation [N]
                                       // (the element gets gear F, > 0 pushes its nodes apart)
  std::vector<int> actuator_of_cable;  // (ncable) actuator index, -1 without (topology, from make_data)
  std::vector<int> actuator_state;     // (nactuator) index of the activation in State::x, -1 without
                                       // (Model::activation_offset; topology, from make_data)

  // Kernel scratch (compute_element_forces), structure of arrays so that the square roots and
  // divisions of all cables run as SIMD packets: column c of this (ncable x 11) array holds, for
  // every cable k (a -> b), c = 0..2 p_b - p_a [m], 3..5 v_b - v_a [m/s], 6 length l [m],
  // 7..9 unit vector u = (p_b - p_a) / l, 10 rate u . (v_b - v_a) [m/s].
  Eigen::ArrayXXd cable_work;
  std::vector<int> anchor_nodes;          // indices of the world-anchor nodes (topology, from make_data)
  std::vector<int> ground_contact_nodes;  // nodes that can touch the ground (Node::touches_ground: rod ends and
                                          // body points marked `contact`, never anchors), in index order
                                          // (topology, from make_data)

  /// Optional actuation callback through the API, called at every evaluation (every integrator
  /// stage) after the model's drives have set cable_rest_length_m for time t_s. It may change
  /// cable_rest_length_m and f_W_ext_node. It must be a function of (t_s, state) only, or the
  /// integrators lose their order. Rest lengths are then checked against each cable's limits
  /// (SimulationError naming the cable).
  std::function<void(double t_s, const State& state, Data& data)> controller;

  Eigen::VectorXd xdot;  // (Model::nx()) state derivative of the last compute_derivative()

  /// What xdot was last evaluated at by step() or prepare_step() (simulate.hpp): the model, the
  /// state and the inputs read by an evaluation. step() compares them with its arguments and
  /// re-evaluates when anything differs, so no call is needed before a step. Sized by make_data;
  /// model == nullptr until the first step.
  struct Evaluated {
    const void* model = nullptr;
    double time_s = 0.0;
    Eigen::VectorXd x;                          // (Model::nx())
    Eigen::VectorXd cable_rest_length_m;        // (ncable)
    Eigen::VectorXd winch_target_m;             // (nwinch)
    Eigen::VectorXd actuator_ctrl;              // (nactuator)
    std::vector<Eigen::Vector3d> f_W_ext_node;  // (nnode); not written while f_W_ext_zero
    bool f_W_ext_zero = false;                  // every external force was +0 (all bits zero): no copy kept
  } evaluated;

  // Integrator scratch (sized once).
  Eigen::VectorXd stage[7];
  State tmp;                        // stage state
  Eigen::VectorXd x_err;            // (13 nrod) embedded error estimate
  State saved;                      // step start, for redoing a step split at a slack event
  Eigen::VectorXd stretch_start_m;  // (ncable) l - l0 at the step start

  // Models with body points, end-caps or rods of general inertia (Model::has_body_geometry()) run
  // a general kinematics/acceleration path; the documents' models keep the kernel (all empty then).
  bool body_geometry = false;
  Eigen::Matrix3Xd r_W_node;                          // (3 x nnode) node offset from its rod's centre of mass [m]
  Eigen::Matrix<double, 9, Eigen::Dynamic> R_WB_rod;  // (9 x nrod) rotation R_WB, row-major
  Eigen::Matrix3Xd tau_W_contact_rod;                 // (3 x nrod) torque about C of end-cap contact forces
                                                      // beyond their node's lever [N m]
  std::vector<int> rod_node_start, rod_nodes;         // nodes of rod j: rod_nodes[rod_node_start[j] ..
                                                      // rod_node_start[j + 1]) (topology, from make_data)
};

/// Allocates and initialises a Data for `model` (rest lengths and external forces from the model).
/// A Data belongs to the model it was made from: it records which nodes are anchors and which can
/// touch the ground (Data::ground_contact_nodes), so after changing a model's nodes (a body point's
/// `contact` flag included), rods or cables (not only their parameters) make a new Data.
Data make_data(const Model& model);

/// Node positions and velocities and rod axes from the state. O(nnode).
void forward_kinematics(const Model& model, const State& state, Data& data);

/// Current rest lengths: model rest length + drive offset u_k(t) (document 001 eq. 3-1), then the
/// controller callback if set; a cable with a winch: its drive sets the winch's target instead,
/// and its rest length is the model's plus the reeled-out length of the winch's state. Called by
/// compute_element_forces. O(ndrive + nwinch) (+ callback).
void update_rest_lengths(const Model& model, const State& state, Data& data);

/// Commands cable k's rest length [m]: the target of its winch when it has one (the motor then
/// moves the rest length toward it), else the rest length itself. For controllers and planners
/// that work on ideal and motorised models alike. O(1).
inline void command_rest_length(Data& data, int k, double rest_length_m) {
  const int w = data.winch_of_cable.empty() ? -1 : data.winch_of_cable[static_cast<std::size_t>(k)];
  if (w >= 0)
    data.winch_target_m[w] = rest_length_m;
  else
    data.cable_rest_length_m[k] = rest_length_m;
}

/// Throws SimulationError naming the first cable whose rest length in data lies outside its
/// limits [rest_length_min_m, rest_length_max_m] (t_s: the time reported). O(ncable).
/// update_rest_lengths() runs it after a controller; simulate() after a sampled controller.
void check_rest_length_limits(const Model& model, const Data& data, double t_s);

/// Element lengths, rates and tensions (eqs. 2-3) and their forces on nodes, the force actuators'
/// forces (ForceActuator), plus external node forces. Requires forward_kinematics.
/// O(ncable + nactuator + nnode).
/// Throws SimulationError if an element has zero length (direction undefined).
void compute_element_forces(const Model& model, const State& state, Data& data);

/// Rod forces and torques (gravity included), the winches' motor equations (Winch), the force
/// actuators' activation rates (ForceActuator::dynamics), and the state derivative into
/// data.xdot. Requires compute_element_forces. O(nrod + nwinch + nactuator).
void compute_accelerations(const Model& model, const State& state, Data& data);

/// All three stages: data.xdot = f(state). O(nrod + nnode + ncable), no allocation.
void compute_derivative(const Model& model, const State& state, Data& data);

/// Energies [J]. Elastic energy counts only loaded elements (1/2 s (l - l0)^2) plus a compliant
/// ground's 1/2 k d^2; gravitational is
/// -m g . p_C summed over rods; external is -f_ext . p_node (constant forces have a potential).
struct Energy {
  double kinetic_J = 0.0;
  double elastic_J = 0.0;
  double gravitational_J = 0.0;
  double external_J = 0.0;
  [[nodiscard]] double total() const { return kinetic_J + elastic_J + gravitational_J + external_J; }
};
/// Requires compute_element_forces (reads lengths). O(nrod + ncable).
Energy compute_energy(const Model& model, const State& state, const Data& data);

/// Throws tendyn::Error "<what>: the state has N entries, the model needs 13 * nrod = M" when
/// state.x does not have the model's size. O(1).
void check_state_size(const Model& model, const State& state, const std::string& what);

/// Node positions [m] of a state, one row per node (nnode x 3; anchors at their fixed points):
/// the same numbers forward_kinematics() writes into data.p_W_node (its transpose). Allocates the
/// result (a convenience for analysis and controllers, not for a step). O(nnode).
Eigen::MatrixX3d node_positions(const Model& model, const State& state);

/// Centre of mass of all rods [m].
Eigen::Vector3d center_of_mass(const Model& model, const State& state);
/// Total linear momentum [kg m/s].
Eigen::Vector3d linear_momentum(const Model& model, const State& state);
/// Total angular momentum about the world origin [kg m^2/s].
Eigen::Vector3d angular_momentum(const Model& model, const State& state);

/// Element strain (l - l0) / l0 (dimensionless; 1.0 = 100 %). Requires compute_element_forces.
inline double cable_strain(const Data& data, int k) {
  const double l0 = data.cable_rest_length_m[k];
  return l0 > 0.0 ? (data.cable_length_m[k] - l0) / l0 : 0.0;
}

/// Renormalises every rod quaternion (and keeps w >= 0 is NOT enforced: sign is continuous).
void normalize_quaternions(const Model& model, State& state);

/// The message of a cable whose length `length_m` is 0 or not finite at `time_s`: a non-finite
/// length is a blow-up of the state (a force or a position overflowed), a zero one means its two
/// nodes coincide. Both name the cable and the time.
std::string cable_length_failure(const std::string& cable, double length_m, double time_s);

}  // namespace tendyn::tensegrity
