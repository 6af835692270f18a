// Bindings of include/tendyn/cdpr/identify.hpp: platform logs, the cable fits (stiffness,
// rest length, damping) and the platform's inertial parameters; plus
// tendyn.cdpr.identify(model, data, fit=...) (a PlatformLog or a CSV path).
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <tendyn/cdpr/identify.hpp>
#include <tendyn/core/error.hpp>

#include "cdpr/expose.hpp"

#include <filesystem>
#include <string>

namespace tendyn::python::cdpr_bind {

void expose_identify(py::module_& m) {
  py::class_<PlatformLog> pl(m, "PlatformLog", "Pose and tension log of a CDPR: N samples (rows), n cables.");
  pl.def_readwrite("t_s", &PlatformLog::t_s, "(N) sample times [s]")
      .def_readwrite("pose", &PlatformLog::pose, "(N x 6) x, y, z [m], roll, pitch, yaw [rad], or (0 x 0)")
      .def_readwrite("tension_N", &PlatformLog::tension_N, "(N x n) measured tensions [N]")
      .def_readwrite("length_m", &PlatformLog::length_m, "(N x n) measured lengths [m], or (0 x 0): from the pose")
      .def_readwrite("rest_length_m", &PlatformLog::rest_length_m, "(N x n) logged rest lengths [m], or (0 x 0)")
      .def_readwrite("carriage_z_m", &PlatformLog::carriage_z_m, "(N x n) carriage offsets [m], or (0 x 0)")
      .def_readonly("places", &PlatformLog::places, "(N) 'path:line' of each sample")
      .def("__len__", &PlatformLog::nsample);
  def_kw_init(pl, false);
  pl.def("__repr__", [](const PlatformLog& l) {
    return "PlatformLog(samples=" + std::to_string(l.nsample()) + ", cables=" + std::to_string(l.tension_N.cols()) + ")";
  });
  m.def("read_platform_log", &read_platform_log, py::arg("path"), py::arg("model"),
        "Read a platform-log CSV (docs/CDPR_DYNAMICS.md, Identification).");
  m.def("platform_log_header", &platform_log_header, py::arg("model"), py::arg("lengths"), py::arg("rest_lengths"),
        py::arg("carriages") = false, "CSV header of a platform log.");

  py::enum_<StiffnessFit>(m, "StiffnessFit", "Unknown cable parameters.")
      .value("kStiffness", StiffnessFit::kStiffness)
      .value("kStiffnessRestLength", StiffnessFit::kStiffnessRestLength);
  m.def("stiffness_fit_from_string", &stiffness_fit_from_string, py::arg("name"),
        "'stiffness' or 'stiffness-rest-length' (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<StiffnessFit>(&to_string), py::arg("fit"), "The fit's name.");

  py::class_<CableFitOptions> co(m, "CableFitOptions", "Options of identify_cables.");
  co.def_readwrite("fit", &CableFitOptions::fit, "StiffnessFit")
      .def_readwrite("damping", &CableFitOptions::damping, "also fit the damping c [N s/m]")
      .def_readwrite("half_width", &CableFitOptions::half_width, "rate window half width (samples)")
      .def_readwrite("taut_min_N", &CableFitOptions::taut_min_N, "samples with tension <= this are left out [N]");
  def_kw_init(co);
  py::class_<CableFit>(m, "CableFit", "One cable's fitted parameters.")
      .def_readonly("name", &CableFit::name)
      .def_readonly("EA_N", &CableFit::EA_N, "axial stiffness E A [N]")
      .def_readonly("EA_std_N", &CableFit::EA_std_N)
      .def_readonly("k_Npm", &CableFit::k_Npm, "stiffness EA / l0 [N/m]")
      .def_readonly("k_std_Npm", &CableFit::k_std_Npm)
      .def_readonly("rest_length_m", &CableFit::rest_length_m, "rest length [m] (fitted, or mean logged)")
      .def_readonly("rest_length_std_m", &CableFit::rest_length_std_m)
      .def_readonly("damping_Nspm", &CableFit::damping_Nspm, "damping [N s/m]")
      .def_readonly("damping_std_Nspm", &CableFit::damping_std_Nspm)
      .def_readonly("rms_N", &CableFit::rms_N, "residual rms [N]")
      .def_readonly("nsample", &CableFit::nsample, "taut samples used")
      .def("__repr__", [](const CableFit& c) {
        return "CableFit(name='" + c.name + "', EA_N=" + float_repr(c.EA_N) + ", rest_length_m=" + float_repr(c.rest_length_m) +
               ", damping_Nspm=" + float_repr(c.damping_Nspm) + ")";
      });
  py::class_<CableIdentification>(m, "CableIdentification", "Per-cable fits and tension residuals.")
      .def_readonly("cables", &CableIdentification::cables)
      .def_readonly("residual_N", &CableIdentification::residual_N, "(N' x n) measured - fitted tension, NaN if left out")
      .def_readonly("t_s", &CableIdentification::t_s);
  m.def("identify_cables", &identify_cables, py::arg("model"), py::arg("log"), py::arg("options") = CableFitOptions{},
        "Fit every cable's stiffness (and rest length, damping) on its taut samples.");

  py::class_<PlatformFitOptions> po(m, "PlatformFitOptions", "Options of identify_platform.");
  po.def_readwrite("half_width", &PlatformFitOptions::half_width, "acceleration window half width (samples)")
      .def_readwrite("row_weighting", &PlatformFitOptions::row_weighting, "weight the 6 wrench rows by 1 / their rms")
      .def_readwrite("max_condition", &PlatformFitOptions::max_condition, "largest accepted condition number");
  def_kw_init(po);
  py::class_<PlatformIdentification>(m, "PlatformIdentification", "Platform mass, COM and inertia with uncertainties.")
      .def_readonly("pi", &PlatformIdentification::pi, "(10) m, m c (3), I_P (xx xy xz yy yz zz)")
      .def_readonly("pi_std", &PlatformIdentification::pi_std)
      .def_readonly("cov", &PlatformIdentification::cov)
      .def_readonly("mass_kg", &PlatformIdentification::mass_kg)
      .def_readonly("mass_std_kg", &PlatformIdentification::mass_std_kg)
      .def_readonly("com_P_m", &PlatformIdentification::com_P_m)
      .def_readonly("com_std_m", &PlatformIdentification::com_std_m)
      .def_readonly("inertia_C_kgm2", &PlatformIdentification::inertia_C_kgm2)
      .def_readonly("inertia_P_kgm2", &PlatformIdentification::inertia_P_kgm2)
      .def_readonly("rms_row", &PlatformIdentification::rms_row, "(6) residual rms of Fx..Fz [N], Mx..Mz [N m]")
      .def_readonly("row_weight", &PlatformIdentification::row_weight)
      .def_readonly("residual", &PlatformIdentification::residual)
      .def_readonly("t_s", &PlatformIdentification::t_s)
      .def_readonly("condition_number", &PlatformIdentification::condition_number)
      .def_readonly("nsample", &PlatformIdentification::nsample)
      .def("__repr__", [](const PlatformIdentification& p) {
        return "PlatformIdentification(mass_kg=" + float_repr(p.mass_kg) + ", samples=" + std::to_string(p.nsample) + ")";
      });
  m.def("platform_regressor", &platform_regressor, py::arg("R_WP"), py::arg("w_P"), py::arg("alpha_P"), py::arg("a_P_W"),
        py::arg("gravity_W"), "6 x 10 Newton-Euler regressor of the platform (force in W; moment about P, platform axes).");
  m.def("identify_platform", &identify_platform, py::arg("model"), py::arg("log"), py::arg("options") = PlatformFitOptions{},
        "Identify the platform's mass, COM and inertia from poses and tensions.");

  m.def(
      "identify",
      [](const Model& model, const py::object& data, const std::string& fit, bool damping, bool inertia, int smooth) {
        PlatformLog log;
        if (py::isinstance<PlatformLog>(data))
          log = data.cast<PlatformLog>();
        else
          log = read_platform_log(data.cast<std::filesystem::path>().string(), model);
        py::dict out;
        if (!fit.empty()) {
          CableFitOptions co;
          co.fit = stiffness_fit_from_string(fit);
          co.damping = damping;
          co.half_width = smooth;
          CableIdentification c;
          {
            py::gil_scoped_release nogil;
            c = identify_cables(model, log, co);
          }
          out["cables"] = c;
        }
        if (inertia) {
          PlatformFitOptions po;
          po.half_width = smooth;
          PlatformIdentification p;
          {
            py::gil_scoped_release nogil;
            p = identify_platform(model, log, po);
          }
          out["platform"] = p;
        }
        if (out.empty()) throw tendyn::Error("cdpr.identify: nothing to identify (give fit= and/or inertia=True)");
        return out;
      },
      py::arg("model"), py::arg("data"), py::kw_only(), py::arg("fit") = "stiffness", py::arg("damping") = false,
      py::arg("inertia") = false, py::arg("smooth") = 1,
      R"doc(Identify a CDPR's cables and/or platform from a pose and tension log.

data: a PlatformLog or the path of a platform-log CSV (docs/CDPR_DYNAMICS.md "Identification").
fit: 'stiffness' (EA from logged rest lengths), 'stiffness-rest-length' (k and a constant rest
length) or '' (no cable fit); damping: also fit c; inertia: the platform's mass, COM and inertia;
smooth: half width of the differentiation window. Returns a dict with 'cables'
(CableIdentification) and/or 'platform' (PlatformIdentification).)doc");
}

}  // namespace tendyn::python::cdpr_bind
