// Bindings of include/tendyn/cdpr/geometry.hpp: Motion, WrenchRow, Model, Pose, Data, the structure matrix, gravity compensation.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/core/error.hpp>

#include "cdpr/expose.hpp"

#include <string>
#include <vector>

namespace tendyn::python::cdpr_bind {

namespace py = pybind11;

void expose_geometry(py::module_& m) {
  py::enum_<Motion>(m, "Motion", "Spatial (6 wrench rows) or planar (3 rows) platform motion.")
      .value("kSpatial", Motion::kSpatial)
      .value("kPlanar", Motion::kPlanar);
  m.def("motion_from_string", &motion_from_string, py::arg("name"), "'spatial' or 'planar' -> Motion (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<Motion>(&to_string), py::arg("motion"), "'spatial' or 'planar'.");
  py::enum_<WrenchRow>(m, "WrenchRow", "A wrench row: fx fy fz mx my mz.")
      .value("kFx", WrenchRow::kFx)
      .value("kFy", WrenchRow::kFy)
      .value("kFz", WrenchRow::kFz)
      .value("kMx", WrenchRow::kMx)
      .value("kMy", WrenchRow::kMy)
      .value("kMz", WrenchRow::kMz);
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
        return "Model(name=" + py::repr(py::str(mo.name)).cast<std::string>() + ", motion=" + to_string(mo.motion) +
               ", cables=" + std::to_string(mo.ncable()) + ")";
      });
  // Point arrays in either layout: (3 x n) as in C++, or (n x 3), one row per point, as the other
  // node arrays of the Python API; a 3 x 3 array is read as (3 x n), columns = points.
  const auto points = [](const py::array_t<double, py::array::forcecast>& a, const char* what) {
    if (a.ndim() == 2 && (a.shape(0) == 3 || a.shape(1) == 3)) {
      const bool rows = a.shape(0) != 3;
      const py::ssize_t n = rows ? a.shape(0) : a.shape(1);
      Eigen::Matrix3Xd out(3, n);
      const auto v = a.unchecked<2>();
      for (py::ssize_t j = 0; j < n; ++j)
        for (int c = 0; c < 3; ++c) out(c, j) = rows ? v(j, c) : v(c, j);
      return out;
    }
    std::string shape = "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i) shape += (i ? ", " : "") + std::to_string(a.shape(i));
    throw Error(std::string("make_model: ") + what + " must be (3, n) or (n, 3) points [m], got shape " + shape + ")");
  };
  m.def(
      "make_model",
      [points](std::string name, Motion motion, const py::array_t<double, py::array::forcecast>& p_WA,
               const py::array_t<double, py::array::forcecast>& p_PB, std::vector<std::string> cable_names,
               std::vector<std::string> cable_groups) {
        return make_model(std::move(name), motion, points(p_WA, "p_WA"), points(p_PB, "p_PB"), std::move(cable_names),
                          std::move(cable_groups));
      },
      py::arg("name"), py::arg("motion"), py::arg("p_WA"), py::arg("p_PB"), py::arg("cable_names") = std::vector<std::string>{},
      py::arg("cable_groups") = std::vector<std::string>{},
      "Build and validate a model from anchors p_WA and attachments p_PB [m], each (3, n) as in C++ or (n, 3), one\n"
      "row per cable (a 3 x 3 array is read as (3, n)). Model.p_WA / p_PB are (3, n).");
  m.def("validate", py::overload_cast<const Model&>(&validate), py::arg("model"),
        "Check every invariant of the model (after editing it); raises tendyn.Error naming the cable and the reason.");
  m.def("validate_model", &validate_model, py::arg("model"), "The same as validate(model) (its former name).");

  py::class_<Pose> pose(m, "Pose", "Platform pose: position p_WP [m] of the platform point P, rotation R_WP.");
  pose.def_readwrite("p_WP", &Pose::p_WP, "(3) position of P in the world frame [m]")
      .def_readwrite("R_WP", &Pose::R_WP, "(3 x 3) rotation of the platform frame in the world frame (dimensionless)");
  def_kw_init(pose);
  m.def("pose_from_xyz_rpy", &pose_from_xyz_rpy, py::arg("p_WP_m"), py::arg("rpy_rad"), "Pose from position and roll-pitch-yaw.");
  m.def("pose_planar", &pose_planar, py::arg("x_m"), py::arg("y_m"), py::arg("phi_rad"), "Planar pose.");
  m.def("pose_from_vector", &pose_from_vector, py::arg("model"), py::arg("q"), "Pose from (x,y,z,roll,pitch,yaw) or planar (x,y,phi).");

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
  m.def("gravity_compensation_wrench", py::overload_cast<const Model&, const Pose&>(&gravity_compensation_wrench), py::arg("model"),
        py::arg("pose"), "The wrench the cables must apply to hold the platform against gravity.");
}

}  // namespace tendyn::python::cdpr_bind
