#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/builders.hpp>

#include <cmath>
#include <numbers>
#include <string>

namespace tendyn::tensegrity {

namespace {
Rod make_rod(double m, double L, double r1, double r2) { return r1 > 0.0 ? make_hollow_rod(m, L, r1, r2) : make_thin_rod(m, L); }
void add_cable(Model& m, const std::string& id, int a, int b, double k, double c, double l0) {
  Cable cab;
  cab.node[0] = a;
  cab.node[1] = b;
  cab.stiffness_Npm = k;
  cab.damping_Nspm = c;
  cab.rest_length_m = l0;
  m.cables.push_back(cab);
  m.cable_ids.push_back(id);
}
}  // namespace

double prism_radius_m(const PrismParams& p) {
  if (p.radius_m > 0.0) return p.radius_m;
  if (!(p.radius_m < 0.0)) throw Error("prism: radius must be > 0 (or < 0 for the layout's default)");
  return p.layout == PrismLayout::kCentred ? p.rod_length_m / 8.0 : kPrismPivotDefaultRadius_m;
}

Model make_prism(const PrismParams& p) {
  if (p.n < 3 || p.n > 10000) throw Error("prism: n must be in [3, 10000] (got " + std::to_string(p.n) + ")");
  const double radius = prism_radius_m(p);
  if (p.layout == PrismLayout::kPivot && !(p.pivot >= 0.0 && p.pivot <= 1.0)) throw Error("prism: pivot must be in [0, 1]");
  const int n = p.n;
  Model m;
  m.name = std::to_string(n) + "-prism";
  m.damping_law = p.damping_law;
  // nodes: t1..tn then b1..bn
  for (int k = 0; k < n; ++k) {
    Rod r = make_rod(p.rod_mass_kg, p.rod_length_m, p.rod_radius_outer_m, p.rod_radius_inner_m);
    r.node[0] = n + k;  // bottom
    r.node[1] = k;      // top
    m.rods.push_back(r);
    m.rod_ids.push_back(n == 3 ? std::string(k == 0 ? "I" : k == 1 ? "II" : "III") : "rod" + std::to_string(k + 1));
  }
  m.nodes.resize(static_cast<std::size_t>(2 * n));
  for (int k = 0; k < n; ++k) {
    m.nodes[static_cast<std::size_t>(k)] = Node{k, 1, Eigen::Vector3d::Zero()};
    m.nodes[static_cast<std::size_t>(n + k)] = Node{k, 0, Eigen::Vector3d::Zero()};
  }
  for (int k = 0; k < n; ++k) m.node_ids.push_back("t" + std::to_string(k + 1));
  for (int k = 0; k < n; ++k) m.node_ids.push_back("b" + std::to_string(k + 1));
  auto pick = [](double v, double fallback) { return v > 0.0 ? v : fallback; };
  const double kt = pick(p.stiffness_top_Npm, p.stiffness_Npm), kb = pick(p.stiffness_bottom_Npm, p.stiffness_Npm),
               ks = pick(p.stiffness_side_Npm, p.stiffness_Npm);
  const double lt = pick(p.rest_top_m, p.rest_length_m), lb = pick(p.rest_bottom_m, p.rest_length_m),
               ls = pick(p.rest_side_m, p.rest_length_m);
  for (int k = 0; k < n; ++k) {
    const int k1 = (k + 1) % n;
    add_cable(m, "top" + std::to_string(k + 1), k, k1, kt, p.damping_Nspm, lt);
    add_cable(m, "bottom" + std::to_string(k + 1), n + k, n + k1, kb, p.damping_Nspm, lb);
    add_cable(m, "side" + std::to_string(k + 1), k, n + k1, ks, p.damping_Nspm, ls);
  }
  m.f_W_ext_node.assign(static_cast<std::size_t>(2 * n), Eigen::Vector3d::Zero());
  Eigen::MatrixX3d P(2 * n, 3);
  const double L = p.rod_length_m;
  const double pi = std::numbers::pi;
  for (int k = 0; k < n; ++k) {
    if (p.layout == PrismLayout::kCentred) {
      // the authors' n_prism.py: centre at azimuth pi/n + 2 pi k/n, axis R_z(2 pi k/n) (sin psi, 0, -cos psi)
      const double a = pi / n + 2.0 * pi * k / n, turn = 2.0 * pi * k / n;
      const Eigen::Vector3d centre(radius * std::cos(a), radius * std::sin(a), p.height_m);
      const Eigen::Vector3d u0(std::sin(p.psi_rad), 0.0, -std::cos(p.psi_rad));
      const Eigen::Vector3d u(std::cos(turn) * u0.x() - std::sin(turn) * u0.y(), std::sin(turn) * u0.x() + std::cos(turn) * u0.y(), u0.z());
      P.row(k) = (centre - 0.5 * L * u).transpose();      // their end a: top
      P.row(n + k) = (centre + 0.5 * L * u).transpose();  // their end b: bottom
      continue;
    }
    const double th = pi / 2 + 2.0 * pi * k / n;
    const Eigen::Vector3d radial(std::cos(th), std::sin(th), 0.0), tangent(-std::sin(th), std::cos(th), 0.0);
    // turn by psi about the rod's radial axis: for rod 1 (on +Y) a right-handed turn about Y
    const Eigen::Vector3d d = std::cos(p.psi_rad) * Eigen::Vector3d::UnitZ() - std::sin(p.psi_rad) * tangent;
    const Eigen::Vector3d pivot = radius * radial + Eigen::Vector3d(0, 0, p.height_m);
    P.row(n + k) = (pivot - p.pivot * L * d).transpose();
    P.row(k) = (pivot + (1.0 - p.pivot) * L * d).transpose();
  }
  m.initial_state = state_from_node_positions(m, P);
  validate(m);
  return m;
}

Eigen::MatrixX3d prism_equilibrium_nodes(int n, double L, double ring_radius) {
  const double span = std::numbers::pi - std::numbers::pi / n;
  const double chord = 2.0 * ring_radius * std::sin(span / 2);
  if (chord >= L) throw Error("prism_equilibrium_nodes: ring radius too large for the rod length");
  const double h = std::sqrt(L * L - chord * chord);
  Eigen::MatrixX3d P(2 * n, 3);
  for (int k = 0; k < n; ++k) {
    const double th = std::numbers::pi / 2 + 2.0 * std::numbers::pi * k / n;
    P.row(n + k) << ring_radius * std::cos(th), ring_radius * std::sin(th), -h / 2;
    P.row(k) << ring_radius * std::cos(th + span), ring_radius * std::sin(th + span), h / 2;
  }
  return P;
}

Model make_expanded_octahedron(const OctahedronParams& p) {
  const double L = p.rod_length_m;
  if (!(L > 0.0)) throw Error("expanded octahedron: rod length must be > 0");
  Model m;
  m.name = "expanded-octahedron";
  m.damping_law = p.damping_law;
  // Rod pairs: along axis a, offset along axis b = (a + 2) % 3 by +-s (s = spacing/2).
  const double s = p.spacing_scale * L / 4.0;
  Eigen::MatrixX3d P(12, 3);
  static const char* axis_name = "xyz";
  int node = 0;
  for (int a = 0; a < 3; ++a) {
    const int b = (a + 2) % 3;
    for (int side = 0; side < 2; ++side) {
      const int j = 2 * a + side;
      Rod r = make_rod(p.rod_mass_kg, L, p.rod_radius_outer_m, p.rod_radius_inner_m);
      for (int e = 0; e < 2; ++e) {
        Eigen::Vector3d x = Eigen::Vector3d::Zero();
        x[a] = (e == 0 ? -0.5 : 0.5) * L;
        x[b] = (side == 0 ? -s : s);
        P.row(node) = x.transpose();
        m.nodes.push_back(Node{j, e, Eigen::Vector3d::Zero()});
        m.node_ids.push_back(std::string(1, axis_name[a]) + (side == 0 ? "-" : "+") + (e == 0 ? "0" : "1"));
        r.node[e] = node++;
      }
      m.rods.push_back(r);
      m.rod_ids.push_back(std::string("rod_") + axis_name[a] + (side == 0 ? "-" : "+"));
    }
  }
  // Cables: pairs of nodes on rods of different directions at the nearest distance of the
  // symmetric configuration (sqrt 6 / 4 L when spacing_scale = 1).
  const Eigen::MatrixX3d P_sym = [&] {
    OctahedronParams q = p;
    (void)q;
    Eigen::MatrixX3d Q = P;
    for (int i = 0; i < 12; ++i)
      for (int c = 0; c < 3; ++c)
        if (std::abs(Q(i, c)) < 0.5 * L - 1e-12 && Q(i, c) != 0.0) Q(i, c) = Q(i, c) > 0 ? L / 4 : -L / 4;
    return Q;
  }();
  const double target = std::sqrt(6.0) / 4.0 * L;
  for (int i = 0; i < 12; ++i)
    for (int k = i + 1; k < 12; ++k) {
      if (m.nodes[static_cast<std::size_t>(i)].rod / 2 == m.nodes[static_cast<std::size_t>(k)].rod / 2) continue;
      if (std::abs((P_sym.row(i) - P_sym.row(k)).norm() - target) < 1e-9 * L)
        add_cable(m, "c" + std::to_string(m.cables.size()), i, k, p.stiffness_Npm, p.damping_Nspm, p.rest_length_m);
    }
  if (m.ncable() != 24) throw Error("expanded octahedron: internal error, found " + std::to_string(m.ncable()) + " cables");
  // Deterministic perturbation: move each node a little along a fixed pseudo-random direction,
  // then re-impose each rod's length about its midpoint.
  for (int j = 0; j < 6; ++j) {
    const int a = m.rods[static_cast<std::size_t>(j)].node[0], b = m.rods[static_cast<std::size_t>(j)].node[1];
    const Eigen::Vector3d shift(std::sin(1.3 * j + 0.1), std::cos(2.1 * j + 0.7), std::sin(0.7 * j + 1.9));
    const Eigen::Vector3d tilt(std::cos(1.7 * j), std::sin(2.9 * j + 0.3), std::cos(0.9 * j + 2.2));
    Eigen::Vector3d mid = 0.5 * (P.row(a) + P.row(b)).transpose() + p.perturbation_m * shift;
    Eigen::Vector3d dir = (P.row(b) - P.row(a)).transpose().normalized() + (p.perturbation_m / L) * tilt;
    dir.normalize();
    P.row(a) = (mid - 0.5 * L * dir).transpose();
    P.row(b) = (mid + 0.5 * L * dir).transpose();
  }
  m.f_W_ext_node.assign(12, Eigen::Vector3d::Zero());
  m.initial_state = state_from_node_positions(m, P);
  validate(m);
  return m;
}

}  // namespace tendyn::tensegrity
