// Bindings of tendyn::cdpr (include/tendyn/cdpr/*.hpp): geometry, model files, tension solvers.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/tension.hpp>

#include <limits>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace tendyn::cdpr;

void bind_cdpr(py::module_& m) {
  py::enum_<Motion>(m, "Motion", "Spatial (6 wrench rows) or planar (3 rows) platform motion.")
      .value("spatial", Motion::spatial)
      .value("planar", Motion::planar);
  py::enum_<WrenchRow>(m, "WrenchRow", "A wrench row: fx fy fz mx my mz.")
      .value("fx", WrenchRow::fx).value("fy", WrenchRow::fy).value("fz", WrenchRow::fz)
      .value("mx", WrenchRow::mx).value("my", WrenchRow::my).value("mz", WrenchRow::mz);
  m.def("parse_wrench_row", &parse_wrench_row, py::arg("name"), "'fx' .. 'mz' -> WrenchRow.");

  py::class_<Model>(m, "Model", "A cable-driven parallel robot: anchors p_WA (3 x n), attachments p_PB (3 x n), bounds.")
      .def(py::init<>())
      .def_readwrite("name", &Model::name)
      .def_readwrite("motion", &Model::motion)
      .def_readwrite("p_WA", &Model::p_WA)
      .def_readwrite("p_PB", &Model::p_PB)
      .def_readwrite("cable_names", &Model::cable_names)
      .def_readwrite("cable_groups", &Model::cable_groups)
      .def_readwrite("f_min_N", &Model::f_min_N)
      .def_readwrite("f_max_N", &Model::f_max_N)
      .def_readwrite("platform_mass_kg", &Model::platform_mass_kg)
      .def_readwrite("p_PC", &Model::p_PC)
      .def_readwrite("gravity_W", &Model::gravity_W)
      .def("num_cables", &Model::num_cables)
      .def("wrench_dim", &Model::wrench_dim)
      .def("__repr__", [](const Model& mo) {
        return "<tendyn.cdpr.Model '" + mo.name + "' cables=" + std::to_string(mo.num_cables()) + ">";
      });
  m.def("make_model", &make_model, py::arg("name"), py::arg("motion"), py::arg("p_WA"), py::arg("p_PB"),
        py::arg("cable_names") = std::vector<std::string>{}, py::arg("cable_groups") = std::vector<std::string>{},
        "Build and validate a model from (3 x n) anchors and attachments [m].");
  m.def("validate_model", &validate_model, py::arg("model"), "Raises tendyn.Error on an invalid model.");

  py::class_<Pose>(m, "Pose", "Platform pose: p_WP [m], R_WP.")
      .def(py::init<>())
      .def_readwrite("p_WP", &Pose::p_WP)
      .def_readwrite("R_WP", &Pose::R_WP);
  m.def("pose_from_xyz_rpy", &pose_from_xyz_rpy, py::arg("p_WP_m"), py::arg("rpy_rad"), "Pose from position and roll-pitch-yaw.");
  m.def("pose_planar", &pose_planar, py::arg("x_m"), py::arg("y_m"), py::arg("phi_rad"), "Planar pose.");
  m.def("pose_from_vector", &pose_from_vector, py::arg("model"), py::arg("q"),
        "Pose from (x,y,z,roll,pitch,yaw) or planar (x,y,phi).");

  py::class_<Data>(m, "Data", "Geometry at a pose (make_data, update_geometry); J is the structure matrix.")
      .def_readonly("p_WB", &Data::p_WB, "(3 x n) attachment points in world [m]")
      .def_readonly("l_W", &Data::l_W, "(3 x n) cable vectors [m]")
      .def_readonly("length_m", &Data::length_m, "(n) cable lengths [m]")
      .def_readonly("u_W", &Data::u_W, "(3 x n) unit vectors towards the anchors")
      .def_readonly("J", &Data::J, "(6 x n) or (3 x n) structure matrix");
  m.def("make_data", &make_data, py::arg("model"), "Data sized for the model.");
  m.def("update_geometry", &update_geometry, py::arg("model"), py::arg("pose"), py::arg("data"),
        "Cable vectors, lengths and the structure matrix at the pose.");
  m.def("select_rows", &select_rows, py::arg("J"), py::arg("rows"), "Keep the given wrench rows of J.");
  m.def("cables_in_group", &cables_in_group, py::arg("model"), py::arg("group"), "Indices of the cables of a group.");
  m.def("gravity_compensation_wrench", &gravity_compensation_wrench, py::arg("model"), py::arg("pose"),
        "The wrench the cables must apply to hold the platform against gravity.");

  py::class_<ModelFile>(m, "ModelFile", "A model file: model, default pose (may be empty), source citation.")
      .def_readonly("model", &ModelFile::model)
      .def_readonly("default_pose", &ModelFile::default_pose)
      .def_readonly("source", &ModelFile::source);
  m.def("load_model", &load_model, py::arg("file"), "Read a CDPR YAML model file (tendyn.Error on bad input).");
  m.def("parse_model", &parse_model, py::arg("text"), py::arg("name"), "Read a CDPR YAML model from a string.");

  py::enum_<Method>(m, "Method", "Tension distribution method (docs/CDPR.md).")
      .value("exhaustive", Method::exhaustive)
      .value("lawson_hanson", Method::lawson_hanson)
      .value("exact", Method::exact)
      .value("closed_form", Method::closed_form)
      .value("improved_closed_form", Method::improved_closed_form);
  m.def("parse_method", &parse_method, py::arg("name"), "Method from its name.");
  m.def("method_name", &method_name, py::arg("method"), "The method's name, e.g. 'lawson-hanson'.");
  py::enum_<Status>(m, "Status", "Solver status.")
      .value("ok", Status::ok)
      .value("near_singular", Status::near_singular)
      .value("infeasible", Status::infeasible)
      .value("iteration_limit", Status::iteration_limit)
      .value("non_finite", Status::non_finite);
  m.def("status_name", &status_name, py::arg("status"), "The status's name, e.g. 'ok'.");

  py::class_<SolverOptions>(m, "SolverOptions", "Tension bounds [N] and solver tolerances.")
      .def(py::init<>())
      .def_readwrite("f_min_N", &SolverOptions::f_min_N)
      .def_readwrite("f_max_N", &SolverOptions::f_max_N)
      .def_readwrite("rank_rtol", &SolverOptions::rank_rtol)
      .def_readwrite("singular_rtol", &SolverOptions::singular_rtol)
      .def_readwrite("amplification_limit", &SolverOptions::amplification_limit)
      .def_readwrite("infeasible_rtol", &SolverOptions::infeasible_rtol)
      .def_readwrite("iqr_coefficient", &SolverOptions::iqr_coefficient)
      .def_readwrite("residual_precision", &SolverOptions::residual_precision)
      .def_readwrite("norm_tie_rtol", &SolverOptions::norm_tie_rtol)
      .def_readwrite("dual_tol", &SolverOptions::dual_tol)
      .def_readwrite("max_iterations", &SolverOptions::max_iterations);
  py::class_<TensionResult>(m, "TensionResult", "Tensions f_N (n), residual |J f - w|, |f|, status, counters.")
      .def_readonly("f_N", &TensionResult::f_N)
      .def_readonly("loaded_mask", &TensionResult::loaded_mask)
      .def_readonly("loaded_count", &TensionResult::loaded_count)
      .def_readonly("residual_norm", &TensionResult::residual_norm)
      .def_readonly("tension_norm", &TensionResult::tension_norm)
      .def_readonly("status", &TensionResult::status)
      .def_property_readonly("reason", [](const TensionResult& r) { return std::string(r.reason); })
      .def_readonly("iterations", &TensionResult::iterations)
      .def_readonly("outliers", &TensionResult::outliers);
  m.def("solve_tensions", [](Method method, const Eigen::MatrixXd& J, const Eigen::VectorXd& w, const SolverOptions& o) {
          py::gil_scoped_release release;
          return solve_tensions(method, J, w, o);
        }, py::arg("method"), py::arg("J"), py::arg("w"), py::arg("options") = SolverOptions(),
        "Tensions f >= 0 (within bounds) with J f ~ w by the given method (GIL released).");
  m.def("solve_tensions", [](const std::string& method, const Eigen::MatrixXd& J, const Eigen::VectorXd& w,
                             const SolverOptions& o) {
          const Method mt = parse_method(method);
          py::gil_scoped_release release;
          return solve_tensions(mt, J, w, o);
        }, py::arg("method"), py::arg("J"), py::arg("w"), py::arg("options") = SolverOptions(),
        "As above with the method given by name.");
  m.def("kkt_violation", &kkt_violation, py::arg("J"), py::arg("w"), py::arg("f"), py::arg("f_min_N") = 0.0,
        py::arg("f_max_N") = std::numeric_limits<double>::infinity(),
        "KKT violation of f for min |J f - w| within bounds (0 at an optimum).");
}
