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

// A rod as a rigid body for the impulse law: its mass and inverse inertia about the centre of
// mass in world axes. The documents' axisymmetric rods keep their principal form
// I^-1 = (1 - e e^T) / I_t + e e^T / I_a (a thin rod, I_a = 0: the spin about the axis is not
// solved for, so that term is left out), evaluated as it always was; a rod of general inertia
// has I_W^-1 = R I_B^-1 R^T.
struct ImpulseBody {
  double mass_kg = 1.0;
  bool general = false;
  Eigen::Vector3d e = Eigen::Vector3d::UnitZ();      // axisymmetric: the axis
  double It = 0.0, Ia = 0.0;                         // axisymmetric: principal moments
  Eigen::Matrix3d Iinv_W = Eigen::Matrix3d::Zero();  // general: the world inverse inertia

  // omega change from an angular impulse L about C: I_W^-1 L.
  [[nodiscard]] Eigen::Vector3d angular_change(const Eigen::Vector3d& L) const {
    if (general) return Iinv_W * L;
    const double La = L.dot(e);
    Eigen::Vector3d dw = (L - La * e) / It;
    if (Ia > 0.0) dw += (La / Ia) * e;
    return dw;
  }
  [[nodiscard]] Eigen::Matrix3d inverse_inertia() const {
    if (general) return Iinv_W;
    Eigen::Matrix3d Iinv = (Eigen::Matrix3d::Identity() - e * e.transpose()) / It;
    if (Ia > 0.0) Iinv += e * e.transpose() / Ia;
    return Iinv;
  }
};

// Rod j at the state of data (forward_kinematics): e_W_rod for the axis, R_WB_rod for a general rod.
ImpulseBody impulse_body(const Model& model, const Data& data, int j) {
  const Rod& rod = model.rods[static_cast<std::size_t>(j)];
  ImpulseBody b;
  b.mass_kg = rod.mass_kg;
  b.general = data.body_geometry && rod.general_inertia;
  if (b.general) {
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(data.R_WB_rod.col(j).data());
    b.Iinv_W = R * rod.inertia_B_kgm2.inverse() * R.transpose();
  } else {
    b.e = data.e_W_rod.col(j);
    b.It = rod.inertia_transverse_kgm2;
    b.Ia = rod.inertia_axial_kgm2;
  }
  return b;
}

// Velocity change of a rigid body from an impulse P at point r (from the COM):
// dv = P / m, dw = I_W^-1 (r x P).
void impulse_response(const ImpulseBody& body, const Eigen::Vector3d& r, const Eigen::Vector3d& P, Eigen::Vector3d& dv,
                      Eigen::Vector3d& dw) {
  dv = P / body.mass_kg;
  dw = body.angular_change(r.cross(P));
}

void apply_impulse(const ImpulseBody& body, State& s, int j, const Eigen::Vector3d& r, const Eigen::Vector3d& P) {
  Eigen::Vector3d dv, dw;
  impulse_response(body, r, P, dv, dw);
  s.v_WC(j) += dv;
  s.w_W(j) += dw;
}

// The most ground contact points one rod may have on the impulse ground (validate() checks it).
constexpr int kMaxContacts = kMaxImpulseContactsPerRod;

// Depth below the ground [m] of node nd's lowest point: the node itself, or the bottom of its
// end-cap sphere (radius r: offset -r z from the node).
double contact_depth(const Model& model, const Data& data, int nd) {
  return model.ground.height_m - (data.p_W_node(2, nd) - model.nodes[static_cast<std::size_t>(nd)].radius_m);
}

// Calls f(nd, height [m] of the contact point above the ground, its offset r from the rod's centre
// of mass) for every point of rod j that touches the ground: the documents' rods their two end
// points (end 0, then end 1); models with body geometry every node of the rod that touches the
// ground (Node::touches_ground), an end-cap (radius r > 0) at its sphere's lowest point, the node
// position - r z. Positions from data (forward_kinematics on state).
template <class F>
void for_each_contact(const Model& model, const Data& data, const State& state, int j, F&& f) {
  const double ground = model.ground.height_m;
  if (!data.body_geometry) {
    const Rod& rod = model.rods[static_cast<std::size_t>(j)];
    const Eigen::Vector3d p = state.p_WC(j);
    for (int end = 0; end < 2; ++end) {
      const int nd = rod.node[end];
      f(nd, data.p_W_node(2, nd) - ground, Eigen::Vector3d(data.p_W_node.col(nd) - p));
    }
    return;
  }
  for (int s = data.rod_node_start[static_cast<std::size_t>(j)]; s < data.rod_node_start[static_cast<std::size_t>(j) + 1]; ++s) {
    const int nd = data.rod_nodes[static_cast<std::size_t>(s)];
    const Node& n = model.nodes[static_cast<std::size_t>(nd)];
    if (!n.touches_ground()) continue;
    Eigen::Vector3d r = data.r_W_node.col(nd);
    r.z() -= n.radius_m;
    f(nd, -contact_depth(model, data, nd), r);
  }
}

}  // namespace

double lowest_end_height(const Model& model, const Data& data) {
  double z = std::numeric_limits<double>::infinity();
  if (data.body_geometry) {
    for (const int nd : data.ground_contact_nodes) z = std::min(z, -contact_depth(model, data, nd));
    return z;
  }
  for (const auto& r : model.rods)
    for (int e = 0; e < 2; ++e) z = std::min(z, data.p_W_node(2, r.node[e]) - model.ground.height_m);
  return z;
}

namespace {

// K[a][b]: velocity change at contact point a per unit impulse at point b:
// K = 1 / m - [r_a]x I_W^-1 [r_b]x.
void impulse_matrices(const ImpulseBody& body, int nc, const Eigen::Vector3d r[], Eigen::Matrix3d K[][kMaxContacts]) {
  const Eigen::Matrix3d Iinv = body.inverse_inertia();
  for (int a = 0; a < nc; ++a)
    for (int b = 0; b < nc; ++b) K[a][b] = Eigen::Matrix3d::Identity() / body.mass_kg - skew(r[a]) * Iinv * skew(r[b]);
}

// Document 001 eqs. (2-62)-(2-64) as printed (Ground::FrictionLaw::kPrinted): the impulse at
// point a is P_n a_vec[a], a_vec = (mu v_x, mu v_y, 1) with (v_x, v_y) the point's velocity before
// the impact, and P_n = (target - u_n) / (n . K a_vec) (2-64, with target = -e u_n). Several points
// of one rod: the same law at each, Gauss-Seidel to convergence (one point: exactly (2-64)).
// Throws SimulationError when n . K a_vec <= 0 (then (2-64) gives no impulse that stops the end).
void solve_printed(const ImpulseBody& body, const Eigen::Vector3d& v0, const Eigen::Vector3d& w0, int nc, const Eigen::Vector3d r[],
                   const double target[], const Eigen::Vector3d a_vec[], double t_s, const std::string& rod_name, Eigen::Vector3d P[]) {
  Eigen::Matrix3d K[kMaxContacts][kMaxContacts];
  impulse_matrices(body, nc, r, K);
  double denom[kMaxContacts] = {};
  for (int a = 0; a < nc; ++a) {
    denom[a] = K[a][a].row(2).dot(a_vec[a]);
    if (!(denom[a] > 0.0))
      throw SimulationError(
          "rod '" + rod_name +
              "': the printed friction law (document 001 eq. 2-64) has no impulse that stops its end (n . K a <= 0: tangential speed too large for mu)",
          t_s);
  }
  for (int a = 0; a < nc; ++a) P[a].setZero();
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

// Solves the impulse problem of one rigid body with nc contact points r[a] (from the COM): find
// impulses P[a] with P_n >= 0, |P_t| <= mu P_n, such that each point's velocity after the impulse
// has normal component >= target[a] (complementary to P_n) and, while inside the cone, zero
// tangential velocity. Projected Gauss-Seidel iterated to convergence (3x3 blocks: converges in a
// few sweeps). With one point this is the document's law (2-57)..(2-64).
void solve_impulses(const ImpulseBody& body, const Eigen::Vector3d& v0, const Eigen::Vector3d& w0, int nc, const Eigen::Vector3d r[],
                    const double target[], double mu, bool friction, Eigen::Vector3d P[]) {
  Eigen::Matrix3d K[kMaxContacts][kMaxContacts];
  impulse_matrices(body, nc, r, K);
  auto point_velocity = [&](int a) {
    Eigen::Vector3d u = v0 + w0.cross(r[a]);
    for (int b = 0; b < nc; ++b) u += K[a][b] * P[b];
    return u;
  };
  for (int a = 0; a < nc; ++a) P[a].setZero();
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
    // 1) velocity impulses at approaching contact points touching the ground (restitution + friction)
    int nc = 0;
    Eigen::Vector3d r[kMaxContacts];
    double target[kMaxContacts];
    for_each_contact(model, data, state, j, [&](int, double height, const Eigen::Vector3d& rr) {
      if (height > margin) return;
      const double un = (state.v_WC(j) + Eigen::Vector3d(state.w_W(j)).cross(rr)).z();
      if (un >= 0.0) return;
      r[nc] = rr;
      target[nc] = -g.restitution * un;
      ++nc;
    });
    if (nc > 0) {
      const ImpulseBody body = impulse_body(model, data, j);
      Eigen::Vector3d P[kMaxContacts];
      if (g.friction_law == Ground::FrictionLaw::kPrinted) {
        Eigen::Vector3d a_vec[kMaxContacts];
        for (int a = 0; a < nc; ++a) {
          const Eigen::Vector3d u = state.v_WC(j) + Eigen::Vector3d(state.w_W(j)).cross(r[a]);
          a_vec[a] = Eigen::Vector3d(g.friction * u.x(), g.friction * u.y(), 1.0);
        }
        solve_printed(body, state.v_WC(j), state.w_W(j), nc, r, target, a_vec, state.time_s,
                      j < static_cast<int>(model.rod_ids.size()) ? model.rod_ids[static_cast<std::size_t>(j)] : std::to_string(j), P);
      } else {
        solve_impulses(body, state.v_WC(j), state.w_W(j), nc, r, target, g.friction, true, P);
      }
      for (int a = 0; a < nc; ++a) apply_impulse(body, state, j, r[a], P[a]);
      count += nc;
    }
    // 2) depth correction of penetrating contact points, applied to positions only ("split
    //    impulse"): no velocity, hence no energy, is added.
    int np = 0;
    for_each_contact(model, data, state, j, [&](int, double height, const Eigen::Vector3d& rr) {
      const double depth = -height;
      if (depth <= 0.0) return;
      // a point that leaves the ground by itself within the step needs no correction (a bounce)
      if ((state.v_WC(j) + Eigen::Vector3d(state.w_W(j)).cross(rr)).z() * h >= depth) return;
      r[np] = rr;
      target[np] = g.baumgarte * depth / h;
      ++np;
    });
    if (np > 0) {
      const ImpulseBody body = impulse_body(model, data, j);
      Eigen::Vector3d P[kMaxContacts];
      solve_impulses(body, Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), np, r, target, 0.0, false, P);
      Eigen::Vector3d dv = Eigen::Vector3d::Zero(), dw = Eigen::Vector3d::Zero();
      for (int a = 0; a < np; ++a) {
        Eigen::Vector3d dva, dwa;
        impulse_response(body, r[a], P[a], dva, dwa);
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
    const double* xd = data.xdot.data() + State::kStride * j;
    const Eigen::Vector3d a(xd[7], xd[8], xd[9]), alpha(xd[10], xd[11], xd[12]);
    const Eigen::Vector3d v_pred = Eigen::Vector3d(state.v_WC(j)) + h * a;
    const Eigen::Vector3d w_pred = Eigen::Vector3d(state.w_W(j)) + h * alpha;
    int nc = 0;
    Eigen::Vector3d r[kMaxContacts];
    const double target[kMaxContacts] = {};
    for_each_contact(model, data, state, j, [&](int, double height, const Eigen::Vector3d& rr) {
      if (height > margin) return;
      if ((v_pred + w_pred.cross(rr)).z() >= 0.0) return;  // not pressed into the ground
      r[nc++] = rr;
    });
    if (nc == 0) continue;
    const ImpulseBody body = impulse_body(model, data, j);
    Eigen::Vector3d P[kMaxContacts];
    solve_impulses(body, v_pred, w_pred, nc, r, target, g.friction, true, P);
    for (int c = 0; c < nc; ++c) apply_impulse(body, state, j, r[c], 0.5 * P[c]);
    count += nc;
  }
  return count;
}

namespace {

// The velocity of node nd's point that touches the ground: v_node + w x (-r z) for an end-cap on a
// rod with angular velocity w (the node's own velocity without a state or an end-cap).
void contact_velocity(const Model& model, const State* state, const Data& data, int nd, double v[3]) {
  const Node& n = model.nodes[static_cast<std::size_t>(nd)];
  for (int c = 0; c < 3; ++c) v[c] = data.v_W_node(c, nd);
  if (n.radius_m > 0.0 && state != nullptr) {
    const double* w = state->x.data() + State::kStride * n.rod + 10;
    v[0] += w[1] * -n.radius_m;  // w x (0, 0, -r)
    v[1] -= w[0] * -n.radius_m;
  }
}

}  // namespace

double add_compliant_ground_forces(const Model& model, Data& data, const State* state) {
  const Ground& g = model.ground;
  double energy = 0.0;
  auto touch = [&](int nd) {
    // the depth first: a point above the ground gets no force (the law writes nothing) and needs no velocity
    const double depth = contact_depth(model, data, nd);
    if (!(depth > 0.0)) return;
    double v[3], f[3];
    contact_velocity(model, state, data, nd, v);
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
    for (const int nd : data.ground_contact_nodes) touch(nd);  // the nodes that can touch, in index order
    return energy;
  }
  for (const auto& rod : model.rods)
    for (int end = 0; end < 2; ++end) touch(rod.node[end]);
  return energy;
}

double ground_energy(const Model& model, const Data& data) {
  if (model.ground.type != Ground::Type::kCompliant) return 0.0;
  double energy = 0.0;
  for (const int nd : data.ground_contact_nodes) {
    const double depth = contact_depth(model, data, nd);
    if (depth > 0.0) energy += 0.5 * model.ground.stiffness_Npm * depth * depth;
  }
  return energy;
}

}  // namespace tendyn::tensegrity
