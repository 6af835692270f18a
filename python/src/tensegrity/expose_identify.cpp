// Bindings of include/tendyn/tensegrity/identify.hpp: parameter identification from recorded
// motion (docs/IDENTIFY.md). identify() releases the GIL (a progress callback takes it back).
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/identify.hpp>

#include "tensegrity/expose.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tendyn::python::tensegrity_bind {

void expose_identify(py::module_& m) {
  py::class_<MotionData> md(m, "MotionData",
                            "Recorded motion: marker positions of nodes (NaN = missing), optional cable lengths and tensions.");
  md.def_readwrite("t_s", &MotionData::t_s, "sample times [s], strictly increasing")
      .def_readwrite("marker_nodes", &MotionData::marker_nodes, "node index of each marker")
      .def_readwrite("p_W_marker_m", &MotionData::p_W_marker_m, "(nsample x 3 nmarker) marker positions [m], NaN = missing")
      .def_readwrite("length_cables", &MotionData::length_cables, "cables with a measured length")
      .def_readwrite("cable_length_m", &MotionData::cable_length_m, "(nsample x nlength) [m], NaN = missing")
      .def_readwrite("tension_cables", &MotionData::tension_cables, "cables with a measured tension")
      .def_readwrite("cable_tension_N", &MotionData::cable_tension_N, "(nsample x ntension) [N], NaN = missing")
      .def_readwrite("target_cables", &MotionData::target_cables, "cables whose winch received a recorded target")
      .def_readwrite("winch_target_m", &MotionData::winch_target_m, "(nsample x ntarget) target rest lengths [m], no missing value")
      .def_readwrite("encoder_cables", &MotionData::encoder_cables, "cables whose winch encoder was recorded")
      .def_readwrite("winch_encoder_m", &MotionData::winch_encoder_m, "(nsample x nencoder) encoder rest lengths [m], NaN = missing")
      .def_property_readonly("nsample", &MotionData::nsample, "number of samples")
      .def_property_readonly("nmarker", &MotionData::nmarker, "number of markers");
  def_kw_init(md, false);
  m.def(
      "load_motion_csv", &load_motion_csv, py::arg("model"), py::arg("path"),
      "Reads a motion CSV (t_s,<node>_x_m,<node>_y_m,<node>_z_m,..., optional <cable>_length_m / <cable>_tension_N; empty cell = missing). "
      "tendyn.Error with path:line:col.");
  m.def("motion_csv", &motion_csv, py::arg("model"), py::arg("data"), "The CSV text of a MotionData (the format load_motion_csv reads).");
  m.def("validate_motion", py::overload_cast<const Model&, const MotionData&>(&validate), py::arg("model"), py::arg("data"),
        "Checks a MotionData against the model (tendyn.Error naming the problem).");

  py::enum_<ParameterKind>(m, "ParameterKind", "What a fitted parameter is.")
      .value("kStiffness", ParameterKind::kStiffness)
      .value("kDamping", ParameterKind::kDamping)
      .value("kRestLength", ParameterKind::kRestLength)
      .value("kMass", ParameterKind::kMass)
      .value("kFriction", ParameterKind::kFriction)
      .value("kGroundStiffness", ParameterKind::kGroundStiffness)
      .value("kGroundDamping", ParameterKind::kGroundDamping)
      .value("kInitialState", ParameterKind::kInitialState)
      .value("kWinchCoulombFriction", ParameterKind::kWinchCoulombFriction)
      .value("kWinchViscousFriction", ParameterKind::kWinchViscousFriction)
      .value("kWinchNoLoadSpeed", ParameterKind::kWinchNoLoadSpeed)
      .value("kWinchKp", ParameterKind::kWinchKp)
      .value("kWinchKi", ParameterKind::kWinchKi)
      .value("kWinchKd", ParameterKind::kWinchKd);
  m.def(
      "parameter_kind_from_string", &parameter_kind_from_string, py::arg("name"),
      "'stiffness', 'damping', 'rest_length', 'mass', 'friction', 'ground_stiffness', 'ground_damping', 'initial_state', 'winch_coulomb_friction', 'winch_viscous_friction', 'winch_no_load_speed', 'winch_kp', 'winch_ki', 'winch_kd' -> ParameterKind.");
  m.def("to_string", py::overload_cast<ParameterKind>(&to_string), py::arg("kind"), "The file name of a ParameterKind.");
  py::enum_<RobustLoss>(m, "RobustLoss", "Per-residual robust loss.")
      .value("kNone", RobustLoss::kNone)
      .value("kHuber", RobustLoss::kHuber)
      .value("kCauchy", RobustLoss::kCauchy);
  m.def("robust_loss_from_string", &robust_loss_from_string, py::arg("name"), "'none', 'huber', 'cauchy' -> RobustLoss.");
  m.def("to_string", py::overload_cast<RobustLoss>(&to_string), py::arg("loss"), "'none', 'huber' or 'cauchy'.");

  py::class_<ParameterGroup> pg(m, "ParameterGroup", "One unknown: a kind and the cables (rods for mass) sharing its value.");
  pg.def_readwrite("kind", &ParameterGroup::kind, "ParameterKind")
      .def_readwrite("elements", &ParameterGroup::elements, "cable indices (rod indices for mass); empty for ground kinds")
      .def_readwrite("name", &ParameterGroup::name, "the --fit name, e.g. stiffness:c1+c2");
  def_kw_init(pg);
  m.def("parse_fit_spec", &parse_fit_spec, py::arg("model"), py::arg("spec"),
        "The --fit list ('stiffness:all,damping:c1+c2,friction') -> [ParameterGroup]; tendyn.Error naming the item.");

  py::class_<IdentifyOptions> io(m, "IdentifyOptions", "Options of identify (include/tendyn/tensegrity/identify.hpp).");
  io.def_readwrite("dt_s", &IdentifyOptions::dt_s, "largest RK4 step [s]")
      .def_readwrite("segment_s", &IdentifyOptions::segment_s, "multiple-shooting segment length [s]")
      .def_readwrite("marker_sigma_m", &IdentifyOptions::marker_sigma_m, "marker noise [m]")
      .def_readwrite("length_sigma_m", &IdentifyOptions::length_sigma_m, "cable-length noise [m]")
      .def_readwrite("tension_sigma_N", &IdentifyOptions::tension_sigma_N, "tension noise [N]")
      .def_readwrite("encoder_sigma_m", &IdentifyOptions::encoder_sigma_m, "winch encoder noise [m]")
      .def_readwrite("continuity_sigma_m", &IdentifyOptions::continuity_sigma_m, "continuity weight scale [m]")
      .def_readwrite("loss", &IdentifyOptions::loss, "RobustLoss")
      .def_readwrite("loss_scale", &IdentifyOptions::loss_scale, "where the robust loss starts [sigmas]")
      .def_readwrite("max_iterations", &IdentifyOptions::max_iterations, "Levenberg-Marquardt iterations")
      .def_readwrite("function_tolerance", &IdentifyOptions::function_tolerance,
                     "Ceres: stop when an iteration changes the cost by less (relative)")
      .def_readwrite("parameter_tolerance", &IdentifyOptions::parameter_tolerance, "Ceres: stop when the step is smaller (relative)")
      .def_readwrite("gradient_tolerance", &IdentifyOptions::gradient_tolerance, "Ceres: stop when the max gradient is smaller (relative)")
      .def_readwrite("threads", &IdentifyOptions::threads,
                     "segment evaluation threads (results do not depend on it: docs/IDENTIFY.md, Determinism)")
      .def_readwrite("covariance", &IdentifyOptions::covariance, "compute standard deviations and correlations")
      .def_readwrite(
          "restarts", &IdentifyOptions::restarts,
          "restarts (0..6, default 2) after a fit stuck in a local minimum (variance factor above restart_variance_factor, "
          "or a continuity gap above restart_gap_sigmas * continuity_sigma_m): restart k first fits with continuity_sigma_m * 10^(k+1), "
          "then the full problem; the lowest cost wins; a restart that does not lower the cost by restart_min_improvement stops "
          "them. 0: one fit")
      .def_readwrite("restart_variance_factor", &IdentifyOptions::restart_variance_factor,
                     "variance factor above which a fit counts as failed; 0 (default): the 99.9 % chi-square bound for the residual count "
                     "(variance_factor_bound)")
      .def_readwrite("restart_gap_sigmas", &IdentifyOptions::restart_gap_sigmas,
                     "continuity gap above which a fit counts as failed [continuity_sigma_m] (default 5)")
      .def_readwrite("restart_min_improvement", &IdentifyOptions::restart_min_improvement,
                     "a restart that does not lower the best cost by this fraction stops the restarts (default 0.05)");
  def_kw_init(io);

  py::class_<FittedParameter>(m, "FittedParameter", "One fitted parameter group: nominal, fitted, standard deviation [SI].")
      .def_readonly("name", &FittedParameter::name, "the --fit name")
      .def_readonly("kind", &FittedParameter::kind, "ParameterKind")
      .def_readonly("elements", &FittedParameter::elements, "cable (rod) indices")
      .def_readonly("nominal", &FittedParameter::nominal, "the model value (mean of the group) [SI]")
      .def_readonly("fitted", &FittedParameter::fitted, "fitted value [SI]")
      .def_readonly("std", &FittedParameter::std, "standard deviation [SI] (NaN without covariance)")
      .def("__repr__", [](const FittedParameter& p) {
        return "FittedParameter(" + p.name + ": nominal=" + float_repr(p.nominal) + ", fitted=" + float_repr(p.fitted) +
               ", std=" + float_repr(p.std) + ")";
      });
  py::class_<IdentifyResult>(m, "IdentifyResult", "What identify found (fitted model, parameters, covariance, solver report, fit quality).")
      .def_readonly("model", &IdentifyResult::model, "the model with the fitted values")
      .def_readonly("parameters", &IdentifyResult::parameters, "[FittedParameter], one per group except initial_state")
      .def_readonly("correlation", &IdentifyResult::correlation, "(nparameter x nparameter) correlations; empty without covariance")
      .def_readonly("covariance_ok", &IdentifyResult::covariance_ok, "True when standard deviations and correlations were computed")
      .def_readonly("covariance_message", &IdentifyResult::covariance_message, "why the covariance is missing")
      .def_readonly("variance_factor", &IdentifyResult::variance_factor, "a-posteriori variance factor 2 cost / dof")
      .def_readonly("solver_report", &IdentifyResult::solver_report, "Ceres' FullReport (with wall times)")
      .def_readonly("solver_brief", &IdentifyResult::solver_brief, "Ceres' BriefReport")
      .def_readonly("termination", &IdentifyResult::termination, "CONVERGENCE, NO_CONVERGENCE, ...")
      .def_readonly("converged", &IdentifyResult::converged, "termination is CONVERGENCE")
      .def_readonly("iterations", &IdentifyResult::iterations, "Levenberg-Marquardt iterations, all starts together")
      .def_readonly("starts", &IdentifyResult::starts, "fits tried: 1 + the restarts run")
      .def_readonly("winning_start", &IdentifyResult::winning_start, "the start of the result: 0 the model's values, k restart k")
      .def_readonly("initial_cost", &IdentifyResult::initial_cost, "1/2 |r|^2 at the start (weighted residuals)")
      .def_readonly("final_cost", &IdentifyResult::final_cost, "1/2 |r|^2 at the optimum")
      .def_readonly("solve_time_s", &IdentifyResult::solve_time_s, "wall time [s]")
      .def_readonly("nsegment", &IdentifyResult::nsegment, "multiple-shooting segments")
      .def_readonly("nresidual", &IdentifyResult::nresidual, "residuals")
      .def_readonly("nunknown", &IdentifyResult::nunknown, "unknowns (tangent space)")
      .def_readonly("p_W_fit_m", &IdentifyResult::p_W_fit_m, "(nsample x 3 nmarker) markers of the fitted segments [m]")
      .def_readonly("p_W_free_fitted_m", &IdentifyResult::p_W_free_fitted_m,
                    "(nsample x 3 nmarker) markers of one run of the fitted model [m]")
      .def_readonly("p_W_free_nominal_m", &IdentifyResult::p_W_free_nominal_m,
                    "(nsample x 3 nmarker) markers of one run of the nominal model [m]")
      .def_readonly("marker_rms_m", &IdentifyResult::marker_rms_m, "marker RMS of the fit [m]")
      .def_readonly("marker_rms_free_fitted_m", &IdentifyResult::marker_rms_free_fitted_m, "marker RMS of one run of the fitted model [m]")
      .def_readonly("marker_rms_free_nominal_m", &IdentifyResult::marker_rms_free_nominal_m,
                    "marker RMS of one run of the nominal model [m]")
      .def_readonly("max_continuity_gap_m", &IdentifyResult::max_continuity_gap_m, "largest position gap between segments [m]")
      .def_readonly("variance_factor_bound", &IdentifyResult::variance_factor_bound,
                    "the variance factor's bound used for the verdict and the restarts")
      .def_readonly("continuity_gap_bound_m", &IdentifyResult::continuity_gap_bound_m, "the continuity gap's bound [m]")
      .def_property_readonly(
          "verdict", [](const IdentifyResult& r) { return std::string(to_string(r.verdict)); },
          "'good', 'poor fit', 'local minimum suspected', 'not converged' or 'not identifiable' (docs/IDENTIFY.md: Verdict)")
      .def_readonly("verdict_reason", &IdentifyResult::verdict_reason, "the numbers behind the verdict, in one sentence")
      .def_readonly("unidentifiable", &IdentifyResult::unidentifiable, "[str] parameters the data do not determine, each with why")
      .def_readonly("restart_log", &IdentifyResult::restart_log, "[str] why each restart ran, and why the restarts stopped")
      .def("__repr__", [](const IdentifyResult& r) {
        return "IdentifyResult(" + r.termination + ", verdict='" + to_string(r.verdict) + "', iterations=" + std::to_string(r.iterations) +
               ", marker_rms_m=" + float_repr(r.marker_rms_m) + ")";
      });
  m.def(
      "identify",
      [](const Model& mo, const MotionData& d, const std::vector<ParameterGroup>& groups, IdentifyOptions o,
         const std::function<void(int, double, double)>& progress) {
        if (progress)
          o.progress = [progress](int it, double cost, double grad) {
            py::gil_scoped_acquire acquire;
            progress(it, cost, grad);
          };
        py::gil_scoped_release release;
        return identify(mo, d, groups, o);
      },
      py::arg("model"), py::arg("data"), py::arg("parameters"), py::arg("options") = IdentifyOptions{}, py::arg("progress") = nullptr,
      "Fits the parameter groups of the model to the motion (multiple shooting, Ceres Levenberg-Marquardt). progress(iteration, cost, "
      "max_gradient) is called after every iteration. tendyn.Error on bad input, SimulationError when the model cannot be simulated.");
  m.def(
      "evaluate_identification",
      [](const Model& mo, const MotionData& d, const std::vector<ParameterGroup>& groups, const IdentifyOptions& o,
         const std::optional<Eigen::VectorXd>& unknowns, bool jacobian) {
        const auto ev = evaluate_identification(mo, d, groups, o, unknowns ? &*unknowns : nullptr, jacobian);
        return py::make_tuple(ev.unknowns, ev.residuals, ev.jacobian, ev.nparameter);
      },
      py::arg("model"), py::arg("data"), py::arg("parameters"), py::arg("options") = IdentifyOptions{}, py::arg("unknowns") = py::none(),
      py::arg("jacobian") = true, "(unknowns, weighted residuals, Jacobian, nparameter) at the start (or at `unknowns`).");
  m.def("variance_factor_bound", &variance_factor_bound, py::arg("dof"),
        "The 99.9 % upper bound of the variance factor chi^2 / dof (Wilson-Hilferty), about 1 + 3.09 sqrt(2 / dof); NaN for dof < 1.");
  m.def("simulate_samples", &simulate_samples, py::arg("model"), py::arg("t_s"), py::arg("dt_s"),
        "Node positions (nsample x 3 nnode) at the times t_s with the identification's integrator (RK4 steps <= dt_s).");
  m.def("simulate_motion", &simulate_motion, py::arg("model"), py::arg("data"), py::arg("dt_s"),
        "The data with its marker, length, tension and encoder columns replaced by the prediction of the general "
        "identification path (the simulator's step, RK4 <= dt_s, target columns driving the winches); any model.");
}

}  // namespace tendyn::python::tensegrity_bind
