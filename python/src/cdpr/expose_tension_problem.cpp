// Bindings of include/tendyn/cdpr/tension_problem.hpp: TensionProblem, PoseTrajectory, trajectories (the functions `tendyn tension` calls).
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/tension_problem.hpp>

#include "cdpr/expose.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tendyn::python::cdpr_bind {

namespace py = pybind11;

void expose_tension_problem(py::module_& m) {
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
  m.def(
      "make_tension_problem",
      [](const Model& model, const std::string& group, const std::vector<std::string>& rows) {
        std::vector<WrenchRow> r;
        for (const auto& name : rows) r.push_back(wrench_row_from_string(name));
        return make_tension_problem(model, group, r);
      },
      py::arg("model"), py::arg("group"), py::arg("rows"), "As above with the rows by name, e.g. ['fx', 'fy', 'mz'].");
  m.def("update_tension_problem", &update_tension_problem, py::arg("model"), py::arg("pose"), py::arg("problem"),
        "Fill the problem's geometry, J and w at the pose.");
  m.def("solver_options", &solver_options, py::arg("model"),
        "SolverOptions with the model's tension bounds (f_min_N = tension.min, f_max_N = tension.max or inf).");
  const auto solve_problem = [](Method method, const TensionProblem& p, const std::optional<Eigen::VectorXd>& w) {
    const Eigen::VectorXd wv = w ? *w : Eigen::VectorXd();
    py::gil_scoped_release release;
    return solve_tension_problem(method, p, wv);
  };
  m.def("solve_tensions", solve_problem, py::arg("method"), py::arg("problem"), py::arg("w") = py::none(),
        "Tensions of the problem at its last pose (update_tension_problem) with its bounds (the model's unless "
        "problem.options was changed); w: the wrench (m), default problem.w (gravity compensation). GIL released.");
  m.def(
      "solve_tensions",
      [solve_problem](const std::string& method, const TensionProblem& p, const std::optional<Eigen::VectorXd>& w) {
        return solve_problem(method_from_string(method), p, w);
      },
      py::arg("method"), py::arg("problem"), py::arg("w") = py::none(), "As above with the method by name.");
  m.def("method_applicable", &method_applicable, py::arg("method"), py::arg("problem"),
        "False for exhaustive with more than 24 cables and for the closed forms without a finite f_max.");
  m.def(
      "method_inapplicable_reason",
      [](Method method, const TensionProblem& p) { return std::string(method_inapplicable_reason(method, p)); }, py::arg("method"),
      py::arg("problem"), "Why the method cannot solve the problem ('' when it can).");
  m.def(
      "scatter_tensions",
      [](const Model& model, const TensionProblem& p, const Eigen::VectorXd& f_N) {
        Eigen::VectorXd all;
        scatter_tensions(model, p, f_N, all);
        return all;
      },
      py::arg("model"), py::arg("problem"), py::arg("f_N"),
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
  m.def(
      "solve_tension_trajectory",
      [](const Model& model, TensionProblem& p, Method method, const PoseTrajectory& t) {
        py::gil_scoped_release release;
        return solve_tension_trajectory(model, p, method, t);
      },
      py::arg("model"), py::arg("problem"), py::arg("method"), py::arg("trajectory"),
      "One TensionResult per pose (the code of `tendyn tension trajectory`; GIL released).");
  m.def(
      "solve_tension_trajectory",
      [](const Model& model, TensionProblem& p, const std::string& method, const PoseTrajectory& t) {
        const Method mt = method_from_string(method);
        py::gil_scoped_release release;
        return solve_tension_trajectory(model, p, mt, t);
      },
      py::arg("model"), py::arg("problem"), py::arg("method"), py::arg("trajectory"), "As above with the method by name.");
  py::class_<TensionJump>(m, "TensionJump", "Largest change of one cable's tension between consecutive poses.")
      .def_readonly("jump_N", &TensionJump::jump_N, "max |f_c(k) - f_c(k-1)| [N] (0 for fewer than 2 rows)")
      .def_readonly("row", &TensionJump::row, "k of the maximum (the jump is from row k - 1 to row k)")
      .def_readonly("column", &TensionJump::column, "the cable's column in the problem (-1: none)")
      .def("__repr__", [](const TensionJump& j) {
        return "TensionJump(jump_N=" + float_repr(j.jump_N) + ", row=" + std::to_string(j.row) + ", column=" + std::to_string(j.column) +
               ")";
      });
  m.def("max_tension_jump", &max_tension_jump, py::arg("results"),
        "Largest tension jump between consecutive results of a trajectory (a continuity measure of the method).");
  m.def("tension_trajectory_csv", &tension_trajectory_csv, py::arg("model"), py::arg("problem"), py::arg("trajectory"), py::arg("results"),
        "The tensions.csv text of `tendyn tension trajectory`.");
}

}  // namespace tendyn::python::cdpr_bind
