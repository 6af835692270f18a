// Bindings of include/tendyn/tensegrity/psi_study.hpp: document 000's psi study (GIL released).
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/psi_study.hpp>

#include "tensegrity/expose.hpp"

#include <array>
#include <string>

namespace tendyn::python::tensegrity_bind {

namespace {

std::array<double, 3> arr3(const double (&v)[3]) { return {v[0], v[1], v[2]}; }

}  // namespace

void expose_psi_study(py::module_& m) {
  py::class_<PsiStudyOptions> pso(m, "PsiStudyOptions", "Document 000's psi study: prism (n = 3), angles, simulation, threads.");
  pso.def_readwrite("prism", &PsiStudyOptions::prism, "PrismParams: everything but psi (n must be 3)")
      .def_readwrite("psi_deg", &PsiStudyOptions::psi_deg, "tilt angles to run [deg]")
      .def_readwrite("simulation", &PsiStudyOptions::simulation, "SimulationOptions of every run")
      .def_readwrite("threads", &PsiStudyOptions::threads, "worker threads (0 = all cores); results do not depend on it");
  def_kw_init(pso);
  py::class_<PsiStudyRow>(m, "PsiStudyRow", "One tilt angle of the psi study; per-triple arrays are (top, bottom, side).")
      .def_readonly("psi_deg", &PsiStudyRow::psi_deg, "tilt [deg]")
      .def_readonly("normal", &PsiStudyRow::normal, "True when no cable went slack and no strain exceeded the limit")
      .def_readonly("first_slack_time_s", &PsiStudyRow::first_slack_time_s, "first slack time [s] (-1: never)")
      .def_readonly("first_slack_cable", &PsiStudyRow::first_slack_cable, "id of the first slack cable ('' if none)")
      .def_readonly("first_overstrain_time_s", &PsiStudyRow::first_overstrain_time_s, "first over-strain time [s] (-1: never)")
      .def_readonly("first_overstrain_cable", &PsiStudyRow::first_overstrain_cable, "id of the first over-strained cable ('' if none)")
      .def_property_readonly(
          "max_strain", [](const PsiStudyRow& r) { return arr3(r.max_strain); }, "(3) per triple, over the run (dimensionless)")
      .def_property_readonly(
          "min_strain", [](const PsiStudyRow& r) { return arr3(r.min_strain); }, "(3) per triple, over the run (dimensionless)")
      .def_property_readonly(
          "final_strain", [](const PsiStudyRow& r) { return arr3(r.final_strain); }, "(3) per triple at the end (dimensionless)")
      .def_readonly("triple_spread", &PsiStudyRow::triple_spread,
                    "max over time and triples of the strain spread within a triple (dimensionless)")
      .def_property_readonly(
          "shape",
          [](const PsiStudyRow& r) {
            return std::array<std::string, 3>{r.shape[0], r.shape[1], r.shape[2]};
          },
          "(3) transient shape per triple: 'rises', 'falls', 'rises-then-falls', 'falls-then-rises'")
      .def_readonly("kinetic_final_J", &PsiStudyRow::kinetic_final_J, "kinetic energy at the end [J]")
      .def("__repr__",
           [](const PsiStudyRow& r) { return "PsiStudyRow(psi_deg=" + float_repr(r.psi_deg) + ", normal=" + bool_repr(r.normal) + ")"; });
  py::class_<PsiStudyResult>(m, "PsiStudyResult", "Rows and the longest run of normal-mode angles.")
      .def_readonly("rows", &PsiStudyResult::rows, "list of PsiStudyRow")
      .def_readonly("has_range", &PsiStudyResult::has_range, "True when at least one angle is normal")
      .def_readonly("range_min_deg", &PsiStudyResult::range_min_deg, "start of the longest run of normal angles [deg]")
      .def_readonly("range_max_deg", &PsiStudyResult::range_max_deg, "end of the longest run of normal angles [deg]")
      .def("__repr__", [](const PsiStudyResult& r) {
        std::string s = "PsiStudyResult(rows=" + std::to_string(r.rows.size());
        if (r.has_range) s += ", range_deg=[" + float_repr(r.range_min_deg) + ", " + float_repr(r.range_max_deg) + "]";
        return s + ")";
      });
  m.def(
      "run_psi_study",
      [](const PsiStudyOptions& o) {
        py::gil_scoped_release release;
        return run_psi_study(o);
      },
      py::arg("options"), "Run the psi study (parallel, GIL released; results independent of threads).");
}

}  // namespace tendyn::python::tensegrity_bind
