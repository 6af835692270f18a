// Bindings of tendyn::tree (include/tendyn/tree/*.hpp): models, recursive algorithms, the
// document's block-matrix equations and the RK4 simulation driver. Outputs are returned as NumPy
// copies (simulation results: read-only views into the result object).
//
// Every q / v / a / tau argument goes through vec_arg: a 1-D array of the model's size, or
// tendyn.Error (a ValueError) naming the argument, the expected and the given shape.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/core/error.hpp>
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/block.hpp>
#include <tendyn/tree/data.hpp>
#include <tendyn/tree/model.hpp>
#include <tendyn/tree/model_io.hpp>
#include <tendyn/tree/simulate.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace tendyn::tree;

namespace {

using V = Eigen::VectorXd;
using Fext = std::vector<LinkWrench>;
using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::string shape_of(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t k = 0; k < a.ndim(); ++k) s += (k ? ", " : "") + std::to_string(a.shape(k));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

std::string type_name(const py::handle& x) { return py::str(py::type::handle_of(x).attr("__name__")).cast<std::string>(); }

// x as a vector of n numbers (size_name: "nq" or "nv"). Throws tendyn::Error (tendyn.Error, a
// ValueError) naming `what`, the expected shape (n,) and the given one.
V vec_arg(const py::handle& x, Eigen::Index n, const char* what, const char* size_name, const Model& m) {
  const std::string expected = "expected shape (" + std::to_string(n) + ",) (" + size_name + " = " +
                               std::to_string(n) + " of model '" + m.name + "')";
  if (x.is_none()) throw tendyn::Error(std::string(what) + ": " + expected + ", got None");
  DoubleArray a = DoubleArray::ensure(x);
  if (!a) throw tendyn::Error(std::string(what) + ": " + expected + ", got a " + type_name(x) + " (not numbers)");
  if (a.ndim() != 1 || a.shape(0) != n) throw tendyn::Error(std::string(what) + ": " + expected + ", got shape " + shape_of(a));
  return Eigen::Map<const V>(a.data(), n);
}
V q_arg(const py::handle& x, const Model& m, const char* what = "q") { return vec_arg(x, m.nq, what, "nq", m); }
V v_arg(const py::handle& x, const Model& m, const char* what = "v") { return vec_arg(x, m.nv, what, "nv", m); }

// A Data / BlockData made for another model would be read out of bounds.
void check_data(const Model& m, const Data& d) {
  if (static_cast<int>(d.X_PL.size()) != m.nlinks() || d.tau.size() != m.nv)
    throw tendyn::Error("tree: data was made for another model (it has " + std::to_string(d.X_PL.size()) +
                        " links, nv = " + std::to_string(d.tau.size()) + "; model '" + m.name + "' has " +
                        std::to_string(m.nlinks()) + " links, nv = " + std::to_string(m.nv) + ")");
}
void check_data(const Model& m, const BlockData& d) {
  check_data(m, d.fk);
  if (d.b.size() != m.nv) throw tendyn::Error("tree: block data was made for another model");
}

std::string fmt(double x) {
  std::ostringstream os;
  os.precision(6);
  os << x;
  return os.str();
}
std::string fmt(const Eigen::Vector3d& x) { return "[" + fmt(x[0]) + ", " + fmt(x[1]) + ", " + fmt(x[2]) + "]"; }

// A Python torque callable(t, q, v) -> tau (nv). Called from the simulation thread with the GIL
// released: takes the GIL for the call only. Exceptions propagate out of simulate unchanged.
struct PyTorque {
  const py::object* fn;
  const Model* model;
  void operator()(double t, const V& q, const V& v, V& tau) const {
    py::gil_scoped_acquire gil;
    py::object r = (*fn)(t, py::array_t<double>(q.size(), q.data()), py::array_t<double>(v.size(), v.data()));
    const std::string expected = "expected shape (" + std::to_string(model->nv) + ",) (nv of model '" + model->name + "')";
    if (r.is_none()) throw tendyn::Error("tree.simulate: the torque callback returned None, " + expected);
    DoubleArray a = DoubleArray::ensure(r);
    if (!a) throw tendyn::Error("tree.simulate: the torque callback returned a " + type_name(r) + ", " + expected);
    const bool scalar_ok = a.ndim() == 0 && model->nv == 1;
    if (!scalar_ok && (a.ndim() != 1 || a.shape(0) != model->nv))
      throw tendyn::Error("tree.simulate: the torque callback returned shape " + shape_of(a) + ", " + expected);
    std::copy(a.data(), a.data() + model->nv, tau.data());
  }
};

}  // namespace

void bind_tree(py::module_& m) {
  py::enum_<JointType>(m, "JointType", "Joint type: Fixed (0 dof), Revolute, Prismatic (1 dof), Free (nq 7, nv 6).")
      .value("Fixed", JointType::Fixed).value("Revolute", JointType::Revolute)
      .value("Prismatic", JointType::Prismatic).value("Free", JointType::Free);
  py::enum_<BaseMode>(m, "BaseMode", "Base treatment when loading: as written, fictitious 6-joint chain, or free joint.")
      .value("AsWritten", BaseMode::AsWritten).value("Fictitious", BaseMode::Fictitious).value("Free", BaseMode::Free);

  py::class_<Joint>(m, "Joint", "A joint: type, axis, placement in the parent link frame, coordinate indices.")
      .def_readonly("name", &Joint::name, "Joint name.")
      .def_readonly("type", &Joint::type, "JointType.")
      .def_readonly("axis", &Joint::axis, "(3) unit axis in the joint frame [-].")
      .def_readonly("R_PJ", &Joint::R_PJ, "(3 x 3) rotation of the joint frame in the parent link frame [-].")
      .def_readonly("p_PJ", &Joint::p_PJ, "(3) joint frame origin in the parent link frame [m].")
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
      .def_readonly("mass", &Link::mass, "Mass [kg].")
      .def_readonly("com", &Link::com, "(3) centre of mass p_LC in the link frame [m].")
      .def_readonly("inertia", &Link::inertia, "(3 x 3) rotational inertia about the COM, link axes [kg m^2].")
      .def("__repr__", [](const Link& l) { return "Link(name='" + l.name + "', mass=" + fmt(l.mass) + ", com=" + fmt(l.com) + ")"; });
  py::class_<Model>(m, "Model", "A tree-structured robot (links, joints, parents, reachability matrix D). Immutable except gravity.")
      .def_readonly("name", &Model::name, "Model name.")
      .def_readonly("links", &Model::links, "(nlinks) Link, parent before child.")
      .def_readonly("joints", &Model::joints, "(nlinks) Joint i attaches link i to parent[i].")
      .def_readonly("parent", &Model::parent, "(nlinks) parent link index, -1 for the world.")
      .def_readonly("reachability", &Model::reachability, "(nlinks x nlinks) D: d_ij = 1 iff link j is link i or an ancestor of it.")
      .def_property(
          "gravity", [](const Model& mo) { return Eigen::Vector3d(mo.gravity); },
          [](Model& mo, const py::object& g) {
            DoubleArray a = DoubleArray::ensure(g);
            if (!a || a.ndim() != 1 || a.shape(0) != 3)
              throw tendyn::Error("Model.gravity: expected shape (3,), got " + (a ? "shape " + shape_of(a) : "a " + type_name(g)));
            mo.gravity = Eigen::Map<const Eigen::Vector3d>(a.data());
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
  m.def("convert_base", &convert_base, py::arg("model"), py::arg("mode"), "The model with its floating base converted to `mode`.");
  m.def("load_model", &load_model, py::arg("path"), py::arg("mode") = BaseMode::AsWritten, "Load a YAML or URDF model (by extension).");
  m.def("load_model_yaml", &load_model_yaml, py::arg("file"), py::arg("mode") = BaseMode::AsWritten, "Load a tendyn tree YAML file.");
  m.def("model_from_yaml_string", &model_from_yaml_string, py::arg("text"), py::arg("name"), py::arg("mode") = BaseMode::AsWritten,
        "Parse a tree YAML model from a string (`name` appears in error messages).");
  m.def("load_urdf", &load_urdf, py::arg("file"), py::arg("mode") = BaseMode::AsWritten, "Load a URDF file.");
  m.def("urdf_from_string", &urdf_from_string, py::arg("text"), py::arg("name"), py::arg("mode") = BaseMode::AsWritten,
        "Parse URDF text (`name` appears in error messages).");
  m.def("to_urdf", &to_urdf, py::arg("model"), "The model as URDF text.");

  py::class_<LinkWrench>(m, "LinkWrench", "External wrench on a link, world coordinates: force f_W [N] at the link's COM and a couple n_W [N m].")
      .def(py::init([](const Eigen::Vector3d& f_W, const Eigen::Vector3d& n_W) { return LinkWrench{f_W, n_W}; }),
           py::kw_only(), py::arg("f_W") = Eigen::Vector3d::Zero().eval(), py::arg("n_W") = Eigen::Vector3d::Zero().eval(),
           "LinkWrench(f_W=(0, 0, 0), n_W=(0, 0, 0)): force [N], couple [N m], both (3) in W.")
      .def_readwrite("f_W", &LinkWrench::f_W, "(3) force at the link's COM, world frame [N].")
      .def_readwrite("n_W", &LinkWrench::n_W, "(3) couple, world frame [N m].")
      .def("__repr__", [](const LinkWrench& w) { return "LinkWrench(f_W=" + fmt(w.f_W) + ", n_W=" + fmt(w.n_W) + ")"; });

  py::class_<Data>(m, "Data", "Scratch and outputs of the recursive algorithms, sized once for one model: Data(model).")
      .def(py::init<const Model&>(), py::arg("model"))
      .def_readonly("tau", &Data::tau, "(nv) last RNEA / nonlinear_effects output [N m | N].")
      .def_readonly("M", &Data::M, "(nv x nv) last CRBA mass matrix [kg m^2 | kg | kg m].")
      .def_readonly("ddq", &Data::ddq, "(nv) last ABA output [rad/s^2 | m/s^2].")
      .def_readonly("J_com", &Data::J_com, "(3 x nv) last centre-of-mass Jacobian [m/rad | -].")
      .def_readonly("p_com", &Data::p_com, "(3) last centre of mass in W [m].")
      .def("__repr__", [](const Data& d) {
        return "Data(nlinks=" + std::to_string(d.X_PL.size()) + ", nv=" + std::to_string(d.tau.size()) + ")";
      });

  m.def("forward_kinematics", [](const Model& mo, Data& d, const py::object& q) { check_data(mo, d); forward_kinematics(mo, d, q_arg(q, mo)); },
        py::arg("model"), py::arg("data"), py::arg("q"), "Link poses for q (nq) into data.");
  m.def("rnea", [](const Model& mo, Data& d, const py::object& q, const py::object& v, const py::object& a, const Fext& f) {
          check_data(mo, d);
          return V(rnea(mo, d, q_arg(q, mo), v_arg(v, mo), v_arg(a, mo, "a"), f));
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("a"), py::arg("fext") = Fext{},
        "Inverse dynamics tau = M(q) a + b(q, v) - J^T fext (RNEA): q (nq), v (nv) [rad/s | m/s], a (nv) "
        "[rad/s^2 | m/s^2], fext (nlinks LinkWrench or empty) -> tau (nv) [N m | N].");
  m.def("nonlinear_effects", [](const Model& mo, Data& d, const py::object& q, const py::object& v, const Fext& f) {
          check_data(mo, d);
          return V(nonlinear_effects(mo, d, q_arg(q, mo), v_arg(v, mo), f));
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("fext") = Fext{},
        "Bias b(q, v) = C(q, v) v + g(q) - J^T fext (nv) [N m | N].");
  m.def("crba", [](const Model& mo, Data& d, const py::object& q) { check_data(mo, d); return Eigen::MatrixXd(crba(mo, d, q_arg(q, mo))); },
        py::arg("model"), py::arg("data"), py::arg("q"), "Mass matrix M(q) (nv x nv) by CRBA.");
  m.def("aba", [](const Model& mo, Data& d, const py::object& q, const py::object& v, const py::object& tau, const Fext& f) {
          check_data(mo, d);
          return V(aba(mo, d, q_arg(q, mo), v_arg(v, mo), v_arg(tau, mo, "tau"), f));
        },
        py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("fext") = Fext{},
        "Forward dynamics (ABA): q (nq), v (nv), tau (nv) [N m | N] -> q'' (nv) [rad/s^2 | m/s^2].");
  m.def("kinetic_energy", [](const Model& mo, Data& d, const py::object& q, const py::object& v) {
          check_data(mo, d);
          return kinetic_energy(mo, d, q_arg(q, mo), v_arg(v, mo));
        }, py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), "Kinetic energy 1/2 v^T M v [J].");
  m.def("potential_energy", [](const Model& mo, Data& d, const py::object& q) { check_data(mo, d); return potential_energy(mo, d, q_arg(q, mo)); },
        py::arg("model"), py::arg("data"), py::arg("q"), "Gravitational potential energy -sum m_i g . p_WC_i [J].");
  m.def("center_of_mass", [](const Model& mo, Data& d, const py::object& q) { check_data(mo, d); return center_of_mass(mo, d, q_arg(q, mo)); },
        py::arg("model"), py::arg("data"), py::arg("q"), "Centre of mass (3) in W [m].");
  m.def("jacobian_center_of_mass", [](const Model& mo, Data& d, const py::object& q) {
          check_data(mo, d);
          return Eigen::MatrixXd(jacobian_center_of_mass(mo, d, q_arg(q, mo)));
        }, py::arg("model"), py::arg("data"), py::arg("q"), "COM Jacobian (3 x nv): dp_WCoM/dt = J_com v.");
  m.def("momentum_world", [](const Model& mo, Data& d, const py::object& q, const py::object& v) {
          check_data(mo, d);
          return Vector6d(momentum_world(mo, d, q_arg(q, mo), v_arg(v, mo)));
        }, py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"),
        "Momentum about the world origin (6): angular L_O [N m s], then linear P [N s], world coordinates.");
  m.def("normalize_configuration", [](const Model& mo, const py::object& q) { V x = q_arg(q, mo); normalize_configuration(mo, x); return x; },
        py::arg("model"), py::arg("q"), "q (nq) with unit quaternions (returns a copy).");

  py::class_<BlockData>(m, "BlockData", "Scratch and outputs of the block-matrix equations: BlockData(model) (no free joints).")
      .def(py::init<const Model&>(), py::arg("model"))
      .def_readonly("A", &BlockData::A, "(nv x nv) mass matrix")
      .def_readonly("b", &BlockData::b, "(nv) bias [N m | N]")
      .def_readonly("tau", &BlockData::tau, "(nv) last block_inverse_dynamics output [N m | N]")
      .def_readonly("ddq", &BlockData::ddq, "(nv) last block_forward_dynamics output [rad/s^2 | m/s^2]")
      .def("__repr__", [](const BlockData& d) { return "BlockData(nv=" + std::to_string(d.b.size()) + ")"; });
  m.def("block_inverse_dynamics", [](const Model& mo, BlockData& bd, const py::object& q, const py::object& qd, const py::object& qdd, const Fext& f) {
          check_data(mo, bd);
          return V(block_inverse_dynamics(mo, bd, q_arg(q, mo), v_arg(qd, mo, "qd"), v_arg(qdd, mo, "qdd"), f));
        }, py::arg("model"), py::arg("data"), py::arg("q"), py::arg("qd"), py::arg("qdd"), py::arg("fext") = Fext{},
        "Drive forces tau (nv) [N m | N] by the document's block-matrix recursion (24).");
  m.def("block_eom", [](const Model& mo, BlockData& bd, const py::object& q, const py::object& qd, const Fext& f) {
          check_data(mo, bd);
          block_eom(mo, bd, q_arg(q, mo), v_arg(qd, mo, "qd"), f);
          return py::make_tuple(Eigen::MatrixXd(bd.A), V(bd.b));
        }, py::arg("model"), py::arg("data"), py::arg("q"), py::arg("qd"), py::arg("fext") = Fext{},
        "Block-matrix equations of motion: returns (A (nv x nv), b (nv)) with A q'' + b = tau.");
  m.def("block_forward_dynamics", [](const Model& mo, BlockData& bd, const py::object& q, const py::object& qd, const py::object& tau, const Fext& f) {
          check_data(mo, bd);
          return V(block_forward_dynamics(mo, bd, q_arg(q, mo), v_arg(qd, mo, "qd"), v_arg(tau, mo, "tau"), f));
        }, py::arg("model"), py::arg("data"), py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("fext") = Fext{},
        "q'' (nv) [rad/s^2 | m/s^2] from the block-matrix equations.");

  // ---- simulation (tree/simulate.hpp)
  py::class_<TorqueSchedule>(m, "TorqueSchedule",
                             "Piecewise-linear joint-torque table: rows (t [s], tau (nv) [N m | N]), strictly increasing t; "
                             "constant before the first and after the last row.")
      .def(py::init([](std::vector<double> t_s, const Eigen::MatrixXd& tau) {
             if (static_cast<Eigen::Index>(t_s.size()) != tau.rows())
               throw tendyn::Error("TorqueSchedule: t_s has " + std::to_string(t_s.size()) + " times but tau has " +
                                   std::to_string(tau.rows()) + " rows");
             std::vector<V> rows;
             for (Eigen::Index r = 0; r < tau.rows(); ++r) rows.emplace_back(tau.row(r).transpose());
             return TorqueSchedule(std::move(t_s), std::move(rows));
           }),
           py::kw_only(), py::arg("t_s"), py::arg("tau"),
           "TorqueSchedule(t_s=[...] (rows) [s], tau=(rows x nv) array [N m | N]); tendyn.Error if t_s does not increase.")
      .def_static("load_csv", &TorqueSchedule::load_csv, py::arg("file"), py::arg("nv"),
                  "Read a CSV schedule: optional header, rows t,tau_1..tau_nv (the format of `tendyn tree simulate --torque`).")
      .def("eval", [](const TorqueSchedule& s, double t) { V out = V::Zero(s.width()); s.eval(t, out); return out; },
           py::arg("t_s"), "tau(t) (nv) [N m | N], linear interpolation.")
      .def_property_readonly("t_s", &TorqueSchedule::times_s, "(rows) times [s].")
      .def_property_readonly("tau", [](const TorqueSchedule& s) {
        Eigen::MatrixXd M(static_cast<Eigen::Index>(s.rows()), s.width());
        for (std::size_t r = 0; r < s.rows(); ++r) M.row(static_cast<Eigen::Index>(r)) = s.torques()[r].transpose();
        return M;
      }, "(rows x nv) torques [N m | N].")
      .def("__len__", &TorqueSchedule::rows)
      .def("__repr__", [](const TorqueSchedule& s) {
        std::string r = "TorqueSchedule(rows=" + std::to_string(s.rows()) + ", nv=" + std::to_string(s.width());
        if (!s.empty()) r += ", t_s=[" + fmt(s.times_s().front()) + " .. " + fmt(s.times_s().back()) + "]";
        return r + ")";
      });

  py::class_<SimulationResult>(m, "SimulationResult",
                               "Samples of tree.simulate, one row per output time (read-only NumPy arrays).")
      .def_readonly("t_s", &SimulationResult::t_s, "(n) sample times [s].")
      .def_readonly("q", &SimulationResult::q,
                    "(n x nq) joint positions [rad | m; free joint: position [m], unit quaternion w,x,y,z].")
      .def_readonly("v", &SimulationResult::v,
                    "(n x nv) joint velocities [rad/s | m/s; free joint: body angular velocity [rad/s], velocity [m/s]].")
      .def_readonly("tau", &SimulationResult::tau, "(n x nv) joint torques at each sample, torque(t, q, v) [N m | N].")
      .def_readonly("energy_J", &SimulationResult::energy_J, "(n) kinetic + gravitational potential energy [J].")
      .def_readonly("steps", &SimulationResult::steps, "RK4 steps taken.")
      .def_readonly("dt_s", &SimulationResult::dt_s, "Step [s].")
      .def_readonly("output_stride", &SimulationResult::output_stride, "A sample every output_stride steps (and the last step).")
      .def("__len__", [](const SimulationResult& r) { return r.t_s.size(); })
      .def("__repr__", [](const SimulationResult& r) {
        return "SimulationResult(samples=" + std::to_string(r.t_s.size()) + ", steps=" + std::to_string(r.steps) +
               ", dt_s=" + fmt(r.dt_s) + ", t_end_s=" + fmt(r.t_s.size() ? r.t_s[r.t_s.size() - 1] : 0.0) +
               ", nq=" + std::to_string(r.q.cols()) + ", nv=" + std::to_string(r.v.cols()) + ")";
      });

  m.def("simulate",
        [](const Model& model, const py::object& q0, const py::object& v0, double duration_s, double dt_s,
           const py::object& torque, double output_interval_s) {
          const V q = q0.is_none() ? model.neutral() : q_arg(q0, model, "q0");
          const V v = v0.is_none() ? V(V::Zero(model.nv)) : v_arg(v0, model, "v0");
          SimulationOptions o;
          o.duration_s = duration_s;
          o.dt_s = dt_s;
          o.output_interval_s = output_interval_s;
          TorqueFn fn;  // built and destroyed with the GIL held
          const TorqueSchedule* sched = nullptr;
          if (!torque.is_none()) {
            if (py::isinstance<TorqueSchedule>(torque)) {
              sched = &torque.cast<const TorqueSchedule&>();
              if (!sched->empty() && sched->width() != model.nv)
                throw tendyn::Error("tree.simulate: the torque schedule has " + std::to_string(sched->width()) +
                                    " torques per row, model '" + model.name + "' needs nv = " + std::to_string(model.nv));
              fn = [sched](double t, const V&, const V&, V& tau) { sched->eval(t, tau); };
            } else if (PyCallable_Check(torque.ptr())) {
              fn = PyTorque{&torque, &model};
            } else {
              throw py::type_error("tree.simulate: torque must be None, a TorqueSchedule or a callable(t, q, v) -> tau, got a " +
                                   type_name(torque));
            }
          }
          py::gil_scoped_release nogil;
          return simulate(model, o, q, v, fn);
        },
        py::arg("model"), py::arg("q0") = py::none(), py::arg("v0") = py::none(), py::kw_only(),
        py::arg("duration_s") = 1.0, py::arg("dt_s") = 1e-3, py::arg("torque") = py::none(),
        py::arg("output_interval_s") = 0.0,
        R"doc(Simulate the model with RK4 (ABA accelerations) and return a SimulationResult.

- q0: (nq) initial positions (default model.neutral(); free-joint quaternions are normalised),
  v0: (nv) initial velocities (default zero).
- duration_s [s] >= 0: round(duration_s / dt_s) steps of dt_s [s] > 0 (a positive duration shorter
  than dt_s / 2 is an error). output_interval_s [s]: <= 0 records every step, otherwise a whole
  multiple of dt_s. t = 0 and the final step are always recorded.
- torque: None (zero), a TorqueSchedule (nv torques per row), or a callable(t, q, v) -> tau
  returning nv numbers [N m | N]. The callable gets NumPy copies of q (nq) and v (nv); it is
  called at every RK4 stage (4 times per step) and once per sample, so it should depend only on
  its arguments. Its exceptions propagate; a wrong length raises tendyn.Error (a ValueError).
- The GIL is released while simulating (taken back only to call a Python torque callable).
Errors: tendyn.Error on bad options or shapes, tendyn.SimulationError (with .time) when the torque
or the state becomes non-finite.)doc");
}
