// CDPR geometry and structure matrix (document 002, eqs. (1)-(3)).
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>

#include <Eigen/Geometry>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace tendyn::cdpr {

namespace {
constexpr double kMinLength = 1e-9;  // [m]
}  // namespace

Pose pose_from_xyz_rpy(const Eigen::Vector3d& p_WP_m, const Eigen::Vector3d& rpy_rad) {
  if (!p_WP_m.allFinite() || !rpy_rad.allFinite()) throw Error("pose: non-finite entry");
  Pose p;
  p.p_WP = p_WP_m;
  p.R_WP = (Eigen::AngleAxisd(rpy_rad.z(), Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(rpy_rad.y(), Eigen::Vector3d::UnitY()) *
            Eigen::AngleAxisd(rpy_rad.x(), Eigen::Vector3d::UnitX()))
               .toRotationMatrix();
  return p;
}

Pose pose_planar(double x_m, double y_m, double phi_rad) {
  return pose_from_xyz_rpy(Eigen::Vector3d(x_m, y_m, 0.0), Eigen::Vector3d(0.0, 0.0, phi_rad));
}

Pose pose_from_vector(const Model& model, const Eigen::VectorXd& q) {
  if (model.motion == Motion::kPlanar) {
    if (q.size() != 3) throw Error("pose: planar model '" + model.name + "' needs 3 values (x, y, phi), got " + std::to_string(q.size()));
    return pose_planar(q[0], q[1], q[2]);
  }
  if (q.size() != 6)
    throw Error("pose: spatial model '" + model.name + "' needs 6 values (x, y, z, roll, pitch, yaw), got " + std::to_string(q.size()));
  return pose_from_xyz_rpy(q.head<3>(), q.tail<3>());
}

Data make_data(const Model& model) {
  const int n = model.ncable();
  Data d;
  d.p_WB.resize(3, n);
  d.l_W.resize(3, n);
  d.length_m.resize(n);
  d.u_W.resize(3, n);
  d.J.resize(model.wrench_dim(), n);
  return d;
}

void update_geometry(const Model& model, const Pose& pose, Data& d) {
  const int n = model.ncable();
  if (d.J.cols() != n || d.J.rows() != model.wrench_dim()) throw Error("update_geometry: data was made for another model");
  if (!pose.p_WP.allFinite() || !pose.R_WP.allFinite()) throw Error("update_geometry: non-finite pose");
  for (int i = 0; i < n; ++i) {
    const Eigen::Vector3d r_W = pose.R_WP * model.p_PB.col(i);  // P -> B in world axes
    d.p_WB.col(i) = pose.p_WP + r_W;
    d.l_W.col(i) = model.p_WA.col(i) - d.p_WB.col(i);
    const double len = d.l_W.col(i).norm();
    if (!(len >= kMinLength))
      throw Error("cdpr model '" + model.name + "': cable " +
                  (static_cast<int>(model.cable_names.size()) > i ? model.cable_names[i] : "c" + std::to_string(i + 1)) +
                  ": zero length at pose p_WP = " + format_point(pose.p_WP) + " (attachment point on its anchor; direction undefined)");
    d.length_m[i] = len;
    const Eigen::Vector3d u = d.l_W.col(i) / len;
    d.u_W.col(i) = u;
    const Eigen::Vector3d m = r_W.cross(u);
    if (model.motion == Motion::kSpatial) {
      d.J.col(i).head<3>() = u;
      d.J.col(i).tail<3>() = m;
    } else {
      d.J(0, i) = u.x();
      d.J(1, i) = u.y();
      d.J(2, i) = m.z();
    }
  }
}

Eigen::MatrixXd select_rows(const Eigen::MatrixXd& J, const std::vector<WrenchRow>& rows) {
  if (rows.empty()) throw Error("select_rows: no rows selected");
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), J.cols());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    int r = static_cast<int>(rows[k]);
    if (J.rows() == 3) {
      if (rows[k] == WrenchRow::kFx)
        r = 0;
      else if (rows[k] == WrenchRow::kFy)
        r = 1;
      else if (rows[k] == WrenchRow::kMz)
        r = 2;
      else
        throw Error(std::string("select_rows: planar structure matrix has no row '") + to_string(rows[k]) + "' (rows are fx, fy, mz)");
    } else if (J.rows() != 6) {
      throw Error("select_rows: J must have 3 or 6 rows");
    }
    out.row(static_cast<Eigen::Index>(k)) = J.row(r);
  }
  return out;
}

std::vector<int> cables_in_group(const Model& model, const std::string& group) {
  std::vector<int> idx;
  for (int i = 0; i < model.ncable(); ++i)
    if (static_cast<std::size_t>(i) < model.cable_groups.size() && model.cable_groups[static_cast<std::size_t>(i)] == group)
      idx.push_back(i);
  if (idx.empty()) throw Error("cdpr model '" + model.name + "': no cable in group '" + group + "'");
  return idx;
}

void gravity_compensation_wrench(const Model& model, const Pose& pose, Eigen::Ref<Eigen::VectorXd> w) {
  if (w.size() != model.wrench_dim())
    throw Error("gravity_compensation_wrench: w has " + std::to_string(w.size()) + " entries, expected " +
                std::to_string(model.wrench_dim()));
  const Eigen::Vector3d F = -model.platform_mass_kg * model.gravity_W;
  const Eigen::Vector3d M = (pose.R_WP * model.p_PC).cross(F);
  if (model.motion == Motion::kSpatial) {
    w.head<3>() = F;
    w.tail<3>() = M;
  } else {
    w[0] = F.x();
    w[1] = F.y();
    w[2] = M.z();
  }
}

Eigen::VectorXd gravity_compensation_wrench(const Model& model, const Pose& pose) {
  Eigen::VectorXd w(model.wrench_dim());
  gravity_compensation_wrench(model, pose, w);
  return w;
}

}  // namespace tendyn::cdpr
