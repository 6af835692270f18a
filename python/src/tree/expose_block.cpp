// Bindings of include/tendyn/tree/block.hpp: the document's block-matrix equations of motion.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tree/block.hpp>

#include "tree/expose.hpp"

#include <string>

namespace tendyn::python::tree_bind {

void expose_block(py::module_& m) {
  py::class_<BlockData>(m, "BlockData", "Scratch and outputs of the block-matrix equations: BlockData(model) (no free joints).")
      .def(py::init<const Model&>(), py::arg("model"))
      .def_readonly("A", &BlockData::A, "(nv x nv) mass matrix")
      .def_readonly("b", &BlockData::b, "(nv) bias [N m | N]")
      .def_readonly("tau", &BlockData::tau, "(nv) last block_inverse_dynamics output [N m | N]")
      .def_readonly("ddq", &BlockData::ddq, "(nv) last block_forward_dynamics output [rad/s^2 | m/s^2]")
      .def("__repr__", [](const BlockData& d) { return "BlockData(nv=" + std::to_string(d.b.size()) + ")"; });
  m.def(
      "block_inverse_dynamics",
      [](const Model& mo, BlockData& bd, const py::object& q, const py::object& qd, const py::object& qdd, const Fext& f) {
        check_data(mo, bd);
        const V qv = q_arg(q, mo), vv = v_arg(qd, mo, "qd"), av = v_arg(qdd, mo, "qdd");
        return V(finite_result(mo, block_inverse_dynamics(mo, bd, qv, vv, av, f), {&qv, &vv, &av}, f, "tree.block_inverse_dynamics",
                               "tau (joint forces)"));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("qd"), py::arg("qdd"), py::arg("fext") = Fext{},
      "Drive forces tau (nv) [N m | N] by the document's block-matrix recursion (24).");
  m.def(
      "block_eom",
      [](const Model& mo, BlockData& bd, const py::object& q, const py::object& qd, const Fext& f) {
        check_data(mo, bd);
        const V qv = q_arg(q, mo), vv = v_arg(qd, mo, "qd");
        block_eom(mo, bd, qv, vv, f);
        finite_result(mo, bd.A, {&qv, &vv}, f, "tree.block_eom", "A (mass matrix)");
        finite_result(mo, bd.b, {&qv, &vv}, f, "tree.block_eom", "b (bias forces)");
        return py::make_tuple(Eigen::MatrixXd(bd.A), V(bd.b));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("qd"), py::arg("fext") = Fext{},
      "Block-matrix equations of motion: returns (A (nv x nv), b (nv)) with A q'' + b = tau.");
  m.def(
      "block_forward_dynamics",
      [](const Model& mo, BlockData& bd, const py::object& q, const py::object& qd, const py::object& tau, const Fext& f) {
        check_data(mo, bd);
        const V qv = q_arg(q, mo), vv = v_arg(qd, mo, "qd"), tv = v_arg(tau, mo, "tau");
        return V(finite_result(mo, block_forward_dynamics(mo, bd, qv, vv, tv, f), {&qv, &vv, &tv}, f, "tree.block_forward_dynamics",
                               "ddq (joint accelerations)"));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("fext") = Fext{},
      "q'' (nv) [rad/s^2 | m/s^2] from the block-matrix equations.");
}

}  // namespace tendyn::python::tree_bind
