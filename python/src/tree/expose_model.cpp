// Bindings of include/tendyn/tree/model.hpp: joint types, base modes, Joint, Link, Model and
// convert_base. The model is immutable from Python except its gravity_W.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/core/error.hpp>
#include <tendyn/tree/model.hpp>

#include "tree/expose.hpp"

#include <string>

namespace tendyn::python::tree_bind {

void expose_model(py::module_& m) {
  py::enum_<JointType>(m, "JointType", "Joint type: kFixed (0 dof), kRevolute, kPrismatic (1 dof), kFree (nq 7, nv 6).")
      .value("kFixed", JointType::kFixed)
      .value("kRevolute", JointType::kRevolute)
      .value("kPrismatic", JointType::kPrismatic)
      .value("kFree", JointType::kFree);
  py::enum_<BaseMode>(m, "BaseMode", "Base treatment when loading: as written, fictitious 6-joint chain, or free joint.")
      .value("kAsWritten", BaseMode::kAsWritten)
      .value("kFictitious", BaseMode::kFictitious)
      .value("kFree", BaseMode::kFree);

  m.def("to_string", py::overload_cast<JointType>(&to_string), py::arg("type"), "'fixed', 'revolute', 'prismatic' or 'free'.");
  m.def("joint_type_from_string", &joint_type_from_string, py::arg("name"),
        "JointType from its name (also 'continuous', 'floating'); tendyn.Error for an unknown name.");
  m.def("to_string", py::overload_cast<BaseMode>(&to_string), py::arg("mode"), "'as-written', 'fictitious' or 'free'.");
  m.def("base_mode_from_string", &base_mode_from_string, py::arg("name"), "BaseMode from its name; tendyn.Error for an unknown name.");

  py::class_<Joint>(m, "Joint", "A joint: type, axis, placement in the parent link frame, coordinate indices.")
      .def_readonly("name", &Joint::name, "Joint name.")
      .def_readonly("type", &Joint::type, "JointType.")
      .def_readonly("axis", &Joint::axis, "(3) unit axis in the joint frame [-].")
      .def_readonly("R_PJ", &Joint::R_PJ, "(3 x 3) rotation of the joint frame in the parent link frame [-].")
      .def_readonly("p_PJ_m", &Joint::p_PJ_m, "(3) joint frame origin in the parent link frame [m].")
      .def_readonly("nq", &Joint::nq, "Position coordinates: 0 fixed, 1 revolute/prismatic, 7 free.")
      .def_readonly("nv", &Joint::nv, "Velocity coordinates: 0 fixed, 1 revolute/prismatic, 6 free.")
      .def_readonly("idx_q", &Joint::idx_q, "Index of the first coordinate in q.")
      .def_readonly("idx_v", &Joint::idx_v, "Index of the first coordinate in v.")
      .def_readonly("fictitious", &Joint::fictitious, "Part of a fictitious floating-base chain (document 003).")
      .def("__repr__", [](const Joint& j) {
        return "Joint(name='" + j.name + "', type=" + py::str(py::cast(j.type)).cast<std::string>() + ", nq=" + std::to_string(j.nq) +
               ", nv=" + std::to_string(j.nv) + ", idx_q=" + std::to_string(j.idx_q) + ", idx_v=" + std::to_string(j.idx_v) + ")";
      });
  py::class_<Link>(m, "Link", "A link's mass properties, in the link frame.")
      .def_readonly("name", &Link::name, "Link name.")
      .def_readonly("mass_kg", &Link::mass_kg, "Mass [kg].")
      .def_readonly("p_LC_m", &Link::p_LC_m, "(3) centre of mass p_LC in the link frame [m].")
      .def_readonly("inertia_C_kgm2", &Link::inertia_C_kgm2, "(3 x 3) rotational inertia about the COM, link axes [kg m^2].")
      .def("__repr__",
           [](const Link& l) { return "Link(name='" + l.name + "', mass_kg=" + fmt(l.mass_kg) + ", p_LC_m=" + fmt(l.p_LC_m) + ")"; });
  py::class_<Model>(m, "Model", "A tree-structured robot (links, joints, parents, reachability matrix D). Immutable except gravity_W.")
      .def_readonly("name", &Model::name, "Model name.")
      .def_readonly("links", &Model::links, "(nlinks) Link, parent before child.")
      .def_readonly("joints", &Model::joints, "(nlinks) Joint i attaches link i to parent[i].")
      .def_readonly("parent", &Model::parent, "(nlinks) parent link index, -1 for the world.")
      .def_readonly("reachability", &Model::reachability, "(nlinks x nlinks) D: d_ij = 1 iff link j is link i or an ancestor of it.")
      .def_property(
          "gravity_W", [](const Model& mo) { return Eigen::Vector3d(mo.gravity_W); },
          [](Model& mo, const py::object& g) {
            DoubleArray a = DoubleArray::ensure(g);
            if (!a || a.ndim() != 1 || a.shape(0) != 3)
              throw tendyn::Error("Model.gravity_W: expected shape (3,), got " + (a ? "shape " + shape_str(a) : "a " + type_name(g)));
            mo.gravity_W = Eigen::Map<const Eigen::Vector3d>(a.data());
          },
          "(3) gravity g_W in the world frame [m/s^2]; assign a (3,) array.")
      .def_readonly("nq", &Model::nq, "Number of position coordinates (size of q).")
      .def_readonly("nv", &Model::nv, "Number of velocity coordinates (size of v, a, tau).")
      .def("nlinks", &Model::nlinks, "Number of links.")
      .def("total_mass", &Model::total_mass, "Total mass [kg].")
      .def("link_index", &Model::link_index, py::arg("name"), "Index of the link called `name` (tendyn.Error if absent).")
      .def("neutral", &Model::neutral, "Neutral configuration q (nq): zeros, identity quaternions.")
      .def("random_configuration", &Model::random_configuration, py::arg("seed"),
           "Seeded random configuration q (nq): angles in [-pi, pi] [rad], prismatic in [-0.5, 0.5] [m], free: "
           "position in [-1, 1]^3 [m] and a uniform unit quaternion.")
      .def("__repr__", [](const Model& mo) {
        return "Model(name='" + mo.name + "', nlinks=" + std::to_string(mo.nlinks()) + ", nq=" + std::to_string(mo.nq) +
               ", nv=" + std::to_string(mo.nv) + ")";
      });
  m.def("validate", &validate, py::arg("model"),
        "Check every invariant the algorithms rely on (e.g. after setting gravity_W); tendyn.Error naming the reason.");
  m.def("convert_base", &convert_base, py::arg("model"), py::arg("mode"), "The model with its floating base converted to `mode`.");
}

}  // namespace tendyn::python::tree_bind
