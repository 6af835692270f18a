// Bindings of include/tendyn/cdpr/experiment.hpp: document 002's two-stage printer experiment (`tendyn cdpr-experiment`): start states, stage scores, comparison, pretension sweep.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/experiment.hpp>

#include "cdpr/expose.hpp"

#include <string>
#include <vector>

namespace tendyn::python::cdpr_bind {

namespace py = pybind11;

void expose_experiment(py::module_& m) {
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
      .def_property("path", copy_of(&ExperimentConfig::path), assign_to(&ExperimentConfig::path),
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
      .def_property_readonly(
          "t_s",
          [](const StageResult& r) {
            Eigen::VectorXd v(static_cast<Eigen::Index>(r.samples.size()));
            for (std::size_t i = 0; i < r.samples.size(); ++i) v[static_cast<Eigen::Index>(i)] = r.samples[i].t_s;
            return v;
          },
          "(samples) sample times [s]")
      .def_property_readonly(
          "lower_norm_N",
          [](const StageResult& r) {
            Eigen::VectorXd v(static_cast<Eigen::Index>(r.samples.size()));
            for (std::size_t i = 0; i < r.samples.size(); ++i) v[static_cast<Eigen::Index>(i)] = r.samples[i].lower_norm_N;
            return v;
          },
          "(samples) |f_lower| [N]")
      .def_property_readonly(
          "opt_lower_norm_N",
          [](const StageResult& r) {
            Eigen::VectorXd v(static_cast<Eigen::Index>(r.samples.size()));
            for (std::size_t i = 0; i < r.samples.size(); ++i) v[static_cast<Eigen::Index>(i)] = r.samples[i].opt_lower_norm_N;
            return v;
          },
          "(samples) |f*_lower| [N]")
      .def_property_readonly(
          "f_N",
          [](const StageResult& r) {
            const Eigen::Index n = r.samples.empty() ? 0 : r.samples[0].f_N.size();
            Eigen::MatrixXd v(static_cast<Eigen::Index>(r.samples.size()), n);
            for (std::size_t i = 0; i < r.samples.size(); ++i) v.row(static_cast<Eigen::Index>(i)) = r.samples[i].f_N.transpose();
            return v;
          },
          "(samples x n) cable tensions [N]")
      .def_property_readonly(
          "f_opt_N",
          [](const StageResult& r) {
            const Eigen::Index n = r.samples.empty() ? 0 : r.samples[0].f_opt_N.size();
            Eigen::MatrixXd v(static_cast<Eigen::Index>(r.samples.size()), n);
            for (std::size_t i = 0; i < r.samples.size(); ++i) v.row(static_cast<Eigen::Index>(i)) = r.samples[i].f_opt_N.transpose();
            return v;
          },
          "(samples x n) optimal tension profile [N]");
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
  m.def(
      "run_stage",
      [](const DynamicModel& model, const ExperimentConfig& cfg, bool tension_control) {
        py::gil_scoped_release release;
        return run_stage(model, cfg, tension_control);
      },
      py::arg("model"), py::arg("config"), py::arg("tension_control"), "One stage of the experiment (GIL released).");
  m.def("compare_stages", &compare_stages, py::arg("without"), py::arg("with_control"),
        "Controlled / uncontrolled ratios (whole stage, after the transient, at the worst configuration).");
  m.def(
      "pretension_sweep",
      [](const DynamicModel& model, const ExperimentConfig& cfg, const std::vector<double>& f) {
        py::gil_scoped_release release;
        return pretension_sweep(model, cfg, f);
      },
      py::arg("model"), py::arg("config"), py::arg("factors"),
      "Stage 2 once, stage 1 from each pretension factor of the optimum (GIL released).");
  m.def("pretension_sweep_csv", &pretension_sweep_csv, py::arg("rows"), "The pretension_sweep.csv text of the CLI.");
  m.def("stage_csv", &stage_csv, py::arg("model"), py::arg("stage"), "The stage CSV text of the CLI.");
}

}  // namespace tendyn::python::cdpr_bind
