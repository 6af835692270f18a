// Bindings of include/tendyn/tensegrity/lagrange.hpp: the Lagrange formulation (document 001):
// options, state, mass matrix and terms, the DAE right-hand side and its linearisation.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/lagrange.hpp>

#include "tensegrity/expose.hpp"

#include <string>
#include <vector>

namespace tendyn::python::tensegrity_bind {

void expose_lagrange(py::module_& m) {
  py::enum_<QuaternionStabilisation>(m, "QuaternionStabilisation", "Stabilisation of |s| = 1 in the Lagrange DAE.")
      .value("kProjection", QuaternionStabilisation::kProjection)
      .value("kBaumgarte", QuaternionStabilisation::kBaumgarte)
      .value("kNone", QuaternionStabilisation::kNone);
  m.def("quaternion_stabilisation_from_string", &quaternion_stabilisation_from_string, py::arg("name"),
        "'projection', 'baumgarte' or 'none' -> QuaternionStabilisation (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<QuaternionStabilisation>(&to_string), py::arg("stabilisation"),
        "'projection', 'baumgarte' or 'none'.");
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
      .def_property(
          "y", [](const LagrangeState& s) { return s.y; },
          [](LagrangeState& s, const py::array_t<double, py::array::forcecast>& y) {
            assign_vector(s.y, y, "LagrangeState.y", per_rod_size(y, s.y.size(), 14, "LagrangeState.y"), "14 per rod");
          },
          "(14 nrod) [q; q']: q per rod = p_WC [m], s (4); q' in m/s and 1/s (a copy; assign to change)")
      .def_property_readonly(
          "q", [](const LagrangeState& s) { return Eigen::VectorXd(s.y.head(s.y.size() / 2)); }, "(7 nrod) coordinates")
      .def_property_readonly(
          "qdot", [](const LagrangeState& s) { return Eigen::VectorXd(s.y.tail(s.y.size() / 2)); }, "(7 nrod) rates")
      .def("__repr__", [](const LagrangeState& s) {
        return "LagrangeState(time_s=" + float_repr(s.time_s) + ", nrod=" + std::to_string(s.y.size() / 14) + ")";
      });
  m.def(
      "to_lagrange_state",
      [](const Model& mo, const State& s) {
        check_state_arg(mo, s, "to_lagrange_state");
        return to_lagrange_state(mo, s);
      },
      py::arg("model"), py::arg("state"), "Newton-Euler state -> Lagrange state.");
  m.def("to_newton_euler_state", py::overload_cast<const Model&, const LagrangeState&>(&to_newton_euler_state), py::arg("model"),
        py::arg("state"), "Lagrange state -> Newton-Euler state.");
  m.def(
      "mass_matrix",
      [](const Model& mo, const Eigen::VectorXd& q) {
        Eigen::MatrixXd M;
        mass_matrix(mo, q, M);
        return M;
      },
      py::arg("model"), py::arg("q"), "M(q) (7 nrod x 7 nrod), document 001 (2-40).");
  m.def(
      "velocity_term",
      [](const Model& mo, const LagrangeState& s) {
        Eigen::VectorXd b;
        velocity_term(mo, s, b);
        return b;
      },
      py::arg("model"), py::arg("state"), "Velocity term (7 nrod) of the Lagrange equations.");
  m.def(
      "gravity_term",
      [](const Model& mo) {
        Eigen::VectorXd f;
        gravity_term(mo, f);
        return f;
      },
      py::arg("model"), "Generalised gravity forces (7 nrod).");
  m.def("kinetic_energy", &kinetic_energy, py::arg("model"), py::arg("state"), "1/2 q'^T M q' [J].");
  m.def(
      "node_jacobian",
      [](const Model& mo, const Eigen::VectorXd& q) {
        Eigen::MatrixXd H;
        node_jacobian(mo, q, H);
        return H;
      },
      py::arg("model"), py::arg("q"), "H(q): node velocities = H q'.");
  m.def("incidence_matrix", &incidence_matrix, py::arg("model"), "Cable-node incidence D.");
  m.def(
      "constraint_jacobian",
      [](const Model& mo, const Eigen::VectorXd& q) {
        if (q.size() != 7 * mo.nrod())
          throw tendyn::Error("constraint_jacobian(q): q has " + std::to_string(q.size()) +
                              " entries, the model needs 7 * nrod = " + std::to_string(7 * mo.nrod()));
        Eigen::MatrixXd P;
        constraint_jacobian(mo, q, P);
        return P;
      },
      py::arg("model"), py::arg("q"), "Jacobian of |s_i|^2 - 1 (nrod x 7 nrod).");
  m.def(
      "lagrange_derivative",
      [](const Model& mo, const LagrangeState& s, const LagrangeOptions& o) {
        if (s.y.size() != 14 * mo.nrod())
          throw tendyn::Error("lagrange_derivative(state): the Lagrange state has " + std::to_string(s.y.size()) +
                              " entries, the model needs 14 * nrod = " + std::to_string(14 * mo.nrod()));
        LagrangeData d = make_lagrange_data(mo, o);
        lagrange_derivative(mo, s, d);
        return Eigen::VectorXd(d.ydot);
      },
      py::arg("model"), py::arg("state"), py::arg("options") = LagrangeOptions(), "y' (14 nrod) of the DAE (2-54).");
  m.def(
      "linearize",
      [](const Model& mo, const LagrangeState& s, const std::vector<int>& cables, const LagrangeOptions& o) {
        LagrangeData d = make_lagrange_data(mo, o);
        Eigen::MatrixXd A, B;
        linearize(mo, s, d, A, B, cables);
        return py::make_tuple(A, B);
      },
      py::arg("model"), py::arg("state"), py::arg("cables") = std::vector<int>{}, py::arg("options") = LagrangeOptions(),
      "Exact linearisation of y' = F(y, l0) about the state: A = dF/dy (14n x 14n), B = dF/dl0 over `cables`\n"
      "(default: the driven cables) [per m]. Returns (A, B).");
}

}  // namespace tendyn::python::tensegrity_bind
