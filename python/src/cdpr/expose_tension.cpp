// Bindings of include/tendyn/cdpr/tension.hpp: Method, Status, SolverOptions, TensionResult, solve_tensions, kkt_violation.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/tension.hpp>

#include "cdpr/expose.hpp"

#include <limits>
#include <string>
#include <vector>

namespace tendyn::python::cdpr_bind {

namespace py = pybind11;

void expose_tension(py::module_& m) {
  py::enum_<Method>(m, "Method", "Tension distribution method (docs/CDPR.md).")
      .value("kExhaustive", Method::kExhaustive)
      .value("kLawsonHanson", Method::kLawsonHanson)
      .value("kExact", Method::kExact)
      .value("kClosedForm", Method::kClosedForm)
      .value("kImprovedClosedForm", Method::kImprovedClosedForm)
      .value("kCentred", Method::kCentred)
      .value("kCentroid", Method::kCentroid);
  m.def("method_from_string", &method_from_string, py::arg("name"), "Method from its name (tendyn.Error for an unknown name).");
  m.def("to_string", py::overload_cast<Method>(&to_string), py::arg("method"), "The method's name, e.g. 'lawson-hanson'.");
  py::enum_<Status>(m, "Status", "Solver status.")
      .value("kOk", Status::kOk)
      .value("kNearSingular", Status::kNearSingular)
      .value("kInfeasible", Status::kInfeasible)
      .value("kIterationLimit", Status::kIterationLimit)
      .value("kNonFinite", Status::kNonFinite)
      .value("kOutOfBounds", Status::kOutOfBounds);
  m.def("status_from_string", &status_from_string, py::arg("name"), "Status from its name, e.g. 'ok' (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<Status>(&to_string), py::arg("status"), "The status's name, e.g. 'ok'.");

  py::class_<SolverOptions> so(m, "SolverOptions", "Tension bounds [N] and solver tolerances.");
  so.def_readwrite("f_min_N", &SolverOptions::f_min_N,
                   "lower tension bound [N]; default 0, not a model's bound (solver_options(model)); exhaustive and "
                   "lawson-hanson report a violated bound as status kOutOfBounds")
      .def_readwrite("f_max_N", &SolverOptions::f_max_N, "upper tension bound [N]")
      .def_readwrite("rank_rtol", &SolverOptions::rank_rtol, "QR pivots below rank_rtol * largest pivot count as zero (dimensionless)")
      .def_readwrite("singular_rtol", &SolverOptions::singular_rtol, "J is near_singular when sigma_min / sigma_max < this (dimensionless)")
      .def_readwrite("amplification_limit", &SolverOptions::amplification_limit,
                     "a result is near_singular when |f| sigma_max(J) / |w| exceeds this (dimensionless)")
      .def_readwrite("infeasible_rtol", &SolverOptions::infeasible_rtol,
                     "relative residual |J f - w| / |w| above which a result is infeasible (dimensionless)")
      .def_readwrite("iqr_coefficient", &SolverOptions::iqr_coefficient,
                     "exhaustive: norms > Q3 + k (Q3 - Q1) are outliers; k (dimensionless)")
      .def_readwrite("residual_precision", &SolverOptions::residual_precision,
                     "exhaustive: residuals rounded to this fraction of |w| (dimensionless)")
      .def_readwrite("norm_tie_rtol", &SolverOptions::norm_tie_rtol,
                     "exhaustive: relative difference below which two norms tie (dimensionless)")
      .def_readwrite("dual_tol", &SolverOptions::dual_tol,
                     "Lawson-Hanson / exact: optimality tolerance on the dual vector [N^2, as J^T (J f - w)]; <= 0: 10 eps |J|_1 max(m, n)")
      .def_readwrite("max_iterations", &SolverOptions::max_iterations,
                     "Lawson-Hanson / exact: cap on active-set iterations; <= 0: 3 n + 30");
  def_kw_init(so);
  py::class_<TensionResult>(m, "TensionResult", "Tensions f_N (n), residual |J f - w|, |f|, status, counters.")
      .def_readonly("f_N", &TensionResult::f_N, "(n) tensions [N]")
      .def_readonly("loaded_mask", &TensionResult::loaded_mask, "bit i set when f_i > 0")
      .def_readonly("loaded_count", &TensionResult::loaded_count, "number of cables with f_i > 0")
      .def_readonly("residual_norm", &TensionResult::residual_norm, "|J f - w| [N and N m mixed, as w]")
      .def_readonly("tension_norm", &TensionResult::tension_norm, "|f| [N]")
      .def_readonly("status", &TensionResult::status, "Status of the solve")
      .def_property_readonly(
          "reason", [](const TensionResult& r) { return std::string(r.reason); }, "why the status is not ok (empty when ok)")
      .def_readonly("iterations", &TensionResult::iterations, "active-set iterations, or subsets tried (exhaustive)")
      .def_readonly("outliers", &TensionResult::outliers, "exhaustive: subsets rejected by the IQR rule")
      .def("__repr__", [](const TensionResult& r) {
        return "TensionResult(status=" + std::string(to_string(r.status)) + ", loaded_count=" + std::to_string(r.loaded_count) +
               ", residual_norm=" + float_repr(r.residual_norm) + ", tension_norm=" + float_repr(r.tension_norm) + ")";
      });
  m.def(
      "solve_tensions",
      [](Method method, const Eigen::MatrixXd& J, const Eigen::VectorXd& w, const SolverOptions& o) {
        py::gil_scoped_release release;
        return solve_tensions(method, J, w, o);
      },
      py::arg("method"), py::arg("J"), py::arg("w"), py::arg("options") = SolverOptions(),
      "Tensions with J f ~ w by the given method (GIL released). Bounds come from `options` only (default "
      "f >= 0, not a model's bounds): for a model use solve_tensions(method, problem) or "
      "options=solver_options(model). Exhaustive and lawson-hanson report bounds they break (status kOutOfBounds).");
  m.def(
      "solve_tensions",
      [](const std::string& method, const Eigen::MatrixXd& J, const Eigen::VectorXd& w, const SolverOptions& o) {
        const Method mt = method_from_string(method);
        py::gil_scoped_release release;
        return solve_tensions(mt, J, w, o);
      },
      py::arg("method"), py::arg("J"), py::arg("w"), py::arg("options") = SolverOptions(), "As above with the method given by name.");
  m.def("kkt_violation", &kkt_violation, py::arg("J"), py::arg("w"), py::arg("f"), py::arg("f_min_N") = 0.0,
        py::arg("f_max_N") = std::numeric_limits<double>::infinity(),
        "KKT violation of f for min |J f - w| within bounds (0 at an optimum).");
}

}  // namespace tendyn::python::cdpr_bind
