// Bindings of include/tendyn/cdpr/design.hpp: the anchor design score and the Nelder-Mead anchor
// optimiser within a frame box.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/design.hpp>
#include <tendyn/core/error.hpp>

#include <optional>
#include <string>

#include "cdpr/expose.hpp"

namespace tendyn::python::cdpr_bind {

namespace py = pybind11;

void expose_design(py::module_& m) {
  py::class_<DesignOptions> o(m, "DesignOptions", "Frame box [m], initial simplex step [m] and evaluation budget of optimise_anchors.");
  o.def_readwrite("frame_min_m", &DesignOptions::frame_min_m, "lower corner of the frame box [m] (planar: z ignored)")
      .def_readwrite("frame_max_m", &DesignOptions::frame_max_m, "upper corner of the frame box [m] (planar: z ignored)")
      .def_readwrite("initial_step_m", &DesignOptions::initial_step_m, "initial simplex step [m] (> 0)")
      .def_readwrite("max_evaluations", &DesignOptions::max_evaluations, "score evaluations (>= 1)")
      .def_property(
          "objective", [](const DesignOptions& d) { return std::string(to_string(d.objective)); },
          [](DesignOptions& d, const std::string& name) { d.objective = design_objective_from_string(name); },
          "'tension-margin' (default), 'capacity-margin' (worst over the poses) or 'volume' (feasible fraction of the poses)")
      .def_readwrite("move_attachments", &DesignOptions::move_attachments, "also move the attachment points p_PB")
      .def_readwrite("attachment_min_m", &DesignOptions::attachment_min_m,
                     "lower corner of the attachment box in the platform frame [m] (both corners 0: the attachments' bounding box)")
      .def_readwrite("attachment_max_m", &DesignOptions::attachment_max_m, "upper corner of the attachment box [m]")
      .def(
          "set_wrench_box",
          [](DesignOptions& d, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi) {
            d.workspace.wrench_lo = lo;
            d.workspace.wrench_hi = hi;
          },
          py::arg("lo"), py::arg("hi"), "capacity-margin, volume: the box of external wrenches [N, N m] (every row of the model)")
      .def(
          "set_wrench_ellipsoid",
          [](DesignOptions& d, const Eigen::VectorXd& centre, const Eigen::MatrixXd& shape) {
            d.workspace.wrench_centre = centre;
            d.workspace.wrench_shape = shape;
          },
          py::arg("centre"), py::arg("shape"),
          "capacity-margin, volume: the ellipsoid {centre + shape u : |u| <= 1} of external wrenches [N, N m] (every row)");
  def_kw_init(o);
  py::class_<DesignScore>(m, "DesignScore", "Score of a design over poses: mean tension margin, feasible-pose count.")
      .def_readonly("score", &DesignScore::score, "mean per-pose margin (dimensionless; < -1 at infeasible poses)")
      .def_readonly("feasible", &DesignScore::feasible, "poses with status ok")
      .def_readonly("poses", &DesignScore::poses, "poses scored")
      .def("__repr__", [](const DesignScore& s) {
        return "DesignScore(score=" + py::repr(py::float_(s.score)).cast<std::string>() + ", feasible=" + std::to_string(s.feasible) +
               ", poses=" + std::to_string(s.poses) + ")";
      });
  py::class_<DesignResult>(m, "DesignResult", "The starting and the best design (anchors changed only) with their scores.")
      .def_readonly("start", &DesignResult::start, "the starting model")
      .def_readonly("best", &DesignResult::best, "the best model found")
      .def_readonly("start_score", &DesignResult::start_score, "DesignScore of the start")
      .def_readonly("best_score", &DesignResult::best_score, "DesignScore of the best design")
      .def_readonly("evaluations", &DesignResult::evaluations, "score evaluations made");
  m.def("design_score", py::overload_cast<const Model&, const Eigen::MatrixXd&>(&design_score), py::arg("model"), py::arg("poses"),
        "Score of the model over poses (K x 3 planar x, y, phi or K x 6 spatial x, y, z, roll, pitch, yaw) [m, rad]: "
        "the mean tension margin of the centred distribution (docs/CDPR.md). tendyn.Error for no poses, a wrong width, "
        "no finite tension.max, a cable of zero length.");
  m.def("design_score", py::overload_cast<const Model&, const Eigen::MatrixXd&, const DesignOptions&>(&design_score), py::arg("model"),
        py::arg("poses"), py::arg("options"),
        "Score of options.objective over the poses (docs/CDPR.md): mean tension margin, worst capacity margin [N, N m] or "
        "feasible fraction, with options' wrench set.");
  m.def("check_frame_box", &check_frame_box, py::arg("model"), py::arg("options"),
        "tendyn.Error naming the axis and values for a frame box without width or not finite, and the cable for a "
        "starting anchor outside it; nothing otherwise.");
  m.def("attachment_box", &attachment_box, py::arg("model"), py::arg("options"),
        "(lower, upper) corners [m, platform frame] of options' attachment box (both 0: the attachments' bounding box); "
        "tendyn.Error for an inverted or non-finite axis or a starting attachment outside it.");
  m.def("optimise_anchors", &optimise_anchors, py::arg("model"), py::arg("poses"), py::arg("options"),
        "Nelder-Mead over the anchors within options' frame box; returns DesignResult (the score never decreases). "
        "tendyn.Error for an empty or inverted box, a starting anchor outside it, a bad step or budget.");
  m.def(
      "optimise_anchors",
      [](const Model& model, const Eigen::MatrixXd& poses, const Eigen::Vector3d& frame_min_m, const Eigen::Vector3d& frame_max_m,
         double initial_step_m, int max_evaluations, const std::string& objective, bool move_attachments,
         const std::optional<Eigen::Vector3d>& attachment_min_m, const std::optional<Eigen::Vector3d>& attachment_max_m) {
        DesignOptions d;
        d.frame_min_m = frame_min_m;
        d.frame_max_m = frame_max_m;
        d.initial_step_m = initial_step_m;
        d.max_evaluations = max_evaluations;
        d.objective = design_objective_from_string(objective);
        d.move_attachments = move_attachments;
        if (attachment_min_m.has_value() != attachment_max_m.has_value())
          throw Error("optimise_anchors: give both attachment_min_m and attachment_max_m or neither");
        if (attachment_min_m) {
          d.attachment_min_m = *attachment_min_m;
          d.attachment_max_m = *attachment_max_m;
        }
        return optimise_anchors(model, poses, d);
      },
      py::arg("model"), py::arg("poses"), py::kw_only(), py::arg("frame_min_m"), py::arg("frame_max_m"), py::arg("initial_step_m") = 0.1,
      py::arg("max_evaluations") = 300, py::arg("objective") = "tension-margin", py::arg("move_attachments") = false,
      py::arg("attachment_min_m") = py::none(), py::arg("attachment_max_m") = py::none(),
      "optimise_anchors(model, poses, frame_min_m=[x, y, z], frame_max_m=[x, y, z], initial_step_m=0.1, max_evaluations=300, "
      "objective='tension-margin'|'capacity-margin'|'volume', move_attachments=False, attachment_min_m=None, attachment_max_m=None) "
      "(the weight alone as the wrench; DesignOptions.set_wrench_box / set_wrench_ellipsoid for a wrench set).");
}

}  // namespace tendyn::python::cdpr_bind
