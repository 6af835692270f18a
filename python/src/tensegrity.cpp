// Bindings of tendyn::tensegrity (include/tendyn/tensegrity/*.hpp): model, builders, options,
// model files, dynamics, Lagrange formulation, psi study, planner. Stepping, simulate and
// controllers are in tensegrity_sim.cpp. Names as in C++; every field's docstring gives its unit.
// Option and parameter structs take keyword constructors (SimulationOptions(duration_s=2)) and
// print as Name(field=value, ...). Long calls (simulate, studies, plan) release the GIL.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/lagrange.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/planner.hpp>
#include <tendyn/tensegrity/psi_study.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include "bind_util.hpp"
#include "tensegrity_bind.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace tendyn::tensegrity;
using tendyn::python::assign_rows3;
using tendyn::python::assign_vector;
using tendyn::python::def_kw_init;
using tendyn::python::rows3_view;
using tendyn::python::vector_view;

namespace {

State make_state(const Model& model, const Eigen::VectorXd& x, double time_s) {
  if (x.size() != State::kStride * model.nrod())
    throw tendyn::Error("state vector has " + std::to_string(x.size()) + " entries, expected 13 * nrod = " +
                        std::to_string(State::kStride * model.nrod()));
  State s;
  s.time_s = time_s;
  s.x = x;
  return s;
}

std::array<double, 3> arr3(const double (&v)[3]) { return {v[0], v[1], v[2]}; }

// Getter and setter of a vector member by value. (def_readwrite would hand out references into
// the vector's elements, which dangle once a new list is assigned.)
template <class C, class V>
auto copy_of(V C::*member) {
  return [member](const C& c) { return V(c.*member); };
}
template <class C, class V>
auto assign_to(V C::*member) {
  return [member](C& c, V v) { c.*member = std::move(v); };
}

// State.x = array: a multiple of 13 entries, and the current size unless the state is empty.
void set_state_x(State& s, const py::array_t<double, py::array::forcecast>& x) {
  const auto n = x.ndim() == 1 ? static_cast<Eigen::Index>(x.shape(0)) : -1;
  const Eigen::Index expected = s.x.size() > 0 ? s.x.size() : (n >= 0 && n % State::kStride == 0 ? n : -1);
  if (expected < 0)
    throw py::value_error("State.x: expected a 1-D array of 13 * nrod entries, got shape " + tendyn::python::shape_str(x));
  assign_vector(s.x, x, "State.x", expected, "13 per rod, " + std::to_string(expected / State::kStride) + " rods");
}

std::string state_repr(const State& s) {
  return "State(time_s=" + py::repr(py::float_(s.time_s)).cast<std::string>() + ", nrod=" +
         std::to_string(s.x.size() / State::kStride) + ")";
}

}  // namespace

void bind_tensegrity(py::module_& m) {
  // ---- model ---------------------------------------------------------------------------------
  py::enum_<DampingLaw>(m, "DampingLaw", "Cable damping law: axial (gamma * dl/dt) or document 000's relative-velocity law.")
      .value("kAxial", DampingLaw::kAxial)
      .value("kRelativeVelocity", DampingLaw::kRelativeVelocity);

  py::class_<Rod> rod(m, "Rod", "A rigid rod. Body frame: origin at the COM, z from end 0 to end 1.");
  rod.def_readwrite("mass_kg", &Rod::mass_kg, "mass [kg]")
      .def_readwrite("length_m", &Rod::length_m, "length between the end nodes [m]")
      .def_readwrite("com_ratio", &Rod::com_ratio, "a in [0, 1]: r_C = a r_end0 + (1 - a) r_end1 (dimensionless)")
      .def_readwrite("inertia_transverse_kgm2", &Rod::inertia_transverse_kgm2, "I_t about the COM, across the rod [kg m^2]")
      .def_readwrite("inertia_axial_kgm2", &Rod::inertia_axial_kgm2, "I_a about the rod axis [kg m^2] (0: thin rod)")
      .def_property("node", [](const Rod& r) { return std::array<int, 2>{r.node[0], r.node[1]}; },
                    [](Rod& r, const std::array<int, 2>& n) { r.node[0] = n[0]; r.node[1] = n[1]; },
                    "(2) node indices of end 0 and end 1");
  def_kw_init(rod);
  m.def("make_thin_rod", &make_thin_rod, py::arg("mass_kg"), py::arg("length_m"),
        "A thin uniform rod: I_t = m L^2 / 12 [kg m^2], I_a = 0.");
  m.def("make_hollow_rod", &make_hollow_rod, py::arg("mass_kg"), py::arg("length_m"), py::arg("radius_outer_m"),
        py::arg("radius_inner_m"), "A hollow cylinder (document 001, 2-14): radii [m] r1 >= r2 >= 0.");

  py::class_<Node> node(m, "Node", "A rod end (rod >= 0, end 0/1) or a world anchor (rod = -1, p_W_anchor [m]).");
  node.def_readwrite("rod", &Node::rod, "rod index, or -1 for a world anchor")
      .def_readwrite("end", &Node::end, "0 or 1: which end of the rod")
      .def_readwrite("p_W_anchor", &Node::p_W_anchor, "(3) anchor position in the world frame [m] (anchors only)")
      .def("is_anchor", &Node::is_anchor, "True for a world anchor.");
  def_kw_init(node);

  py::class_<Cable> cable(m, "Cable", "A tension-only cable or (tension_only = False) a spring between two nodes.");
  cable.def_property("node", [](const Cable& c) { return std::array<int, 2>{c.node[0], c.node[1]}; },
                     [](Cable& c, const std::array<int, 2>& n) { c.node[0] = n[0]; c.node[1] = n[1]; },
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
  sinusoid.def(py::init([](double a, double b, double c, double d) { return SinusoidDrive{a, b, c, d}; }),
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
                    "Newton-Euler state: time_s [s] and x (13 nrod): per rod p_WC [m], q_WB (w, x, y, z), v_WC [m/s], w_W [rad/s].")
      .def(py::init<>())
      .def(py::init([](const py::array_t<double, py::array::forcecast>& x, double t) {
             State s;
             s.time_s = t;
             set_state_x(s, x);
             return s;
           }),
           py::arg("x"), py::arg("time_s") = 0.0, "State from x (13 nrod entries) at time_s [s].")
      .def_readwrite("time_s", &State::time_s, "time [s]")
      .def_property("x", [](py::object self) { return vector_view(self.cast<State&>().x, self); }, &set_state_x,
                    "(13 nrod) per rod [p_WC (3) m, q_WB (4: w x y z), v_WC (3) m/s, w_W (3) rad/s]; a writable view "
                    "(copy it to keep a snapshot). Assigning an array of another length raises ValueError.")
      .def_property_readonly("nrod", [](const State& s) { return static_cast<int>(s.x.size() / State::kStride); }, "x.size / 13")
      .def("copy", [](const State& s) { return s; }, "An independent copy.")
      .def("__repr__", &state_repr);

  py::class_<Ground> ground(m, "Ground", "The ground plane z = height_m: none, impulse (document 001 2.3) or compliant.");
  py::enum_<Ground::Type>(ground, "Type", "Ground model.")
      .value("kNone", Ground::Type::kNone)
      .value("kImpulse", Ground::Type::kImpulse)
      .value("kCompliant", Ground::Type::kCompliant);
  ground.def_readwrite("type", &Ground::type, "Ground.Type: kNone, kImpulse or kCompliant")
      .def_readwrite("height_m", &Ground::height_m, "height of the plane [m]")
      .def_readwrite("friction", &Ground::friction, "Coulomb coefficient mu >= 0 (dimensionless)")
      .def_readwrite("restitution", &Ground::restitution, "impulse: Newton restitution e in [0, 1] (dimensionless)")
      .def_readwrite("max_penetration_m", &Ground::max_penetration_m, "impulse: impacts are located so that no end sinks deeper [m]")
      .def_readwrite("baumgarte", &Ground::baumgarte, "impulse: resting-contact depth correction per step, in (0, 1] (dimensionless)")
      .def_readwrite("stiffness_Npm", &Ground::stiffness_Npm, "compliant: normal stiffness per rod end [N/m]")
      .def_readwrite("damping_Nspm", &Ground::damping_Nspm, "compliant: normal damping per rod end [N s/m]")
      .def_readwrite("slip_velocity_mps", &Ground::slip_velocity_mps, "compliant: friction regularisation velocity [m/s]");
  def_kw_init(ground);

  py::class_<Model>(m, "Model", "A tensegrity model (rods, nodes, cables, drives, ground); algorithms never change it.")
      .def(py::init<>())
      .def_readwrite("name", &Model::name, "model name")
      .def_property("rods", copy_of(&Model::rods), assign_to(&Model::rods), "list of Rod (a copy: assign a new list to change)")
      .def_property("nodes", copy_of(&Model::nodes), assign_to(&Model::nodes), "list of Node (a copy: assign a new list to change)")
      .def_property("cables", copy_of(&Model::cables), assign_to(&Model::cables), "list of Cable (a copy: assign a new list to change)")
      .def_readwrite("rod_ids", &Model::rod_ids, "rod names")
      .def_readwrite("node_ids", &Model::node_ids, "node names")
      .def_readwrite("cable_ids", &Model::cable_ids, "cable names")
      .def_readwrite("gravity_W", &Model::gravity_W, "(3) gravity in the world frame [m/s^2]")
      .def_readwrite("damping_law", &Model::damping_law, "DampingLaw of all cables")
      .def_property("drives", copy_of(&Model::drives), assign_to(&Model::drives), "list of CableDrive (a copy: assign a new list to change)")
      .def_readwrite("ground", &Model::ground, "the Ground")
      .def_property("f_W_ext_node",
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
      .def_property("initial_state", [](Model& mo) -> State& { return mo.initial_state; },
                    [](Model& mo, const State& s) {
                      if (s.x.size() != State::kStride * mo.nrod())
                        throw py::value_error("Model.initial_state: expected x of shape (" + std::to_string(State::kStride * mo.nrod()) +
                                              ",) (13 per rod, " + std::to_string(mo.nrod()) + " rods), got (" +
                                              std::to_string(s.x.size()) + ",)");
                      mo.initial_state = s;
                    },
                    py::return_value_policy::reference_internal, "State a run starts from (time_s [s], x: 13 nrod)")
      .def_property_readonly("nrod", &Model::nrod, "number of rods")
      .def_property_readonly("nnode", &Model::nnode, "number of nodes (rod ends and anchors)")
      .def_property_readonly("ncable", &Model::ncable, "number of cables and springs")
      .def_property_readonly("ndrive", [](const Model& mo) { return static_cast<int>(mo.drives.size()); }, "number of driven cables")
      .def("total_mass", &Model::total_mass, "Total mass of the rods [kg].")
      .def("p_BN", &Model::p_BN, py::arg("node"), "Node position in its rod's body frame [m].")
      .def("__repr__", [](const Model& mo) {
        return "Model(name=" + py::repr(py::str(mo.name)).cast<std::string>() + ", nrod=" + std::to_string(mo.nrod()) +
               ", nnode=" + std::to_string(mo.nnode()) + ", ncable=" + std::to_string(mo.ncable()) +
               ", ndrive=" + std::to_string(mo.drives.size()) + ")";
      });
  m.def("validate", py::overload_cast<const Model&>(&validate), py::arg("model"),
        "Check every model invariant; raises tendyn.Error naming the element.");
  m.def("state_from_node_positions", &state_from_node_positions, py::arg("model"), py::arg("p_W_nodes"),
        py::arg("length_tol") = 1e-6, "State at rest from (nnode x 3) node positions [m]; rod lengths must match (relative length_tol).");

  // ---- builders ------------------------------------------------------------------------------
  py::class_<PrismParams> prism(m, "PrismParams", "Parameters of the n-prism builder (document 000); per-class values < 0 mean 'use the common value'.");
  prism.def_readwrite("n", &PrismParams::n, "number of rods (>= 3)")
      .def_readwrite("rod_mass_kg", &PrismParams::rod_mass_kg, "rod mass [kg]")
      .def_readwrite("rod_length_m", &PrismParams::rod_length_m, "rod length [m]")
      .def_readwrite("rod_radius_outer_m", &PrismParams::rod_radius_outer_m, "outer rod radius [m] (0: thin rod)")
      .def_readwrite("rod_radius_inner_m", &PrismParams::rod_radius_inner_m, "inner rod radius [m]")
      .def_readwrite("stiffness_Npm", &PrismParams::stiffness_Npm, "stiffness of all cables [N/m]")
      .def_readwrite("stiffness_top_Npm", &PrismParams::stiffness_top_Npm, "top-ring stiffness [N/m] (< 0: stiffness_Npm)")
      .def_readwrite("stiffness_bottom_Npm", &PrismParams::stiffness_bottom_Npm, "bottom-ring stiffness [N/m] (< 0: stiffness_Npm)")
      .def_readwrite("stiffness_side_Npm", &PrismParams::stiffness_side_Npm, "side-cable stiffness [N/m] (< 0: stiffness_Npm)")
      .def_readwrite("damping_Nspm", &PrismParams::damping_Nspm, "damping of all cables [N s/m]")
      .def_readwrite("rest_length_m", &PrismParams::rest_length_m, "rest length of all cables [m]")
      .def_readwrite("rest_top_m", &PrismParams::rest_top_m, "top-ring rest length [m] (< 0: rest_length_m)")
      .def_readwrite("rest_bottom_m", &PrismParams::rest_bottom_m, "bottom-ring rest length [m] (< 0: rest_length_m)")
      .def_readwrite("rest_side_m", &PrismParams::rest_side_m, "side-cable rest length [m] (< 0: rest_length_m)")
      .def_readwrite("psi_rad", &PrismParams::psi_rad, "initial tilt psi [rad] (default 50 deg)")
      .def_readwrite("radius_m", &PrismParams::radius_m, "radius of the circle the rods' pivot points lie on [m]")
      .def_readwrite("pivot", &PrismParams::pivot, "fraction of the rod from its bottom end that lies on the circle (dimensionless)")
      .def_readwrite("height_m", &PrismParams::height_m, "height of the pivot circle [m]")
      .def_readwrite("damping_law", &PrismParams::damping_law, "DampingLaw of the cables");
  def_kw_init(prism);
  m.def("make_prism", &make_prism, py::arg("params") = PrismParams(), "Build an n-prism (document 000).");
  m.def("prism_equilibrium_nodes", &prism_equilibrium_nodes, py::arg("n"), py::arg("rod_length_m"),
        py::arg("ring_radius_m"), "(2n x 3) node positions of the prism's equilibrium [m].");

  py::class_<OctahedronParams> octa(m, "OctahedronParams", "Parameters of the 6-bar expanded octahedron builder (SUPERball topology).");
  octa.def_readwrite("rod_mass_kg", &OctahedronParams::rod_mass_kg, "rod mass [kg]")
      .def_readwrite("rod_length_m", &OctahedronParams::rod_length_m, "rod length L [m]")
      .def_readwrite("rod_radius_outer_m", &OctahedronParams::rod_radius_outer_m, "outer rod radius [m] (0: thin rod)")
      .def_readwrite("rod_radius_inner_m", &OctahedronParams::rod_radius_inner_m, "inner rod radius [m]")
      .def_readwrite("stiffness_Npm", &OctahedronParams::stiffness_Npm, "cable stiffness [N/m]")
      .def_readwrite("damping_Nspm", &OctahedronParams::damping_Nspm, "cable damping [N s/m]")
      .def_readwrite("rest_length_m", &OctahedronParams::rest_length_m, "cable rest length [m]")
      .def_readwrite("spacing_scale", &OctahedronParams::spacing_scale, "initial pair spacing / (L/2) (dimensionless)")
      .def_readwrite("perturbation_m", &OctahedronParams::perturbation_m, "size of the deterministic initial perturbation [m]")
      .def_readwrite("damping_law", &OctahedronParams::damping_law, "DampingLaw of the cables");
  def_kw_init(octa);
  m.def("make_expanded_octahedron", &make_expanded_octahedron, py::arg("params") = OctahedronParams(),
        "Build the 6-bar expanded octahedron.");

  // ---- integrators, options, model files -----------------------------------------------------
  py::enum_<Integrator>(m, "Integrator", "Time integrator (functions also take the names 'rk4', 'dopri5', 'lie-verlet').")
      .value("kRK4", Integrator::kRK4)
      .value("kDormandPrince45", Integrator::kDormandPrince45)
      .value("kLieVerlet", Integrator::kLieVerlet);
  m.def("integrator_from_string", &integrator_from_string, py::arg("name"), "'rk4', 'dopri5' or 'lie-verlet' -> Integrator.");

  py::class_<Tolerance> tol(m, "Tolerance", "Dormand-Prince error control: per component atol + rtol |x|.");
  tol.def_readwrite("rtol", &Tolerance::rtol, "relative tolerance (dimensionless)")
      .def_readwrite("atol", &Tolerance::atol, "absolute tolerance (units of the state entries: m, 1, m/s, rad/s)")
      .def_readwrite("h_min_s", &Tolerance::h_min_s, "smallest step before the run fails [s]")
      .def_readwrite("h_max_s", &Tolerance::h_max_s, "largest step [s]");
  def_kw_init(tol);

  py::class_<SimulationOptions> so(m, "SimulationOptions", "Options of simulate(): duration, integrator, step, output interval, monitor limits.");
  so.def_readwrite("duration_s", &SimulationOptions::duration_s, "simulated time [s]")
      .def_property("integrator", [](const SimulationOptions& o) { return o.integrator; },
                    [](SimulationOptions& o, py::handle v) { o.integrator = tendyn::python::integrator_arg(v); },
                    "Integrator, or its name 'rk4', 'dopri5', 'lie-verlet'")
      .def_readwrite("dt_s", &SimulationOptions::dt_s, "fixed step (rk4, lie-verlet) or first trial step (dopri5) [s]")
      .def_readwrite("tolerance", &SimulationOptions::tolerance, "Tolerance of dopri5")
      .def_readwrite("output_interval_s", &SimulationOptions::output_interval_s, "interval of the recorded samples [s] (<= 0: every step)")
      .def_readwrite("strain_limit", &SimulationOptions::strain_limit, "over-strain threshold on (l - l0)/l0 (dimensionless; 1.0 = 100 %)")
      .def_readwrite("slack_tolerance", &SimulationOptions::slack_tolerance, "a cable is slack when its strain < -slack_tolerance (dimensionless)")
      .def_readwrite("energy_growth_limit", &SimulationOptions::energy_growth_limit,
                     "blow-up guard: stop when the energy grows by more than this times the initial energy scale (dimensionless)")
      .def_readwrite("stop_on_abnormal", &SimulationOptions::stop_on_abnormal, "stop at the first slack or over-strain event")
      .def_readwrite("locate_slack_events", &SimulationOptions::locate_slack_events,
                     "fixed steps: split a step where a cable goes slack or taut")
      .def_readwrite("control_period_s", &SimulationOptions::control_period_s,
                     "period of simulate()'s controller [s]: 0 = at every evaluation; > 0 = sampled, inputs held between calls");
  def_kw_init(so);

  py::class_<ModelFile>(m, "ModelFile", "A model and the simulation options of its file.")
      .def_readwrite("model", &ModelFile::model, "the Model")
      .def_readwrite("simulation", &ModelFile::simulation, "SimulationOptions of the file's simulation section (defaults elsewhere)")
      .def("__repr__", [](const ModelFile& f) {
        return "ModelFile(model=" + py::repr(py::cast(f.model)).cast<std::string>() + ", simulation=" +
               py::repr(py::cast(f.simulation)).cast<std::string>() + ")";
      });
  m.def("load_model_file", &load_model_file, py::arg("path"),
        "Read a YAML model file; raises tendyn.Error with file:line:col and field on bad input.");
  m.def("load_model_string", &load_model_string, py::arg("text"), py::arg("name") = "<string>", "Read a YAML model from a string.");
  m.def("default_model", &default_model, "Document 000's built-in 3-prism with its simulation options.");
  m.def("to_yaml", [](const Model& mo, const std::optional<SimulationOptions>& so) {
          return to_yaml(mo, so ? &*so : nullptr);
        }, py::arg("model"), py::arg("simulation") = py::none(), "The model (and options) as a YAML model file.");

  // ---- dynamics ------------------------------------------------------------------------------
  py::class_<Energy> energy(m, "Energy", "Energies [J].");
  energy.def_readwrite("kinetic_J", &Energy::kinetic_J, "kinetic energy [J]")
      .def_readwrite("elastic_J", &Energy::elastic_J, "elastic energy of loaded elements (+ compliant ground) [J]")
      .def_readwrite("gravitational_J", &Energy::gravitational_J, "-m g . p_C summed over rods [J]")
      .def_readwrite("external_J", &Energy::external_J, "-f_ext . p_node summed over nodes [J]")
      .def("total", &Energy::total, "Sum of the four [J].");
  def_kw_init(energy);

  py::class_<Data>(m, "Data",
                   "Mutable quantities of one model (make_data(model) or Data(model)). Arrays are views into the C++ data, in\n"
                   "the C++ layout (3 x n matrices). Writable: cable_rest_length_m and f_W_ext_node (the inputs a controller\n"
                   "sets); assigning an array of another shape raises ValueError.")
      .def(py::init(&make_data), py::arg("model"), "Data sized for the model (rest lengths and external forces from it).")
      .def_readonly("p_W_node", &Data::p_W_node, "(3 x nnode) node positions [m]")
      .def_readonly("v_W_node", &Data::v_W_node, "(3 x nnode) node velocities [m/s]")
      .def_readonly("e_W_rod", &Data::e_W_rod, "(3 x nrod) unit rod axes, end 0 -> end 1 (dimensionless)")
      .def_readonly("f_W_node", &Data::f_W_node, "(3 x nnode) element + external (+ compliant ground) forces on nodes [N]")
      .def_readonly("f_W_rod", &Data::f_W_rod, "(3 x nrod) total force on each rod, gravity included [N]")
      .def_readonly("tau_W_rod", &Data::tau_W_rod, "(3 x nrod) torque about each rod's COM [N m]")
      .def_property("cable_rest_length_m", [](py::object self) { return vector_view(self.cast<Data&>().cable_rest_length_m, self); },
                    [](Data& d, const py::array_t<double, py::array::forcecast>& v) {
                      assign_vector(d.cable_rest_length_m, v, "Data.cable_rest_length_m", d.cable_rest_length_m.size(), "one per cable");
                    },
                    "(ncable) current rest lengths [m]; writable (drives overwrite their cables at every evaluation)")
      .def_property("f_W_ext_node", [](py::object self) { return rows3_view(self.cast<Data&>().f_W_ext_node, self); },
                    [](Data& d, const py::array_t<double, py::array::forcecast>& f) {
                      assign_rows3(d.f_W_ext_node, f, "Data.f_W_ext_node", "one row per node");
                    },
                    "(nnode x 3) external forces on the nodes [N]; writable")
      .def_readonly("cable_length_m", &Data::cable_length_m, "(ncable) lengths [m]")
      .def_readonly("cable_rate_mps", &Data::cable_rate_mps, "(ncable) dl/dt [m/s]")
      .def_readonly("cable_tension_N", &Data::cable_tension_N, "(ncable) axial forces [N], > 0 pulls, 0 when slack")
      .def_property_readonly("cable_slack", [](const Data& d) { return std::vector<bool>(d.cable_slack.begin(), d.cable_slack.end()); },
                             "(ncable) True where a tension-only cable is slack (l <= l0)")
      .def_readonly("xdot", &Data::xdot, "(13 nrod) state derivative of the last compute_derivative() (units of x per s)")
      .def("__repr__", [](const Data& d) {
        return "Data(nrod=" + std::to_string(d.e_W_rod.cols()) + ", nnode=" + std::to_string(d.p_W_node.cols()) +
               ", ncable=" + std::to_string(d.cable_length_m.size()) + ")";
      });
  m.def("make_data", &make_data, py::arg("model"), "Data sized for the model.");
  m.def("forward_kinematics", &forward_kinematics, py::arg("model"), py::arg("state"), py::arg("data"),
        "Stage 1: rod axes, node positions and velocities into data.");
  m.def("compute_element_forces", &compute_element_forces, py::arg("model"), py::arg("state"), py::arg("data"),
        "Stage 2: cable lengths, rates, tensions and node forces into data (after forward_kinematics).");
  m.def("compute_derivative", [](const Model& mo, const State& s, Data& d) {
          compute_derivative(mo, s, d);
          return Eigen::VectorXd(d.xdot);
        }, py::arg("model"), py::arg("state"), py::arg("data"),
        "Full pipeline (kinematics, forces, accelerations); fills data and returns xdot (13 nrod).");
  m.def("compute_energy", &compute_energy, py::arg("model"), py::arg("state"), py::arg("data"),
        "Energies of the state (data from compute_derivative at that state).");
  m.def("center_of_mass", &center_of_mass, py::arg("model"), py::arg("state"), "COM of the rods [m].");
  m.def("linear_momentum", &linear_momentum, py::arg("model"), py::arg("state"), "Total linear momentum [kg m/s].");
  m.def("angular_momentum", &angular_momentum, py::arg("model"), py::arg("state"), "About the world origin [kg m^2/s].");
  m.def("energies", [](const Model& mo, const Eigen::VectorXd& x, double t) {
          const State s = make_state(mo, x, t);
          Data d = make_data(mo);
          compute_derivative(mo, s, d);
          return compute_energy(mo, s, d);
        }, py::arg("model"), py::arg("x"), py::arg("time_s") = 0.0,
        "Convenience: Energy of the state vector x (13 nrod) at time_s [s].");

  // ---- simulation (tensegrity_sim.cpp) -------------------------------------------------------
  tendyn::python::bind_tensegrity_sim(m);

  // ---- Lagrange formulation ------------------------------------------------------------------
  py::enum_<QuaternionStabilisation>(m, "QuaternionStabilisation", "Stabilisation of |s| = 1 in the Lagrange DAE.")
      .value("kProjection", QuaternionStabilisation::kProjection)
      .value("kBaumgarte", QuaternionStabilisation::kBaumgarte)
      .value("kNone", QuaternionStabilisation::kNone);
  py::class_<LagrangeOptions> lo(m, "LagrangeOptions", "Options of the Lagrange formulation.");
  lo.def_readwrite("stabilisation", &LagrangeOptions::stabilisation, "QuaternionStabilisation")
      .def_readwrite("baumgarte_alpha_per_s", &LagrangeOptions::baumgarte_alpha_per_s, "Baumgarte alpha [1/s]")
      .def_readwrite("baumgarte_beta_per_s", &LagrangeOptions::baumgarte_beta_per_s, "Baumgarte beta [1/s]")
      .def_readwrite("thin_rod_axial_inertia_factor", &LagrangeOptions::thin_rod_axial_inertia_factor,
                     "thin rods: axial inertia used by the solver = factor * I_t (dimensionless, > 0; motion unchanged)");
  def_kw_init(lo);
  py::class_<LagrangeState>(m, "LagrangeState", "Lagrange state y = [q; q'] (14 nrod), q per rod = (p_WC [m], s (document's quaternion)).")
      .def(py::init<>())
      .def_readwrite("time_s", &LagrangeState::time_s, "time [s]")
      .def_property("y", [](const LagrangeState& s) { return s.y; },
                    [](LagrangeState& s, const py::array_t<double, py::array::forcecast>& y) {
                      const auto n = y.ndim() == 1 ? static_cast<Eigen::Index>(y.shape(0)) : -1;
                      const Eigen::Index expected = s.y.size() > 0 ? s.y.size() : (n >= 0 && n % 14 == 0 ? n : -1);
                      if (expected < 0)
                        throw py::value_error("LagrangeState.y: expected a 1-D array of 14 * nrod entries, got shape " +
                                              tendyn::python::shape_str(y));
                      assign_vector(s.y, y, "LagrangeState.y", expected, "14 per rod");
                    },
                    "(14 nrod) [q; q']: q per rod = p_WC [m], s (4); q' in m/s and 1/s (a copy; assign to change)")
      .def_property_readonly("q", [](const LagrangeState& s) { return Eigen::VectorXd(s.y.head(s.y.size() / 2)); }, "(7 nrod) coordinates")
      .def_property_readonly("qdot", [](const LagrangeState& s) { return Eigen::VectorXd(s.y.tail(s.y.size() / 2)); }, "(7 nrod) rates")
      .def("__repr__", [](const LagrangeState& s) {
        return "LagrangeState(time_s=" + py::repr(py::float_(s.time_s)).cast<std::string>() + ", nrod=" + std::to_string(s.y.size() / 14) + ")";
      });
  m.def("to_lagrange_state", py::overload_cast<const Model&, const State&>(&to_lagrange_state), py::arg("model"),
        py::arg("state"), "Newton-Euler state -> Lagrange state.");
  m.def("to_newton_euler_state", py::overload_cast<const Model&, const LagrangeState&>(&to_newton_euler_state),
        py::arg("model"), py::arg("state"), "Lagrange state -> Newton-Euler state.");
  m.def("mass_matrix", [](const Model& mo, const Eigen::VectorXd& q) {
          Eigen::MatrixXd M;
          mass_matrix(mo, q, M);
          return M;
        }, py::arg("model"), py::arg("q"), "M(q) (7 nrod x 7 nrod), document 001 (2-40).");
  m.def("velocity_term", [](const Model& mo, const LagrangeState& s) {
          Eigen::VectorXd b;
          velocity_term(mo, s, b);
          return b;
        }, py::arg("model"), py::arg("state"), "Velocity term (7 nrod) of the Lagrange equations.");
  m.def("gravity_term", [](const Model& mo) {
          Eigen::VectorXd f;
          gravity_term(mo, f);
          return f;
        }, py::arg("model"), "Generalised gravity forces (7 nrod).");
  m.def("kinetic_energy", &kinetic_energy, py::arg("model"), py::arg("state"), "1/2 q'^T M q' [J].");
  m.def("node_jacobian", [](const Model& mo, const Eigen::VectorXd& q) {
          Eigen::MatrixXd H;
          node_jacobian(mo, q, H);
          return H;
        }, py::arg("model"), py::arg("q"), "H(q): node velocities = H q'.");
  m.def("incidence_matrix", &incidence_matrix, py::arg("model"), "Cable-node incidence D.");
  m.def("constraint_jacobian", [](const Model& mo, const Eigen::VectorXd& q) {
          Eigen::MatrixXd P;
          constraint_jacobian(mo, q, P);
          return P;
        }, py::arg("model"), py::arg("q"), "Jacobian of |s_i|^2 - 1 (nrod x 7 nrod).");
  m.def("lagrange_derivative", [](const Model& mo, const LagrangeState& s, const LagrangeOptions& o) {
          LagrangeData d = make_lagrange_data(mo, o);
          lagrange_derivative(mo, s, d);
          return Eigen::VectorXd(d.ydot);
        }, py::arg("model"), py::arg("state"), py::arg("options") = LagrangeOptions(), "y' (14 nrod) of the DAE (2-54).");
  m.def("linearize", [](const Model& mo, const LagrangeState& s, const std::vector<int>& cables, const LagrangeOptions& o) {
          LagrangeData d = make_lagrange_data(mo, o);
          Eigen::MatrixXd A, B;
          linearize(mo, s, d, A, B, cables);
          return py::make_tuple(A, B);
        }, py::arg("model"), py::arg("state"), py::arg("cables") = std::vector<int>{},
        py::arg("options") = LagrangeOptions(),
        "Exact linearisation of y' = F(y, l0) about the state: A = dF/dy (14n x 14n), B = dF/dl0 over `cables`\n"
        "(default: the driven cables) [per m]. Returns (A, B).");

  // ---- psi study -----------------------------------------------------------------------------
  py::class_<PsiStudyOptions> pso(m, "PsiStudyOptions", "Document 000's psi study: prism (n = 3), angles, simulation, threads.");
  pso.def_readwrite("prism", &PsiStudyOptions::prism, "PrismParams: everything but psi (n must be 3)")
      .def_readwrite("psi_deg", &PsiStudyOptions::psi_deg, "tilt angles to run [deg]")
      .def_readwrite("simulation", &PsiStudyOptions::simulation, "SimulationOptions of every run")
      .def_readwrite("threads", &PsiStudyOptions::threads, "worker threads (0 = all cores); results do not depend on it");
  def_kw_init(pso);
  py::class_<PsiStudyRow>(m, "PsiStudyRow", "One tilt angle of the psi study; per-triple arrays are (top, bottom, side).")
      .def_readonly("psi_deg", &PsiStudyRow::psi_deg, "tilt [deg]")
      .def_readonly("normal", &PsiStudyRow::normal, "True when no cable went slack and no strain exceeded the limit")
      .def_readonly("first_slack_time_s", &PsiStudyRow::first_slack_time_s, "first slack time [s] (-1: never)")
      .def_readonly("first_slack_cable", &PsiStudyRow::first_slack_cable, "id of the first slack cable ('' if none)")
      .def_readonly("first_overstrain_time_s", &PsiStudyRow::first_overstrain_time_s, "first over-strain time [s] (-1: never)")
      .def_readonly("first_overstrain_cable", &PsiStudyRow::first_overstrain_cable, "id of the first over-strained cable ('' if none)")
      .def_property_readonly("max_strain", [](const PsiStudyRow& r) { return arr3(r.max_strain); }, "(3) per triple, over the run (dimensionless)")
      .def_property_readonly("min_strain", [](const PsiStudyRow& r) { return arr3(r.min_strain); }, "(3) per triple, over the run (dimensionless)")
      .def_property_readonly("final_strain", [](const PsiStudyRow& r) { return arr3(r.final_strain); }, "(3) per triple at the end (dimensionless)")
      .def_readonly("triple_spread", &PsiStudyRow::triple_spread, "max over time and triples of the strain spread within a triple (dimensionless)")
      .def_property_readonly("shape", [](const PsiStudyRow& r) { return std::array<std::string, 3>{r.shape[0], r.shape[1], r.shape[2]}; },
                             "(3) transient shape per triple: 'rises', 'falls', 'rises-then-falls', 'falls-then-rises'")
      .def_readonly("kinetic_final_J", &PsiStudyRow::kinetic_final_J, "kinetic energy at the end [J]")
      .def("__repr__", [](const PsiStudyRow& r) {
        return "PsiStudyRow(psi_deg=" + py::repr(py::float_(r.psi_deg)).cast<std::string>() + ", normal=" + (r.normal ? "True" : "False") + ")";
      });
  py::class_<PsiStudyResult>(m, "PsiStudyResult", "Rows and the longest run of normal-mode angles.")
      .def_readonly("rows", &PsiStudyResult::rows, "list of PsiStudyRow")
      .def_readonly("has_range", &PsiStudyResult::has_range, "True when at least one angle is normal")
      .def_readonly("range_min_deg", &PsiStudyResult::range_min_deg, "start of the longest run of normal angles [deg]")
      .def_readonly("range_max_deg", &PsiStudyResult::range_max_deg, "end of the longest run of normal angles [deg]")
      .def("__repr__", [](const PsiStudyResult& r) {
        std::string s = "PsiStudyResult(rows=" + std::to_string(r.rows.size());
        if (r.has_range)
          s += ", range_deg=[" + py::repr(py::float_(r.range_min_deg)).cast<std::string>() + ", " +
               py::repr(py::float_(r.range_max_deg)).cast<std::string>() + "]";
        return s + ")";
      });
  m.def("run_psi_study", [](const PsiStudyOptions& o) {
          py::gil_scoped_release release;
          return run_psi_study(o);
        }, py::arg("options"), "Run the psi study (parallel, GIL released; results independent of threads).");

  // ---- planner -------------------------------------------------------------------------------
  py::class_<PlanPath> path(m, "PlanPath", "Polyline on the floor [m] the planner follows.");
  path.def_property("points", copy_of(&PlanPath::points), assign_to(&PlanPath::points), "list of (2) points (x, y) [m], >= 2 (a copy: assign a new list to change)")
      .def_static("straight_x", &PlanPath::straight_x, "Document 001 (3-3): along +x.")
      .def_static("right_angle", &PlanPath::right_angle, py::arg("x_turn_m") = 0.01, "Document 001 (3-4)/(3-5): +x, then +y at x_turn_m [m].");
  def_kw_init(path);
  py::enum_<Planner>(m, "Planner", "Planner algorithm.")
      .value("kExhaustive", Planner::kExhaustive)
      .value("kCoordinateSearch", Planner::kCoordinateSearch)
      .value("kLookahead", Planner::kLookahead);
  py::class_<PlannerOptions> po(m, "PlannerOptions", "Options of plan(): drive cables, increment u0, period, duration, path.");
  po.def_readwrite("drive_cables", &PlannerOptions::drive_cables, "cable indices the planner drives")
      .def_readwrite("u0_m", &PlannerOptions::u0_m, "rest-length increment per period [m]")
      .def_readwrite("period_s", &PlannerOptions::period_s, "control period dt [s]")
      .def_readwrite("duration_s", &PlannerOptions::duration_s, "planned time [s]")
      .def_readwrite("path", &PlannerOptions::path, "PlanPath to follow")
      .def_readwrite("planner", &PlannerOptions::planner, "Planner algorithm")
      .def_readwrite("max_rounds", &PlannerOptions::max_rounds, "coordinate search: rounds per period")
      .def_readwrite("beam_width", &PlannerOptions::beam_width, "lookahead: candidates expanded into a second period")
      .def_readwrite("lateral_weight", &PlannerOptions::lateral_weight, "lookahead: w in the path metric w d - s (dimensionless)")
      .def_readwrite("lateral_tolerance_m", &PlannerOptions::lateral_tolerance_m, "lookahead: distance from the path beyond which it is penalised [m]")
      .def_readwrite("ramp_fraction", &PlannerOptions::ramp_fraction, "the increment ramps over this fraction of the period, then holds (dimensionless)")
      .def_readwrite("threshold_start", &PlannerOptions::threshold_start, "exhaustive: initial cost threshold n_0 [m]")
      .def_readwrite("rollout", &PlannerOptions::rollout, "SimulationOptions of every rollout (its duration is set per period)")
      .def_readwrite("threads", &PlannerOptions::threads, "worker threads (0 = all cores); results do not depend on it");
  def_kw_init(po);
  py::class_<PlanResult>(m, "PlanResult", "Plan: knot times, drive offsets, centroids, costs and statistics.")
      .def_readonly("period_start_s", &PlanResult::period_start_s, "(nperiod + 1) knot times [s]")
      .def_readonly("offset_m", &PlanResult::offset_m, "(nperiod + 1) drive offsets u at the knots [m]")
      .def_readonly("centroid_m", &PlanResult::centroid_m, "(nperiod + 1) centroid (Cx, Cy) at the knots [m]")
      .def_readonly("cost", &PlanResult::cost, "(nperiod) cost of the executed candidate [m]")
      .def_readonly("tension_N", &PlanResult::tension_N, "(nperiod + 1) drive-cable tensions at the knots [N]")
      .def_readonly("threshold_misses", &PlanResult::threshold_misses, "exhaustive: periods without an admissible candidate")
      .def_readonly("forced_periods", &PlanResult::forced_periods, "periods in which every candidate let a taut cable go slack")
      .def_readonly("rollouts", &PlanResult::rollouts, "simulated candidates")
      .def_readonly("rejected", &PlanResult::rejected, "candidates rejected by the rest-length limits")
      .def_readonly("wall_time_s", &PlanResult::wall_time_s, "wall-clock time [s]")
      .def_readonly("max_path_error_m", &PlanResult::max_path_error_m, "max distance of the knots from the path [m]")
      .def_readonly("progress_m", &PlanResult::progress_m, "arc length along the path at the end [m]")
      .def_readonly("speed_mps", &PlanResult::speed_mps, "progress / duration [m/s]")
      .def_readonly("final_state", &PlanResult::final_state, "State at the end")
      .def("as_drives", &PlanResult::as_drives, py::arg("drive_cables"), "The executed schedule as table drives.")
      .def("__repr__", [](const PlanResult& r) {
        return "PlanResult(periods=" + std::to_string(r.cost.size()) + ", progress_m=" +
               py::repr(py::float_(r.progress_m)).cast<std::string>() + ", max_path_error_m=" +
               py::repr(py::float_(r.max_path_error_m)).cast<std::string>() + ", rollouts=" + std::to_string(r.rollouts) + ")";
      });
  m.def("plan", [](const Model& mo, const PlannerOptions& o) {
          py::gil_scoped_release release;
          return plan(mo, o);
        }, py::arg("model"), py::arg("options"), "Document 001's planner (parallel, GIL released).");
}
