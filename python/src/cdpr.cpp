// Bindings of tendyn::cdpr (include/tendyn/cdpr/*.hpp): geometry, model files, tension solvers,
// the tension problem (assembly at a pose, trajectories: the functions `tendyn tension` calls),
// document 002's two-stage printer experiment (`tendyn cdpr-experiment`: start states, scores,
// the pretension sweep).
// Every field's docstring gives its unit; option structs take keyword constructors
// (SolverOptions(f_min_N=1)) and print as Name(field=value, ...) (the fields off their defaults).
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/control.hpp>
#include <tendyn/cdpr/dynamics.hpp>
#include <tendyn/cdpr/experiment.hpp>
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/cdpr/tension_problem.hpp>

#include "bind_util.hpp"

#include <limits>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace tendyn::cdpr;
using tendyn::python::def_kw_init;

namespace {
std::string num(double v) { return py::repr(py::float_(v)).cast<std::string>(); }

void bind_cdpr_experiment(py::module_& m) {
  py::class_<DynamicModel>(m, "DynamicModel", "CDPR dynamics model (platform, cable elasticity, winches, carriages).")
      .def("ncable", &DynamicModel::ncable, "Number of cables n.")
      .def_readonly("geometry", &DynamicModel::geometry, "The geometric model");
  m.def("make_printer_dynamics", &make_printer_dynamics, py::arg("geometry"), py::arg("load_mass_kg") = 50.0,
        "Document 002's printer dynamics from a geometry (printer8.yaml) and an extruder load [kg].");
  py::enum_<LowerProfile>(m, "LowerProfile", "Source of the optimal lower-group profile (control.hpp).")
      .value("kFull", LowerProfile::kFull)
      .value("kSystem4", LowerProfile::kSystem4);
  m.def("lower_profile_from_string", &lower_profile_from_string, py::arg("name"), "'full' or 'system4' (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<LowerProfile>(&to_string), py::arg("profile"), "'full' or 'system4'.");
  py::class_<ControllerConfig> cc(m, "ControllerConfig", "The printer controller's gains and options (control.hpp).");
  cc.def_readwrite("kp_pos_Npm", &ControllerConfig::kp_pos_Npm, "position stiffness [N/m]")
      .def_readwrite("kd_pos_Nspm", &ControllerConfig::kd_pos_Nspm, "position damping [N s/m]")
      .def_readwrite("kp_rot_Nmprad", &ControllerConfig::kp_rot_Nmprad, "orientation stiffness [N m/rad]")
      .def_readwrite("kd_rot_Nmsprad", &ControllerConfig::kd_rot_Nmsprad, "orientation damping [N m s/rad]")
      .def_readwrite("tau_tension_s", &ControllerConfig::tau_tension_s, "tension regulator time constant [s]")
      .def_readwrite("tau_filter_s", &ControllerConfig::tau_filter_s, "low-pass of its readings [s] (0 = off)")
      .def_readwrite("f_min_N", &ControllerConfig::f_min_N, "lower tension bound of the full solve [N]")
      .def_readwrite("f_max_N", &ControllerConfig::f_max_N, "upper tension bound [N]")
      .def_readwrite("method", &ControllerConfig::method, "solver of the full 6 x n distribution")
      .def_readwrite("lower_profile", &ControllerConfig::lower_profile, "source of the optimal lower-group profile")
      .def_readwrite("lower_method", &ControllerConfig::lower_method, "solver of system (4) (lower_profile kSystem4)");
  def_kw_init(cc);
  py::class_<SensorConfig> sc(m, "SensorConfig", "Gaussian sensor noise (sigma = 0: exact), seeded.");
  sc.def_readwrite("force_sigma_N", &SensorConfig::force_sigma_N, "lower-cable force [N]")
      .def_readwrite("inclination_sigma_rad", &SensorConfig::inclination_sigma_rad, "lower-cable inclination [rad]")
      .def_readwrite("accel_sigma", &SensorConfig::accel_sigma, "accelerometer [m/s^2]")
      .def_readwrite("gyro_sigma", &SensorConfig::gyro_sigma, "gyro [rad/s]")
      .def_readwrite("position_sigma_m", &SensorConfig::position_sigma_m, "pose tracker position [m]")
      .def_readwrite("velocity_sigma_m_s", &SensorConfig::velocity_sigma_m_s, "pose tracker velocity [m/s]")
      .def_readwrite("seed", &SensorConfig::seed, "noise seed");
  def_kw_init(sc);
  m.def("typical_sensor_noise", &typical_sensor_noise, py::arg("seed"), "The noise levels of `tendyn cdpr-experiment --noise`.");
  py::class_<StageStart> st(m, "StageStart", "Start state of a stage's lower cables: factor of the optimum or tension [N].");
  py::enum_<StageStart::Kind>(st, "Kind").value("kFactor", StageStart::Kind::kFactor).value("kTension", StageStart::Kind::kTension);
  st.def_readwrite("kind", &StageStart::kind, "kFactor (value = factor [-]) or kTension (value [N])")
      .def_readwrite("value", &StageStart::value, "factor [-] or tension [N], >= 0");
  def_kw_init(st, false);
  st.def("__repr__", [](const StageStart& s) { return "StageStart('" + to_string(s) + "')"; });
  m.def("stage_start_from_string", &stage_start_from_string, py::arg("text"),
        "'optimal', 'x<factor>' (x1.8) or '<tension>N' (900N) -> StageStart (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<const StageStart&>(&to_string), py::arg("start"), "'x1.8' or '900N'.");
  py::class_<ExperimentConfig> ec(m, "ExperimentConfig", "Document 002's two-stage experiment (experiment.hpp).");
  ec.def_readwrite("speed_m_s", &ExperimentConfig::speed_m_s, "printing speed [m/s]")
      .def_readwrite("accel_m_s2", &ExperimentConfig::accel_m_s2, "acceleration at direction changes [m/s^2]")
      .def_readwrite("layer_z_m", &ExperimentConfig::layer_z_m, "height of P while printing [m]")
      .def_readwrite("carriage_offset_m", &ExperimentConfig::carriage_offset_m, "carriages' z offset [m]")
      .def_property("path", tendyn::python::copy_of(&ExperimentConfig::path), tendyn::python::assign_to(&ExperimentConfig::path),
                    "path corners (x, y) [m]; empty: the default layer")
      .def_readwrite("dt_s", &ExperimentConfig::dt_s, "RK4 step [s]")
      .def_readwrite("control_dt_s", &ExperimentConfig::control_dt_s, "controller period [s]")
      .def_readwrite("sample_dt_s", &ExperimentConfig::sample_dt_s, "sample period [s]")
      .def_readwrite("settle_s", &ExperimentConfig::settle_s, "hold at the first corner before moving [s]")
      .def_readwrite("start_without", &ExperimentConfig::start_without, "lower-cable start state of stage 1 (no tension control)")
      .def_readwrite("start_with", &ExperimentConfig::start_with, "lower-cable start state of stage 2 (tension control)")
      .def_readwrite("transient_s", &ExperimentConfig::transient_s, "start-up transient of the 'after' scores [s]")
      .def_readwrite("controller", &ExperimentConfig::controller, "controller options")
      .def_readwrite("sensors", &ExperimentConfig::sensors, "sensor noise");
  def_kw_init(ec, false);
  py::class_<StageResult>(m, "StageResult", "Scores of one stage (norms [N], errors [m], [rad]).")
      .def_readonly("tension_control", &StageResult::tension_control)
      .def_readonly("start", &StageResult::start)
      .def_readonly("transient_s", &StageResult::transient_s, "[s]")
      .def_readonly("worst_lower_norm_N", &StageResult::worst_lower_norm_N, "max_t |f_lower| [N]")
      .def_readonly("worst_opt_lower_norm_N", &StageResult::worst_opt_lower_norm_N, "max_t |f*_lower| [N]")
      .def_readonly("mean_lower_norm_N", &StageResult::mean_lower_norm_N, "[N]")
      .def_readonly("mean_opt_lower_norm_N", &StageResult::mean_opt_lower_norm_N, "[N]")
      .def_readonly("peak_lower_tension_N", &StageResult::peak_lower_tension_N, "[N]")
      .def_readonly("peak_opt_lower_tension_N", &StageResult::peak_opt_lower_tension_N, "[N]")
      .def_readonly("worst_lower_norm_after_N", &StageResult::worst_lower_norm_after_N, "t >= transient_s [N]")
      .def_readonly("worst_opt_lower_norm_after_N", &StageResult::worst_opt_lower_norm_after_N, "t >= transient_s [N]")
      .def_readonly("mean_lower_norm_after_N", &StageResult::mean_lower_norm_after_N, "t >= transient_s [N]")
      .def_readonly("peak_lower_tension_after_N", &StageResult::peak_lower_tension_after_N, "t >= transient_s [N]")
      .def_readonly("peak_opt_lower_tension_after_N", &StageResult::peak_opt_lower_tension_after_N, "t >= transient_s [N]")
      .def_readonly("max_pos_err_m", &StageResult::max_pos_err_m, "[m]")
      .def_readonly("rms_pos_err_m", &StageResult::rms_pos_err_m, "[m]")
      .def_readonly("max_rot_err_rad", &StageResult::max_rot_err_rad, "[rad]")
      .def_readonly("rms_rot_err_rad", &StageResult::rms_rot_err_rad, "[rad]")
      .def_property_readonly("t_s", [](const StageResult& r) {
        Eigen::VectorXd v(static_cast<Eigen::Index>(r.samples.size()));
        for (std::size_t i = 0; i < r.samples.size(); ++i) v[static_cast<Eigen::Index>(i)] = r.samples[i].t_s;
        return v; }, "(samples) sample times [s]")
      .def_property_readonly("lower_norm_N", [](const StageResult& r) {
        Eigen::VectorXd v(static_cast<Eigen::Index>(r.samples.size()));
        for (std::size_t i = 0; i < r.samples.size(); ++i) v[static_cast<Eigen::Index>(i)] = r.samples[i].lower_norm_N;
        return v; }, "(samples) |f_lower| [N]")
      .def_property_readonly("opt_lower_norm_N", [](const StageResult& r) {
        Eigen::VectorXd v(static_cast<Eigen::Index>(r.samples.size()));
        for (std::size_t i = 0; i < r.samples.size(); ++i) v[static_cast<Eigen::Index>(i)] = r.samples[i].opt_lower_norm_N;
        return v; }, "(samples) |f*_lower| [N]")
      .def_property_readonly("f_N", [](const StageResult& r) {
        const Eigen::Index n = r.samples.empty() ? 0 : r.samples[0].f_N.size();
        Eigen::MatrixXd v(static_cast<Eigen::Index>(r.samples.size()), n);
        for (std::size_t i = 0; i < r.samples.size(); ++i) v.row(static_cast<Eigen::Index>(i)) = r.samples[i].f_N.transpose();
        return v; }, "(samples x n) cable tensions [N]")
      .def_property_readonly("f_opt_N", [](const StageResult& r) {
        const Eigen::Index n = r.samples.empty() ? 0 : r.samples[0].f_opt_N.size();
        Eigen::MatrixXd v(static_cast<Eigen::Index>(r.samples.size()), n);
        for (std::size_t i = 0; i < r.samples.size(); ++i) v.row(static_cast<Eigen::Index>(i)) = r.samples[i].f_opt_N.transpose();
        return v; }, "(samples x n) optimal tension profile [N]");
  py::class_<StageComparison>(m, "StageComparison", "Controlled / uncontrolled ratios of the lower-group norm (experiment.hpp).")
      .def_readonly("transient_s", &StageComparison::transient_s, "[s]")
      .def_readonly("ratio_worst_norm", &StageComparison::ratio_worst_norm, "whole stage")
      .def_readonly("ratio_worst_norm_after", &StageComparison::ratio_worst_norm_after, "t >= transient_s")
      .def_readonly("ratio_mean_norm_after", &StageComparison::ratio_mean_norm_after, "t >= transient_s")
      .def_readonly("t_worst_s", &StageComparison::t_worst_s, "[s]")
      .def_readonly("ratio_at_worst", &StageComparison::ratio_at_worst, "same instant in both stages")
      .def_readonly("without_at_worst_N", &StageComparison::without_at_worst_N, "[N]")
      .def_readonly("with_at_worst_N", &StageComparison::with_at_worst_N, "[N]")
      .def_readonly("t_worst_after_s", &StageComparison::t_worst_after_s, "[s]")
      .def_readonly("ratio_at_worst_after", &StageComparison::ratio_at_worst_after, "t >= transient_s")
      .def_readonly("without_at_worst_after_N", &StageComparison::without_at_worst_after_N, "[N]")
      .def_readonly("with_at_worst_after_N", &StageComparison::with_at_worst_after_N, "[N]")
      .def_readonly("peak_over_opt_without", &StageComparison::peak_over_opt_without, "stage 1 peak / optimal peak")
      .def_readonly("peak_over_opt_without_after", &StageComparison::peak_over_opt_without_after, "t >= transient_s");
  py::class_<PretensionRow>(m, "PretensionRow", "One row of pretension_sweep.")
      .def_readonly("factor", &PretensionRow::factor)
      .def_readonly("cmp", &PretensionRow::cmp)
      .def_readonly("worst_without_N", &PretensionRow::worst_without_N, "[N]")
      .def_readonly("worst_with_N", &PretensionRow::worst_with_N, "[N]")
      .def_readonly("worst_without_after_N", &PretensionRow::worst_without_after_N, "[N]")
      .def_readonly("worst_with_after_N", &PretensionRow::worst_with_after_N, "[N]")
      .def_readonly("peak_without_N", &PretensionRow::peak_without_N, "[N]")
      .def_readonly("peak_opt_N", &PretensionRow::peak_opt_N, "[N]");
  m.def("run_stage", [](const DynamicModel& model, const ExperimentConfig& cfg, bool tension_control) {
          py::gil_scoped_release release;
          return run_stage(model, cfg, tension_control);
        }, py::arg("model"), py::arg("config"), py::arg("tension_control"),
        "One stage of the experiment (GIL released).");
  m.def("compare_stages", &compare_stages, py::arg("without"), py::arg("with_control"),
        "Controlled / uncontrolled ratios (whole stage, after the transient, at the worst configuration).");
  m.def("pretension_sweep", [](const DynamicModel& model, const ExperimentConfig& cfg, const std::vector<double>& f) {
          py::gil_scoped_release release;
          return pretension_sweep(model, cfg, f);
        }, py::arg("model"), py::arg("config"), py::arg("factors"),
        "Stage 2 once, stage 1 from each pretension factor of the optimum (GIL released).");
  m.def("pretension_sweep_csv", &pretension_sweep_csv, py::arg("rows"), "The pretension_sweep.csv text of the CLI.");
  m.def("stage_csv", &stage_csv, py::arg("model"), py::arg("stage"), "The stage CSV text of the CLI.");
}
}  // namespace

void bind_cdpr(py::module_& m) {
  py::enum_<Motion>(m, "Motion", "Spatial (6 wrench rows) or planar (3 rows) platform motion.")
      .value("kSpatial", Motion::kSpatial)
      .value("kPlanar", Motion::kPlanar);
  m.def("motion_from_string", &motion_from_string, py::arg("name"), "'spatial' or 'planar' -> Motion (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<Motion>(&to_string), py::arg("motion"), "'spatial' or 'planar'.");
  py::enum_<WrenchRow>(m, "WrenchRow", "A wrench row: fx fy fz mx my mz.")
      .value("kFx", WrenchRow::kFx).value("kFy", WrenchRow::kFy).value("kFz", WrenchRow::kFz)
      .value("kMx", WrenchRow::kMx).value("kMy", WrenchRow::kMy).value("kMz", WrenchRow::kMz);
  m.def("wrench_row_from_string", &wrench_row_from_string, py::arg("name"), "'fx' .. 'mz' -> WrenchRow (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<WrenchRow>(&to_string), py::arg("row"), "'fx' .. 'mz'.");

  py::class_<Model>(m, "Model", "A cable-driven parallel robot: anchors p_WA (3 x n), attachments p_PB (3 x n), bounds.")
      .def(py::init<>())
      .def_readwrite("name", &Model::name, "model name")
      .def_readwrite("motion", &Model::motion, "Motion: spatial (6 wrench rows) or planar (3)")
      .def_readwrite("p_WA", &Model::p_WA, "(3 x n) frame anchors in the world frame [m]; planar: z = 0")
      .def_readwrite("p_PB", &Model::p_PB, "(3 x n) attachment points in the platform frame [m]")
      .def_readwrite("cable_names", &Model::cable_names, "n cable names (default c1..cn)")
      .def_readwrite("cable_groups", &Model::cable_groups, "n group labels (e.g. 'upper', 'lower'; default '')")
      .def_readwrite("f_min_N", &Model::f_min_N, "lower tension bound [N] (>= 0)")
      .def_readwrite("f_max_N", &Model::f_max_N, "upper tension bound [N] (> f_min_N; inf = none)")
      .def_readwrite("platform_mass_kg", &Model::platform_mass_kg, "platform mass [kg] (for the gravity wrench; may be 0)")
      .def_readwrite("p_PC", &Model::p_PC, "(3) platform centre of mass in the platform frame [m]")
      .def_readwrite("gravity_W", &Model::gravity_W, "(3) gravity in the world frame [m/s^2]")
      .def("ncable", &Model::ncable, "Number of cables n.")
      .def("wrench_dim", &Model::wrench_dim, "6 (spatial) or 3 (planar).")
      .def("__repr__", [](const Model& mo) {
        return "Model(name=" + py::repr(py::str(mo.name)).cast<std::string>() + ", motion=" +
               to_string(mo.motion) + ", cables=" + std::to_string(mo.ncable()) + ")";
      });
  m.def("make_model", &make_model, py::arg("name"), py::arg("motion"), py::arg("p_WA"), py::arg("p_PB"),
        py::arg("cable_names") = std::vector<std::string>{}, py::arg("cable_groups") = std::vector<std::string>{},
        "Build and validate a model from (3 x n) anchors and attachments [m].");
  m.def("validate_model", &validate_model, py::arg("model"), "Raises tendyn.Error on an invalid model.");

  py::class_<Pose> pose(m, "Pose", "Platform pose: position p_WP [m] of the platform point P, rotation R_WP.");
  pose.def_readwrite("p_WP", &Pose::p_WP, "(3) position of P in the world frame [m]")
      .def_readwrite("R_WP", &Pose::R_WP, "(3 x 3) rotation of the platform frame in the world frame (dimensionless)");
  def_kw_init(pose);
  m.def("pose_from_xyz_rpy", &pose_from_xyz_rpy, py::arg("p_WP_m"), py::arg("rpy_rad"), "Pose from position and roll-pitch-yaw.");
  m.def("pose_planar", &pose_planar, py::arg("x_m"), py::arg("y_m"), py::arg("phi_rad"), "Planar pose.");
  m.def("pose_from_vector", &pose_from_vector, py::arg("model"), py::arg("q"),
        "Pose from (x,y,z,roll,pitch,yaw) or planar (x,y,phi).");

  py::class_<Data>(m, "Data", "Geometry at a pose (make_data, update_geometry); J is the structure matrix.")
      .def_readonly("p_WB", &Data::p_WB, "(3 x n) attachment points in world [m]")
      .def_readonly("l_W", &Data::l_W, "(3 x n) cable vectors p_WA - p_WB [m]")
      .def_readonly("length_m", &Data::length_m, "(n) cable lengths [m]")
      .def_readonly("u_W", &Data::u_W, "(3 x n) unit vectors towards the anchors (dimensionless)")
      .def_readonly("J", &Data::J, "(6 x n) or (3 x n) structure matrix: rows 1 (force) and m (moment about P)")
      .def("__repr__", [](const Data& d) {
        return "Data(cables=" + std::to_string(d.length_m.size()) + ", wrench_rows=" + std::to_string(d.J.rows()) + ")";
      });
  m.def("make_data", &make_data, py::arg("model"), "Data sized for the model.");
  m.def("update_geometry", &update_geometry, py::arg("model"), py::arg("pose"), py::arg("data"),
        "Cable vectors, lengths and the structure matrix at the pose.");
  m.def("select_rows", &select_rows, py::arg("J"), py::arg("rows"), "Keep the given wrench rows of J.");
  m.def("cables_in_group", &cables_in_group, py::arg("model"), py::arg("group"), "Indices of the cables of a group.");
  m.def("gravity_compensation_wrench", py::overload_cast<const Model&, const Pose&>(&gravity_compensation_wrench), py::arg("model"), py::arg("pose"),
        "The wrench the cables must apply to hold the platform against gravity.");

  py::class_<ModelFile>(m, "ModelFile", "A model file: model, default pose (may be empty), source citation.")
      .def_readonly("model", &ModelFile::model, "the Model")
      .def_readonly("default_pose", &ModelFile::default_pose,
                    "pose vector of the file ((x, y, z [m], roll, pitch, yaw [rad]) or planar (x, y [m], phi [rad])); empty if none")
      .def_readonly("source", &ModelFile::source, "citation text (may be empty)")
      .def("__repr__", [](const ModelFile& f) {
        return "ModelFile(model=" + py::repr(py::cast(f.model)).cast<std::string>() + ", default_pose=" +
               py::repr(py::cast(f.default_pose)).cast<std::string>() + ")";
      });
  m.def("load_model", &load_model, py::arg("file"), "Read a CDPR YAML model file (tendyn.Error on bad input).");
  m.def("parse_model", &parse_model, py::arg("text"), py::arg("name"), "Read a CDPR YAML model from a string.");

  py::enum_<Method>(m, "Method", "Tension distribution method (docs/CDPR.md).")
      .value("kExhaustive", Method::kExhaustive)
      .value("kLawsonHanson", Method::kLawsonHanson)
      .value("kExact", Method::kExact)
      .value("kClosedForm", Method::kClosedForm)
      .value("kImprovedClosedForm", Method::kImprovedClosedForm);
  m.def("method_from_string", &method_from_string, py::arg("name"), "Method from its name (tendyn.Error for an unknown name).");
  m.def("to_string", py::overload_cast<Method>(&to_string), py::arg("method"), "The method's name, e.g. 'lawson-hanson'.");
  py::enum_<Status>(m, "Status", "Solver status.")
      .value("kOk", Status::kOk)
      .value("kNearSingular", Status::kNearSingular)
      .value("kInfeasible", Status::kInfeasible)
      .value("kIterationLimit", Status::kIterationLimit)
      .value("kNonFinite", Status::kNonFinite);
  m.def("status_from_string", &status_from_string, py::arg("name"), "Status from its name, e.g. 'ok' (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<Status>(&to_string), py::arg("status"), "The status's name, e.g. 'ok'.");

  py::class_<SolverOptions> so(m, "SolverOptions", "Tension bounds [N] and solver tolerances.");
  so.def_readwrite("f_min_N", &SolverOptions::f_min_N, "lower tension bound (exact, closed forms) [N]")
      .def_readwrite("f_max_N", &SolverOptions::f_max_N, "upper tension bound [N]")
      .def_readwrite("rank_rtol", &SolverOptions::rank_rtol, "QR pivots below rank_rtol * largest pivot count as zero (dimensionless)")
      .def_readwrite("singular_rtol", &SolverOptions::singular_rtol, "J is near_singular when sigma_min / sigma_max < this (dimensionless)")
      .def_readwrite("amplification_limit", &SolverOptions::amplification_limit,
                     "a result is near_singular when |f| sigma_max(J) / |w| exceeds this (dimensionless)")
      .def_readwrite("infeasible_rtol", &SolverOptions::infeasible_rtol, "relative residual |J f - w| / |w| above which a result is infeasible (dimensionless)")
      .def_readwrite("iqr_coefficient", &SolverOptions::iqr_coefficient, "exhaustive: norms > Q3 + k (Q3 - Q1) are outliers; k (dimensionless)")
      .def_readwrite("residual_precision", &SolverOptions::residual_precision, "exhaustive: residuals rounded to this fraction of |w| (dimensionless)")
      .def_readwrite("norm_tie_rtol", &SolverOptions::norm_tie_rtol, "exhaustive: relative difference below which two norms tie (dimensionless)")
      .def_readwrite("dual_tol", &SolverOptions::dual_tol,
                     "Lawson-Hanson / exact: optimality tolerance on the dual vector [N^2, as J^T (J f - w)]; <= 0: 10 eps |J|_1 max(m, n)")
      .def_readwrite("max_iterations", &SolverOptions::max_iterations, "Lawson-Hanson / exact: cap on active-set iterations; <= 0: 3 n + 30");
  def_kw_init(so);
  py::class_<TensionResult>(m, "TensionResult", "Tensions f_N (n), residual |J f - w|, |f|, status, counters.")
      .def_readonly("f_N", &TensionResult::f_N, "(n) tensions [N]")
      .def_readonly("loaded_mask", &TensionResult::loaded_mask, "bit i set when f_i > 0")
      .def_readonly("loaded_count", &TensionResult::loaded_count, "number of cables with f_i > 0")
      .def_readonly("residual_norm", &TensionResult::residual_norm, "|J f - w| [N and N m mixed, as w]")
      .def_readonly("tension_norm", &TensionResult::tension_norm, "|f| [N]")
      .def_readonly("status", &TensionResult::status, "Status of the solve")
      .def_property_readonly("reason", [](const TensionResult& r) { return std::string(r.reason); }, "why the status is not ok (empty when ok)")
      .def_readonly("iterations", &TensionResult::iterations, "active-set iterations, or subsets tried (exhaustive)")
      .def_readonly("outliers", &TensionResult::outliers, "exhaustive: subsets rejected by the IQR rule")
      .def("__repr__", [](const TensionResult& r) {
        return "TensionResult(status=" + std::string(to_string(r.status)) + ", loaded_count=" + std::to_string(r.loaded_count) +
               ", residual_norm=" + num(r.residual_norm) + ", tension_norm=" + num(r.tension_norm) + ")";
      });
  m.def("solve_tensions", [](Method method, const Eigen::MatrixXd& J, const Eigen::VectorXd& w, const SolverOptions& o) {
          py::gil_scoped_release release;
          return solve_tensions(method, J, w, o);
        }, py::arg("method"), py::arg("J"), py::arg("w"), py::arg("options") = SolverOptions(),
        "Tensions f >= 0 (within bounds) with J f ~ w by the given method (GIL released).");
  m.def("solve_tensions", [](const std::string& method, const Eigen::MatrixXd& J, const Eigen::VectorXd& w,
                             const SolverOptions& o) {
          const Method mt = method_from_string(method);
          py::gil_scoped_release release;
          return solve_tensions(mt, J, w, o);
        }, py::arg("method"), py::arg("J"), py::arg("w"), py::arg("options") = SolverOptions(),
        "As above with the method given by name.");
  m.def("kkt_violation", &kkt_violation, py::arg("J"), py::arg("w"), py::arg("f"), py::arg("f_min_N") = 0.0,
        py::arg("f_max_N") = std::numeric_limits<double>::infinity(),
        "KKT violation of f for min |J f - w| within bounds (0 at an optimum).");

  py::class_<TensionProblem>(m, "TensionProblem",
                             "A model's tension problem: cables of a group, wrench rows, bounds; J and w at the last pose "
                             "(make_tension_problem, update_tension_problem).")
      .def_readonly("cables", &TensionProblem::cables, "(n) model index of each column of J")
      .def_readonly("rows", &TensionProblem::rows, "(m) selected wrench rows (empty: every row)")
      .def_readonly("row_index", &TensionProblem::row_index, "(m) row of the model's J for each row of J")
      .def_readwrite("options", &TensionProblem::options,
                     "SolverOptions: bounds f_min_N / f_max_N [N] (the model's by default) and tolerances")
      .def_readonly("geometry", &TensionProblem::geometry, "Data of every model cable at the last pose")
      .def_readonly("J", &TensionProblem::J, "(m x n) restricted structure matrix (dimensionless force rows; moment rows [m])")
      .def_readonly("w", &TensionProblem::w, "(m) gravity-compensation wrench restricted to the rows [N; N m]")
      .def_readonly("w_model", &TensionProblem::w_model, "(6 or 3) gravity-compensation wrench, every row [N; N m]")
      .def("ncable", &TensionProblem::ncable, "Number of cables n of the problem.")
      .def("nrow", &TensionProblem::nrow, "Number of wrench rows m of the problem.")
      .def("__repr__", [](const TensionProblem& p) {
        return "TensionProblem(cables=" + std::to_string(p.ncable()) + ", rows=" + std::to_string(p.nrow()) + ")";
      });
  m.def("make_tension_problem", &make_tension_problem, py::arg("model"), py::arg("group") = std::string(),
        py::arg("rows") = std::vector<WrenchRow>{},
        "Problem of the cables of `group` ('' = all) and wrench `rows` (empty = all), bounds from the model.");
  m.def("make_tension_problem", [](const Model& model, const std::string& group, const std::vector<std::string>& rows) {
          std::vector<WrenchRow> r;
          for (const auto& name : rows) r.push_back(wrench_row_from_string(name));
          return make_tension_problem(model, group, r);
        }, py::arg("model"), py::arg("group"), py::arg("rows"), "As above with the rows by name, e.g. ['fx', 'fy', 'mz'].");
  m.def("update_tension_problem", &update_tension_problem, py::arg("model"), py::arg("pose"), py::arg("problem"),
        "Fill the problem's geometry, J and w at the pose.");
  m.def("method_applicable", &method_applicable, py::arg("method"), py::arg("problem"),
        "False for exhaustive with more than 24 cables and for the closed forms without a finite f_max.");
  m.def("method_inapplicable_reason", [](Method method, const TensionProblem& p) {
          return std::string(method_inapplicable_reason(method, p));
        }, py::arg("method"), py::arg("problem"), "Why the method cannot solve the problem ('' when it can).");
  m.def("scatter_tensions", [](const Model& model, const TensionProblem& p, const Eigen::VectorXd& f_N) {
          Eigen::VectorXd all;
          scatter_tensions(model, p, f_N, all);
          return all;
        }, py::arg("model"), py::arg("problem"), py::arg("f_N"),
        "Tensions of every model cable [N]: the problem's tensions at its cables, 0 elsewhere.");

  py::class_<PoseTrajectory> traj(m, "PoseTrajectory", "Poses along a trajectory, optional times and wrenches.");
  traj.def_readwrite("q", &PoseTrajectory::q,
                     "(N x 3) planar (x, y [m], phi [rad]) or (N x 6) spatial (x, y, z [m], roll, pitch, yaw [rad]) poses")
      .def_readwrite("t_s", &PoseTrajectory::t_s, "(N) times [s], or empty")
      .def_readwrite("w", &PoseTrajectory::w, "(N x m) wrenches to balance [N; N m], or empty (N x 0): gravity compensation")
      .def_readwrite("places", &PoseTrajectory::places, "(N) place of each row for errors (file:line), or empty");
  def_kw_init(traj);
  m.def("read_pose_trajectory", &read_pose_trajectory, py::arg("path"), py::arg("model"),
        "Read a pose CSV (x,y,z,roll,pitch,yaw or planar x,y,phi; optional t and fx..mz; names with or without units).");
  m.def("solve_tension_trajectory", [](const Model& model, TensionProblem& p, Method method, const PoseTrajectory& t) {
          py::gil_scoped_release release;
          return solve_tension_trajectory(model, p, method, t);
        }, py::arg("model"), py::arg("problem"), py::arg("method"), py::arg("trajectory"),
        "One TensionResult per pose (the code of `tendyn tension trajectory`; GIL released).");
  m.def("solve_tension_trajectory", [](const Model& model, TensionProblem& p, const std::string& method, const PoseTrajectory& t) {
          const Method mt = method_from_string(method);
          py::gil_scoped_release release;
          return solve_tension_trajectory(model, p, mt, t);
        }, py::arg("model"), py::arg("problem"), py::arg("method"), py::arg("trajectory"), "As above with the method by name.");
  m.def("tension_trajectory_csv", &tension_trajectory_csv, py::arg("model"), py::arg("problem"), py::arg("trajectory"),
        py::arg("results"), "The tensions.csv text of `tendyn tension trajectory`.");
  bind_cdpr_experiment(m);
}
