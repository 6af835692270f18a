// Bindings of tendyn::tree (include/tendyn/tree/*.hpp): models, recursive algorithms and the
// document's block-matrix equations. Outputs are returned as NumPy copies.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/block.hpp>
#include <tendyn/tree/data.hpp>
#include <tendyn/tree/model.hpp>
#include <tendyn/tree/model_io.hpp>

#include <string>
#include <vector>

namespace py = pybind11;
using namespace tendyn::tree;

void bind_tree(py::module_& m) {
  py::enum_<JointType>(m, "JointType", "Joint type.")
      .value("Fixed", JointType::Fixed).value("Revolute", JointType::Revolute)
      .value("Prismatic", JointType::Prismatic).value("Free", JointType::Free);
  py::enum_<BaseMode>(m, "BaseMode", "Base treatment when loading: as written, fictitious 6-joint chain, or free joint.")
      .value("AsWritten", BaseMode::AsWritten).value("Fictitious", BaseMode::Fictitious).value("Free", BaseMode::Free);

  py::class_<Joint>(m, "Joint", "A joint: type, axis, placement in the parent, coordinate indices.")
      .def_readonly("name", &Joint::name)
      .def_readonly("type", &Joint::type)
      .def_readonly("axis", &Joint::axis)
      .def_readonly("R_PJ", &Joint::R_PJ)
      .def_readonly("p_PJ", &Joint::p_PJ)
      .def_readonly("nq", &Joint::nq)
      .def_readonly("nv", &Joint::nv)
      .def_readonly("idx_q", &Joint::idx_q)
      .def_readonly("idx_v", &Joint::idx_v)
      .def_readonly("fictitious", &Joint::fictitious);
  py::class_<Link>(m, "Link", "A link: mass [kg], COM in the link frame [m], inertia about the COM [kg m^2].")
      .def_readonly("name", &Link::name)
      .def_readonly("mass", &Link::mass)
      .def_readonly("com", &Link::com)
      .def_readonly("inertia", &Link::inertia);
  py::class_<Model>(m, "Model", "A tree-structured robot (links, joints, parents, reachability matrix D).")
      .def_readonly("name", &Model::name)
      .def_readonly("links", &Model::links)
      .def_readonly("joints", &Model::joints)
      .def_readonly("parent", &Model::parent)
      .def_readonly("reachability", &Model::reachability)
      .def_readwrite("gravity", &Model::gravity)
      .def_readonly("nq", &Model::nq)
      .def_readonly("nv", &Model::nv)
      .def("nlinks", &Model::nlinks)
      .def("total_mass", &Model::total_mass)
      .def("link_index", &Model::link_index, py::arg("name"))
      .def("neutral", &Model::neutral, "Neutral configuration q (nq).")
      .def("random_configuration", &Model::random_configuration, py::arg("seed"), "Seeded random configuration.")
      .def("__repr__", [](const Model& mo) {
        return "<tendyn.tree.Model '" + mo.name + "' links=" + std::to_string(mo.nlinks()) + " nv=" + std::to_string(mo.nv) + ">";
      });
  m.def("convert_base", &convert_base, py::arg("model"), py::arg("mode"), "The model with its floating base converted to `mode`.");
  m.def("load_model", &load_model, py::arg("path"), py::arg("mode") = BaseMode::AsWritten, "Load a YAML or URDF model (by extension).");
  m.def("load_model_yaml", &load_model_yaml, py::arg("file"), py::arg("mode") = BaseMode::AsWritten, "Load a tendyn tree YAML file.");
  m.def("model_from_yaml_string", &model_from_yaml_string, py::arg("text"), py::arg("name"), py::arg("mode") = BaseMode::AsWritten,
        "Parse a tree YAML model from a string (`name` appears in error messages).");
  m.def("load_urdf", &load_urdf, py::arg("file"), py::arg("mode") = BaseMode::AsWritten, "Load a URDF file.");
  m.def("urdf_from_string", &urdf_from_string, py::arg("text"), py::arg("name"), py::arg("mode") = BaseMode::AsWritten,
        "Parse URDF text (`name` appears in error messages).");
  m.def("to_urdf", &to_urdf, py::arg("model"), "The model as URDF text.");

  py::class_<LinkWrench>(m, "LinkWrench", "External wrench on a link, in W: force f_W [N], moment n_W [N m].")
      .def(py::init<>())
      .def_readwrite("f_W", &LinkWrench::f_W)
      .def_readwrite("n_W", &LinkWrench::n_W);

  py::class_<Data>(m, "Data", "Scratch and outputs of the recursive algorithms: Data(model).")
      .def(py::init<const Model&>(), py::arg("model"))
      .def_readonly("tau", &Data::tau)
      .def_readonly("M", &Data::M)
      .def_readonly("ddq", &Data::ddq)
      .def_readonly("J_com", &Data::J_com)
      .def_readonly("p_com", &Data::p_com);
  using V = Eigen::VectorXd;
  using Fext = std::vector<LinkWrench>;
  m.def("forward_kinematics", &forward_kinematics, py::arg("model"), py::arg("data"), py::arg("q"), "Link poses into data.");
  m.def("rnea", [](const Model& mo, Data& d, const V& q, const V& v, const V& a, const Fext& f) { return V(rnea(mo, d, q, v, a, f)); },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("a"), py::arg("fext") = Fext{},
        "Inverse dynamics tau = M(q) a + b(q, v) (RNEA) [N m | N].");
  m.def("nonlinear_effects", [](const Model& mo, Data& d, const V& q, const V& v, const Fext& f) { return V(nonlinear_effects(mo, d, q, v, f)); },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("fext") = Fext{}, "Bias b(q, v).");
  m.def("crba", [](const Model& mo, Data& d, const V& q) { return Eigen::MatrixXd(crba(mo, d, q)); },
        py::arg("model"), py::arg("data"), py::arg("q"), "Mass matrix M(q) (nv x nv) by CRBA.");
  m.def("aba", [](const Model& mo, Data& d, const V& q, const V& v, const V& tau, const Fext& f) { return V(aba(mo, d, q, v, tau, f)); },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("fext") = Fext{},
        "Forward dynamics q'' (ABA).");
  m.def("kinetic_energy", &kinetic_energy, py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), "1/2 v^T M v [J].");
  m.def("potential_energy", &potential_energy, py::arg("model"), py::arg("data"), py::arg("q"), "Gravitational energy [J].");
  m.def("center_of_mass", &center_of_mass, py::arg("model"), py::arg("data"), py::arg("q"), "COM in W [m].");
  m.def("jacobian_center_of_mass", [](const Model& mo, Data& d, const V& q) { return Eigen::MatrixXd(jacobian_center_of_mass(mo, d, q)); },
        py::arg("model"), py::arg("data"), py::arg("q"), "COM Jacobian (3 x nv).");
  m.def("momentum_world", &momentum_world, py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), "Spatial momentum in W (6).");
  m.def("normalize_configuration", [](const Model& mo, V q) { normalize_configuration(mo, q); return q; },
        py::arg("model"), py::arg("q"), "q with unit quaternions (returns a copy).");

  py::class_<BlockData>(m, "BlockData", "Scratch and outputs of the block-matrix equations: BlockData(model).")
      .def(py::init<const Model&>(), py::arg("model"))
      .def_readonly("A", &BlockData::A, "(nv x nv) mass matrix")
      .def_readonly("b", &BlockData::b, "(nv) bias")
      .def_readonly("tau", &BlockData::tau)
      .def_readonly("ddq", &BlockData::ddq);
  m.def("block_inverse_dynamics", [](const Model& mo, BlockData& bd, const V& q, const V& qd, const V& qdd, const Fext& f) {
          return V(block_inverse_dynamics(mo, bd, q, qd, qdd, f));
        }, py::arg("model"), py::arg("data"), py::arg("q"), py::arg("qd"), py::arg("qdd"), py::arg("fext") = Fext{},
        "Drive forces by the document's block-matrix recursion (24).");
  m.def("block_eom", [](const Model& mo, BlockData& bd, const V& q, const V& qd, const Fext& f) {
          block_eom(mo, bd, q, qd, f);
          return py::make_tuple(Eigen::MatrixXd(bd.A), V(bd.b));
        }, py::arg("model"), py::arg("data"), py::arg("q"), py::arg("qd"), py::arg("fext") = Fext{},
        "Block-matrix equations of motion: returns (A, b) with A q'' + b = tau.");
  m.def("block_forward_dynamics", [](const Model& mo, BlockData& bd, const V& q, const V& qd, const V& tau, const Fext& f) {
          return V(block_forward_dynamics(mo, bd, q, qd, tau, f));
        }, py::arg("model"), py::arg("data"), py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("fext") = Fext{},
        "q'' from the block-matrix equations.");
}
