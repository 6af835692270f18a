#include <tendyn/core/error.hpp>
#include <tendyn/core/rotation.hpp>
#include <tendyn/tensegrity/contact.hpp>

#include "tensegrity/law.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace tendyn::tensegrity {

namespace {

// Velocity change of a rod from an impulse P at point r (from the COM): (dv, dw).
void impulse_response(const Rod& rod, const Eigen::Vector3d& e, const Eigen::Vector3d& r, const Eigen::Vector3d& P, Eigen::Vector3d& dv,
                      Eigen::Vector3d& dw) {
  dv = P / rod.mass_kg;
  const Eigen::Vector3d L = r.cross(P);
  const double La = L.dot(e);
  dw = (L - La * e) / rod.inertia_transverse_kgm2;
  if (rod.inertia_axial_kgm2 > 0.0) dw += (La / rod.inertia_axial_kgm2) * e;
}

void apply_impulse(const Rod& rod, const Eigen::Vector3d& e, State& s, int j, const Eigen::Vector3d& r, const Eigen::Vector3d& P) {
  Eigen::Vector3d dv, dw;
  impulse_response(rod, e, r, P, dv, dw);
  s.v_WC(j) += dv;
  s.w_W(j) += dw;
}

}  // namespace

double lowest_end_height(const Model& model, const Data& data) {
  double z = std::numeric_limits<double>::infinity();
  for (const auto& r : model.rods)
    for (int e = 0; e < 2; ++e) z = std::min(z, data.p_W_node(2, r.node[e]) - model.ground.height_m);
  return z;
}

namespace {

// K[a][b]: velocity change at contact point a per unit impulse at point b (rod with axis e).
void impulse_matrices(const Rod& rod, const Eigen::Vector3d& e, int nc, const Eigen::Vector3d r[2], Eigen::Matrix3d K[2][2]) {
  Eigen::Matrix3d Iinv = (Eigen::Matrix3d::Identity() - e * e.transpose()) / rod.inertia_transverse_kgm2;
  if (rod.inertia_axial_kgm2 > 0.0) Iinv += e * e.transpose() / rod.inertia_axial_kgm2;
  for (int a = 0; a < nc; ++a)
    for (int b = 0; b < nc; ++b) K[a][b] = Eigen::Matrix3d::Identity() / rod.mass_kg - skew(r[a]) * Iinv * skew(r[b]);
}

// Document 001 eqs. (2-62)-(2-64) as printed (Ground::FrictionLaw::kPrinted): the impulse at
// point a is P_n a_vec[a], a_vec = (mu v_x, mu v_y, 1) with (v_x, v_y) the point's velocity before
// the impact, and P_n = (target - u_n) / (n . K a_vec) (2-64, with target = -e u_n). Two points of
// one rod: the same law at both, Gauss-Seidel to convergence (one point: exactly (2-64)).
// Throws SimulationError when n . K a_vec <= 0 (then (2-64) gives no impulse that stops the end).
void solve_printed(const Rod& rod, const Eigen::Vector3d& e, const Eigen::Vector3d& v0, const Eigen::Vector3d& w0, int nc,
                   const Eigen::Vector3d r[2], const double target[2], const Eigen::Vector3d a_vec[2], double t_s,
                   const std::string& rod_name, Eigen::Vector3d P[2]) {
  Eigen::Matrix3d K[2][2];
  impulse_matrices(rod, e, nc, r, K);
  double denom[2] = {0.0, 0.0};
  for (int a = 0; a < nc; ++a) {
    denom[a] = K[a][a].row(2).dot(a_vec[a]);
    if (!(denom[a] > 0.0))
      throw SimulationError(
          "rod '" + rod_name +
              "': the printed friction law (document 001 eq. 2-64) has no impulse that stops its end (n . K a <= 0: tangential speed too large for mu)",
          t_s);
  }
  P[0].setZero();
  P[1].setZero();
  for (int it = 0; it < 500; ++it) {
    double change = 0.0;
    for (int a = 0; a < nc; ++a) {
      Eigen::Vector3d uc = v0 + w0.cross(r[a]);
      for (int b = 0; b < nc; ++b)
        if (b != a) uc += K[a][b] * P[b];
      const Eigen::Vector3d Pa = std::max(0.0, (target[a] - uc.z()) / denom[a]) * a_vec[a];
      change = std::max(change, (Pa - P[a]).norm());
      P[a] = Pa;
    }
    if (change < 1e-16) break;
  }
}

// Solves the impulse problem of one rod with nc <= 2 contact points r[a] (from the COM): find
// impulses P[a] with P_n >= 0, |P_t| <= mu P_n, such that each point's velocity after the impulse
// has normal component >= target[a] (complementary to P_n) and, while inside the cone, zero
// tangential velocity. Projected Gauss-Seidel iterated to convergence (2x2 blocks: converges in a
// few sweeps). With one point this is the document's law (2-57)..(2-64).
void solve_impulses(const Rod& rod, const Eigen::Vector3d& e, const Eigen::Vector3d& v0, const Eigen::Vector3d& w0, int nc,
                    const Eigen::Vector3d r[2], const double target[2], double mu, bool friction, Eigen::Vector3d P[2]) {
  Eigen::Matrix3d K[2][2];
  impulse_matrices(rod, e, nc, r, K);
  auto point_velocity = [&](int a) {
    Eigen::Vector3d u = v0 + w0.cross(r[a]);
    for (int b = 0; b < nc; ++b) u += K[a][b] * P[b];
    return u;
  };
  P[0].setZero();
  P[1].setZero();
  for (int it = 0; it < 500; ++it) {
    double change = 0.0;
    for (int a = 0; a < nc; ++a) {
      const Eigen::Vector3d uc = point_velocity(a) - K[a][a] * P[a];  // without this point's impulse
      Eigen::Vector3d Pa;
      if (!friction) {
        Pa = Eigen::Vector3d(0.0, 0.0, std::max(0.0, (target[a] - uc.z()) / K[a][a](2, 2)));
      } else {
        Pa = K[a][a].ldlt().solve(Eigen::Vector3d(0.0, 0.0, target[a]) - uc);  // sticking
        if (Pa.z() <= 0.0) {
          Pa.setZero();
        } else if (Eigen::Vector2d(Pa.x(), Pa.y()).norm() > mu * Pa.z()) {
          // sliding: friction on the cone against the point's tangential velocity
          Eigen::Vector2d ut(uc.x(), uc.y());
          if (ut.norm() < 1e-15) ut = -Eigen::Vector2d(Pa.x(), Pa.y());
          const Eigen::Vector2d dir = ut.normalized();
          const Eigen::Vector3d unit(-mu * dir.x(), -mu * dir.y(), 1.0);
          const double Pn = std::max(0.0, (target[a] - uc.z()) / K[a][a].row(2).dot(unit));
          Pa = Pn * unit;
        }
      }
      change = std::max(change, (Pa - P[a]).norm());
      P[a] = Pa;
    }
    if (change < 1e-16) break;
  }
}

}  // namespace

int apply_ground_impulses(const Model& model, Data& data, State& state, double h) {
  const Ground& g = model.ground;
  const double margin = 0.01 * g.max_penetration_m;
  int count = 0;
  for (int j = 0; j < model.nrod(); ++j) {
    const Rod& rod = model.rods[static_cast<std::size_t>(j)];
    const Eigen::Vector3d e = data.e_W_rod.col(j);
    const Eigen::Vector3d p = state.p_WC(j);
    // 1) velocity impulses at approaching ends touching the ground (restitution + friction)
    int nc = 0;
    Eigen::Vector3d r[2];
    double target[2];
    for (int end = 0; end < 2; ++end) {
      const int nd = rod.node[end];
      if (data.p_W_node(2, nd) - g.height_m > margin) continue;
      const Eigen::Vector3d rr = data.p_W_node.col(nd) - p;
      const double un = (state.v_WC(j) + Eigen::Vector3d(state.w_W(j)).cross(rr)).z();
      if (un >= 0.0) continue;
      r[nc] = rr;
      target[nc] = -g.restitution * un;
      ++nc;
    }
    if (nc > 0) {
      Eigen::Vector3d P[2];
      if (g.friction_law == Ground::FrictionLaw::kPrinted) {
        Eigen::Vector3d a_vec[2];
        for (int a = 0; a < nc; ++a) {
          const Eigen::Vector3d u = state.v_WC(j) + Eigen::Vector3d(state.w_W(j)).cross(r[a]);
          a_vec[a] = Eigen::Vector3d(g.friction * u.x(), g.friction * u.y(), 1.0);
        }
        solve_printed(rod, e, state.v_WC(j), state.w_W(j), nc, r, target, a_vec, state.time_s,
                      j < static_cast<int>(model.rod_ids.size()) ? model.rod_ids[static_cast<std::size_t>(j)] : std::to_string(j), P);
      } else {
        solve_impulses(rod, e, state.v_WC(j), state.w_W(j), nc, r, target, g.friction, true, P);
      }
      for (int a = 0; a < nc; ++a) apply_impulse(rod, e, state, j, r[a], P[a]);
      count += nc;
    }
    // 2) depth correction of penetrating ends, applied to positions only ("split impulse"):
    //    no velocity, hence no energy, is added.
    int np = 0;
    for (int end = 0; end < 2; ++end) {
      const int nd = rod.node[end];
      const double depth = g.height_m - data.p_W_node(2, nd);
      if (depth <= 0.0) continue;
      const Eigen::Vector3d rr = data.p_W_node.col(nd) - p;
      // an end that leaves the ground by itself within the step needs no correction (a bounce)
      if ((state.v_WC(j) + Eigen::Vector3d(state.w_W(j)).cross(rr)).z() * h >= depth) continue;
      r[np] = rr;
      target[np] = g.baumgarte * depth / h;
      ++np;
    }
    if (np > 0) {
      Eigen::Vector3d P[2];
      solve_impulses(rod, e, Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), np, r, target, 0.0, false, P);
      Eigen::Vector3d dv = Eigen::Vector3d::Zero(), dw = Eigen::Vector3d::Zero();
      for (int a = 0; a < np; ++a) {
        Eigen::Vector3d dva, dwa;
        impulse_response(rod, e, r[a], P[a], dva, dwa);
        dv += dva;
        dw += dwa;
      }
      state.p_WC(j) += h * dv;
      state.set_q_WB(j, (quat_exp(h * dw) * state.q_WB(j)).normalized());
    }
  }
  return count;
}

int apply_ground_pre_impulses(const Model& model, Data& data, State& state, double h) {
  const Ground& g = model.ground;
  // the printed law of document 001 applies impulses after each step only (section 2.3.2)
  if (g.friction_law == Ground::FrictionLaw::kPrinted) return 0;
  const double margin = 0.01 * g.max_penetration_m;
  int count = 0;
  for (int j = 0; j < model.nrod(); ++j) {
    const Rod& rod = model.rods[static_cast<std::size_t>(j)];
    const Eigen::Vector3d e = data.e_W_rod.col(j);
    const Eigen::Vector3d p = state.p_WC(j);
    const double* xd = data.xdot.data() + State::kStride * j;
    const Eigen::Vector3d a(xd[7], xd[8], xd[9]), alpha(xd[10], xd[11], xd[12]);
    const Eigen::Vector3d v_pred = Eigen::Vector3d(state.v_WC(j)) + h * a;
    const Eigen::Vector3d w_pred = Eigen::Vector3d(state.w_W(j)) + h * alpha;
    int nc = 0;
    Eigen::Vector3d r[2];
    const double target[2] = {0.0, 0.0};
    for (int end = 0; end < 2; ++end) {
      const int nd = rod.node[end];
      if (data.p_W_node(2, nd) - g.height_m > margin) continue;
      const Eigen::Vector3d rr = data.p_W_node.col(nd) - p;
      if ((v_pred + w_pred.cross(rr)).z() >= 0.0) continue;  // not pressed into the ground
      r[nc++] = rr;
    }
    if (nc == 0) continue;
    Eigen::Vector3d P[2];
    solve_impulses(rod, e, v_pred, w_pred, nc, r, target, g.friction, true, P);
    for (int c = 0; c < nc; ++c) apply_impulse(rod, e, state, j, r[c], 0.5 * P[c]);
    count += nc;
  }
  return count;
}

namespace {

// Depth below the ground [m] of node nd's lowest point: the node itself, or the bottom of its
// end-cap sphere (radius r: offset -r z from the node).
double contact_depth(const Model& model, const Data& data, int nd) {
  return model.ground.height_m - (data.p_W_node(2, nd) - model.nodes[static_cast<std::size_t>(nd)].radius_m);
}

// The point of node nd that touches the ground: its depth (contact_depth) and velocity
// (v_node + w x (-r z) for an end-cap on a rod with angular velocity w).
double contact_point(const Model& model, const State* state, const Data& data, int nd, double v[3]) {
  const Node& n = model.nodes[static_cast<std::size_t>(nd)];
  for (int c = 0; c < 3; ++c) v[c] = data.v_W_node(c, nd);
  if (n.radius_m > 0.0 && state != nullptr) {
    const double* w = state->x.data() + State::kStride * n.rod + 10;
    v[0] += w[1] * -n.radius_m;  // w x (0, 0, -r)
    v[1] -= w[0] * -n.radius_m;
  }
  return contact_depth(model, data, nd);
}

}  // namespace

double add_compliant_ground_forces(const Model& model, Data& data, const State* state) {
  const Ground& g = model.ground;
  double energy = 0.0;
  auto touch = [&](int nd) {
    double v[3], f[3];
    const double depth = contact_point(model, state, data, nd, v);
    if (!law::compliant_ground_force(depth, v, g.stiffness_Npm, g.damping_Nspm, g.friction, g.slip_velocity_mps, f)) return;
    data.f_W_node(0, nd) += f[0];
    data.f_W_node(1, nd) += f[1];
    data.f_W_node(2, nd) += f[2];
    const double r = model.nodes[static_cast<std::size_t>(nd)].radius_m;
    if (r > 0.0) {  // (0, 0, -r) x f: the force acts at the sphere's bottom, not at its centre
      const int j = model.nodes[static_cast<std::size_t>(nd)].rod;
      data.tau_W_contact_rod(0, j) += r * f[1];
      data.tau_W_contact_rod(1, j) -= r * f[0];
    }
    energy += 0.5 * g.stiffness_Npm * depth * depth;
  };
  if (data.body_geometry) {
    data.tau_W_contact_rod.setZero();
    for (int nd = 0; nd < model.nnode(); ++nd)
      if (model.nodes[static_cast<std::size_t>(nd)].touches_ground()) touch(nd);
    return energy;
  }
  for (const auto& rod : model.rods)
    for (int end = 0; end < 2; ++end) touch(rod.node[end]);
  return energy;
}

double ground_energy(const Model& model, const Data& data) {
  if (model.ground.type != Ground::Type::kCompliant) return 0.0;
  double energy = 0.0;
  for (int nd = 0; nd < model.nnode(); ++nd) {
    if (!model.nodes[static_cast<std::size_t>(nd)].touches_ground()) continue;
    const double depth = contact_depth(model, data, nd);
    if (depth > 0.0) energy += 0.5 * model.ground.stiffness_Npm * depth * depth;
  }
  return energy;
}

}  // namespace tendyn::tensegrity
