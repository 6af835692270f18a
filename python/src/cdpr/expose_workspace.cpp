// Bindings of include/tendyn/cdpr/workspace.hpp: workspace(), workspace_rays(), workspace_poses()
// (the functions `tendyn cdpr workspace` calls), results as dicts of numpy arrays.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/workspace.hpp>
#include <tendyn/core/error.hpp>

#include "cdpr/expose.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tendyn::python::cdpr_bind {

namespace py = pybind11;

namespace {

WorkspaceOptions make_options(const std::string& kind, const std::optional<Eigen::VectorXd>& wrench_lo,
                              const std::optional<Eigen::VectorXd>& wrench_hi, const std::optional<Eigen::VectorXd>& wrench_centre,
                              const std::optional<Eigen::MatrixXd>& wrench_shape, const std::string& group,
                              const std::vector<std::string>& rows, const std::optional<double>& f_min_N,
                              const std::optional<double>& f_max_N, bool margin, int threads) {
  WorkspaceOptions o;
  o.kind = workspace_kind_from_string(kind);
  if (wrench_lo.has_value() != wrench_hi.has_value())
    throw Error("workspace: give both wrench_lo and wrench_hi (the box of external wrenches) or neither");
  if (wrench_lo) {
    o.wrench_lo = *wrench_lo;
    o.wrench_hi = *wrench_hi;
  }
  if (wrench_centre.has_value() != wrench_shape.has_value())
    throw Error("workspace: give both wrench_centre and wrench_shape (the ellipsoid of external wrenches) or neither");
  if (wrench_centre) {
    o.wrench_centre = *wrench_centre;
    o.wrench_shape = *wrench_shape;
  }
  o.group = group;
  for (const auto& r : rows) o.rows.push_back(wrench_row_from_string(r));
  if (f_min_N) o.f_min_N = *f_min_N;
  if (f_max_N) o.f_max_N = *f_max_N;
  o.margin = margin;
  o.threads = threads;
  return o;
}

py::dict verdicts_dict(const std::vector<PoseVerdict>& v) {
  const auto n = static_cast<py::ssize_t>(v.size());
  py::array_t<bool> inside(n);
  py::array_t<double> margin(n), residual(n);
  py::list cls;
  auto in = inside.mutable_unchecked<1>();
  auto mg = margin.mutable_unchecked<1>();
  auto rs = residual.mutable_unchecked<1>();
  for (py::ssize_t i = 0; i < n; ++i) {
    const auto& x = v[static_cast<std::size_t>(i)];
    in(i) = x.inside();
    mg(i) = x.margin;
    rs(i) = x.residual;
    cls.append(to_string(x.cls));
  }
  py::dict d;
  d["inside"] = inside;
  d["class"] = cls;
  d["capacity_margin_N"] = margin;
  d["residual_norm_N"] = residual;
  return d;
}

Eigen::Matrix3d orientation_of(const Model& model, const std::optional<Eigen::VectorXd>& orientation) {
  if (!orientation) return Eigen::Matrix3d::Identity();
  const Eigen::VectorXd& v = *orientation;
  if (model.motion == Motion::kPlanar) {
    if (v.size() != 1) throw Error("workspace: orientation of a planar model is [phi] (rad)");
    return pose_planar(0.0, 0.0, v[0]).R_WP;
  }
  if (v.size() != 3) throw Error("workspace: orientation is [roll, pitch, yaw] (rad)");
  return pose_from_xyz_rpy(Eigen::Vector3d::Zero(), v.head<3>()).R_WP;
}

}  // namespace

void expose_workspace(py::module_& m) {
  m.def(
      "workspace",
      [](const Model& model, const Eigen::Vector3d& lo_m, const Eigen::Vector3d& hi_m, const std::array<int, 3>& count,
         const std::string& kind, const std::optional<Eigen::VectorXd>& orientation, const std::optional<Eigen::VectorXd>& wrench_lo,
         const std::optional<Eigen::VectorXd>& wrench_hi, const std::optional<Eigen::VectorXd>& wrench_centre,
         const std::optional<Eigen::MatrixXd>& wrench_shape, const std::string& group, const std::vector<std::string>& rows,
         const std::optional<double>& f_min_N, const std::optional<double>& f_max_N, bool margin, int threads) {
        const WorkspaceOptions o =
            make_options(kind, wrench_lo, wrench_hi, wrench_centre, wrench_shape, group, rows, f_min_N, f_max_N, margin, threads);
        WorkspaceGrid g;
        g.lo_m = lo_m;
        g.hi_m = hi_m;
        g.count = count;
        g.R_WP = orientation_of(model, orientation);
        WorkspaceGridResult r;
        {
          py::gil_scoped_release release;
          r = evaluate_grid(model, o, g);
        }
        py::dict d = verdicts_dict(r.verdicts);
        d["points_m"] = Eigen::MatrixX3d(r.p_WP.transpose());
        d["boundary"] = r.boundary;
        d["inside_count"] = r.inside_count;
        d["undefined_count"] = r.undefined_count;
        d["undecided_count"] = r.undecided_count;
        d["inside_on_grid_edge"] = r.edge_inside_count;
        d["cell_measure"] = r.cell_measure;
        d["measure"] = r.measure;
        return d;
      },
      py::arg("model"), py::arg("lo_m"), py::arg("hi_m"), py::arg("count"), py::kw_only(), py::arg("kind") = "feasible",
      py::arg("orientation") = py::none(), py::arg("wrench_lo") = py::none(), py::arg("wrench_hi") = py::none(),
      py::arg("wrench_centre") = py::none(), py::arg("wrench_shape") = py::none(), py::arg("group") = std::string(),
      py::arg("rows") = std::vector<std::string>{}, py::arg("f_min_N") = py::none(), py::arg("f_max_N") = py::none(),
      py::arg("margin") = true, py::arg("threads") = 0,
      "Workspace on a cell-centred grid of positions lo_m..hi_m [m] with count = (nx, ny, nz) (planar: nz = 1) at one "
      "orientation ([roll, pitch, yaw] or planar [phi], rad). kind: 'feasible' (weight + the box of external wrenches "
      "wrench_lo..wrench_hi, or the ellipsoid {wrench_centre + wrench_shape u : |u| <= 1} with a symmetric positive semi-definite shape, on the platform [N, N m], rows as `rows`), 'static' or 'closure'. Returns a dict: points_m "
      "(N x 3), inside (N bool), class, capacity_margin_N, residual_norm_N (N), boundary (indices), inside_count, "
      "measure (volume m^3, planar area m^2), cell_measure, undefined_count, undecided_count, inside_on_grid_edge. "
      "Exact test (docs/CDPR.md, Workspaces); the same result for any thread count. GIL released.");
  m.def(
      "workspace_rays",
      [](const Model& model, const Eigen::Vector3d& start_m, int count, const std::string& kind,
         const std::optional<Eigen::VectorXd>& orientation, double max_length_m, double step_m, double tol_m,
         const std::optional<Eigen::VectorXd>& wrench_lo, const std::optional<Eigen::VectorXd>& wrench_hi,
         const std::optional<Eigen::VectorXd>& wrench_centre, const std::optional<Eigen::MatrixXd>& wrench_shape, const std::string& group,
         const std::vector<std::string>& rows, const std::optional<double>& f_min_N, const std::optional<double>& f_max_N, bool margin,
         int threads) {
        const WorkspaceOptions o =
            make_options(kind, wrench_lo, wrench_hi, wrench_centre, wrench_shape, group, rows, f_min_N, f_max_N, margin, threads);
        RaySpec s;
        s.start_m = start_m;
        s.R_WP = orientation_of(model, orientation);
        s.count = count;
        s.max_length_m = max_length_m;
        s.step_m = step_m;
        s.tol_m = tol_m;
        RayResult r;
        {
          py::gil_scoped_release release;
          r = cast_rays(model, o, s);
        }
        py::dict d = verdicts_dict(r.verdicts);
        d["direction"] = Eigen::MatrixX3d(r.direction.transpose());
        d["distance_m"] = r.distance_m;
        d["boundary_m"] = Eigen::MatrixX3d(r.boundary_m.transpose());
        d["clipped"] = r.clipped;
        d["measure"] = r.measure;
        d["evaluations"] = r.evaluations;
        return d;
      },
      py::arg("model"), py::arg("start_m"), py::arg("count"), py::kw_only(), py::arg("kind") = "feasible",
      py::arg("orientation") = py::none(), py::arg("max_length_m") = 10.0, py::arg("step_m") = 0.05, py::arg("tol_m") = 1e-4,
      py::arg("wrench_lo") = py::none(), py::arg("wrench_hi") = py::none(), py::arg("wrench_centre") = py::none(),
      py::arg("wrench_shape") = py::none(), py::arg("group") = std::string(), py::arg("rows") = std::vector<std::string>{},
      py::arg("f_min_N") = py::none(), py::arg("f_max_N") = py::none(), py::arg("margin") = true, py::arg("threads") = 0,
      "Boundary by ray casting from start_m (must be inside): march by step_m, bisect to tol_m. Returns a dict: "
      "direction, boundary_m (count x 3), distance_m, clipped, inside/class/capacity_margin_N at the boundary points, "
      "measure (volume or area if star-shaped), evaluations.");
  m.def(
      "workspace_poses",
      [](const Model& model, const Eigen::MatrixXd& q, const std::string& kind, const std::optional<Eigen::VectorXd>& wrench_lo,
         const std::optional<Eigen::VectorXd>& wrench_hi, const std::optional<Eigen::VectorXd>& wrench_centre,
         const std::optional<Eigen::MatrixXd>& wrench_shape, const std::string& group, const std::vector<std::string>& rows,
         const std::optional<double>& f_min_N, const std::optional<double>& f_max_N, bool margin, int threads) {
        const WorkspaceOptions o =
            make_options(kind, wrench_lo, wrench_hi, wrench_centre, wrench_shape, group, rows, f_min_N, f_max_N, margin, threads);
        std::vector<Pose> poses;
        for (Eigen::Index i = 0; i < q.rows(); ++i) poses.push_back(pose_from_vector(model, q.row(i).transpose()));
        std::vector<PoseVerdict> v;
        {
          py::gil_scoped_release release;
          v = evaluate_poses(model, o, poses);
        }
        return verdicts_dict(v);
      },
      py::arg("model"), py::arg("q"), py::kw_only(), py::arg("kind") = "feasible", py::arg("wrench_lo") = py::none(),
      py::arg("wrench_hi") = py::none(), py::arg("wrench_centre") = py::none(), py::arg("wrench_shape") = py::none(),
      py::arg("group") = std::string(), py::arg("rows") = std::vector<std::string>{}, py::arg("f_min_N") = py::none(),
      py::arg("f_max_N") = py::none(), py::arg("margin") = true, py::arg("threads") = 0,
      "Verdicts for poses q (N x 3 planar x,y,phi or N x 6 spatial x,y,z,roll,pitch,yaw [m, rad]): e.g. an orientation "
      "workspace at one point. Returns a dict: inside, class, capacity_margin_N, residual_norm_N.");
}

}  // namespace tendyn::python::cdpr_bind
