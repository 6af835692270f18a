// Bindings of tendyn::tensegrity (include/tendyn/tensegrity/*.hpp). Names as in C++; results of
// runs are returned as NumPy arrays. Long calls (simulate, studies, plan) release the GIL.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/lagrange.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/output.hpp>
#include <tendyn/tensegrity/planner.hpp>
#include <tendyn/tensegrity/psi_study.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace tendyn::tensegrity;

namespace {

// Rows of equal-length vectors -> (nrow x ncol) array.
py::array_t<double> stack(const std::vector<Eigen::VectorXd>& rows, Eigen::Index ncol) {
  py::array_t<double> out({static_cast<py::ssize_t>(rows.size()), static_cast<py::ssize_t>(ncol)});
  auto a = out.mutable_unchecked<2>();
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (Eigen::Index j = 0; j < ncol; ++j) a(static_cast<py::ssize_t>(i), j) = rows[i][j];
  return out;
}

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

}  // namespace

void bind_tensegrity(py::module_& m) {
  // ---- model ---------------------------------------------------------------------------------
  py::enum_<DampingLaw>(m, "DampingLaw", "Cable damping law: axial (gamma * dl/dt) or document 000's relative-velocity law.")
      .value("kAxial", DampingLaw::kAxial)
      .value("kRelativeVelocity", DampingLaw::kRelativeVelocity);

  py::class_<Rod>(m, "Rod", "A rigid rod: mass [kg], length [m], COM ratio, inertias [kg m^2], end node indices.")
      .def(py::init<>())
      .def_readwrite("mass_kg", &Rod::mass_kg)
      .def_readwrite("length_m", &Rod::length_m)
      .def_readwrite("com_ratio", &Rod::com_ratio)
      .def_readwrite("inertia_transverse_kgm2", &Rod::inertia_transverse_kgm2)
      .def_readwrite("inertia_axial_kgm2", &Rod::inertia_axial_kgm2)
      .def_property_readonly("node", [](const Rod& r) { return std::array<int, 2>{r.node[0], r.node[1]}; },
                             "(2) node indices of end 0 and end 1");
  m.def("make_thin_rod", &make_thin_rod, py::arg("mass_kg"), py::arg("length_m"), "A thin rod (zero axial inertia).");
  m.def("make_hollow_rod", &make_hollow_rod, py::arg("mass_kg"), py::arg("length_m"), py::arg("radius_outer_m"),
        py::arg("radius_inner_m"), "A hollow cylindrical rod.");

  py::class_<Node>(m, "Node", "A rod end (rod >= 0, end 0/1) or a world anchor (rod = -1, p_W_anchor [m]).")
      .def(py::init<>())
      .def_readwrite("rod", &Node::rod)
      .def_readwrite("end", &Node::end)
      .def_readwrite("p_W_anchor", &Node::p_W_anchor)
      .def("is_anchor", &Node::is_anchor);

  py::class_<Cable>(m, "Cable", "A cable (tension-only) or spring: stiffness [N/m], damping [N s/m], rest length [m], limits.")
      .def(py::init<>())
      .def_property_readonly("node", [](const Cable& c) { return std::array<int, 2>{c.node[0], c.node[1]}; },
                             "(2) node indices")
      .def_readwrite("stiffness_Npm", &Cable::stiffness_Npm)
      .def_readwrite("damping_Nspm", &Cable::damping_Nspm)
      .def_readwrite("rest_length_m", &Cable::rest_length_m)
      .def_readwrite("tension_only", &Cable::tension_only)
      .def_readwrite("rest_length_min_m", &Cable::rest_length_min_m)
      .def_readwrite("rest_length_max_m", &Cable::rest_length_max_m)
      .def_readwrite("rest_rate_max_mps", &Cable::rest_rate_max_mps);

  py::class_<SinusoidDrive>(m, "SinusoidDrive", "Rest-length offset u(t) = a sin(b t + c) + d [m].")
      .def(py::init<>())
      .def(py::init([](double a, double b, double c, double d) { return SinusoidDrive{a, b, c, d}; }),
           py::arg("a_m"), py::arg("b_radps"), py::arg("c_rad"), py::arg("d_m"))
      .def_readwrite("a_m", &SinusoidDrive::a_m)
      .def_readwrite("b_radps", &SinusoidDrive::b_radps)
      .def_readwrite("c_rad", &SinusoidDrive::c_rad)
      .def_readwrite("d_m", &SinusoidDrive::d_m);
  py::class_<TableDrive>(m, "TableDrive", "Rest-length offset u(t) interpolated in a table t_s [s], u_m [m].")
      .def(py::init<>())
      .def_readwrite("t_s", &TableDrive::t_s)
      .def_readwrite("u_m", &TableDrive::u_m);
  py::class_<CableDrive>(m, "CableDrive", "Drive of one cable: rest length = rest_length + u(t); u a SinusoidDrive or TableDrive.")
      .def(py::init<>())
      .def_readwrite("cable", &CableDrive::cable)
      .def_readwrite("u", &CableDrive::u);
  m.def("drive_offset", &drive_offset, py::arg("drive"), py::arg("t_s"), "u(t) [m].");

  py::class_<State>(m, "State", "Newton-Euler state: time_s and x (13 nrod): per rod p_WC, q_WB (w,x,y,z), v_WC, w_W.")
      .def(py::init<>())
      .def(py::init([](const Eigen::VectorXd& x, double t) { State s; s.time_s = t; s.x = x; return s; }),
           py::arg("x"), py::arg("time_s") = 0.0)
      .def_readwrite("time_s", &State::time_s)
      .def_readwrite("x", &State::x);

  py::class_<Model>(m, "Model", "An immutable-by-convention tensegrity model (rods, nodes, cables, drives, ground).")
      .def(py::init<>())
      .def_readwrite("name", &Model::name)
      .def_readwrite("rods", &Model::rods)
      .def_readwrite("nodes", &Model::nodes)
      .def_readwrite("cables", &Model::cables)
      .def_readwrite("rod_ids", &Model::rod_ids)
      .def_readwrite("node_ids", &Model::node_ids)
      .def_readwrite("cable_ids", &Model::cable_ids)
      .def_readwrite("gravity_W", &Model::gravity_W)
      .def_readwrite("damping_law", &Model::damping_law)
      .def_readwrite("initial_state", &Model::initial_state)
      .def_readwrite("drives", &Model::drives, "actuated cables (a copy: assign a new list to change)")
      .def_property_readonly("nrod", &Model::nrod)
      .def_property_readonly("nnode", &Model::nnode)
      .def_property_readonly("ncable", &Model::ncable)
      .def_property_readonly("ndrive", [](const Model& mo) { return static_cast<int>(mo.drives.size()); },
                             "number of driven cables")
      .def("total_mass", &Model::total_mass, "Total mass [kg].")
      .def("p_BN", &Model::p_BN, py::arg("node"), "Node position in its rod's body frame [m].")
      .def("__repr__", [](const Model& mo) {
        return "<tendyn.tensegrity.Model '" + mo.name + "' nrod=" + std::to_string(mo.nrod()) +
               " ncable=" + std::to_string(mo.ncable()) + ">";
      });
  m.def("validate", py::overload_cast<const Model&>(&validate), py::arg("model"),
        "Check every model invariant; raises tendyn.Error naming the element.");
  m.def("state_from_node_positions", &state_from_node_positions, py::arg("model"), py::arg("p_W_nodes"),
        py::arg("length_tol") = 1e-6, "State at rest from (nnode x 3) node positions [m].");

  // ---- builders ------------------------------------------------------------------------------
  py::class_<PrismParams>(m, "PrismParams", "Parameters of the n-prism builder (document 000); per-class values < 0 mean 'use the common value'.")
      .def(py::init<>())
      .def_readwrite("n", &PrismParams::n)
      .def_readwrite("rod_mass_kg", &PrismParams::rod_mass_kg)
      .def_readwrite("rod_length_m", &PrismParams::rod_length_m)
      .def_readwrite("rod_radius_outer_m", &PrismParams::rod_radius_outer_m)
      .def_readwrite("rod_radius_inner_m", &PrismParams::rod_radius_inner_m)
      .def_readwrite("stiffness_Npm", &PrismParams::stiffness_Npm)
      .def_readwrite("stiffness_top_Npm", &PrismParams::stiffness_top_Npm)
      .def_readwrite("stiffness_bottom_Npm", &PrismParams::stiffness_bottom_Npm)
      .def_readwrite("stiffness_side_Npm", &PrismParams::stiffness_side_Npm)
      .def_readwrite("damping_Nspm", &PrismParams::damping_Nspm)
      .def_readwrite("rest_length_m", &PrismParams::rest_length_m)
      .def_readwrite("rest_top_m", &PrismParams::rest_top_m)
      .def_readwrite("rest_bottom_m", &PrismParams::rest_bottom_m)
      .def_readwrite("rest_side_m", &PrismParams::rest_side_m)
      .def_readwrite("psi_rad", &PrismParams::psi_rad)
      .def_readwrite("radius_m", &PrismParams::radius_m)
      .def_readwrite("pivot", &PrismParams::pivot)
      .def_readwrite("height_m", &PrismParams::height_m)
      .def_readwrite("damping_law", &PrismParams::damping_law);
  m.def("make_prism", &make_prism, py::arg("params") = PrismParams(), "Build an n-prism (document 000).");
  m.def("prism_equilibrium_nodes", &prism_equilibrium_nodes, py::arg("n"), py::arg("rod_length_m"),
        py::arg("ring_radius_m"), "(2n x 3) node positions of the prism's equilibrium [m].");

  py::class_<OctahedronParams>(m, "OctahedronParams", "Parameters of the 6-bar expanded octahedron builder.")
      .def(py::init<>())
      .def_readwrite("rod_mass_kg", &OctahedronParams::rod_mass_kg)
      .def_readwrite("rod_length_m", &OctahedronParams::rod_length_m)
      .def_readwrite("rod_radius_outer_m", &OctahedronParams::rod_radius_outer_m)
      .def_readwrite("rod_radius_inner_m", &OctahedronParams::rod_radius_inner_m)
      .def_readwrite("stiffness_Npm", &OctahedronParams::stiffness_Npm)
      .def_readwrite("damping_Nspm", &OctahedronParams::damping_Nspm)
      .def_readwrite("rest_length_m", &OctahedronParams::rest_length_m)
      .def_readwrite("spacing_scale", &OctahedronParams::spacing_scale)
      .def_readwrite("perturbation_m", &OctahedronParams::perturbation_m)
      .def_readwrite("damping_law", &OctahedronParams::damping_law);
  m.def("make_expanded_octahedron", &make_expanded_octahedron, py::arg("params") = OctahedronParams(),
        "Build the 6-bar expanded octahedron.");

  // ---- integrators, options, model files -----------------------------------------------------
  py::enum_<Integrator>(m, "Integrator", "Time integrator.")
      .value("kRK4", Integrator::kRK4)
      .value("kDormandPrince45", Integrator::kDormandPrince45)
      .value("kLieVerlet", Integrator::kLieVerlet);
  m.def("integrator_from_string", &integrator_from_string, py::arg("name"), "'rk4', 'dopri5' or 'lie-verlet' -> Integrator.");

  py::class_<Tolerance>(m, "Tolerance", "Dormand-Prince error control.")
      .def(py::init<>())
      .def_readwrite("rtol", &Tolerance::rtol)
      .def_readwrite("atol", &Tolerance::atol)
      .def_readwrite("h_min_s", &Tolerance::h_min_s)
      .def_readwrite("h_max_s", &Tolerance::h_max_s);

  py::class_<SimulationOptions>(m, "SimulationOptions", "Options of simulate(): duration, integrator, step, output interval, monitor limits.")
      .def(py::init<>())
      .def_readwrite("duration_s", &SimulationOptions::duration_s)
      .def_readwrite("integrator", &SimulationOptions::integrator)
      .def_readwrite("dt_s", &SimulationOptions::dt_s)
      .def_readwrite("tolerance", &SimulationOptions::tolerance)
      .def_readwrite("output_interval_s", &SimulationOptions::output_interval_s)
      .def_readwrite("strain_limit", &SimulationOptions::strain_limit)
      .def_readwrite("slack_tolerance", &SimulationOptions::slack_tolerance)
      .def_readwrite("energy_growth_limit", &SimulationOptions::energy_growth_limit)
      .def_readwrite("stop_on_abnormal", &SimulationOptions::stop_on_abnormal)
      .def_readwrite("locate_slack_events", &SimulationOptions::locate_slack_events);

  py::class_<ModelFile>(m, "ModelFile", "A model and the simulation options of its file.")
      .def_readwrite("model", &ModelFile::model)
      .def_readwrite("simulation", &ModelFile::simulation);
  m.def("load_model_file", &load_model_file, py::arg("path"),
        "Read a YAML model file; raises tendyn.Error with file:line:col and field on bad input.");
  m.def("load_model_string", &load_model_string, py::arg("text"), py::arg("name") = "<string>", "Read a YAML model from a string.");
  m.def("default_model", &default_model, "Document 000's built-in 3-prism with its simulation options.");
  m.def("to_yaml", [](const Model& mo, const std::optional<SimulationOptions>& so) {
          return to_yaml(mo, so ? &*so : nullptr);
        }, py::arg("model"), py::arg("simulation") = py::none(), "The model (and options) as a YAML model file.");

  // ---- dynamics ------------------------------------------------------------------------------
  py::class_<Energy>(m, "Energy", "Energies [J].")
      .def(py::init<>())
      .def_readwrite("kinetic_J", &Energy::kinetic_J)
      .def_readwrite("elastic_J", &Energy::elastic_J)
      .def_readwrite("gravitational_J", &Energy::gravitational_J)
      .def_readwrite("external_J", &Energy::external_J)
      .def("total", &Energy::total);

  py::class_<Data>(m, "Data", "Mutable quantities of one evaluation (make_data(model)); arrays are views.")
      .def_readonly("p_W_node", &Data::p_W_node, "(3 x nnode) node positions [m]")
      .def_readonly("v_W_node", &Data::v_W_node, "(3 x nnode) node velocities [m/s]")
      .def_readonly("e_W_rod", &Data::e_W_rod, "(3 x nrod) unit rod axes")
      .def_readonly("f_W_node", &Data::f_W_node, "(3 x nnode) forces on nodes [N]")
      .def_readonly("f_W_rod", &Data::f_W_rod, "(3 x nrod) rod forces [N], gravity included")
      .def_readonly("tau_W_rod", &Data::tau_W_rod, "(3 x nrod) torques about the COMs [N m]")
      .def_readwrite("cable_rest_length_m", &Data::cable_rest_length_m, "(ncable) current rest lengths [m]")
      .def_readonly("cable_length_m", &Data::cable_length_m, "(ncable) [m]")
      .def_readonly("cable_rate_mps", &Data::cable_rate_mps, "(ncable) dl/dt [m/s]")
      .def_readonly("cable_tension_N", &Data::cable_tension_N, "(ncable) tensions [N]")
      .def_readonly("xdot", &Data::xdot, "(13 nrod) state derivative of the last compute_derivative()");
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
  m.def("center_of_mass", &center_of_mass, py::arg("model"), py::arg("state"), "COM [m].");
  m.def("linear_momentum", &linear_momentum, py::arg("model"), py::arg("state"), "[kg m/s]");
  m.def("angular_momentum", &angular_momentum, py::arg("model"), py::arg("state"), "About the world origin [kg m^2/s].");
  m.def("energies", [](const Model& mo, const Eigen::VectorXd& x, double t) {
          const State s = make_state(mo, x, t);
          Data d = make_data(mo);
          compute_derivative(mo, s, d);
          return compute_energy(mo, s, d);
        }, py::arg("model"), py::arg("x"), py::arg("time_s") = 0.0,
        "Convenience: Energy of the state vector x (13 nrod) at time_s.");

  // ---- simulation ----------------------------------------------------------------------------
  py::class_<MonitorReport>(m, "MonitorReport", "Slack / over-strain monitor of a run.")
      .def_readonly("normal_mode", &MonitorReport::normal_mode)
      .def_readonly("first_slack_time_s", &MonitorReport::first_slack_time_s)
      .def_readonly("first_slack_cable", &MonitorReport::first_slack_cable)
      .def_readonly("first_overstrain_time_s", &MonitorReport::first_overstrain_time_s)
      .def_readonly("first_overstrain_cable", &MonitorReport::first_overstrain_cable)
      .def_readonly("max_strain", &MonitorReport::max_strain)
      .def_readonly("min_strain", &MonitorReport::min_strain)
      .def_readonly("slack_first_time_s", &MonitorReport::slack_first_time_s);

  py::class_<SimulationSummary>(m, "SimulationSummary", "What simulate() reports besides the recorded samples.")
      .def_readonly("monitor", &SimulationSummary::monitor)
      .def_readonly("initial_energy", &SimulationSummary::initial_energy)
      .def_readonly("final_energy", &SimulationSummary::final_energy)
      .def_readonly("max_abs_energy_drift_J", &SimulationSummary::max_abs_energy_drift_J)
      .def_readonly("com_initial_m", &SimulationSummary::com_initial_m)
      .def_readonly("com_final_m", &SimulationSummary::com_final_m)
      .def_readonly("max_com_displacement_m", &SimulationSummary::max_com_displacement_m)
      .def_readonly("com_floor_path_m", &SimulationSummary::com_floor_path_m)
      .def_readonly("linear_momentum_initial", &SimulationSummary::linear_momentum_initial)
      .def_readonly("linear_momentum_final", &SimulationSummary::linear_momentum_final)
      .def_readonly("angular_momentum_initial", &SimulationSummary::angular_momentum_initial)
      .def_readonly("angular_momentum_final", &SimulationSummary::angular_momentum_final)
      .def_readonly("steps", &SimulationSummary::steps)
      .def_readonly("rejected_steps", &SimulationSummary::rejected_steps)
      .def_readonly("split_steps", &SimulationSummary::split_steps)
      .def_readonly("wall_time_s", &SimulationSummary::wall_time_s)
      .def_readonly("stopped_early", &SimulationSummary::stopped_early)
      .def_readonly("final_state", &SimulationSummary::final_state)
      .def_readonly("final_length_m", &SimulationSummary::final_length_m)
      .def_readonly("final_strain", &SimulationSummary::final_strain)
      .def_readonly("final_tension_N", &SimulationSummary::final_tension_N);

  m.def("simulate", [](const Model& mo, const SimulationOptions& opt, const std::optional<State>& initial, bool record) {
          Recorder rec;
          SimulationSummary sum;
          {
            py::gil_scoped_release release;
            sum = simulate(mo, opt, record ? &rec : nullptr, {}, initial ? &*initial : nullptr);
          }
          py::dict out;
          const py::ssize_t n = static_cast<py::ssize_t>(rec.time_s.size());
          py::array_t<double> t(n), energies({n, static_cast<py::ssize_t>(5)}), com({n, static_cast<py::ssize_t>(3)});
          auto tv = t.mutable_unchecked<1>();
          auto ev = energies.mutable_unchecked<2>();
          auto cv = com.mutable_unchecked<2>();
          for (py::ssize_t i = 0; i < n; ++i) {
            const auto k = static_cast<std::size_t>(i);
            tv(i) = rec.time_s[k];
            const Energy& e = rec.energy[k];
            ev(i, 0) = e.kinetic_J; ev(i, 1) = e.elastic_J; ev(i, 2) = e.gravitational_J; ev(i, 3) = e.external_J;
            ev(i, 4) = e.total();
            for (int j = 0; j < 3; ++j) cv(i, j) = rec.com_m[k][j];
          }
          out["time"] = t;
          out["states"] = stack(rec.x, State::kStride * mo.nrod());
          out["strains"] = stack(rec.strain, mo.ncable());
          out["tensions"] = stack(rec.tension_N, mo.ncable());
          out["energies"] = energies;
          out["com"] = com;
          out["summary"] = sum;
          out["summary_json"] = summary_json(mo, opt, sum);
          return out;
        }, py::arg("model"), py::arg("options") = SimulationOptions(), py::arg("initial") = py::none(),
        py::arg("record") = true,
        "Run a simulation (GIL released). Returns a dict of NumPy arrays sampled every output_interval_s:\n"
        "time (N), states (N x 13 nrod), strains (N x ncable), tensions (N x ncable) [N],\n"
        "energies (N x 5: kinetic, elastic, gravitational, external, total) [J], com (N x 3) [m];\n"
        "plus 'summary' (SimulationSummary) and 'summary_json' (the CLI's summary.json text).\n"
        "Raises tendyn.SimulationError (with .time) on blow-up, tendyn.Error on bad input.");
  m.def("summary_json", &summary_json, py::arg("model"), py::arg("options"), py::arg("summary"),
        "The CLI's summary.json text for a run.");
  m.def("validate", py::overload_cast<const SimulationOptions&>(&validate), py::arg("options"), "Check simulation options.");

  // ---- Lagrange formulation ------------------------------------------------------------------
  py::enum_<QuaternionStabilisation>(m, "QuaternionStabilisation", "Stabilisation of |s| = 1 in the Lagrange DAE.")
      .value("kProjection", QuaternionStabilisation::kProjection)
      .value("kBaumgarte", QuaternionStabilisation::kBaumgarte)
      .value("kNone", QuaternionStabilisation::kNone);
  py::class_<LagrangeOptions>(m, "LagrangeOptions", "Options of the Lagrange formulation.")
      .def(py::init<>())
      .def_readwrite("stabilisation", &LagrangeOptions::stabilisation)
      .def_readwrite("baumgarte_alpha_per_s", &LagrangeOptions::baumgarte_alpha_per_s)
      .def_readwrite("baumgarte_beta_per_s", &LagrangeOptions::baumgarte_beta_per_s)
      .def_readwrite("thin_rod_axial_inertia_factor", &LagrangeOptions::thin_rod_axial_inertia_factor);
  py::class_<LagrangeState>(m, "LagrangeState", "Lagrange state y = [q; q'] (14 nrod), q per rod = (p_WC, s).")
      .def(py::init<>())
      .def_readwrite("time_s", &LagrangeState::time_s)
      .def_readwrite("y", &LagrangeState::y)
      .def_property_readonly("q", [](const LagrangeState& s) { return Eigen::VectorXd(s.y.head(s.y.size() / 2)); }, "(7 nrod)")
      .def_property_readonly("qdot", [](const LagrangeState& s) { return Eigen::VectorXd(s.y.tail(s.y.size() / 2)); }, "(7 nrod)");
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
        "(default: the driven cables). Returns (A, B).");

  // ---- psi study -----------------------------------------------------------------------------
  py::class_<PsiStudyOptions>(m, "PsiStudyOptions", "Document 000's psi study: prism (n = 3), angles [deg], simulation, threads.")
      .def(py::init<>())
      .def_readwrite("prism", &PsiStudyOptions::prism)
      .def_readwrite("psi_deg", &PsiStudyOptions::psi_deg)
      .def_readwrite("simulation", &PsiStudyOptions::simulation)
      .def_readwrite("threads", &PsiStudyOptions::threads);
  py::class_<PsiStudyRow>(m, "PsiStudyRow", "One tilt angle of the psi study; per-triple arrays are (top, bottom, side).")
      .def_readonly("psi_deg", &PsiStudyRow::psi_deg)
      .def_readonly("normal", &PsiStudyRow::normal)
      .def_readonly("first_slack_time_s", &PsiStudyRow::first_slack_time_s)
      .def_readonly("first_slack_cable", &PsiStudyRow::first_slack_cable)
      .def_readonly("first_overstrain_time_s", &PsiStudyRow::first_overstrain_time_s)
      .def_readonly("first_overstrain_cable", &PsiStudyRow::first_overstrain_cable)
      .def_property_readonly("max_strain", [](const PsiStudyRow& r) { return arr3(r.max_strain); })
      .def_property_readonly("min_strain", [](const PsiStudyRow& r) { return arr3(r.min_strain); })
      .def_property_readonly("final_strain", [](const PsiStudyRow& r) { return arr3(r.final_strain); })
      .def_readonly("triple_spread", &PsiStudyRow::triple_spread)
      .def_property_readonly("shape", [](const PsiStudyRow& r) { return std::array<std::string, 3>{r.shape[0], r.shape[1], r.shape[2]}; })
      .def_readonly("kinetic_final_J", &PsiStudyRow::kinetic_final_J);
  py::class_<PsiStudyResult>(m, "PsiStudyResult", "Rows and the longest run of normal-mode angles.")
      .def_readonly("rows", &PsiStudyResult::rows)
      .def_readonly("has_range", &PsiStudyResult::has_range)
      .def_readonly("range_min_deg", &PsiStudyResult::range_min_deg)
      .def_readonly("range_max_deg", &PsiStudyResult::range_max_deg);
  m.def("run_psi_study", [](const PsiStudyOptions& o) {
          py::gil_scoped_release release;
          return run_psi_study(o);
        }, py::arg("options"), "Run the psi study (parallel, GIL released; results independent of threads).");

  // ---- planner -------------------------------------------------------------------------------
  py::class_<PlanPath>(m, "PlanPath", "Polyline on the floor [m].")
      .def(py::init<>())
      .def_readwrite("points", &PlanPath::points)
      .def_static("straight_x", &PlanPath::straight_x, "Document 001 (3-3).")
      .def_static("right_angle", &PlanPath::right_angle, py::arg("x_turn_m") = 0.01, "Document 001 (3-4)/(3-5).");
  py::enum_<Planner>(m, "Planner", "Planner algorithm.")
      .value("kExhaustive", Planner::kExhaustive)
      .value("kCoordinateSearch", Planner::kCoordinateSearch)
      .value("kLookahead", Planner::kLookahead);
  py::class_<PlannerOptions>(m, "PlannerOptions", "Options of plan(): drive cables, increment u0, period, duration, path.")
      .def(py::init<>())
      .def_readwrite("drive_cables", &PlannerOptions::drive_cables)
      .def_readwrite("u0_m", &PlannerOptions::u0_m)
      .def_readwrite("period_s", &PlannerOptions::period_s)
      .def_readwrite("duration_s", &PlannerOptions::duration_s)
      .def_readwrite("path", &PlannerOptions::path)
      .def_readwrite("planner", &PlannerOptions::planner)
      .def_readwrite("max_rounds", &PlannerOptions::max_rounds)
      .def_readwrite("beam_width", &PlannerOptions::beam_width)
      .def_readwrite("lateral_weight", &PlannerOptions::lateral_weight)
      .def_readwrite("lateral_tolerance_m", &PlannerOptions::lateral_tolerance_m)
      .def_readwrite("ramp_fraction", &PlannerOptions::ramp_fraction)
      .def_readwrite("threshold_start", &PlannerOptions::threshold_start)
      .def_readwrite("rollout", &PlannerOptions::rollout)
      .def_readwrite("threads", &PlannerOptions::threads);
  py::class_<PlanResult>(m, "PlanResult", "Plan: knot times, drive offsets, centroids, costs and statistics.")
      .def_readonly("period_start_s", &PlanResult::period_start_s)
      .def_readonly("offset_m", &PlanResult::offset_m)
      .def_readonly("centroid_m", &PlanResult::centroid_m)
      .def_readonly("cost", &PlanResult::cost)
      .def_readonly("tension_N", &PlanResult::tension_N)
      .def_readonly("threshold_misses", &PlanResult::threshold_misses)
      .def_readonly("forced_periods", &PlanResult::forced_periods)
      .def_readonly("rollouts", &PlanResult::rollouts)
      .def_readonly("rejected", &PlanResult::rejected)
      .def_readonly("wall_time_s", &PlanResult::wall_time_s)
      .def_readonly("max_path_error_m", &PlanResult::max_path_error_m)
      .def_readonly("progress_m", &PlanResult::progress_m)
      .def_readonly("speed_mps", &PlanResult::speed_mps)
      .def_readonly("final_state", &PlanResult::final_state)
      .def("as_drives", &PlanResult::as_drives, py::arg("drive_cables"), "The executed schedule as table drives.");
  m.def("plan", [](const Model& mo, const PlannerOptions& o) {
          py::gil_scoped_release release;
          return plan(mo, o);
        }, py::arg("model"), py::arg("options"), "Document 001's planner (parallel, GIL released).");
}
