#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/viz/tree_scene.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tendyn::viz {

namespace {
constexpr std::size_t kQPlot = 0, kVPlot = 1, kTauPlot = 2;  // indices into Scene::plots (make_scene)

std::vector<std::string> coordinate_names(const tree::Model& m, bool velocity) {
  std::vector<std::string> n;
  for (const auto& j : m.joints) {
    if (j.type == tree::JointType::kFree) {
      if (velocity)
        for (const char* s : {"wx", "wy", "wz", "vx", "vy", "vz"}) n.push_back(j.name + "." + s);
      else
        for (const char* s : {"x", "y", "z", "qw", "qx", "qy", "qz"}) n.push_back(j.name + "." + s);
    } else if ((velocity ? j.nv : j.nq) == 1) {
      n.push_back(j.name);
    }
  }
  return n;
}

ScenePlot joint_plot(const char* title, const char* y_label, const char* id, const std::vector<std::string>& names) {
  ScenePlot p{title, y_label, {}, {}, id};
  for (const auto& n : names) p.series.emplace_back(n, std::vector<double>{});
  return p;
}
}  // namespace

std::vector<std::string> tree_q_names(const tree::Model& m) { return coordinate_names(m, false); }
std::vector<std::string> tree_v_names(const tree::Model& m) { return coordinate_names(m, true); }

// Point layout: [0, n) link origins, [n, 2n) link centres of mass.
Scene make_scene(const tree::Model& m, const Eigen::VectorXd& q) {
  const int n = m.nlinks();
  Scene s;
  s.title = m.name;
  s.kind = "tree";
  for (const auto& l : m.links) s.points.push_back(l.name);
  for (const auto& l : m.links) s.points.push_back(l.name + "_com");
  tree::Data d = tree::make_data(m);
  tree::forward_kinematics(m, d, q);
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  double low_z_m = 0.0;  // the reference floor: at 0 or under the lowest point of the initial pose
  for (int i = 0; i < n; ++i) {
    const auto& X = d.X_WL[static_cast<std::size_t>(i)];
    lo = lo.cwiseMin(X.p);
    hi = hi.cwiseMax(X.p);
    const Eigen::Vector3d c = X.p + X.R * m.links[static_cast<std::size_t>(i)].p_LC_m;
    low_z_m = std::min({low_z_m, X.p.z(), c.z()});
  }
  s.ground_z_m = low_z_m;
  const double radius = std::max(0.04 * (hi - lo).norm(), 0.005);
  for (int i = 0; i < n; ++i) {
    const auto& name = m.links[static_cast<std::size_t>(i)].name;
    for (int c : m.children[static_cast<std::size_t>(i)])
      if (!m.joints[static_cast<std::size_t>(c)].fictitious)  // the document's virtual floating-base chain is not drawn
        s.rods.push_back({name + "-" + m.links[static_cast<std::size_t>(c)].name, i, c, radius, true});
    const auto& link = m.links[static_cast<std::size_t>(i)];
    const auto& joint = m.joints[static_cast<std::size_t>(i)];
    // the trunk (the body a floating base or the fictitious chain carries, or the root) gets a
    // capsule to its centre of mass too: its children's capsules start at its origin
    const bool trunk = (joint.fictitious || joint.type == tree::JointType::kFree || m.parent[static_cast<std::size_t>(i)] < 0) &&
                       link.mass_kg > 0.0 && !m.children[static_cast<std::size_t>(i)].empty();
    if ((m.children[static_cast<std::size_t>(i)].empty() || trunk) && link.p_LC_m.norm() > 1e-9)
      s.rods.push_back({name, i, n + i, radius, true});
  }
  for (int i = 0; i < n; ++i) {
    const auto& j = m.joints[static_cast<std::size_t>(i)];
    if (j.fictitious || (j.type != tree::JointType::kRevolute && j.type != tree::JointType::kPrismatic)) continue;
    s.joints.push_back({j.name, tree::to_string(j.type), i, j.idx_q, j.idx_v});
  }
  s.plots.push_back(joint_plot(kJointPositionPlotTitle, "rad | m", "q", tree_q_names(m)));
  s.plots.push_back(joint_plot(kJointVelocityPlotTitle, "rad/s | m/s", "qd", tree_v_names(m)));
  s.plots.push_back(joint_plot(kJointTorquePlotTitle, "N m | N", "tau", tree_v_names(m)));
  return s;
}

void add_tree_frame(Scene& s, const tree::Model& m, tree::Data& d, double t_s, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                    const Eigen::VectorXd& tau) {
  const int n = m.nlinks();
  m.check_v(tau, "tau");
  if (s.plots.size() <= kTauPlot || s.plots[kQPlot].series.size() != static_cast<std::size_t>(q.size()) ||
      s.plots[kTauPlot].series.size() != static_cast<std::size_t>(tau.size()))
    throw Error("tree scene: the scene was not made by make_scene for model '" + m.name + "'");
  if (!q.allFinite() || !v.allFinite() || !tau.allFinite())
    throw Error("tree scene: non-finite q, v or tau at t = " + format_number(t_s) + " s");
  tree::forward_kinematics(m, d, q);
  std::vector<double> p(static_cast<std::size_t>(6 * n));
  for (int i = 0; i < n; ++i) {
    const auto& X = d.X_WL[static_cast<std::size_t>(i)];
    const Eigen::Vector3d c = X.p + X.R * m.links[static_cast<std::size_t>(i)].p_LC_m;
    for (int k = 0; k < 3; ++k) {
      p[static_cast<std::size_t>(3 * i + k)] = X.p[k];
      p[static_cast<std::size_t>(3 * (n + i) + k)] = c[k];
    }
  }
  const double kinetic = tree::kinetic_energy(m, d, q, v), gravitational = tree::potential_energy(m, d, q);
  const Eigen::Vector3d com = tree::center_of_mass(m, d, q);
  const FrameEnergy e{kinetic, 0.0, gravitational, kinetic + gravitational};
  add_frame(s, t_s, p, {}, {}, com.data(), &e);  // checks positions, COM; kinetic_energy checked v
  // after add_frame succeeded: the per-frame arrays grow together
  for (const auto& j : s.joints) {
    const Eigen::Vector3d a = d.X_WL[static_cast<std::size_t>(j.point)].R * m.joints[static_cast<std::size_t>(j.point)].axis;
    s.joint_axes_W.insert(s.joint_axes_W.end(), {a.x(), a.y(), a.z()});
  }
  for (Eigen::Index k = 0; k < q.size(); ++k) s.plots[kQPlot].series[static_cast<std::size_t>(k)].second.push_back(q[k]);
  for (Eigen::Index k = 0; k < v.size(); ++k) {
    s.plots[kVPlot].series[static_cast<std::size_t>(k)].second.push_back(v[k]);
    s.plots[kTauPlot].series[static_cast<std::size_t>(k)].second.push_back(tau[k]);
  }
}

}  // namespace tendyn::viz
