// Bindings of include/tendyn/tree/data.hpp: LinkWrench (external wrenches) and Data.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tree/data.hpp>

#include "tree/expose.hpp"

#include <string>

namespace tendyn::python::tree_bind {

void expose_data(py::module_& m) {
  py::class_<LinkWrench>(m, "LinkWrench",
                         "External wrench on a link, world coordinates: force f_W [N] at the link's COM and a couple n_W [N m].")
      .def(py::init([](const Eigen::Vector3d& f_W, const Eigen::Vector3d& n_W) {
             return LinkWrench{f_W, n_W};
           }),
           py::kw_only(), py::arg("f_W") = Eigen::Vector3d::Zero().eval(), py::arg("n_W") = Eigen::Vector3d::Zero().eval(),
           "LinkWrench(f_W=(0, 0, 0), n_W=(0, 0, 0)): force [N], couple [N m], both (3) in W.")
      .def_readwrite("f_W", &LinkWrench::f_W, "(3) force at the link's COM, world frame [N].")
      .def_readwrite("n_W", &LinkWrench::n_W, "(3) couple, world frame [N m].")
      .def("__repr__", [](const LinkWrench& w) { return "LinkWrench(f_W=" + fmt(w.f_W) + ", n_W=" + fmt(w.n_W) + ")"; });

  py::class_<Data>(m, "Data", "Scratch and outputs of the recursive algorithms, sized once for one model: make_data(model) or Data(model).")
      .def(py::init<const Model&>(), py::arg("model"), "Data(model): the same as make_data(model).")
      .def_readonly("tau", &Data::tau, "(nv) last RNEA / nonlinear_effects output [N m | N].")
      .def_readonly("M", &Data::M, "(nv x nv) last CRBA mass matrix [kg m^2 | kg | kg m].")
      .def_readonly("ddq", &Data::ddq, "(nv) last ABA output [rad/s^2 | m/s^2].")
      .def_readonly("J_com", &Data::J_com, "(3 x nv) last centre-of-mass Jacobian [m/rad | -].")
      .def_readonly("p_com", &Data::p_com, "(3) last centre of mass in W [m].")
      .def("__repr__",
           [](const Data& d) { return "Data(nlinks=" + std::to_string(d.X_PL.size()) + ", nv=" + std::to_string(d.tau.size()) + ")"; });
  m.def("make_data", &make_data, py::arg("model"), "Data sized for `model` (the workspace of the recursive algorithms).");
}

}  // namespace tendyn::python::tree_bind
