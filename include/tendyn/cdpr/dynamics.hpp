// Dynamics of a cable-driven parallel robot (document 002's construction printer and any other
// tendyn::cdpr::Model): the platform is a 6-DOF rigid body, the cables are elastic, tension-only
// springs with damping, anchored on fixed frame points or on carriages that slide along the
// towers (world z), and winches set the cables' rest lengths with a rate limit.
//
// Conventions (as in the tensegrity engine, include/tendyn/core/rotation.hpp):
//  state x = [p_WP (3), q_WP (4: w, x, y, z), v_WP (3), omega_P (3, body frame), l0 (n)]
//  p_WP   the platform reference point P in world [m]; q_WP maps platform vectors to world;
//  v_WP   velocity of P in world [m/s]; omega_P angular velocity in the platform frame [rad/s];
//  l0     rest lengths [m] (winch state).
// Cable i: l_i = |p_WA_i(t) - p_WB_i|, stiffness k_i = EA_i / l0_i [N/m],
//  tension f_i = max(0, k_i (l_i - l0_i) + c_i (dl_i/dt - dl0_i/dt)) while l_i > l0_i, else 0
//  [N], c_i [N s/m] the damping coefficient acting on the stretch rate (winch payout excluded). Anchor of a carriage cable: p_WA_i + z_i(t) e_z.
// Newton-Euler about the centre of mass C (platform + extruder load):
//  m a_C = sum f_i u_i + m g + F_ext,  I_C dw/dt + w x I_C w = M_C (platform frame),
//  a_P = a_C - alpha x r - w x (w x r), r = R_WP p_PC.
// Winches: dl0_i/dt = clamp(u_i, -rate_max_i, rate_max_i), u_i the commanded rate [m/s].
#pragma once
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/core/integrate.hpp>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <string>

namespace tendyn::cdpr {

/// Immutable dynamic model. Fill the fields, then call finalize_dynamic_model() (it validates and
/// computes the combined mass properties).
struct DynamicModel {
  Model geometry;  ///< anchors, attachments, names, groups, gravity
  double platform_mass_kg = 300.0;
  Eigen::Vector3d platform_com_P = Eigen::Vector3d::Zero();          ///< [m]
  Eigen::Matrix3d platform_inertia_C = Eigen::Matrix3d::Identity();  ///< about its COM, P axes [kg m^2]
  double load_mass_kg = 0.0;                                         ///< extruder load (material in the hopper), point mass
  Eigen::Vector3d load_position_P = Eigen::Vector3d::Zero();         ///< [m]
  Eigen::VectorXd EA_N;                                              ///< (n) axial stiffness E A [N]
  Eigen::VectorXd damping_Nspm;                                      ///< (n) damping c [N s/m] (0 = conservative)
  Eigen::VectorXd winch_rate_max_m_s;                                ///< (n) rest-length rate limit [m/s]
  Eigen::VectorXi on_carriage;                                       ///< (n) 1 if the anchor rides a carriage (moves in world z)
  // Derived by finalize_dynamic_model():
  double mass_kg = 0.0;                                     ///< total mass
  Eigen::Vector3d com_P = Eigen::Vector3d::Zero();          ///< total COM in P [m]
  Eigen::Matrix3d inertia_C = Eigen::Matrix3d::Identity();  ///< total inertia about com_P [kg m^2]
  Eigen::Matrix3d inertia_C_inv = Eigen::Matrix3d::Identity();
  [[nodiscard]] int ncable() const { return geometry.ncable(); }
  [[nodiscard]] int state_size() const { return 13 + ncable(); }
};

/// Validates sizes/signs (throws tendyn::Error naming the field and cable) and fills the derived
/// mass properties. Requires a spatial geometry.
void finalize_dynamic_model(DynamicModel& model);

/// The printer of document 002 from a cdpr model (e.g. models/cdpr/printer8.yaml): box platform
/// 1.0 x 1.0 x 0.8 m of the file's mass, steel cables EA = 2.0e7 N (about 16 mm wire rope),
/// damping 2000 N s/m, winch limit 0.5 m/s, lower-group cables on carriages. Documented in
/// docs/CDPR_DYNAMICS.md.
DynamicModel make_printer_dynamics(const Model& geometry, double load_mass_kg = 50.0);

/// Time-dependent inputs, set by the caller (or a controller) before each step.
struct Inputs {
  Eigen::VectorXd winch_rate_m_s;                          ///< (n) commanded dl0/dt [m/s] (clamped by the model's limit)
  Eigen::VectorXd carriage_z_m;                            ///< (n) carriage offset along world z [m] (ignored if fixed)
  Eigen::VectorXd carriage_vz_m_s;                         ///< (n) carriage velocity [m/s]
  Eigen::Vector3d force_ext_W = Eigen::Vector3d::Zero();   ///< wind, hose, ... at the COM [N]
  Eigen::Vector3d moment_ext_W = Eigen::Vector3d::Zero();  ///< about the COM [N m]
};
Inputs make_inputs(const DynamicModel& model);

/// Scratch and outputs of one evaluation; make once with make_dynamic_data(). No allocation after.
struct DynamicData {
  Data geo;                                           ///< geometry at the evaluated state (J, u_W, lengths)
  Eigen::VectorXd tension_N;                          ///< (n) cable tensions
  Eigen::VectorXd length_rate;                        ///< (n) dl/dt [m/s]
  Eigen::VectorXd xdot;                               ///< state derivative
  Eigen::Vector3d a_P_W = Eigen::Vector3d::Zero();    ///< acceleration of P [m/s^2]
  Eigen::Vector3d alpha_P = Eigen::Vector3d::Zero();  ///< angular acceleration (platform frame)
  // integrator scratch (core/integrate.hpp): stage derivatives, stage state, error estimate
  Eigen::VectorXd stage[7];
  Eigen::VectorXd tmp, err;
  Eigen::Matrix3Xd anchors_W;
};
DynamicData make_dynamic_data(const DynamicModel& model);

using StateVector = Eigen::VectorXd;
/// State at rest at `pose` with rest lengths l0.
StateVector make_state(const DynamicModel& model, const Pose& pose, const Eigen::VectorXd& l0);
Pose state_pose(const StateVector& x);

/// Rest lengths giving tensions f at `pose` (l0 = EA l / (EA + f)); t for the carriages.
Eigen::VectorXd rest_lengths_for_tensions(const DynamicModel& model, const Inputs& in, const Pose& pose, const Eigen::VectorXd& f_N);

/// Evaluates geometry, tensions and xdot at time t. No allocation.
void compute_derivative(const DynamicModel& model, const Inputs& in, const StateVector& x, DynamicData& data);

/// Classical RK4 step of size h [s] (inputs held constant over the step); renormalises q. t0_s is
/// the simulated time at the start of the step [s]: a SimulationError reports t0_s for a zero-length
/// cable inside the step, t0_s + h for a non-finite state after it.
void step_rk4(const DynamicModel& model, const Inputs& in, StateVector& x, double h, DynamicData& data, double t0_s = 0.0);

/// Result of one attempted adaptive step, and the error control (core/integrate.hpp).
using tendyn::AdaptiveStep;
using tendyn::Tolerance;
/// One attempted Dormand-Prince 5(4) step (5th-order solution propagated, per-component tolerance
/// atol + rtol |x|, next step at most tol.h_max_s). On rejection x is unchanged. Throws
/// SimulationError, at time t0_s [s], if h < tol.h_min_s or the state or its error is not finite.
AdaptiveStep step_dopri5(const DynamicModel& model, const Inputs& in, StateVector& x, double h, DynamicData& data, const Tolerance& tol,
                         double t0_s);
/// Same with tolerance (rtol, atol, h_min) and no step ceiling; errors report time 0.
AdaptiveStep step_dopri5(const DynamicModel& model, const Inputs& in, StateVector& x, double h, DynamicData& data, double rtol = 1e-8,
                         double atol = 1e-10, double h_min = 1e-12);

struct DynamicEnergy {
  double kinetic_J = 0.0, gravity_J = 0.0, elastic_J = 0.0;
  [[nodiscard]] double total() const { return kinetic_J + gravity_J + elastic_J; }
};
/// Energy (gravity potential -m g . p_WC, zero at the world origin). Refreshes data.geo.
DynamicEnergy compute_energy(const DynamicModel& model, const Inputs& in, const StateVector& x, DynamicData& data);

}  // namespace tendyn::cdpr
