#include <tendyn/tree/algorithms.hpp>
#include <tendyn/viz/tree_scene.hpp>

#include <algorithm>
#include <limits>

namespace tendyn::viz {

// Point layout: [0, n) link origins, [n, 2n) link centres of mass.
Scene make_scene(const tree::Model& m, const Eigen::VectorXd& q) {
  const int n = m.nlinks();
  Scene s;
  s.title = m.name;
  s.kind = "tree";
  // no ground plane: the tree module has no contact model, a floating base falls through z = 0
  for (const auto& l : m.links) s.points.push_back(l.name);
  for (const auto& l : m.links) s.points.push_back(l.name + "_com");
  tree::Data d = tree::make_data(m);
  tree::forward_kinematics(m, d, q);
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (const auto& X : d.X_WL) {
    lo = lo.cwiseMin(X.p);
    hi = hi.cwiseMax(X.p);
  }
  const double radius = std::max(0.04 * (hi - lo).norm(), 0.005);
  for (int i = 0; i < n; ++i) {
    const auto& name = m.links[static_cast<std::size_t>(i)].name;
    for (int c : m.children[static_cast<std::size_t>(i)])
      if (!m.joints[static_cast<std::size_t>(c)].fictitious)  // the document's virtual floating-base chain is not drawn
        s.rods.push_back({name + "-" + m.links[static_cast<std::size_t>(c)].name, i, c, radius, true});
    if (m.children[static_cast<std::size_t>(i)].empty() && m.links[static_cast<std::size_t>(i)].p_LC_m.norm() > 1e-9)
      s.rods.push_back({name, i, n + i, radius, true});
  }
  return s;
}

void add_tree_frame(Scene& s, const tree::Model& m, tree::Data& d, double t_s, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const int n = m.nlinks();
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
  add_frame(s, t_s, p, {}, {}, com.data(), &e);
}

}  // namespace tendyn::viz
