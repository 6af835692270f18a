// Bindings of include/tendyn/tensegrity/model.hpp: damping law, rods, nodes, cables, drives, the
// Newton-Euler State, the ground, the Model and its checks. Vector members are bound by value
// (copy_of / assign_to): assign a new list to change them.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/model.hpp>

#include "tensegrity/expose.hpp"

#include <array>
#include <string>
#include <utility>

namespace tendyn::python::tensegrity_bind {

namespace {

// Whether n entries can be a state: 13 nrod + 3 nwinch with nrod >= 1, nwinch >= 0.
bool state_size_ok(Eigen::Index n) {
  for (Eigen::Index rods = 1; State::kStride * rods <= n; ++rods)
    if ((n - State::kStride * rods) % 3 == 0) return true;
  return false;
}

// State.x = array: the current size, or for an empty state 13 nrod + 3 nwinch entries (the
// model checks the exact split where the state is used; State(model, x) checks it at once).
void set_state_x(State& s, const py::array_t<double, py::array::forcecast>& x) {
  const Eigen::Index n = x.ndim() == 1 ? static_cast<Eigen::Index>(x.shape(0)) : -1;
  const Eigen::Index expected = s.x.size() > 0 ? s.x.size() : (state_size_ok(n) ? n : -1);
  if (expected < 0)
    throw py::value_error("State.x: expected a 1-D array of 13 * nrod + 3 * nwinch entries (nrod >= 1), got shape " + shape_str(x));
  assign_vector(s.x, x, "State.x", expected,
                expected % State::kStride == 0 ? "13 per rod, " + std::to_string(expected / State::kStride) + " rods"
                                               : std::string("13 per rod + 3 per winch + 1 per actuator activation"));
}

std::string state_repr(const State& s) {
  return "State(time_s=" + float_repr(s.time_s) + ", nrod=" + std::to_string(s.x.size() / State::kStride) + ")";
}

}  // namespace

void expose_model(py::module_& m) {
  py::enum_<DampingLaw>(m, "DampingLaw", "Cable damping law: axial (gamma * dl/dt) or document 000's relative-velocity law.")
      .value("kAxial", DampingLaw::kAxial)
      .value("kRelativeVelocity", DampingLaw::kRelativeVelocity);
  m.def("damping_law_from_string", &damping_law_from_string, py::arg("name"),
        "'axial' or 'relative_velocity' -> DampingLaw (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<DampingLaw>(&to_string), py::arg("law"), "'axial' or 'relative_velocity'.");
  py::enum_<CableForceSign>(m, "CableForceSign",
                            "What a taut cable whose damped force would push does: kClampTension (default: no force, slack) or "
                            "kPaperLaw (the law as written, signed force_N).")
      .value("kClampTension", CableForceSign::kClampTension)
      .value("kPaperLaw", CableForceSign::kPaperLaw);
  m.def("cable_force_sign_from_string", &cable_force_sign_from_string, py::arg("name"),
        "'clamp_tension' or 'paper_law' -> CableForceSign (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<CableForceSign>(&to_string), py::arg("sign"), "'clamp_tension' or 'paper_law'.");

  py::class_<Rod> rod(m, "Rod", "A rigid rod. Body frame: origin at the COM, z from end 0 to end 1.");
  rod.def_readwrite("mass_kg", &Rod::mass_kg, "mass [kg]")
      .def_readwrite("length_m", &Rod::length_m, "length between the end nodes [m]")
      .def_readwrite("com_ratio", &Rod::com_ratio, "a in [0, 1]: r_C = a r_end0 + (1 - a) r_end1 (dimensionless)")
      .def_readwrite("inertia_transverse_kgm2", &Rod::inertia_transverse_kgm2, "I_t about the COM, across the rod [kg m^2]")
      .def_readwrite("inertia_axial_kgm2", &Rod::inertia_axial_kgm2, "I_a about the rod axis [kg m^2] (0: thin rod)")
      .def_readwrite("general_inertia", &Rod::general_inertia,
                     "True: a rigid body of any inertia (inertia_B_kgm2; its ends placed by their nodes' p_B_m)")
      .def_readwrite("inertia_B_kgm2", &Rod::inertia_B_kgm2, "(3 x 3) inertia tensor about the COM in body axes [kg m^2] (general rods)")
      .def_property(
          "node",
          [](const Rod& r) {
            return std::array<int, 2>{r.node[0], r.node[1]};
          },
          [](Rod& r, const std::array<int, 2>& n) {
            r.node[0] = n[0];
            r.node[1] = n[1];
          },
          "(2) node indices of end 0 and end 1");
  def_kw_init(rod);
  m.def("make_thin_rod", &make_thin_rod, py::arg("mass_kg"), py::arg("length_m"),
        "A thin uniform rod: I_t = m L^2 / 12 [kg m^2], I_a = 0.");
  m.def("make_hollow_rod", &make_hollow_rod, py::arg("mass_kg"), py::arg("length_m"), py::arg("radius_outer_m"), py::arg("radius_inner_m"),
        "A hollow cylinder (document 001, 2-14): radii [m] r1 >= r2 >= 0.");

  py::class_<Winch> winch(m, "Winch",
                          "A motorised winch on a cable (DC motor, gear, spool, PID on the reeled-out length); see docs/MODEL_FORMAT.md.");
  py::enum_<Winch::Control>(winch, "Control")
      .value("position", Winch::Control::kPosition)
      .value("voltage", Winch::Control::kVoltage)
      .value("torque", Winch::Control::kTorque);
  winch.def_readwrite("cable", &Winch::cable, "cable index")
      .def_readwrite("spool_radius_m", &Winch::spool_radius_m, "[m]")
      .def_readwrite("gear_ratio", &Winch::gear_ratio, "motor turns per spool turn")
      .def_readwrite("stall_torque_Nm", &Winch::stall_torque_Nm, "motor side, full command, zero speed [N m]")
      .def_readwrite("no_load_speed_radps", &Winch::no_load_speed_radps, "motor side, full command, zero torque [rad/s]")
      .def_readwrite("rotor_inertia_kgm2", &Winch::rotor_inertia_kgm2, "motor side [kg m^2]")
      .def_readwrite("coulomb_friction_Nm", &Winch::coulomb_friction_Nm, "[N m]")
      .def_readwrite("viscous_friction_Nmsprad", &Winch::viscous_friction_Nmsprad, "[N m s/rad]")
      .def_readwrite("friction_speed_radps", &Winch::friction_speed_radps, "Coulomb regularisation [rad/s]")
      .def_readwrite("backdrivable", &Winch::backdrivable, "False: the gear holds the load")
      .def_readwrite("control", &Winch::control,
                     "position (PID on the length), voltage (the target is the command fraction) or torque (the target is the "
                     "motor torque [N m], inside the torque-speed envelope)")
      .def_readwrite("kp_per_m", &Winch::kp_per_m, "[1/m]")
      .def_readwrite("ki_per_ms", &Winch::ki_per_ms, "[1/(m s)]")
      .def_readwrite("kd_s_per_m", &Winch::kd_s_per_m, "[s/m]")
      .def_readwrite("command_limit", &Winch::command_limit, "|u| <= limit <= 1")
      .def_readwrite("rate_limit_mps", &Winch::rate_limit_mps,
                     "position loop: largest unloaded speed of the reeled-out length it commands [m/s] (inf: none)")
      .def("length_per_rad", &Winch::length_per_rad, "reeled-out length per motor radian [m/rad]")
      .def("position_command_limit", &Winch::position_command_limit, "the position loop's output limit (command and rate limits)")
      .def("max_rate_mps", &Winch::max_rate_mps, "largest unloaded speed of the rest length [m/s]")
      .def("__repr__", [](const Winch& w) {
        return "Winch(cable=" + std::to_string(w.cable) + ", control=" + to_string(w.control) +
               ", spool_radius_m=" + float_repr(w.spool_radius_m) + ", gear_ratio=" + float_repr(w.gear_ratio) + ")";
      });
  def_kw_init(winch);
  py::class_<ForceActuator> force_actuator(
      m, "ForceActuator",
      "A force actuator on a cable (MuJoCo's tendon actuators): F = (gain . (1, L, V)) ctrl + bias . (1, L, V), L = gear l, "
      "V = gear l'; the cable's nodes get gear F, > 0 pushing them apart; see docs/MODEL_FORMAT.md.");
  py::enum_<ForceActuator::Dynamics>(force_actuator, "Dynamics")
      .value("none", ForceActuator::Dynamics::kNone)
      .value("integrator", ForceActuator::Dynamics::kIntegrator)
      .value("filter", ForceActuator::Dynamics::kFilter);
  force_actuator.def_readwrite("cable", &ForceActuator::cable, "cable index")
      .def_readwrite("dynamics", &ForceActuator::dynamics,
                     "activation: none (F from ctrl), integrator (act' = ctrl), filter (act' = (ctrl - act) / time_constant_s)")
      .def_readwrite("time_constant_s", &ForceActuator::time_constant_s, "filter time constant [s]")
      .def_readwrite("gear", &ForceActuator::gear, "actuator length per cable length (!= 0)")
      .def_readwrite("gain", &ForceActuator::gain, "(3) gain g0 + g1 L + g2 V multiplying ctrl")
      .def_readwrite("bias", &ForceActuator::bias, "(3) bias b0 + b1 L + b2 V [N]")
      .def_readwrite("ctrl", &ForceActuator::ctrl, "command without a drive (units of the actuator)")
      .def_readwrite("ctrl_limited", &ForceActuator::ctrl_limited, "clamp ctrl to [ctrl_min, ctrl_max]")
      .def_readwrite("ctrl_min", &ForceActuator::ctrl_min, "lower end of the ctrl range (units of ctrl)")
      .def_readwrite("ctrl_max", &ForceActuator::ctrl_max, "upper end of the ctrl range (units of ctrl)")
      .def_readwrite("force_limited", &ForceActuator::force_limited, "clamp F to [force_min_N, force_max_N]")
      .def_readwrite("force_min_N", &ForceActuator::force_min_N, "[N]")
      .def_readwrite("force_max_N", &ForceActuator::force_max_N, "[N]")
      .def("__repr__", [](const ForceActuator& a) {
        return "ForceActuator(cable=" + std::to_string(a.cable) + ", gear=" + float_repr(a.gear) + ", gain=[" + float_repr(a.gain[0]) +
               ", " + float_repr(a.gain[1]) + ", " + float_repr(a.gain[2]) + "], bias=[" + float_repr(a.bias[0]) + ", " +
               float_repr(a.bias[1]) + ", " + float_repr(a.bias[2]) + "], ctrl=" + float_repr(a.ctrl) + ")";
      });
  def_kw_init(force_actuator);
  py::class_<Node> node(
      m, "Node",
      "A rod end (rod >= 0, end 0/1), a body point (rod >= 0, end = -1, p_B_m [m]) or a world anchor (rod = -1, p_W_anchor [m]).");
  node.def_readwrite("rod", &Node::rod, "rod index, or -1 for a world anchor")
      .def_readwrite("end", &Node::end, "0 or 1: which end of the rod; -1: a body point")
      .def_readwrite("p_W_anchor", &Node::p_W_anchor, "(3) anchor position in the world frame [m] (anchors only)")
      .def_readwrite("p_B_m", &Node::p_B_m,
                     "(3) offset from the rod's centre of mass in its body frame [m] (body points, ends of general rods)")
      .def_readwrite("radius_m", &Node::radius_m, "end-cap sphere radius [m]: the ground touches its surface (0: point contact)")
      .def_readwrite("contact", &Node::contact, "whether a body point touches the ground (rod ends always do)")
      .def("is_anchor", &Node::is_anchor, "True for a world anchor.")
      .def("is_body_point", &Node::is_body_point, "True for a point fixed on a rod that is not one of its ends (end = -1).");
  def_kw_init(node);

  py::class_<Cable> cable(m, "Cable", "A tension-only cable or (tension_only = False) a spring between two nodes.");
  cable
      .def_property(
          "node",
          [](const Cable& c) {
            return std::array<int, 2>{c.node[0], c.node[1]};
          },
          [](Cable& c, const std::array<int, 2>& n) {
            c.node[0] = n[0];
            c.node[1] = n[1];
          },
          "(2) node indices")
      .def_readwrite("stiffness_Npm", &Cable::stiffness_Npm, "stiffness s >= 0 [N/m]")
      .def_readwrite("damping_Nspm", &Cable::damping_Nspm, "damping gamma >= 0 [N s/m]")
      .def_readwrite("rest_length_m", &Cable::rest_length_m, "rest length rho >= 0 [m]")
      .def_readwrite("tension_only", &Cable::tension_only, "True: a cable (no force when slack); False: a spring that also pushes")
      .def_readwrite("rest_length_min_m", &Cable::rest_length_min_m, "lowest rest length drives and controllers may set [m]")
      .def_readwrite("rest_length_max_m", &Cable::rest_length_max_m, "highest rest length drives and controllers may set [m]")
      .def_readwrite("rest_rate_max_mps", &Cable::rest_rate_max_mps, "largest |d(rest length)/dt| [m/s]");
  def_kw_init(cable);

  py::class_<SinusoidDrive> sinusoid(m, "SinusoidDrive", "Rest-length offset u(t) = a sin(b t + c) + d [m] (document 001, 2-66).");
  sinusoid
      .def(py::init([](double a, double b, double c, double d) {
             return SinusoidDrive{a, b, c, d};
           }),
           py::arg("a_m"), py::arg("b_radps"), py::arg("c_rad"), py::arg("d_m"))
      .def_readwrite("a_m", &SinusoidDrive::a_m, "amplitude a [m]")
      .def_readwrite("b_radps", &SinusoidDrive::b_radps, "angular frequency b [rad/s]")
      .def_readwrite("c_rad", &SinusoidDrive::c_rad, "phase c [rad]")
      .def_readwrite("d_m", &SinusoidDrive::d_m, "offset d [m]");
  def_kw_init(sinusoid);
  py::class_<TableDrive> table(m, "TableDrive", "Rest-length offset u(t), piecewise linear through (t_s[i], u_m[i]), held outside.");
  table.def_readwrite("t_s", &TableDrive::t_s, "knot times [s], strictly increasing")
      .def_readwrite("u_m", &TableDrive::u_m, "offsets at the knots [m]");
  def_kw_init(table);
  py::class_<CableDrive> drive(m, "CableDrive", "Drive of one cable: rest length = rest_length_m + u(t).");
  drive.def_readwrite("cable", &CableDrive::cable, "cable index")
      .def_readwrite("u", &CableDrive::u, "u(t): a SinusoidDrive or a TableDrive [m]");
  def_kw_init(drive);
  m.def("drive_offset", &drive_offset, py::arg("drive"), py::arg("t_s"), "u(t) [m] of a drive at time t_s [s].");

  py::class_<State>(m, "State",
                    "Newton-Euler state: time_s [s] and x (13 nrod + 3 nwinch): per rod p_WC [m], q_WB (w, x, y, z), v_WC [m/s], "
                    "w_W [rad/s]; then per winch motor angle [rad], speed [rad/s], error integral [m s].")
      .def(py::init<>())
      .def(py::init([](const py::array_t<double, py::array::forcecast>& x, double t) {
             State s;
             s.time_s = t;
             set_state_x(s, x);
             return s;
           }),
           py::arg("x"), py::arg("time_s") = 0.0, "State from x (13 nrod + 3 nwinch entries) at time_s [s].")
      .def(py::init([](const Model& model, const py::array_t<double, py::array::forcecast>& x, double t) {
             State s;
             s.time_s = t;
             s.x.setZero(model.nx());
             assign_vector(s.x, x, "State.x", model.nx(), "Model.nx(): 13 per rod + 3 per winch + 1 per actuator activation");
             return s;
           }),
           py::arg("model"), py::arg("x"), py::arg("time_s") = 0.0,
           "State of `model` from x (exactly model.nx() entries: 13 per rod, then motor angle [rad], speed [rad/s] and "
           "error integral [m s] per winch) at time_s [s].")
      .def_readwrite("time_s", &State::time_s, "time [s]")
      .def_property(
          "x", [](py::object self) { return vector_view(self.cast<State&>().x, self); }, &set_state_x,
          "(13 nrod) per rod [p_WC (3) m, q_WB (4: w x y z), v_WC (3) m/s, w_W (3) rad/s]; a writable view "
          "(copy it to keep a snapshot). Assigning an array of another length raises ValueError.")
      .def_property_readonly(
          "nrod", [](const State& s) { return static_cast<int>(s.x.size() / State::kStride); }, "x.size / 13")
      .def(
          "copy", [](const State& s) { return s; }, "An independent copy.")
      .def("__repr__", &state_repr);

  py::class_<Ground> ground(m, "Ground", "The ground plane z = height_m: none, impulse (document 001 2.3) or compliant.");
  py::enum_<Ground::Type>(ground, "Type", "Ground model.")
      .value("kNone", Ground::Type::kNone)
      .value("kImpulse", Ground::Type::kImpulse)
      .value("kCompliant", Ground::Type::kCompliant);
  m.def("ground_type_from_string", &ground_type_from_string, py::arg("name"),
        "'none', 'impulse' or 'compliant' -> Ground.Type (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<Ground::Type>(&to_string), py::arg("type"), "'none', 'impulse' or 'compliant'.");
  py::enum_<Ground::FrictionLaw>(ground, "FrictionLaw",
                                 "Impulse ground: kCoulomb (default) or kPrinted (document 001 eqs. 2-62..2-64 as printed; adds energy).")
      .value("kCoulomb", Ground::FrictionLaw::kCoulomb)
      .value("kPrinted", Ground::FrictionLaw::kPrinted);
  m.def("friction_law_from_string", &friction_law_from_string, py::arg("name"),
        "'coulomb' or 'printed' -> Ground.FrictionLaw (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<Ground::FrictionLaw>(&to_string), py::arg("law"), "'coulomb' or 'printed'.");
  ground.def_readwrite("type", &Ground::type, "Ground.Type: kNone, kImpulse or kCompliant")
      .def_readwrite("height_m", &Ground::height_m, "height of the plane [m]")
      .def_readwrite("friction", &Ground::friction, "Coulomb coefficient mu >= 0 (dimensionless)")
      .def_readwrite("friction_law", &Ground::friction_law, "Ground.FrictionLaw (impulse ground only): kCoulomb or kPrinted")
      .def_readwrite("restitution", &Ground::restitution, "impulse: Newton restitution e in [0, 1] (dimensionless)")
      .def_readwrite("max_penetration_m", &Ground::max_penetration_m, "impulse: impacts are located so that no end sinks deeper [m]")
      .def_readwrite("baumgarte", &Ground::baumgarte, "impulse: resting-contact depth correction per step, in (0, 1] (dimensionless)")
      .def_readwrite("stiffness_Npm", &Ground::stiffness_Npm, "compliant: normal stiffness per rod end [N/m]")
      .def_readwrite("damping_Nspm", &Ground::damping_Nspm, "compliant: normal damping per rod end [N s/m]")
      .def_readwrite("slip_velocity_mps", &Ground::slip_velocity_mps, "compliant: friction regularisation velocity [m/s]");
  def_kw_init(ground);

  py::class_<Model>(m, "Model", "A tensegrity model (rods, nodes, cables, drives, ground); algorithms never change it.")
      .def(py::init<>())
      .def(
          "copy", [](const Model& mo) { return mo; }, "An independent copy (for per-robot parameters).")
      .def("__copy__", [](const Model& mo) { return mo; })
      .def(
          "__deepcopy__", [](const Model& mo, py::dict) { return mo; }, py::arg("memo"))
      .def_readwrite("name", &Model::name, "model name")
      .def_property("rods", copy_of(&Model::rods), assign_to(&Model::rods), "list of Rod (a copy: assign a new list to change)")
      .def_property("nodes", copy_of(&Model::nodes), assign_to(&Model::nodes), "list of Node (a copy: assign a new list to change)")
      .def_property("cables", copy_of(&Model::cables), assign_to(&Model::cables), "list of Cable (a copy: assign a new list to change)")
      .def_readwrite("rod_ids", &Model::rod_ids, "rod names")
      .def_readwrite("node_ids", &Model::node_ids, "node names")
      .def_readwrite("cable_ids", &Model::cable_ids, "cable names")
      .def_readwrite("gravity_W", &Model::gravity_W, "(3) gravity in the world frame [m/s^2]")
      .def_readwrite("damping_law", &Model::damping_law, "DampingLaw of all cables")
      .def_readwrite("cable_force_sign", &Model::cable_force_sign, "CableForceSign of all tension-only cables (default kClampTension)")
      .def_property("drives", copy_of(&Model::drives), assign_to(&Model::drives),
                    "list of CableDrive (a copy: assign a new list to change)")
      .def_property("winches", copy_of(&Model::winches), assign_to(&Model::winches), "list of Winch (a copy: assign a new list to change)")
      .def_property("force_actuators", copy_of(&Model::force_actuators), assign_to(&Model::force_actuators),
                    "list of ForceActuator (a copy: assign a new list to change)")
      .def_readwrite("actuator_ids", &Model::actuator_ids, "force actuator names")
      .def("force_actuator_on", &Model::force_actuator_on, py::arg("cable"), "index of the force actuator on the cable, or -1")
      .def("actuator_name", &Model::actuator_name, py::arg("actuator"),
           "the actuator's name: actuator_ids[a], or its cable's name without actuator names")
      .def("nx", &Model::nx, "state size: 13 per rod + 3 per winch + 1 per actuator activation")
      .def("activation_offset", &Model::activation_offset, py::arg("actuator"), "index in State.x of the actuator's activation (-1: none)")
      .def_readwrite("ground", &Model::ground, "the Ground")
      .def_property(
          "f_W_ext_node",
          [](const Model& mo) {
            Eigen::MatrixX3d f = Eigen::MatrixX3d::Zero(mo.nnode(), 3);
            for (int i = 0; i < mo.nnode() && i < static_cast<int>(mo.f_W_ext_node.size()); ++i)
              f.row(i) = mo.f_W_ext_node[static_cast<std::size_t>(i)].transpose();
            return f;
          },
          [](Model& mo, const py::array_t<double, py::array::forcecast>& f) {
            mo.f_W_ext_node.assign(static_cast<std::size_t>(mo.nnode()), Eigen::Vector3d::Zero());
            assign_rows3(mo.f_W_ext_node, f, "Model.f_W_ext_node", "one row per node");
          },
          "(nnode x 3) constant external force on each node [N] (a copy; assign to change)")
      .def_property(
          "initial_state", [](const Model& mo) { return mo.initial_state; },
          [](Model& mo, const State& s) {
            if (s.x.size() != mo.nx())
              throw py::value_error("Model.initial_state: expected x of shape (" + std::to_string(mo.nx()) + ",) (13 per rod, " +
                                    std::to_string(mo.nrod()) + " rods), got (" + std::to_string(s.x.size()) + ",)");
            mo.initial_state = s;
          },
          "State a run starts from (time_s [s], x: 13 nrod). A copy: stepping it or writing into its x leaves the "
          "model unchanged; assign a State to change it.")
      .def_property_readonly("nrod", &Model::nrod, "number of rods")
      .def_property_readonly("nnode", &Model::nnode, "number of nodes (rod ends and anchors)")
      .def_property_readonly("ncable", &Model::ncable, "number of cables and springs")
      .def_property_readonly(
          "ndrive", [](const Model& mo) { return static_cast<int>(mo.drives.size()); }, "number of driven cables")
      .def("total_mass", &Model::total_mass, "Total mass of the rods [kg].")
      .def("p_BN", &Model::p_BN, py::arg("node"), "Node position in its rod's body frame [m].")
      .def("__repr__", [](const Model& mo) {
        return "Model(name=" + py::repr(py::str(mo.name)).cast<std::string>() + ", nrod=" + std::to_string(mo.nrod()) +
               ", nnode=" + std::to_string(mo.nnode()) + ", ncable=" + std::to_string(mo.ncable()) +
               ", ndrive=" + std::to_string(mo.drives.size()) + ")";
      });
  m.def("validate", py::overload_cast<const Model&>(&validate), py::arg("model"),
        "Check every model invariant; raises tendyn.Error naming the element.");
  m.def("state_from_node_positions", &state_from_node_positions, py::arg("model"), py::arg("p_W_nodes"), py::arg("length_tol") = 1e-6,
        "State at rest from (nnode x 3) node positions [m]; rod lengths must match (relative length_tol).");
}

}  // namespace tendyn::python::tensegrity_bind
