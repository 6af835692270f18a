// Tensegrity model: rigid rods with two end nodes, fixed world anchors, and elastic elements
// (tension-only cables or compression-capable springs) between nodes.
//
// Source: Savin, Vorochaeva, Kurenkov 2020 (document 000/004), eqs. (1)-(5).
// Units: SI throughout (kg, m, s, N, N/m, N s/m, rad).
//
// Model / Data split (as in MuJoCo mjModel/mjData): a Model is built and validated once and
// never changed by algorithms; every mutable quantity and all scratch memory lives in a Data
// made from the model (make_data). One Model can be simulated from many threads, each with its
// own Data.
#pragma once
#include <tendyn/core/enum_names.hpp>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <variant>
#include <vector>

namespace tendyn::tensegrity {

/// A rigid rod. Body frame B: origin at the centre of mass C, z axis along the rod from end 0 to
/// end 1. With centre-of-mass ratio a (document's eq. 1, r_C = a r_end0 + (1 - a) r_end1) the
/// ends sit at p_BN0 = (0, 0, -(1 - a) L) and p_BN1 = (0, 0, a L).
struct Rod {
  double mass_kg = 1.0;
  double length_m = 1.0;
  double com_ratio = 0.5;  ///< a in [0, 1]
  /// Principal moments about C in the body frame: diag(I_t, I_t, I_a). I_a may be 0 (thin rod):
  /// the spin about the axis then carries no energy and is never solved for (see dynamics.hpp).
  double inertia_transverse_kgm2 = 0.0;
  double inertia_axial_kgm2 = 0.0;
  int node[2] = {-1, -1};  ///< node index of end 0 and end 1
  /// A rigid body of any inertia (a rod built from parts: tube, end-caps, motor housings; an MJCF
  /// body). When true, `inertia_B_kgm2` (the full tensor about C in body axes, symmetric positive
  /// definite) replaces diag(I_t, I_t, I_a), and both ends are placed by their nodes' `p_B_m`
  /// (the centre of mass may lie off the segment between them); `length_m` is then the distance
  /// of the two ends and `com_ratio` is not used.
  bool general_inertia = false;
  Eigen::Matrix3d inertia_B_kgm2 = Eigen::Matrix3d::Zero();
};

/// Thin uniform rod: I_t = m L^2 / 12, I_a = 0.
Rod make_thin_rod(double mass_kg, double length_m);
/// Hollow cylinder of outer/inner radii r1 >= r2 >= 0 (document 001, eq. 2-14):
/// I_t = m (3 (r1^2 + r2^2) + L^2) / 12, I_a = m (r1^2 + r2^2) / 2.
Rod make_hollow_rod(double mass_kg, double length_m, double radius_outer_m, double radius_inner_m);

/// A node is an end of a rod, another point fixed on a rod's body (a cable attachment off the
/// axis, an end-cap centre), or a fixed point of the world (an anchor).
struct Node {
  static constexpr int kBodyPoint = -1;                  ///< `end` of a point that is not a rod end
  int rod = -1;                                          ///< rod index, or -1 for a world anchor
  int end = 0;                                           ///< 0 or 1 for rod ends, kBodyPoint for other points on the rod
  Eigen::Vector3d p_W_anchor = Eigen::Vector3d::Zero();  ///< anchor position [m] (anchors only)
  /// Position relative to the rod's centre of mass C in the body frame B [m]: body points, and
  /// both ends of a rod with `general_inertia` (the ends of the documents' rods sit on the axis).
  Eigen::Vector3d p_B_m = Eigen::Vector3d::Zero();
  /// End-cap sphere radius [m] >= 0: the ground touches the sphere around the node, not the
  /// node itself (0: point contact, the documents' model).
  double radius_m = 0.0;
  /// Whether a body point touches the ground (rod ends always do, anchors never).
  bool contact = false;
  [[nodiscard]] bool is_anchor() const { return rod < 0; }
  [[nodiscard]] bool is_body_point() const { return rod >= 0 && end == kBodyPoint; }
  /// Rod ends and body points marked `contact`.
  [[nodiscard]] bool touches_ground() const { return rod >= 0 && (end != kBodyPoint || contact); }
};

/// How an element's damping force is computed.
enum class DampingLaw {
  /// Along the element: T = k (l - l0) + c dl/dt, and for tension-only cables T >= 0.
  /// This is the law of NTRT and MuJoCo tendons.
  kAxial,
  /// Document 000 eq. (3): f_d = -gamma (v_i - v_j) on node i (the full relative velocity),
  /// acting only while the element is loaded (taut, for a tension-only cable).
  kRelativeVelocity,
};
/// The names of DampingLaw (tendyn/core/enum_names.hpp).
constexpr EnumNames<DampingLaw, 2> enum_names(DampingLaw) {
  return {"damping law", {{{DampingLaw::kAxial, "axial"}, {DampingLaw::kRelativeVelocity, "relative_velocity"}}}};
}
/// "axial" | "relative_velocity" -> DampingLaw (any case, '-' = '_'). Throws tendyn::Error
/// "unknown damping law '<name>' (valid: axial, relative_velocity)" for any other text.
inline DampingLaw damping_law_from_string(const std::string& name) { return enum_from_string<DampingLaw>(name); }
/// "axial", "relative_velocity" (the names in model files and sweep specs).
inline const char* to_string(DampingLaw law) { return enum_to_string(law); }

/// What a tension-only cable does when its damped force would push (its ends approach fast
/// enough that k (l - l0) + c dl/dt < 0 while l > l0). Applies to both damping laws.
enum class CableForceSign {
  /// A cable cannot push (the default): the element then carries no force at all (as when
  /// l <= l0), its tension is exactly 0 and it is flagged slack (Data::cable_slack, the CSV's
  /// `slack` column, the normal-mode monitor). With DampingLaw::kRelativeVelocity the test is on
  /// the force's component along the cable, (f_a . u) < 0, and the whole force (also the damping
  /// across the cable) is dropped. (MuJoCo 2.2 tendons do not clamp: docs/MODEL_FORMAT.md, MJCF.)
  kClampTension,
  /// The damping law exactly as written (document 000 eq. (3) with kRelativeVelocity; T = k s +
  /// c dl/dt with kAxial), even when the resulting force along the cable is negative (pushes);
  /// the element is slack only when l <= l0. Outputs then call the axial force `force_N`
  /// (signed, > 0 pulls), not `tension_N`, and the viewer's colour bar covers negative values.
  kPaperLaw,
};
/// The names of CableForceSign (tendyn/core/enum_names.hpp).
constexpr EnumNames<CableForceSign, 2> enum_names(CableForceSign) {
  return {"cable force sign", {{{CableForceSign::kClampTension, "clamp_tension"}, {CableForceSign::kPaperLaw, "paper_law"}}}};
}
/// "clamp_tension" | "paper_law" -> CableForceSign (any case, '-' = '_'). Throws tendyn::Error
/// "unknown cable force sign '<name>' (valid: clamp_tension, paper_law)" for any other text.
inline CableForceSign cable_force_sign_from_string(const std::string& name) { return enum_from_string<CableForceSign>(name); }
/// "clamp_tension", "paper_law" (the names in model files: key `cable_force_sign`).
inline const char* to_string(CableForceSign sign) { return enum_to_string(sign); }

/// An elastic element between two nodes (document 000 eq. 2): a cable (tension-only, default) or,
/// with tension_only = false, a spring that also pushes (the document's "relaxation" elements).
struct Cable {
  int node[2] = {-1, -1};
  double stiffness_Npm = 0.0;  ///< s >= 0
  double damping_Nspm = 0.0;   ///< gamma >= 0
  double rest_length_m = 0.0;  ///< rho >= 0
  bool tension_only = true;
  /// Actuation limits on the current rest length and its rate (document 001 chapter 3: a winch
  /// cannot pay out or reel in without bound). Checked for drives at model validation and for
  /// API callbacks at every step (SimulationError naming the cable).
  double rest_length_min_m = 0.0;
  double rest_length_max_m = std::numeric_limits<double>::infinity();
  double rest_rate_max_mps = std::numeric_limits<double>::infinity();
};

/// u(t) = a sin(b t + c) + d (document 001, eq. 2-66 and the forward mode of section 3.4).
struct SinusoidDrive {
  double a_m = 0.0, b_radps = 0.0, c_rad = 0.0, d_m = 0.0;
};
/// Piecewise-linear u(t) through (t_s[i], u_m[i]), t_s strictly increasing; held at the first /
/// last value outside the table.
struct TableDrive {
  std::vector<double> t_s, u_m;
};
/// Actuation of one cable: its rest length is rest_length_m + u(t) (document 001, eq. 3-1).
struct CableDrive {
  int cable = -1;
  std::variant<SinusoidDrive, TableDrive> u;
};
/// u(t) [m] of a drive. O(1) for sinusoids, O(log n) for tables.
double drive_offset(const CableDrive& drive, double t_s);
/// Largest |du/dt| [m/s] of a drive over all time.
double drive_max_rate(const CableDrive& drive);
/// Smallest and largest u [m] of a drive over all time.
std::pair<double, double> drive_range(const CableDrive& drive);

/// A motorised winch on a cable: a DC motor turns a spool through a gear, the cable's rest length
/// follows the reeled-out length, and a position loop (PID on the reeled-out length, read by the
/// motor's encoder) drives the motor toward a target length. The commanded length is not the
/// length the cable gets: the motor has a speed and torque limit, inertia and friction.
///
/// Motor (motor side, angle theta [rad], speed omega [rad/s]): the DC torque-speed line at command
/// u in [-command_limit, command_limit] (fraction of the full voltage),
///   tau_m = stall_torque (u - omega / no_load_speed),
/// rotor_inertia omega' = tau_m - tau_f(omega) + tau_load (tau_load only when backdrivable),
///   tau_f = coulomb_friction omega / sqrt(omega^2 + friction_speed^2) + viscous_friction omega,
///   tau_load = (spool_radius / gear_ratio) T (the cable tension T pulls the cable out).
/// Reeled-out length: l_out = (spool_radius / gear_ratio) theta; rest length = rest_length + l_out.
/// Position loop (control kPosition), error e = target - (rest_length + l_out):
///   u = clamp(kp e + ki int(e) + kd d(target - rest)/dt with the target's rate taken as 0, +-limit)
/// (the derivative acts on the measurement, so a step of the target gives no kick); the integral
/// stops while the output is saturated in the error's direction (anti-windup). With a rate limit
/// v_max (rate_limit_mps, finite) the loop's output is further limited to |u| <= v_max /
/// (no_load_speed spool_radius / gear_ratio): unloaded, the reeled-out length then changes at most
/// at v_max (a load pulling the cable out can exceed it on a back-drivable gear).
/// Control kVoltage: u = the target value itself (Data::winch_target_m read as a command
/// fraction). Control kTorque: the target is the motor torque [N m, motor side] (a current-driven
/// motor), held inside the torque-speed envelope of the command limit,
///   tau_m = clamp(target, stall_torque (-limit - omega / no_load_speed), stall_torque (limit - omega / no_load_speed)),
/// and u = tau_m / stall_torque + omega / no_load_speed is the equivalent command.
/// State: three numbers per winch after the rods' (theta [rad], omega [rad/s], int(e) [m s]).
struct Winch {
  enum class Control { kPosition, kVoltage, kTorque };
  int cable = -1;
  double spool_radius_m = 0.01;
  double gear_ratio = 1.0;                ///< motor turns per spool turn
  double stall_torque_Nm = 0.1;           ///< motor side, full command, zero speed
  double no_load_speed_radps = 600.0;     ///< motor side, full command, zero torque
  double rotor_inertia_kgm2 = 1e-6;       ///< motor side (rotor, gear and spool reflected)
  double coulomb_friction_Nm = 0.0;       ///< motor side
  double viscous_friction_Nmsprad = 0.0;  ///< motor side
  double friction_speed_radps = 0.1;      ///< regularisation of the Coulomb friction
  bool backdrivable = true;               ///< false: the gear holds the load (worm); the tension does not turn the motor
  Control control = Control::kPosition;
  double kp_per_m = 200.0;     ///< command fraction per metre of error
  double ki_per_ms = 0.0;      ///< per metre second
  double kd_s_per_m = 0.0;     ///< per metre per second (on the measured length)
  double command_limit = 1.0;  ///< |u| <= command_limit <= 1
  /// Position loop only: the largest unloaded speed of the reeled-out length it commands [m/s] > 0
  /// (infinity: none; the command limit alone).
  double rate_limit_mps = std::numeric_limits<double>::infinity();
  /// Reeled-out length per motor radian [m/rad].
  [[nodiscard]] double length_per_rad() const { return spool_radius_m / gear_ratio; }
  /// The position loop's output limit: command_limit, lowered by the rate limit. Without a rate
  /// limit (+infinity) the quotient is +infinity (or NaN) for a speed of sign +, never below
  /// command_limit: no division then (the winch loop evaluates this at every stage).
  [[nodiscard]] double position_command_limit() const {
    const double speed = no_load_speed_radps * length_per_rad();
    if (rate_limit_mps == std::numeric_limits<double>::infinity() && !std::signbit(speed)) return command_limit;
    return std::min(command_limit, rate_limit_mps / speed);
  }
  /// Largest unloaded speed of the rest length [m/s]: the no-load speed at the command limit (at
  /// the position loop's limit under position control).
  [[nodiscard]] double max_rate_mps() const {
    return (control == Control::kPosition ? position_command_limit() : command_limit) * no_load_speed_radps * length_per_rad();
  }
};
/// The names of Winch::Control (tendyn/core/enum_names.hpp).
constexpr EnumNames<Winch::Control, 3> enum_names(Winch::Control) {
  return {"winch control",
          {{{Winch::Control::kPosition, "position"}, {Winch::Control::kVoltage, "voltage"}, {Winch::Control::kTorque, "torque"}}}};
}
/// "position" | "voltage" | "torque" -> Winch::Control. Throws tendyn::Error naming the valid names.
inline Winch::Control winch_control_from_string(const std::string& name) { return enum_from_string<Winch::Control>(name); }
inline const char* to_string(Winch::Control control) { return enum_to_string(control); }

/// Generalised state: per rod 13 numbers [p_WC(3), q_WB(4: w x y z), v_WC(3), w_W(3)],
/// angular velocity in the world frame, then 3 per winch (Winch), then 1 per force actuator
/// activation (ForceActuator::dynamics). Flat so that integrators can treat it as one vector
/// (Model::nx() numbers).
struct State {
  double time_s = 0.0;
  Eigen::VectorXd x;  // (Model::nx() = 13 * nrod + 3 * nwinch + nactivation)

  static constexpr int kStride = 13;
  [[nodiscard]] Eigen::Map<const Eigen::Vector3d> p_WC(int rod) const {
    return Eigen::Map<const Eigen::Vector3d>(x.data() + kStride * rod);
  }
  [[nodiscard]] Eigen::Map<Eigen::Vector3d> p_WC(int rod) { return Eigen::Map<Eigen::Vector3d>(x.data() + kStride * rod); }
  [[nodiscard]] Eigen::Quaterniond q_WB(int rod) const {
    const double* d = x.data() + kStride * rod + 3;
    return Eigen::Quaterniond(d[0], d[1], d[2], d[3]);
  }
  void set_q_WB(int rod, const Eigen::Quaterniond& q) {
    double* d = x.data() + kStride * rod + 3;
    d[0] = q.w();
    d[1] = q.x();
    d[2] = q.y();
    d[3] = q.z();
  }
  [[nodiscard]] Eigen::Map<const Eigen::Vector3d> v_WC(int rod) const {
    return Eigen::Map<const Eigen::Vector3d>(x.data() + kStride * rod + 7);
  }
  [[nodiscard]] Eigen::Map<Eigen::Vector3d> v_WC(int rod) { return Eigen::Map<Eigen::Vector3d>(x.data() + kStride * rod + 7); }
  [[nodiscard]] Eigen::Map<const Eigen::Vector3d> w_W(int rod) const {
    return Eigen::Map<const Eigen::Vector3d>(x.data() + kStride * rod + 10);
  }
  [[nodiscard]] Eigen::Map<Eigen::Vector3d> w_W(int rod) { return Eigen::Map<Eigen::Vector3d>(x.data() + kStride * rod + 10); }
};

/// A force actuator on a cable or spring: MuJoCo's tendon actuators (<general> with gaintype fixed
/// or affine and biastype none or affine, <motor>, <position>, <velocity>; dyntype none), with
/// MuJoCo's law and sign. With the element's length l and rate l' (dynamics.hpp), the actuator's
/// length L = gear l and velocity V = gear l', and its command ctrl (clamped to [ctrl_min,
/// ctrl_max] when ctrl_limited):
///   F = (gain[0] + gain[1] L + gain[2] V) ctrl + bias[0] + bias[1] L + bias[2] V,
/// clamped to [force_min_N, force_max_N] when force_limited. The element's nodes get the axial force
/// gear F, positive pushing them apart (along the gradient of the length, as MuJoCo's
/// qfrc_actuator = gear J^T F): node b gets gear F u, node a -gear F u, u from a to b. The units
/// of ctrl, gain and bias follow the actuator (a motor: ctrl in N; a position servo: ctrl in m,
/// gain[0] = kp in N/m, bias = (0, -kp, -kv)). The command is `ctrl`, or ctrl + u(t) of a drive
/// on the cable (Model::drives), or what a controller writes to Data::actuator_ctrl.
struct ForceActuator {
  /// Activation dynamics (MuJoCo's dyntype): kNone, F from ctrl; with an activation act (one
  /// state number, after the winches', Model::nx()) F uses act in place of ctrl, and
  /// act' = ctrl (kIntegrator) or (ctrl - act) / time_constant_s (kFilter; MuJoCo's filterexact
  /// is the same ODE, integrated exactly by MuJoCo's Euler step). ctrl is clamped first.
  enum class Dynamics { kNone, kIntegrator, kFilter };
  int cable = -1;
  Dynamics dynamics = Dynamics::kNone;
  double time_constant_s = 1.0;  ///< kFilter (MuJoCo's dynprm[0]) [s], > 0
  double gear = 1.0;
  std::array<double, 3> gain{1.0, 0.0, 0.0};
  std::array<double, 3> bias{0.0, 0.0, 0.0};
  double ctrl = 0.0;  ///< the command without a drive
  bool ctrl_limited = false;
  double ctrl_min = 0.0, ctrl_max = 0.0;
  bool force_limited = false;
  double force_min_N = 0.0, force_max_N = 0.0;
};

/// The names of ForceActuator::Dynamics (tendyn/core/enum_names.hpp).
constexpr EnumNames<ForceActuator::Dynamics, 3> enum_names(ForceActuator::Dynamics) {
  return {"actuator dynamics",
          {{{ForceActuator::Dynamics::kNone, "none"},
            {ForceActuator::Dynamics::kIntegrator, "integrator"},
            {ForceActuator::Dynamics::kFilter, "filter"}}}};
}
/// "none" | "integrator" | "filter" -> ForceActuator::Dynamics. Throws tendyn::Error naming the valid names.
inline ForceActuator::Dynamics actuator_dynamics_from_string(const std::string& name) {
  return enum_from_string<ForceActuator::Dynamics>(name);
}
inline const char* to_string(ForceActuator::Dynamics d) { return enum_to_string(d); }

/// The ground plane z = height_m under the robot (see contact.hpp). Rod ends touch it.
struct Ground {
  enum class Type { kNone, kImpulse, kCompliant };
  /// Tangential part of the impulse ground's law (document 001, section 2.3.2).
  enum class FrictionLaw {
    /// Coulomb friction in the impulse: sticking inside the cone |P_t| <= mu P_n, sliding on the
    /// cone against the slip otherwise (eqs. 2-60, 2-61 read as Coulomb). The default.
    kCoulomb,
    /// Eqs. (2-62)-(2-64) exactly as printed: the impulse is P_n a with a = (mu v_x, mu v_y, 1),
    /// (v_x, v_y) the contact point's tangential velocity [m/s] before the impact, i.e. a
    /// tangential impulse mu P_n v_t along the slip (it accelerates a sliding end and adds
    /// energy; see docs/VALIDATION.md). Applied after each step only (no resting-contact
    /// pre-impulse, as the document); impulse ground only.
    kPrinted,
  };
  Type type = Type::kNone;
  FrictionLaw friction_law = FrictionLaw::kCoulomb;
  double height_m = 0.0;
  double friction = 0.5;  ///< Coulomb coefficient mu >= 0
  // impulse model
  double restitution = 0.0;         ///< e in [0, 1]
  double max_penetration_m = 1e-4;  ///< impacts are located so that no end sinks deeper
  double baumgarte = 0.2;           ///< resting-contact depth correction per step, in (0, 1]
  // compliant model
  double stiffness_Npm = 1e5;       ///< per rod end
  double damping_Nspm = 300.0;      ///< per rod end
  double slip_velocity_mps = 1e-3;  ///< friction regularisation
};
/// The names of Ground::Type (tendyn/core/enum_names.hpp).
constexpr EnumNames<Ground::Type, 3> enum_names(Ground::Type) {
  return {"ground type", {{{Ground::Type::kNone, "none"}, {Ground::Type::kImpulse, "impulse"}, {Ground::Type::kCompliant, "compliant"}}}};
}
/// "none" | "impulse" | "compliant" -> Ground::Type (any case, '-' = '_'). Throws tendyn::Error
/// "unknown ground type '<name>' (valid: none, impulse, compliant)" for any other text.
inline Ground::Type ground_type_from_string(const std::string& name) { return enum_from_string<Ground::Type>(name); }
/// "none", "impulse", "compliant" (the names in model files).
inline const char* to_string(Ground::Type type) { return enum_to_string(type); }
/// The names of Ground::FrictionLaw (tendyn/core/enum_names.hpp).
constexpr EnumNames<Ground::FrictionLaw, 2> enum_names(Ground::FrictionLaw) {
  return {"friction law", {{{Ground::FrictionLaw::kCoulomb, "coulomb"}, {Ground::FrictionLaw::kPrinted, "printed"}}}};
}
/// "coulomb" | "printed" -> Ground::FrictionLaw (any case, '-' = '_'). Throws tendyn::Error
/// "unknown friction law '<name>' (valid: coulomb, printed)" for any other text.
inline Ground::FrictionLaw friction_law_from_string(const std::string& name) { return enum_from_string<Ground::FrictionLaw>(name); }
/// "coulomb", "printed" (the names in model files: ground key `friction_law`).
inline const char* to_string(Ground::FrictionLaw law) { return enum_to_string(law); }

struct Model {
  std::string name = "tensegrity";
  std::vector<Rod> rods;
  std::vector<Node> nodes;
  std::vector<Cable> cables;
  std::vector<std::string> rod_ids, node_ids, cable_ids;  ///< names for files and messages
  Eigen::Vector3d gravity_W = Eigen::Vector3d::Zero();    ///< [m/s^2]
  /// Constant external force on each node [N] (nnode entries; zero by default).
  std::vector<Eigen::Vector3d> f_W_ext_node;
  DampingLaw damping_law = DampingLaw::kAxial;
  CableForceSign cable_force_sign = CableForceSign::kClampTension;
  /// actuated cables (at most one drive per cable). On a cable with a winch the drive moves the
  /// winch's target (rest_length + u(t)), not the rest length itself.
  std::vector<CableDrive> drives;
  std::vector<Winch> winches;  ///< motorised cables (at most one winch per cable); none: the ideal drive
  /// Force actuators on cables (at most one per cable, not on a cable with a winch); a drive on such
  /// a cable moves the actuator's command (ctrl + u(t)), not the rest length.
  std::vector<ForceActuator> force_actuators;
  std::vector<std::string> actuator_ids;  ///< names of the force actuators (files, outputs)
  Ground ground;
  State initial_state;  ///< the state a run starts from (like MuJoCo's qpos0/qvel0)

  [[nodiscard]] int nrod() const { return static_cast<int>(rods.size()); }
  [[nodiscard]] int nnode() const { return static_cast<int>(nodes.size()); }
  [[nodiscard]] int ncable() const { return static_cast<int>(cables.size()); }
  [[nodiscard]] int nwinch() const { return static_cast<int>(winches.size()); }
  [[nodiscard]] int nactuator() const { return static_cast<int>(force_actuators.size()); }
  /// Index of the force actuator on `cable`, or -1 (at most one per cable: validate()). O(nactuator).
  [[nodiscard]] int force_actuator_on(int cable) const;
  /// Force actuator a's name: actuator_ids[a], or, for a model without actuator names, its
  /// cable's name (the model file's default). Used by outputs and the MJCF export.
  [[nodiscard]] std::string actuator_name(int a) const;
  /// Force actuators with an activation (ForceActuator::dynamics not kNone).
  [[nodiscard]] int nactivation() const {
    int n = 0;
    for (const ForceActuator& a : force_actuators) n += a.dynamics != ForceActuator::Dynamics::kNone ? 1 : 0;
    return n;
  }
  /// Size of the state: 13 per rod + 3 per winch + 1 per actuator activation.
  [[nodiscard]] int nx() const { return State::kStride * nrod() + 3 * nwinch() + nactivation(); }
  /// Index in State::x of force actuator a's activation (-1: none). O(nactuator).
  [[nodiscard]] int activation_offset(int a) const {
    if (force_actuators[static_cast<std::size_t>(a)].dynamics == ForceActuator::Dynamics::kNone) return -1;
    int k = 0;
    for (int b = 0; b < a; ++b) k += force_actuators[static_cast<std::size_t>(b)].dynamics != ForceActuator::Dynamics::kNone ? 1 : 0;
    return State::kStride * nrod() + 3 * nwinch() + k;
  }
  /// Index in State::x of winch w's motor angle (its speed and error integral follow).
  [[nodiscard]] int winch_offset(int w) const { return State::kStride * nrod() + 3 * w; }
  [[nodiscard]] double total_mass() const;
  /// Node offset from the rod's centre of mass in the body frame [m] (rod ends and body points).
  [[nodiscard]] Eigen::Vector3d p_BN(int node) const;
  /// Whether any rod has a general inertia or any node is a body point or has an end-cap radius
  /// (the elements beyond the documents' ideal rods).
  [[nodiscard]] bool has_body_geometry() const;
};

/// Checks every invariant the algorithms rely on and throws tendyn::Error naming the element
/// (by id) and the reason: indices in range, each rod end owned by exactly one node, positive
/// mass and length, non-negative stiffness/damping/rest length, finite numbers, unit quaternions,
/// no cable from a node to itself or between two anchors, drives naming existing cables (once
/// each) whose rest length stays within the cable's limits and rate, at most
/// kMaxImpulseContactsPerRod (contact.hpp) ground contact points per rod on the impulse ground. Cost O(nrod + nnode + ncable).
void validate(const Model& model);

/// Throws tendyn::Error "<what>: <why>" when the model has body points, end-caps, rods of general
/// inertia (Model::has_body_geometry()), winches or force actuators: for the algorithms written for the documents' ideal rods
/// only (the Lagrange formulation, form finding, identification).
void require_ideal_rods(const Model& model, const std::string& what);

/// Rod poses from the positions of their two end nodes (p_W of end 0 and end 1, rows of the
/// nnode x 3 matrix; anchor rows are ignored): each rod's length must match |p1 - p0| within
/// `length_tol` relative, else tendyn::Error. Orientation: the minimal rotation of z onto the
/// rod axis (for a rod of general inertia: of the ends' direction in its body frame onto their
/// world direction; body points' rows are ignored: they follow their rod). Velocities are zero.
State state_from_node_positions(const Model& model, const Eigen::MatrixX3d& p_W_nodes, double length_tol = 1e-6);

/// Builds a model from the document's matrices (000, section 2): R (nrod x 2) node indices of
/// each rod (0-based), S stiffness, Gamma damping, P rest lengths (n x n, symmetric, zero where
/// there is no element; the upper triangle is read). Optional E (ncable x 2) fixes the element
/// order and must match the non-zero pattern of S. Nodes not in R are world anchors at their
/// p_W_nodes position. Every element is tension-only unless listed in `compression_elements`
/// (pairs of node indices: the document's "relaxation" entries added to S and P).
Model model_from_matrices(const Eigen::MatrixX2i& R, const Eigen::MatrixXd& S, const Eigen::MatrixXd& Gamma, const Eigen::MatrixXd& P,
                          const Eigen::MatrixX3d& p_W_nodes, const std::vector<Rod>& rods,
                          const Eigen::MatrixX2i& E = Eigen::MatrixX2i(0, 2),
                          const std::vector<std::pair<int, int>>& compression_elements = {});

}  // namespace tendyn::tensegrity
