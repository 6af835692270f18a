// Bindings of include/tendyn/tensegrity/dynamics.hpp: Energy, Data (NumPy views into the C++
// data; the controller inputs are writable), the staged pipeline, energies and momenta.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/dynamics.hpp>

#include "tensegrity/expose.hpp"

#include <string>
#include <vector>

namespace tendyn::python::tensegrity_bind {

namespace {

State make_state(const Model& model, const Eigen::VectorXd& x, double time_s) {
  if (x.size() != model.nx())
    throw tendyn::Error("energies(x): the state vector has " + std::to_string(x.size()) + " entries, the model needs " +
                        state_size_text(model));
  State s;
  s.time_s = time_s;
  s.x = x;
  return s;
}

}  // namespace

void expose_dynamics(py::module_& m) {
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
      .def_property(
          "cable_rest_length_m", [](py::object self) { return vector_view(self.cast<Data&>().cable_rest_length_m, self); },
          [](Data& d, const py::array_t<double, py::array::forcecast>& v) {
            assign_vector(d.cable_rest_length_m, v, "Data.cable_rest_length_m", d.cable_rest_length_m.size(), "one per cable");
          },
          "(ncable) current rest lengths [m]; writable (drives overwrite their cables at every evaluation)")
      .def_property(
          "winch_target_m", [](py::object self) { return vector_view(self.cast<Data&>().winch_target_m, self); },
          [](Data& d, const py::array_t<double, py::array::forcecast>& v) {
            assign_vector(d.winch_target_m, v, "Data.winch_target_m", d.winch_target_m.size(), "one per winch");
          },
          "(nwinch) what the winches are commanded: the target rest length [m] (position control) or the command "
          "fraction (voltage control) or the motor torque [N m] (torque control); writable (a drive on the winch's cable overwrites it at every evaluation)")
      .def_readonly("winch_command", &Data::winch_command, "(nwinch) command fraction u of the last evaluation")
      .def_readonly("winch_torque_Nm", &Data::winch_torque_Nm, "(nwinch) motor torque of the last evaluation [N m]")
      .def_property(
          "actuator_ctrl", [](py::object self) { return vector_view(self.cast<Data&>().actuator_ctrl, self); },
          [](Data& d, const py::array_t<double, py::array::forcecast>& v) {
            assign_vector(d.actuator_ctrl, v, "Data.actuator_ctrl", d.actuator_ctrl.size(), "one per force actuator");
          },
          "(nactuator) the force actuators' commands; writable (a drive on the actuator's cable overwrites it at every evaluation)")
      .def_readonly("actuator_force_N", &Data::actuator_force_N, "(nactuator) actuator force F of the last evaluation [N]")
      .def_property(
          "f_W_ext_node", [](py::object self) { return rows3_view(self.cast<Data&>().f_W_ext_node, self); },
          [](Data& d, const py::array_t<double, py::array::forcecast>& f) {
            assign_rows3(d.f_W_ext_node, f, "Data.f_W_ext_node", "one row per node");
          },
          "(nnode x 3) external forces on the nodes [N]; writable")
      .def_readonly("cable_length_m", &Data::cable_length_m, "(ncable) lengths [m]")
      .def_readonly("cable_rate_mps", &Data::cable_rate_mps, "(ncable) dl/dt [m/s]")
      .def_readonly("cable_tension_N", &Data::cable_tension_N, "(ncable) axial forces [N], > 0 pulls, 0 when slack")
      .def_property_readonly(
          "cable_slack", [](const Data& d) { return std::vector<bool>(d.cable_slack.begin(), d.cable_slack.end()); },
          "(ncable) True where a tension-only cable is slack (l <= l0)")
      .def_readonly("xdot", &Data::xdot, "(13 nrod) state derivative of the last compute_derivative() (units of x per s)")
      .def("__repr__", [](const Data& d) {
        return "Data(nrod=" + std::to_string(d.e_W_rod.cols()) + ", nnode=" + std::to_string(d.p_W_node.cols()) +
               ", ncable=" + std::to_string(d.cable_length_m.size()) + ")";
      });
  m.def("make_data", &make_data, py::arg("model"), "Data sized for the model.");
  // Each function checks its state and data first (the kernels would read past a state or data
  // of another model) and refuses objects another thread is stepping (ExclusiveUse).
  const auto checked = [](const Model& mo, const State& s, Data& d, const char* fn) {
    check_state_arg(mo, s, fn);
    check_data_arg(mo, d, fn);
    ExclusiveUse::check_free(&s, fn);
    ExclusiveUse::check_free(&d, fn);
  };
  m.def(
      "forward_kinematics",
      [checked](const Model& mo, const State& s, Data& d) {
        checked(mo, s, d, "forward_kinematics");
        forward_kinematics(mo, s, d);
      },
      py::arg("model"), py::arg("state"), py::arg("data"),
      "Stage 1: rod axes, node positions and velocities into data. tendyn.Error when the state (13 nrod entries) or the "
      "data does not fit the model.");
  m.def(
      "compute_element_forces",
      [checked](const Model& mo, const State& s, Data& d) {
        checked(mo, s, d, "compute_element_forces");
        compute_element_forces(mo, s, d);
      },
      py::arg("model"), py::arg("state"), py::arg("data"),
      "Stage 2: cable lengths, rates, tensions and node forces into data (after forward_kinematics). tendyn.Error when "
      "the state or the data does not fit the model.");
  m.def(
      "compute_derivative",
      [checked](const Model& mo, const State& s, Data& d) {
        checked(mo, s, d, "compute_derivative");
        compute_derivative(mo, s, d);
        return Eigen::VectorXd(d.xdot);
      },
      py::arg("model"), py::arg("state"), py::arg("data"),
      "Full pipeline (kinematics, forces, accelerations); fills data and returns xdot (13 nrod). tendyn.Error when the "
      "state (13 nrod entries) or the data does not fit the model.");
  m.def(
      "compute_energy",
      [checked](const Model& mo, const State& s, Data& d) {
        checked(mo, s, d, "compute_energy");
        return compute_energy(mo, s, d);
      },
      py::arg("model"), py::arg("state"), py::arg("data"),
      "Energies of the state (data from compute_derivative at that state). tendyn.Error when the state or the data does "
      "not fit the model.");
  // the C++ functions check the state size themselves (cheap there)
  m.def("center_of_mass", &center_of_mass, py::arg("model"), py::arg("state"),
        "COM of the rods [m]. tendyn.Error when the state does not have 13 nrod entries.");
  m.def("linear_momentum", &linear_momentum, py::arg("model"), py::arg("state"),
        "Total linear momentum [kg m/s]. tendyn.Error when the state does not have 13 nrod entries.");
  m.def("angular_momentum", &angular_momentum, py::arg("model"), py::arg("state"),
        "About the world origin [kg m^2/s]. tendyn.Error when the state does not have 13 nrod entries.");
  m.def(
      "energies",
      [](const Model& mo, const Eigen::VectorXd& x, double t) {
        const State s = make_state(mo, x, t);
        Data d = make_data(mo);
        compute_derivative(mo, s, d);
        return compute_energy(mo, s, d);
      },
      py::arg("model"), py::arg("x"), py::arg("time_s") = 0.0, "Convenience: Energy of the state vector x (13 nrod) at time_s [s].");
  m.def("node_positions", &node_positions, py::arg("model"), py::arg("state"),
        "(nnode x 3) node positions [m] of a state (rod ends from the rod poses, anchors fixed).");
}

}  // namespace tendyn::python::tensegrity_bind
