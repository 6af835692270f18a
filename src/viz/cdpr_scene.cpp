#include <tendyn/core/error.hpp>
#include <tendyn/viz/cdpr_scene.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace tendyn::viz {

// Point layout: [0, n) anchors, [n, 2n) attachment points, 2n platform reference, then tower feet.
Scene make_scene(const cdpr::Model& m) {
  const int n = static_cast<int>(m.p_WA.cols());
  Scene s;
  s.title = m.name;
  s.kind = "cdpr";
  const bool spatial = m.motion == cdpr::Motion::kSpatial;
  if (spatial) s.ground_z_m = std::min(0.0, m.p_WA.row(2).minCoeff());
  for (int i = 0; i < n; ++i) s.points.push_back("A_" + m.cable_names[static_cast<std::size_t>(i)]);
  for (int i = 0; i < n; ++i) s.points.push_back("B_" + m.cable_names[static_cast<std::size_t>(i)]);
  s.points.push_back("P");
  for (int i = 0; i < n; ++i) s.cables.push_back({m.cable_names[static_cast<std::size_t>(i)], i, n + i});
  // towers: one per distinct anchor (x, y) column above the ground
  const double span = std::max((m.p_WA.rowwise().maxCoeff() - m.p_WA.rowwise().minCoeff()).norm(), 1e-3);
  if (spatial) {
    std::map<std::pair<long, long>, int> top;  // (x, y) on a 1 mm grid -> highest anchor
    for (int i = 0; i < n; ++i) {
      const auto key = std::make_pair(std::lround(m.p_WA(0, i) * 1e3), std::lround(m.p_WA(1, i) * 1e3));
      if (m.p_WA(2, i) <= *s.ground_z_m + 1e-9) continue;
      auto it = top.find(key);
      if (it == top.end() || m.p_WA(2, i) > m.p_WA(2, it->second)) top[key] = i;
    }
    for (const auto& [key, i] : top) {
      s.points.push_back("foot_" + m.cable_names[static_cast<std::size_t>(i)]);
      s.rods.push_back(
          {"tower_" + m.cable_names[static_cast<std::size_t>(i)], static_cast<int>(s.points.size()) - 1, i, span / 150.0, false});
    }
  }
  // platform faces: attachment points grouped by platform-frame z (1 mm), ordered by angle
  std::map<long, std::vector<int>> levels;
  for (int i = 0; i < n; ++i) levels[spatial ? std::lround(m.p_PB(2, i) * 1e3) : 0].push_back(i);
  for (auto& [z, idx] : levels) {
    Eigen::Vector2d c = Eigen::Vector2d::Zero();
    for (int i : idx) c += m.p_PB.col(i).head<2>();
    c /= static_cast<double>(idx.size());
    std::sort(idx.begin(), idx.end(), [&](int a, int b) {
      const Eigen::Vector2d da = m.p_PB.col(a).head<2>() - c, db = m.p_PB.col(b).head<2>() - c;
      return std::atan2(da.y(), da.x()) < std::atan2(db.y(), db.x());
    });
    // drop points that coincide (several cables on one attachment point)
    std::vector<int> face;
    for (int i : idx)
      if (face.empty() || (m.p_PB.col(i) - m.p_PB.col(face.back() - n)).norm() > 1e-6)
        face.push_back(n + i);  // face holds point indices n + i
    if (face.size() >= 3) s.faces.push_back(face);
  }
  return s;
}

void add_cdpr_frame(Scene& s, const cdpr::Model& m, const cdpr::Data& g, const cdpr::Pose& pose, double t_s,
                    std::span<const double> tension_N, std::span<const double> strain, const Eigen::Matrix3Xd* p_WA,
                    const FrameEnergy* energy) {
  const int n = static_cast<int>(m.p_WA.cols());
  const Eigen::Matrix3Xd& A = p_WA ? *p_WA : m.p_WA;
  std::vector<double> p(static_cast<std::size_t>(3 * s.npoint()));
  auto put = [&](int k, const Eigen::Vector3d& v) {
    for (int c = 0; c < 3; ++c) p[static_cast<std::size_t>(3 * k + c)] = v[c];
  };
  for (int i = 0; i < n; ++i) put(i, A.col(i));
  for (int i = 0; i < n; ++i) put(n + i, g.p_WB.col(i));
  put(2 * n, pose.p_WP);
  // tower feet under their anchors (rods from foot to anchor)
  for (const auto& r : s.rods) {
    const Eigen::Vector3d top = A.col(r.b);
    put(r.a, Eigen::Vector3d(top.x(), top.y(), s.ground_z_m.value_or(0.0)));
  }
  const std::vector<double> zeros(static_cast<std::size_t>(n), 0.0);
  const Eigen::Vector3d com = pose.p_WP + pose.R_WP * m.p_PC;
  add_frame(s, t_s, p, tension_N, strain.empty() ? std::span<const double>(zeros) : strain, com.data(), energy);
}

Scene workspace_scene(const cdpr::Model& model, const cdpr::Pose& pose, const cdpr::WorkspaceGridResult& grid,
                      const std::string& value_label, bool outside) {
  const auto n = static_cast<std::size_t>(grid.p_WP.cols());
  if (grid.verdicts.size() != n)
    throw Error("workspace scene: " + std::to_string(grid.verdicts.size()) + " verdicts for " + std::to_string(n) + " grid points");
  Scene s = make_scene(model);
  cdpr::Data g = cdpr::make_data(model);
  cdpr::update_geometry(model, pose, g);
  const std::vector<double> zeros(static_cast<std::size_t>(model.p_WA.cols()), 0.0);
  add_cdpr_frame(s, model, g, pose, 0.0, zeros);
  SceneCloud c;
  c.name = "workspace";
  c.value_label = value_label;
  std::vector<int> index(n, -1);  // grid point -> cloud point
  for (std::size_t i = 0; i < n; ++i) {
    const auto& v = grid.verdicts[i];
    if (!v.inside() && !outside) continue;
    index[i] = static_cast<int>(c.values.size());
    for (int k = 0; k < 3; ++k) c.points_m.push_back(grid.p_WP(k, static_cast<Eigen::Index>(i)));
    c.values.push_back(v.inside() ? v.margin : std::numeric_limits<double>::quiet_NaN());
  }
  for (int b : grid.boundary) {
    if (b < 0 || static_cast<std::size_t>(b) >= n) throw Error("workspace scene: boundary index " + std::to_string(b) + " out of range");
    if (index[static_cast<std::size_t>(b)] >= 0) c.highlight.push_back(index[static_cast<std::size_t>(b)]);
  }
  s.clouds.push_back(std::move(c));
  return s;
}

}  // namespace tendyn::viz
