// Bindings of include/tendyn/cdpr/interference.hpp: segment distances, convex platform shapes,
// pose / trajectory interference and the interference_free predicate.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/interference.hpp>

#include "cdpr/expose.hpp"

#include <string>

namespace tendyn::python::cdpr_bind {

namespace py = pybind11;

void expose_interference(py::module_& m) {
  py::class_<SegmentDistance>(m, "SegmentDistance", "Minimum distance of two segments and the closest points' parameters.")
      .def_readonly("distance_m", &SegmentDistance::distance_m, "minimum distance [m]")
      .def_readonly("s", &SegmentDistance::s, "parameter in [0, 1] of the closest point on the first segment")
      .def_readonly("t", &SegmentDistance::t, "parameter in [0, 1] of the closest point on the second segment");
  m.def("segment_distance", &segment_distance, py::arg("a0"), py::arg("a1"), py::arg("b0"), py::arg("b1"),
        "Exact minimum distance between segments a0-a1 and b0-b1 [m] (parallel and zero-length segments handled).");
  py::class_<ConvexShape>(m, "ConvexShape", "Convex shape as half-spaces normal . x <= offset.")
      .def_readonly("normals", &ConvexShape::normals, "(3 x K) unit outward normals")
      .def_readonly("offsets_m", &ConvexShape::offsets_m, "(K) offsets [m]")
      .def_readonly("description", &ConvexShape::description, "e.g. 'box 1 x 1 x 0.8 m'");
  m.def("box_shape", &box_shape, py::arg("half_extents_m"), py::arg("centre_m") = Eigen::Vector3d::Zero().eval(),
        "Axis-aligned box in the platform frame (half sizes [m], centre [m]).");
  m.def("convex_hull_shape", &convex_hull_shape, py::arg("points_m"),
        "Convex hull of (3 x k) points as half-spaces (tendyn.Error for collinear points).");
  m.def("transform_shape", &transform_shape, py::arg("shape"), py::arg("pose"), "The shape moved by a platform pose.");
  py::class_<SegmentClip>(m, "SegmentClip", "Part of a segment inside a convex shape.")
      .def_readonly("t_enter", &SegmentClip::t_enter, "start parameter of the inside part")
      .def_readonly("t_exit", &SegmentClip::t_exit, "end parameter (t_enter > t_exit: none)")
      .def_readonly("length_m", &SegmentClip::length_m, "length inside [m]");
  m.def("clip_segment", &clip_segment, py::arg("shape"), py::arg("p0"), py::arg("p1"), "The segment p0-p1 clipped by the shape.");
  py::class_<InterferenceOptions> io(m, "InterferenceOptions", "Clearance [m], penetration tolerance [m], platform shape.");
  io.def_readwrite("clearance_m", &InterferenceOptions::clearance_m, "cable pairs closer than this interfere [m]")
      .def_readwrite("penetration_tol_m", &InterferenceOptions::penetration_tol_m,
                     "a cable with more than this length inside the platform collides [m]")
      .def_readwrite("platform", &InterferenceOptions::platform, "platform shape in the platform frame, or None (not checked)");
  def_kw_init(io);
  py::class_<PoseInterference>(m, "PoseInterference", "Interference at one pose.")
      .def_readonly("pair_distance_m", &PoseInterference::pair_distance_m, "distance per cable pair [m] (NaN: shared attachment)")
      .def_readonly("penetration_m", &PoseInterference::penetration_m, "length of each cable inside the platform [m]")
      .def_readonly("free", &PoseInterference::free, "no interference");
  m.def("cable_pairs", &cable_pairs, py::arg("n"), "The (i, j), i < j, pairs of n cables in order.");
  m.def("pose_interference", &pose_interference, py::arg("model"), py::arg("pose"), py::arg("options"),
        "Cable-cable distances and cable-platform lengths at a pose.");
  m.def("interference_free", py::overload_cast<const Model&, const Pose&, const InterferenceOptions&>(&interference_free), py::arg("model"),
        py::arg("pose"), py::arg("options"), "True when the pose has no interference.");
  m.def("interference_free", py::overload_cast<const Model&, const Pose&, double>(&interference_free), py::arg("model"), py::arg("pose"),
        py::arg("clearance_m"), "Same with a clearance [m] and the hull of the attachment points.");
  py::class_<TrajectoryInterference>(m, "TrajectoryInterference", "Interference along a trajectory.")
      .def_readonly("pairs", &TrajectoryInterference::pairs, "cable index pairs")
      .def_readonly("min_distance_m", &TrajectoryInterference::min_distance_m, "minimum distance per pair [m]")
      .def_readonly("min_row", &TrajectoryInterference::min_row, "row of each minimum")
      .def_readonly("first_close_row", &TrajectoryInterference::first_close_row, "first row below the clearance (-1: none)")
      .def_readonly("max_penetration_m", &TrajectoryInterference::max_penetration_m, "maximum length inside the platform [m]")
      .def_readonly("first_penetration_row", &TrajectoryInterference::first_penetration_row, "first row above the tolerance (-1: none)")
      .def_readonly("first_interference_row", &TrajectoryInterference::first_interference_row, "first row with interference (-1: none)")
      .def_readonly("rows", &TrajectoryInterference::rows, "number of poses");
  m.def(
      "trajectory_interference",
      [](const Model& model, const PoseTrajectory& t, const InterferenceOptions& o) {
        py::gil_scoped_release release;
        return trajectory_interference(model, t, o);
      },
      py::arg("model"), py::arg("trajectory"), py::arg("options"), "Interference at every pose of a trajectory (GIL released).");
  m.def("interference_csv", &interference_csv, py::arg("model"), py::arg("result"),
        "The interference.csv text of `tendyn tension interference`.");
}

}  // namespace tendyn::python::cdpr_bind
