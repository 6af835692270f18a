// Bindings of tendyn::cdpr (include/tendyn/cdpr/*.hpp): geometry, model files, tension solvers.
// Every field's docstring gives its unit; option structs take keyword constructors
// (SolverOptions(f_min_N=1)) and print as Name(field=value, ...) (the fields off their defaults).
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/tension.hpp>

#include "bind_util.hpp"

#include <limits>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace tendyn::cdpr;
using tendyn::python::def_kw_init;

namespace {
std::string num(double v) { return py::repr(py::float_(v)).cast<std::string>(); }
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
}
