// Bindings of include/tendyn/tensegrity/form_finding.hpp: form-finding (zero gravity) and the rest
// state on the ground (settle_on_ground); both release the GIL.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/form_finding.hpp>

#include "tensegrity/expose.hpp"

#include <vector>

namespace tendyn::python::tensegrity_bind {

void expose_form_finding(py::module_& m) {
  py::class_<FormFindingOptions> fo(m, "FormFindingOptions", "Options of find_equilibrium (zero gravity, no ground).");
  fo.def_readwrite("relax_duration_s", &FormFindingOptions::relax_duration_s, "dynamic-relaxation time [s]")
      .def_readwrite("damping_Nspm", &FormFindingOptions::damping_Nspm, "relaxation damping per element [N s/m]; < 0: sqrt(k_max m_min)")
      .def_readwrite("dt_s", &FormFindingOptions::dt_s, "relaxation step [s]; < 0: automatic")
      .def_readwrite("tolerance_N", &FormFindingOptions::tolerance_N, "Newton stops when every node residual is below this [N]")
      .def_readwrite("max_newton_iterations", &FormFindingOptions::max_newton_iterations, "Newton iteration limit");
  def_kw_init(fo);
  py::class_<FormFindingResult>(m, "FormFindingResult", "The equilibrium find_equilibrium found.")
      .def_readonly("state", &FormFindingResult::state, "State at the equilibrium (velocities zero)")
      .def_readonly("max_node_residual_N", &FormFindingResult::max_node_residual_N, "max node residual force [N]")
      .def_readonly("slack_cables", &FormFindingResult::slack_cables, "tension-only elements slack at the equilibrium")
      .def_readonly("newton_iterations", &FormFindingResult::newton_iterations, "Newton iterations")
      .def_readonly("converged", &FormFindingResult::converged, "max_node_residual_N <= tolerance_N")
      .def("__repr__", [](const FormFindingResult& r) {
        return "FormFindingResult(max_node_residual_N=" + float_repr(r.max_node_residual_N) + ", converged=" + bool_repr(r.converged) + ")";
      });
  m.def(
      "find_equilibrium",
      [](const Model& mo, const FormFindingOptions& o) {
        py::gil_scoped_release release;
        return find_equilibrium(mo, o);
      },
      py::arg("model"), py::arg("options") = FormFindingOptions{},
      "Equilibrium near model.initial_state (zero gravity, no ground): dynamic relaxation + Newton. SimulationError if the relaxation blows up.");
  m.def(
      "max_node_residual",
      [](const Model& mo, const State& s) {
        check_state_arg(mo, s, "max_node_residual");
        return max_node_residual(mo, s);
      },
      py::arg("model"), py::arg("state"),
      "Max node residual force [N] of state with zero velocities (zero gravity, no ground). tendyn.Error when the state "
      "does not have 13 nrod entries.");

  py::class_<SettleOptions> so(m, "SettleOptions", "Options of settle_on_ground (docs: include/tendyn/tensegrity/form_finding.hpp).");
  so.def_readwrite("place_on_ground", &SettleOptions::place_on_ground, "first translate the model so its lowest rod end is on the ground")
      .def_readwrite("dt_s", &SettleOptions::dt_s, "RK4 step [s]; < 0: 0.05 sqrt(m_min / (4 k_max))")
      .def_readwrite("max_duration_s", &SettleOptions::max_duration_s, "simulated-time limit of the damped settle [s]")
      .def_readwrite("speed_tolerance_mps", &SettleOptions::speed_tolerance_mps, "at rest when every rod end is slower than this [m/s] ...")
      .def_readwrite("quiet_time_s", &SettleOptions::quiet_time_s, "... for this long (simulated) [s]")
      .def_readwrite("contact_tolerance_m", &SettleOptions::contact_tolerance_m,
                     "rod ends at most this far above the ground are contacts [m]")
      .def_readwrite("tolerance_N", &SettleOptions::tolerance_N, "residual tolerance of the contact polish [N]")
      .def_readwrite("max_newton_iterations", &SettleOptions::max_newton_iterations, "polish iteration limit")
      .def_readwrite("allow_slack", &SettleOptions::allow_slack, "False: a slack tension-only cable at rest is an error")
      .def_readwrite("keep_centroid_xy", &SettleOptions::keep_centroid_xy,
                     "translate the rest state back over the start's centroid (x, y)");
  def_kw_init(so);
  py::class_<SettleResult>(m, "SettleResult", "The rest state on the ground and how it was reached.")
      .def_readonly("state", &SettleResult::state, "rest State (velocities zero, time 0)")
      .def_readonly("max_residual_N", &SettleResult::max_residual_N, "max over rods of |net force| and |net torque| / (L/2) [N]")
      .def_readonly("max_node_speed_mps", &SettleResult::max_node_speed_mps, "fastest rod end at the end of the damped settle [m/s]")
      .def_readonly("min_cable_tension_N", &SettleResult::min_cable_tension_N, "smallest tension of a tension-only cable at rest [N]")
      .def_readonly("slack_cables", &SettleResult::slack_cables, "tension-only cables slack at rest")
      .def_readonly("steps", &SettleResult::steps, "RK4 steps of the damped settle")
      .def_readonly("kinetic_resets", &SettleResult::kinetic_resets, "times the velocities were set to zero")
      .def_readonly("settle_time_s", &SettleResult::settle_time_s, "simulated time of the damped settle [s]")
      .def_readonly("newton_iterations", &SettleResult::newton_iterations, "polish iterations")
      .def_readonly("contact_nodes", &SettleResult::contact_nodes, "node indices resting on the ground")
      .def_readonly("contact_force_W_N", &SettleResult::contact_force_W_N, "ground reaction on each contact [N] (list of 3-vectors)")
      .def_readonly("min_normal_force_N", &SettleResult::min_normal_force_N, "smallest normal reaction [N]")
      .def_readonly("max_friction_ratio", &SettleResult::max_friction_ratio, "max |tangential| / normal reaction")
      .def_readonly("min_stiffness_eigenvalue", &SettleResult::min_stiffness_eigenvalue,
                    "smallest tangent-stiffness eigenvalue (>= 0: stable)")
      .def_readonly("unstable_pushes", &SettleResult::unstable_pushes, "unstable balances pushed off before the stable one")
      .def("__repr__", [](const SettleResult& r) {
        return "SettleResult(max_residual_N=" + float_repr(r.max_residual_N) + ", contacts=" + std::to_string(r.contact_nodes.size()) +
               ", min_cable_tension_N=" + float_repr(r.min_cable_tension_N) + ", steps=" + std::to_string(r.steps) + ")";
      });
  m.def(
      "settle_on_ground",
      [](const Model& mo, const SettleOptions& o) {
        py::gil_scoped_release release;
        return settle_on_ground(mo, o);
      },
      py::arg("model"), py::arg("options") = SettleOptions{},
      "Rest state of the model on its ground under its gravity (kinetic-damping settle, pinned-contact polish, stability check). "
      "tendyn.Error without ground or downward gravity and when a cable is slack at rest; SimulationError when it does not settle.");
  m.def(
      "max_residual_on_ground",
      [](const Model& mo, const State& s, const std::vector<int>& nodes, const std::vector<Eigen::Vector3d>& forces) {
        check_state_arg(mo, s, "max_residual_on_ground");
        return max_residual_on_ground(mo, s, nodes, forces);
      },
      py::arg("model"), py::arg("state"), py::arg("contact_nodes"), py::arg("contact_force_W_N"),
      "Residual [N] of a rest state with the given ground reactions (see settle_on_ground). tendyn.Error when the state "
      "does not have 13 nrod entries.");
}

}  // namespace tendyn::python::tensegrity_bind
