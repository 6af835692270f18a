// Bindings of include/tendyn/tree/identify.hpp: the joint-torque regressor, base parameters,
// motion logs and the least-squares identification of the inertial parameters; plus
// tendyn.tree.identify(model, data, ...) (a MotionLog or a CSV path) and tendyn.tree.regressor.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <tendyn/core/error.hpp>
#include <tendyn/tree/identify.hpp>

#include "tree/expose.hpp"

#include <filesystem>
#include <string>

namespace tendyn::python::tree_bind {

void expose_identify(py::module_& m) {
  m.attr("kInertialParametersPerLink") = kInertialParametersPerLink;
  m.def("inertial_parameters", &inertial_parameters, py::arg("model"),
        "pi (10 nlinks): per link m [kg], m c (3) [kg m], inertia about the link origin Ixx, Ixy, Ixz, Iyy, Iyz, Izz "
        "[kg m^2] (link axes).");
  m.def("inertial_parameter_names", &inertial_parameter_names, py::arg("model"),
        "Names of the 10 nlinks parameters, e.g. 'trunk.m_kg', 'trunk.mcx_kgm', 'trunk.Ixx_kgm2'.");
  m.def("with_inertial_parameters", &with_inertial_parameters, py::arg("model"), py::arg("pi"),
        "A copy of the model with the links' mass properties from pi; tendyn.Error when pi is not physically consistent.");
  m.def(
      "joint_torque_regressor",
      [](const Model& model, Data& data, const py::object& q, const py::object& v, const py::object& a) {
        check_data(model, data);
        return joint_torque_regressor(model, data, q_arg(q, model), v_arg(v, model), v_arg(a, model, "a"));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("a"),
      "Y (nv x 10 nlinks) with tau = Y pi = rnea(q, v, a) for the model's pi (no external forces).");
  m.def(
      "regressor",
      [](const Model& model, const py::object& q, const py::object& v, const py::object& a) {
        Data data(model);
        return joint_torque_regressor(model, data, q_arg(q, model), v_arg(v, model), v_arg(a, model, "a"));
      },
      py::arg("model"), py::arg("q"), py::arg("v"), py::arg("a"),
      "joint_torque_regressor with its own Data: Y (nv x 10 nlinks), tau = Y pi.");

  py::class_<BaseParameterOptions> bo(m, "BaseParameterOptions", "How base_parameters stacks random states.");
  bo.def_readwrite("samples", &BaseParameterOptions::samples, "random states stacked")
      .def_readwrite("seed", &BaseParameterOptions::seed, "generator seed")
      .def_readwrite("tolerance", &BaseParameterOptions::tolerance, "|R_kk| <= tolerance |R_00| ends the rank (dimensionless)");
  def_kw_init(bo);
  py::class_<BaseParameters>(m, "BaseParameters",
                             "Identifiable combinations beta = K pi of the standard parameters (QR with column pivoting).")
      .def_readonly("rank", &BaseParameters::rank, "number of base parameters r")
      .def_readonly("nparam", &BaseParameters::nparam, "10 nlinks")
      .def_readonly("independent", &BaseParameters::independent, "(r) standard-parameter index of each base parameter")
      .def_readonly("dependent", &BaseParameters::dependent, "the other parameter indices")
      .def_readonly("K", &BaseParameters::K, "(r x nparam) beta = K pi")
      .def_readonly("names", &BaseParameters::names, "(r) readable combinations")
      .def("base", &BaseParameters::base, py::arg("pi"), "beta = K pi (r).")
      .def("__repr__", [](const BaseParameters& b) {
        return "BaseParameters(rank=" + std::to_string(b.rank) + ", nparam=" + std::to_string(b.nparam) + ")";
      });
  m.def("base_parameters", &base_parameters, py::arg("model"), py::arg("options") = BaseParameterOptions{},
        "Base parameters of the model from its regressor stacked over random states.");

  py::class_<MotionLog> ml(m, "MotionLog", "Joint-torque and motion log: N samples (rows).");
  ml.def_readwrite("t_s", &MotionLog::t_s, "(N) sample times [s]")
      .def_readwrite("q", &MotionLog::q, "(N x nq) joint positions [rad | m]")
      .def_readwrite("v", &MotionLog::v, "(N x nv) joint velocities [rad/s | m/s]")
      .def_readwrite("a", &MotionLog::a, "(N x nv) joint accelerations [rad/s^2 | m/s^2]")
      .def_readwrite("tau", &MotionLog::tau, "(N x nv) measured torques [N m | N]")
      .def_readonly("places", &MotionLog::places, "(N) 'path:line' of each sample (empty when built in code)")
      .def("__len__", &MotionLog::nsample);
  def_kw_init(ml, false);
  ml.def("__repr__", [](const MotionLog& l) {
    return "MotionLog(samples=" + std::to_string(l.nsample()) + ", nq=" + std::to_string(l.q.cols()) +
           ", nv=" + std::to_string(l.v.cols()) + ")";
  });
  m.def("read_motion_log", &read_motion_log, py::arg("path"), py::arg("model"), py::arg("half_width") = 1,
        "Read a motion-log CSV (docs/TREE.md, Identification); missing v / a are differentiated (local quadratic fit, "
        "window 2 half_width + 1).");
  m.def("motion_log_header", &motion_log_header, py::arg("model"), "CSV header of a motion log for the model.");

  py::enum_<Weighting>(m, "Weighting", "Row weighting of the identification.")
      .value("kNone", Weighting::kNone)
      .value("kJoint", Weighting::kJoint);
  m.def("weighting_from_string", &weighting_from_string, py::arg("name"), "Weighting from 'none' or 'joint'.");
  m.def("to_string", py::overload_cast<Weighting>(&to_string), py::arg("weighting"), "'none' or 'joint'.");

  py::class_<IdentifyOptions> io_(m, "IdentifyOptions", "Options of identify_inertial_parameters.");
  io_.def_readwrite("weighting", &IdentifyOptions::weighting, "Weighting.kNone or kJoint")
      .def_readwrite("base", &IdentifyOptions::base, "BaseParameterOptions")
      .def_readwrite("max_condition", &IdentifyOptions::max_condition, "largest accepted condition number (dimensionless)");
  def_kw_init(io_);
  py::class_<Identification>(m, "Identification", "Identified base parameters, covariance and residuals.")
      .def_readonly("base", &Identification::base)
      .def_readonly("beta", &Identification::beta, "(r) identified base parameters")
      .def_readonly("beta_std", &Identification::beta_std, "(r) standard deviations")
      .def_readonly("beta_cov", &Identification::beta_cov, "(r x r) covariance")
      .def_readonly("beta_nominal", &Identification::beta_nominal, "(r) K pi of the nominal model")
      .def_readonly("pi", &Identification::pi, "(10 nlinks) standard parameters closest to the nominal with K pi = beta")
      .def_readonly("physically_consistent", &Identification::physically_consistent)
      .def_readonly("consistency_note", &Identification::consistency_note)
      .def_readonly("residual", &Identification::residual, "(N x nv) measured - fitted torques [N m | N]")
      .def_readonly("rms_joint", &Identification::rms_joint, "(nv) residual rms per coordinate")
      .def_readonly("joint_weight", &Identification::joint_weight, "(nv) row weights used")
      .def_readonly("rms_total", &Identification::rms_total)
      .def_readonly("sigma", &Identification::sigma)
      .def_readonly("condition_number", &Identification::condition_number)
      .def_readonly("nsample", &Identification::nsample)
      .def_readonly("nrow", &Identification::nrow)
      .def("__repr__", [](const Identification& i) {
        return "Identification(rank=" + std::to_string(i.base.rank) + ", samples=" + std::to_string(i.nsample) +
               ", rms_total=" + fmt(i.rms_total) + ", condition_number=" + fmt(i.condition_number) + ")";
      });
  m.def("identify_inertial_parameters", &identify_inertial_parameters, py::arg("model"), py::arg("log"),
        py::arg("options") = IdentifyOptions{}, py::call_guard<py::gil_scoped_release>(),
        "Least-squares identification of the base parameters from a MotionLog.");
  m.def(
      "identify",
      [](const Model& model, const py::object& data, const std::string& weighting, int smooth) {
        IdentifyOptions o;
        o.weighting = weighting_from_string(weighting);
        MotionLog log;
        if (py::isinstance<MotionLog>(data))
          log = data.cast<MotionLog>();
        else
          log = read_motion_log(data.cast<std::filesystem::path>().string(), model, smooth);
        py::gil_scoped_release nogil;
        return identify_inertial_parameters(model, log, o);
      },
      py::arg("model"), py::arg("data"), py::kw_only(), py::arg("weighting") = "none", py::arg("smooth") = 1,
      R"doc(Identify the model's inertial (base) parameters from joint torques and motion.

data: a MotionLog or the path of a motion-log CSV (columns t_s, q:..., optional v:... and a:...,
tau:...; docs/TREE.md "Identification"); smooth: half width of the differentiation window when
v or a are missing; weighting: 'none' or 'joint'. Returns an Identification.)doc");
}

}  // namespace tendyn::python::tree_bind
