// Bindings of include/tendyn/tree/algorithms.hpp: the recursive algorithms (RNEA, CRBA, ABA),
// energies, centre of mass and momentum. Outputs are NumPy copies.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tree/algorithms.hpp>

#include "tree/expose.hpp"

namespace tendyn::python::tree_bind {

void expose_algorithms(py::module_& m) {
  m.def(
      "forward_kinematics",
      [](const Model& mo, Data& d, const py::object& q) {
        check_data(mo, d);
        forward_kinematics(mo, d, q_arg(q, mo));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), "Link poses for q (nq) into data.");
  m.def(
      "rnea",
      [](const Model& mo, Data& d, const py::object& q, const py::object& v, const py::object& a, const Fext& f) {
        check_data(mo, d);
        const V qv = q_arg(q, mo), vv = v_arg(v, mo), av = v_arg(a, mo, "a");
        return V(finite_result(mo, rnea(mo, d, qv, vv, av, f), {&qv, &vv, &av}, f, "tree.rnea", "tau (joint forces)"));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("a"), py::arg("fext") = Fext{},
      "Inverse dynamics tau = M(q) a + b(q, v) - J^T fext (RNEA): q (nq), v (nv) [rad/s | m/s], a (nv) "
      "[rad/s^2 | m/s^2], fext (nlinks LinkWrench or empty) -> tau (nv) [N m | N]. A result that overflows the double "
      "range from finite inputs (a = 1e308) raises tendyn.Error naming it.");
  m.def(
      "nonlinear_effects",
      [](const Model& mo, Data& d, const py::object& q, const py::object& v, const Fext& f) {
        check_data(mo, d);
        const V qv = q_arg(q, mo), vv = v_arg(v, mo);
        return V(finite_result(mo, nonlinear_effects(mo, d, qv, vv, f), {&qv, &vv}, f, "tree.nonlinear_effects", "b (bias forces)"));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("fext") = Fext{},
      "Bias b(q, v) = C(q, v) v + g(q) - J^T fext (nv) [N m | N].");
  m.def(
      "crba",
      [](const Model& mo, Data& d, const py::object& q) {
        check_data(mo, d);
        const V qv = q_arg(q, mo);
        return Eigen::MatrixXd(finite_result(mo, crba(mo, d, qv), {&qv}, {}, "tree.crba", "M (mass matrix)"));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), "Mass matrix M(q) (nv x nv) by CRBA.");
  m.def(
      "aba",
      [](const Model& mo, Data& d, const py::object& q, const py::object& v, const py::object& tau, const Fext& f) {
        check_data(mo, d);
        const V qv = q_arg(q, mo), vv = v_arg(v, mo), tv = v_arg(tau, mo, "tau");
        return V(finite_result(mo, aba(mo, d, qv, vv, tv, f), {&qv, &vv, &tv}, f, "tree.aba", "ddq (joint accelerations)"));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("fext") = Fext{},
      "Forward dynamics (ABA): q (nq), v (nv), tau (nv) [N m | N] -> q'' (nv) [rad/s^2 | m/s^2].");
  m.def(
      "kinetic_energy",
      [](const Model& mo, Data& d, const py::object& q, const py::object& v) {
        check_data(mo, d);
        return kinetic_energy(mo, d, q_arg(q, mo), v_arg(v, mo));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), "Kinetic energy 1/2 v^T M v [J].");
  m.def(
      "potential_energy",
      [](const Model& mo, Data& d, const py::object& q) {
        check_data(mo, d);
        return potential_energy(mo, d, q_arg(q, mo));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), "Gravitational potential energy -sum m_i g . p_WC_i [J].");
  m.def(
      "center_of_mass",
      [](const Model& mo, Data& d, const py::object& q) {
        check_data(mo, d);
        return center_of_mass(mo, d, q_arg(q, mo));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), "Centre of mass (3) in W [m].");
  m.def(
      "jacobian_center_of_mass",
      [](const Model& mo, Data& d, const py::object& q) {
        check_data(mo, d);
        return Eigen::MatrixXd(jacobian_center_of_mass(mo, d, q_arg(q, mo)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), "COM Jacobian (3 x nv): dp_WCoM/dt = J_com v.");
  m.def(
      "momentum_world",
      [](const Model& mo, Data& d, const py::object& q, const py::object& v) {
        check_data(mo, d);
        return Vector6d(momentum_world(mo, d, q_arg(q, mo), v_arg(v, mo)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"),
      "Momentum about the world origin (6): angular L_O [N m s], then linear P [N s], world coordinates.");
  m.def(
      "normalize_configuration",
      [](const Model& mo, const py::object& q) {
        V x = q_arg(q, mo);
        normalize_configuration(mo, x);
        return x;
      },
      py::arg("model"), py::arg("q"), "q (nq) with unit quaternions (returns a copy).");
}

}  // namespace tendyn::python::tree_bind
