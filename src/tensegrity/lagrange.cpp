// Lagrange formulation in quaternion coordinates (document 001, chapter 2). See lagrange.hpp and
// docs/LAGRANGE.md. The evaluation is one template on the scalar type: double for the
// simulation (no allocation), Eigen::AutoDiffScalar for the exact linearisation.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/lagrange.hpp>

#include "tensegrity/law.hpp"

#include <tendyn/core/integrate.hpp>

#include <unsupported/Eigen/AutoDiff>

#include <algorithm>
#include <cmath>
#include <vector>
#include <string>
#include <type_traits>

namespace tendyn::tensegrity {

namespace {

using AD = Eigen::AutoDiffScalar<Eigen::VectorXd>;

inline double value_of(double x) { return x; }
inline double value_of(const AD& x) { return x.value(); }

template <class S>
using V3 = Eigen::Matrix<S, 3, 1>;
template <class S>
using V4 = Eigen::Matrix<S, 4, 1>;
template <class S>
using M34 = Eigen::Matrix<S, 3, 4>;

// C(s) of (2-13).
template <class S>
M34<S> c_matrix(const S& e0, const S& e1, const S& e2, const S& e3) {
  M34<S> C;
  C << -e1, e0, -e3, e2,  //
      -e2, e3, e0, -e1,   //
      -e3, -e2, e1, e0;
  return C * 2.0;
}

// v(s) of (2-25).
template <class S>
V3<S> axis(const S& e0, const S& e1, const S& e2, const S& e3) {
  return V3<S>(2.0 * (e1 * e3 - e0 * e2), 2.0 * (e0 * e1 + e2 * e3), 2.0 * (e0 * e0 + e3 * e3) - 1.0);
}

// dv/ds (2-26, transposed: 3x4).
template <class S>
M34<S> axis_jacobian(const S& e0, const S& e1, const S& e2, const S& e3) {
  M34<S> J;
  J << -e2, e3, -e0, e1,  //
      e1, e0, e3, e2,     //
      2.0 * e0, S(0.0), S(0.0), 2.0 * e3;
  return J * 2.0;
}

double node_offset(const Model& m, int node) {
  const Node& n = m.nodes[static_cast<std::size_t>(node)];
  const Rod& r = m.rods[static_cast<std::size_t>(n.rod)];
  return n.end == 0 ? -(1.0 - r.com_ratio) * r.length_m : r.com_ratio * r.length_m;
}

double axial_inertia_eff(const Rod& r, const LagrangeOptions& o) {
  return r.inertia_axial_kgm2 > 0.0 ? r.inertia_axial_kgm2 : o.thin_rod_axial_inertia_factor * r.inertia_transverse_kgm2;
}

std::string cable_name(const Model& m, int k) {
  return k < static_cast<int>(m.cable_ids.size()) ? m.cable_ids[static_cast<std::size_t>(k)] : std::to_string(k);
}

// Scratch of one evaluation for scalar S.
template <class S>
struct Work {
  Eigen::Matrix<S, 3, Eigen::Dynamic> p, v, f_node, f_cable;
  Eigen::Matrix<S, Eigen::Dynamic, 1> Q;
  void resize(const Model& m) {
    p.resize(3, m.nnode());
    v.resize(3, m.nnode());
    f_node.resize(3, m.nnode());
    f_cable.resize(3, m.ncable());
    Q.resize(7 * m.nrod());
  }
};

// Node kinematics (2-24): r = p + d v(s), r' = p' + d (dv/ds) s' (per rod: v and dv/ds once).
template <class S>
void node_kinematics(const Model& m, const S* y, Work<S>& w) {
  const int n7 = 7 * m.nrod();
  for (int i = 0; i < m.nnode(); ++i) {
    const Node& n = m.nodes[static_cast<std::size_t>(i)];
    if (!n.is_anchor()) continue;
    for (int c = 0; c < 3; ++c) {
      w.p(c, i) = S(n.p_W_anchor[c]);
      w.v(c, i) = S(0.0);
    }
  }
  for (int j = 0; j < m.nrod(); ++j) {
    const Rod& r = m.rods[static_cast<std::size_t>(j)];
    const S* q = y + 7 * j;
    const S* qd = y + n7 + 7 * j;
    const V3<S> a = axis(q[3], q[4], q[5], q[6]);
    const V3<S> Jsd = axis_jacobian(q[3], q[4], q[5], q[6]) * V4<S>(qd[3], qd[4], qd[5], qd[6]);
    for (int e = 0; e < 2; ++e) {
      const int i = r.node[e];
      const double d = e == 0 ? -(1.0 - r.com_ratio) * r.length_m : r.com_ratio * r.length_m;
      for (int c = 0; c < 3; ++c) {
        w.p(c, i) = q[c] + d * a[c];
        w.v(c, i) = qd[c] + d * Jsd[c];
      }
    }
  }
}

// Cable forces f_k on the first node, exactly the law of compute_element_forces; node forces
// F = D f (+ f_ext if `ext`); generalised forces Q = H F. `ne` (double only) receives lengths,
// rates, tensions and slack flags.
template <class S>
void generalized_forces(const Model& m, const S* y, const S* l0, const std::vector<Eigen::Vector3d>* ext, double t, Work<S>& w, Data* ne) {
  for (int i = 0; i < m.nnode(); ++i) {
    for (int c = 0; c < 3; ++c) w.f_node(c, i) = ext ? S((*ext)[static_cast<std::size_t>(i)][c]) : S(0.0);
  }
  for (int k = 0; k < m.ncable(); ++k) {
    const Cable& cb = m.cables[static_cast<std::size_t>(k)];
    const int a = cb.node[0], b = cb.node[1];
    const V3<S> dvec = w.p.col(b) - w.p.col(a);
    using std::sqrt;
    const S l = sqrt(dvec.squaredNorm());
    if (!(value_of(l) > 0.0)) {
      throw SimulationError(cable_length_failure(cable_name(m, k), value_of(l), t), t);
    }
    const V3<S> u = dvec / l;
    const V3<S> dv = w.v.col(b) - w.v.col(a);
    const S rate = u.dot(dv);
    S tension(0.0);
    V3<S> f_a = V3<S>::Zero();
    const bool slack = !law::cable_force(l, u.data(), dv.data(), rate, l0[k], S(cb.stiffness_Npm), S(cb.damping_Nspm), cb.tension_only,
                                         m.damping_law, m.cable_force_sign, tension, f_a.data());
    if (slack) f_a.setZero();
    w.f_cable.col(k) = f_a;
    w.f_node.col(a) += f_a;
    w.f_node.col(b) -= f_a;
    if constexpr (std::is_same_v<S, double>) {
      if (ne) {
        ne->cable_length_m[k] = l;
        ne->cable_rate_mps[k] = rate;
        ne->cable_tension_N[k] = tension;
        ne->cable_slack[static_cast<std::size_t>(k)] = slack ? 1 : 0;
      }
    }
  }
  // Compliant ground at the rod ends: the law of add_compliant_ground_forces (contact.hpp),
  // added after the cables as compute_element_forces does. (The impulse ground acts between
  // steps, not as a force: lagrange_simulate refuses it.)
  if (m.ground.type == Ground::Type::kCompliant) {
    const Ground& g = m.ground;
    for (const Rod& r : m.rods)
      for (int e = 0; e < 2; ++e) {
        const int nd = r.node[e];
        const V3<S> v = w.v.col(nd);
        S f[3];
        if (!law::compliant_ground_force(S(g.height_m - w.p(2, nd)), v.data(), S(g.stiffness_Npm), S(g.damping_Nspm), S(g.friction),
                                         g.slip_velocity_mps, f))
          continue;
        for (int c = 0; c < 3; ++c) w.f_node(c, nd) += f[c];
      }
  }
  // Q = H F: per rod, (F0 + F1; dv/ds^T (d0 F0 + d1 F1))
  for (int j = 0; j < m.nrod(); ++j) {
    const Rod& r = m.rods[static_cast<std::size_t>(j)];
    const S* q = y + 7 * j;
    const V3<S> F0 = w.f_node.col(r.node[0]), F1 = w.f_node.col(r.node[1]);
    const V3<S> moment = (-(1.0 - r.com_ratio) * r.length_m) * F0 + (r.com_ratio * r.length_m) * F1;
    const V4<S> Qs = axis_jacobian(q[3], q[4], q[5], q[6]).transpose() * moment;
    for (int c = 0; c < 3; ++c) w.Q[7 * j + c] = F0[c] + F1[c];
    for (int c = 0; c < 4; ++c) w.Q[7 * j + 3 + c] = Qs[c];
  }
}

// Per-rod solve of (2-50) given w.Q: ydot = [q'; q''], lambda.
template <class S>
void solve_rods(const Model& m, const LagrangeOptions& o, const S* y, const Work<S>& w, S* ydot, S* lambda) {
  const int nr = m.nrod(), n7 = 7 * nr;
  for (int i = 0; i < n7; ++i) ydot[i] = y[n7 + i];
  for (int j = 0; j < nr; ++j) {
    const Rod& r = m.rods[static_cast<std::size_t>(j)];
    const S* q = y + 7 * j;
    const S* qd = y + n7 + 7 * j;
    S* qdd = ydot + n7 + 7 * j;
    // translational block m I3: p'' = (Q_p - f_g) / m, f_g = -m g
    for (int c = 0; c < 3; ++c) qdd[c] = w.Q[7 * j + c] / r.mass_kg + m.gravity_W[c];
    // Quaternion block of (2-50): [C^T I C, 2 s; 2 s^T, 0] [s''; lambda] = [B_s; gamma], solved in
    // closed form. With G = C(s)/2 the rows of G and s^T are mutually orthogonal with norm |s|
    // (G G^T = |s|^2 I3, G s = 0, for any s != 0), so s'' = G^T a + s beta with
    //   beta = gamma / (2 |s|^2),  a = I_B^-1 G B_s / (4 |s|^4),  lambda = s^T B_s / (2 |s|^2).
    // Exact for any s (no unit-norm assumption); checked against an LU of the 8x8 system.
    const V4<S> s(q[3], q[4], q[5], q[6]);
    const V4<S> sd(qd[3], qd[4], qd[5], qd[6]);
    const M34<S> C = c_matrix(s[0], s[1], s[2], s[3]);
    const M34<S> Cd = c_matrix(sd[0], sd[1], sd[2], sd[3]);
    // The mass matrix takes the regularised axial inertia of a thin rod; the velocity term the
    // true one, so that the regularisation only fixes the (energy-free) spin: w3' = 0 (see header).
    const double It = r.inertia_transverse_kgm2, Ia = axial_inertia_eff(r, o);
    V3<S> Iw = C * sd;  // I_B C s' with the true I_B
    Iw[0] *= It;
    Iw[1] *= It;
    Iw[2] *= r.inertia_axial_kgm2;
    const V4<S> bs = 2.0 * (Cd.transpose() * Iw);
    V4<S> B;
    for (int c = 0; c < 4; ++c) B[c] = w.Q[7 * j + 3 + c] - bs[c];
    S gamma = -2.0 * sd.squaredNorm();
    const S n2 = s.squaredNorm();
    if (o.stabilisation == QuaternionStabilisation::kBaumgarte) {
      const S phi = n2 - 1.0;
      const S phid = 2.0 * s.dot(sd);
      gamma -= 2.0 * o.baumgarte_alpha_per_s * phid + o.baumgarte_beta_per_s * o.baumgarte_beta_per_s * phi;
    }
    V3<S> a = (0.5 * C) * B;  // G B_s
    const S scale = 1.0 / (4.0 * n2 * n2);
    a[0] *= scale / It;
    a[1] *= scale / It;
    a[2] *= scale / Ia;
    const V4<S> sdd = (0.5 * C).transpose() * a + s * (gamma / (2.0 * n2));
    for (int c = 0; c < 4; ++c) qdd[3 + c] = sdd[c];
    lambda[j] = s.dot(B) / (2.0 * n2);
  }
}

void check_state(const Model& m, const LagrangeState& s) {
  if (s.y.size() != 14 * m.nrod()) throw Error("Lagrange state has the wrong size for the model");
}

void apply_rest_lengths(const Model& m, const LagrangeState& st, LagrangeData& d) {
  if (m.drives.empty() && !d.ne.controller) return;
  d.ne_state.time_s = st.time_s;
  if (d.ne.controller) to_newton_euler_state(m, st, d.ne_state);
  update_rest_lengths(m, d.ne_state, d.ne);
}

void project(const Model& m, LagrangeState& st) {
  const int nr = m.nrod(), n7 = 7 * nr;
  for (int j = 0; j < nr; ++j) {
    double* s = st.y.data() + 7 * j + 3;
    double* sd = st.y.data() + n7 + 7 * j + 3;
    Eigen::Map<Eigen::Vector4d> S(s), Sd(sd);
    const double n = S.norm();
    S /= n;
    Sd = (Sd - S * S.dot(Sd)) / n;
  }
}

}  // namespace

namespace {
void eval_double(const Model& m, const LagrangeState& st, LagrangeData& d, bool with_ext) {
  // Work<double> view over LagrangeData storage (no allocation: swap in, evaluate, swap out).
  Work<double> w;
  w.p.swap(d.p_W_node);
  w.v.swap(d.v_W_node);
  w.f_node.swap(d.f_W_node);
  w.f_cable.swap(d.f_W_cable);
  w.Q.swap(d.Q);
  struct Restore {
    Work<double>& w;
    LagrangeData& d;
    ~Restore() {
      w.p.swap(d.p_W_node);
      w.v.swap(d.v_W_node);
      w.f_node.swap(d.f_W_node);
      w.f_cable.swap(d.f_W_cable);
      w.Q.swap(d.Q);
    }
  } restore{w, d};
  node_kinematics(m, st.y.data(), w);
  generalized_forces(m, st.y.data(), d.ne.cable_rest_length_m.data(), with_ext ? &d.ne.f_W_ext_node : nullptr, st.time_s, w, &d.ne);
}
}  // namespace

LagrangeData make_lagrange_data(const Model& model, const LagrangeOptions& options) {
  require_ideal_rods(model, "Lagrange formulation");
  if (!(options.thin_rod_axial_inertia_factor > 0.0) || !std::isfinite(options.thin_rod_axial_inertia_factor))
    throw Error("Lagrange option thin_rod_axial_inertia_factor must be > 0");
  if (!(options.baumgarte_alpha_per_s >= 0.0) || !(options.baumgarte_beta_per_s >= 0.0))
    throw Error("Lagrange options baumgarte_alpha/beta must be >= 0");
  LagrangeData d;
  d.options = options;
  d.ne = make_data(model);
  const int nr = model.nrod(), nn = model.nnode(), nc = model.ncable();
  d.p_W_node.setZero(3, nn);
  d.v_W_node.setZero(3, nn);
  d.f_W_node.setZero(3, nn);
  d.f_W_cable.setZero(3, nc);
  d.Q.setZero(7 * nr);
  d.lambda.setZero(nr);
  d.ydot.setZero(14 * nr);
  for (auto& k : d.stage) k.setZero(14 * nr);
  d.y_err.setZero(14 * nr);
  d.tmp.y.setZero(14 * nr);
  d.saved.y.setZero(14 * nr);
  d.stretch_start_m.setZero(nc);
  d.ne_state.x.setZero(State::kStride * nr);
  return d;
}

// ---- conversions ----------------------------------------------------------------------------

Eigen::Vector4d quaternion_rates(const Eigen::Vector4d& s, const Eigen::Vector3d& w) {
  // s' = -1/2 s (x) [0, w]
  const double s0 = s[0];
  const Eigen::Vector3d sv = s.tail<3>();
  Eigen::Vector4d r;
  r[0] = 0.5 * sv.dot(w);
  r.tail<3>() = -0.5 * (s0 * w + sv.cross(w));
  return r;
}

Eigen::Vector3d angular_velocity_W(const Eigen::Vector4d& s, const Eigen::Vector4d& sd) {
  // w = -2 vec(conj(s) (x) s') / |s|^2
  const Eigen::Vector3d sv = s.tail<3>(), sdv = sd.tail<3>();
  return -2.0 * (s[0] * sdv - sd[0] * sv - sv.cross(sdv)) / s.squaredNorm();
}

void to_lagrange_state(const Model& model, const State& in, LagrangeState& out) {
  const int nr = model.nrod(), n7 = 7 * nr;
  if (in.x.size() != State::kStride * nr) throw Error("state has the wrong size for the model");
  if (out.y.size() != 14 * nr) out.y.resize(14 * nr);
  out.time_s = in.time_s;
  for (int j = 0; j < nr; ++j) {
    const double* x = in.x.data() + State::kStride * j;
    double* q = out.y.data() + 7 * j;
    double* qd = out.y.data() + n7 + 7 * j;
    const Eigen::Vector4d s(x[3], -x[4], -x[5], -x[6]);
    const Eigen::Vector4d sd = quaternion_rates(s, Eigen::Vector3d(x[10], x[11], x[12]));
    for (int c = 0; c < 3; ++c) {
      q[c] = x[c];
      qd[c] = x[7 + c];
    }
    for (int c = 0; c < 4; ++c) {
      q[3 + c] = s[c];
      qd[3 + c] = sd[c];
    }
  }
}

LagrangeState to_lagrange_state(const Model& model, const State& in) {
  LagrangeState out;
  to_lagrange_state(model, in, out);
  return out;
}

void to_newton_euler_state(const Model& model, const LagrangeState& in, State& out) {
  const int nr = model.nrod(), n7 = 7 * nr;
  check_state(model, in);
  if (out.x.size() != State::kStride * nr) out.x.resize(State::kStride * nr);
  out.time_s = in.time_s;
  for (int j = 0; j < nr; ++j) {
    const double* q = in.y.data() + 7 * j;
    const double* qd = in.y.data() + n7 + 7 * j;
    double* x = out.x.data() + State::kStride * j;
    const Eigen::Vector4d s(q[3], q[4], q[5], q[6]), sd(qd[3], qd[4], qd[5], qd[6]);
    const double n = s.norm();
    const Eigen::Vector3d w = angular_velocity_W(s, sd);
    for (int c = 0; c < 3; ++c) {
      x[c] = q[c];
      x[7 + c] = qd[c];
      x[10 + c] = w[c];
    }
    x[3] = s[0] / n;
    x[4] = -s[1] / n;
    x[5] = -s[2] / n;
    x[6] = -s[3] / n;
  }
}

State to_newton_euler_state(const Model& model, const LagrangeState& in) {
  State out;
  to_newton_euler_state(model, in, out);
  return out;
}

// ---- terms ------------------------------------------------------------------------------------

Eigen::Matrix<double, 3, 4> quaternion_velocity_matrix(const Eigen::Vector4d& s) { return c_matrix(s[0], s[1], s[2], s[3]); }
Eigen::Vector3d rod_axis(const Eigen::Vector4d& s) { return axis(s[0], s[1], s[2], s[3]); }
Eigen::Matrix<double, 3, 4> rod_axis_jacobian(const Eigen::Vector4d& s) { return axis_jacobian(s[0], s[1], s[2], s[3]); }

Eigen::Matrix<double, 7, 7> rod_mass_matrix(const Rod& rod, const Eigen::Vector4d& s) {
  Eigen::Matrix<double, 7, 7> M = Eigen::Matrix<double, 7, 7>::Zero();
  M.topLeftCorner<3, 3>() = rod.mass_kg * Eigen::Matrix3d::Identity();
  const Eigen::Matrix<double, 3, 4> C = quaternion_velocity_matrix(s);
  const Eigen::Vector3d I(rod.inertia_transverse_kgm2, rod.inertia_transverse_kgm2, rod.inertia_axial_kgm2);
  M.bottomRightCorner<4, 4>() = C.transpose() * I.asDiagonal() * C;
  return M;
}

void mass_matrix(const Model& model, const Eigen::VectorXd& q, Eigen::MatrixXd& M) {
  const int nr = model.nrod();
  if (q.size() < 7 * nr) throw Error("mass_matrix: q has fewer than 7 nrod entries");
  M.setZero(7 * nr, 7 * nr);
  for (int j = 0; j < nr; ++j)
    M.block<7, 7>(7 * j, 7 * j) = rod_mass_matrix(model.rods[static_cast<std::size_t>(j)], q.segment<4>(7 * j + 3));
}

void velocity_term(const Model& model, const LagrangeState& state, Eigen::VectorXd& b) {
  check_state(model, state);
  const int nr = model.nrod();
  if (b.size() != 7 * nr) b.resize(7 * nr);
  b.setZero();
  for (int j = 0; j < nr; ++j) {
    const Rod& r = model.rods[static_cast<std::size_t>(j)];
    const Eigen::Vector4d s = state.q(j).tail<4>(), sd = state.qdot(j).tail<4>();
    const Eigen::Vector3d I(r.inertia_transverse_kgm2, r.inertia_transverse_kgm2, r.inertia_axial_kgm2);
    b.segment<4>(7 * j + 3) = 2.0 * quaternion_velocity_matrix(sd).transpose() * (I.asDiagonal() * (quaternion_velocity_matrix(s) * sd));
  }
}

void gravity_term(const Model& model, Eigen::VectorXd& f_g) {
  const int nr = model.nrod();
  if (f_g.size() != 7 * nr) f_g.resize(7 * nr);
  f_g.setZero();
  for (int j = 0; j < nr; ++j) f_g.segment<3>(7 * j) = -model.rods[static_cast<std::size_t>(j)].mass_kg * model.gravity_W;
}

double kinetic_energy(const Model& model, const LagrangeState& state) {
  check_state(model, state);
  double T = 0.0;
  for (int j = 0; j < model.nrod(); ++j) {
    const Eigen::Matrix<double, 7, 7> M = rod_mass_matrix(model.rods[static_cast<std::size_t>(j)], state.q(j).tail<4>());
    T += 0.5 * state.qdot(j).dot(M * state.qdot(j));
  }
  return T;
}

void lagrange_node_kinematics(const Model& model, const LagrangeState& state, LagrangeData& data) {
  check_state(model, state);
  Work<double> w;
  w.p.swap(data.p_W_node);
  w.v.swap(data.v_W_node);
  node_kinematics(model, state.y.data(), w);
  w.p.swap(data.p_W_node);
  w.v.swap(data.v_W_node);
}

void node_jacobian(const Model& model, const Eigen::VectorXd& q, Eigen::MatrixXd& H) {
  const int nr = model.nrod(), nn = model.nnode();
  if (q.size() < 7 * nr) throw Error("node_jacobian: q has fewer than 7 nrod entries");
  H.setZero(7 * nr, 3 * nn);
  for (int i = 0; i < nn; ++i) {
    const Node& n = model.nodes[static_cast<std::size_t>(i)];
    if (n.is_anchor()) continue;
    H.block<3, 3>(7 * n.rod, 3 * i).setIdentity();
    H.block<4, 3>(7 * n.rod + 3, 3 * i) = node_offset(model, i) * rod_axis_jacobian(q.segment<4>(7 * n.rod + 3)).transpose();
  }
}

Eigen::MatrixXd incidence_matrix(const Model& model) {
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(model.nnode(), model.ncable());
  for (int k = 0; k < model.ncable(); ++k) {
    D(model.cables[static_cast<std::size_t>(k)].node[0], k) += 1.0;
    D(model.cables[static_cast<std::size_t>(k)].node[1], k) -= 1.0;
  }
  return D;
}

void cable_generalized_forces(const Model& model, const LagrangeState& state, LagrangeData& data, Eigen::VectorXd& Q_c) {
  check_state(model, state);
  eval_double(model, state, data, false);
  Q_c = data.Q;
}

void constraint(const Model& model, const Eigen::VectorXd& q, Eigen::VectorXd& phi) {
  const int nr = model.nrod();
  if (phi.size() != nr) phi.resize(nr);
  for (int j = 0; j < nr; ++j) phi[j] = q.segment<4>(7 * j + 3).squaredNorm() - 1.0;
}

void constraint_jacobian(const Model& model, const Eigen::VectorXd& q, Eigen::MatrixXd& Phi_q) {
  const int nr = model.nrod();
  Phi_q.setZero(nr, 7 * nr);
  for (int j = 0; j < nr; ++j) Phi_q.block<1, 4>(j, 7 * j + 3) = 2.0 * q.segment<4>(7 * j + 3).transpose();
}

void augmented_system(const Model& model, const LagrangeState& state, const LagrangeData& data, int rod, Eigen::Matrix<double, 8, 8>& A,
                      Eigen::Matrix<double, 8, 1>& rhs) {
  check_state(model, state);
  if (rod < 0 || rod >= model.nrod()) throw Error("augmented_system: rod index out of range");
  const Rod& r = model.rods[static_cast<std::size_t>(rod)];
  Rod reg = r;
  reg.inertia_axial_kgm2 = axial_inertia_eff(r, data.options);
  const Eigen::Vector4d s = state.q(rod).tail<4>(), sd = state.qdot(rod).tail<4>();
  A.setZero();
  A.topLeftCorner<7, 7>() = rod_mass_matrix(reg, s);
  A.block<4, 1>(3, 7) = 2.0 * s;
  A.block<1, 4>(7, 3) = 2.0 * s.transpose();
  const Eigen::Vector3d I(r.inertia_transverse_kgm2, r.inertia_transverse_kgm2, r.inertia_axial_kgm2);
  rhs.head<3>() = data.Q.segment<3>(7 * rod) + r.mass_kg * model.gravity_W;
  rhs.segment<4>(3) = data.Q.segment<4>(7 * rod + 3) -
                      2.0 * quaternion_velocity_matrix(sd).transpose() * (I.asDiagonal() * (quaternion_velocity_matrix(s) * sd));
  double gamma = -2.0 * sd.squaredNorm();
  const LagrangeOptions& o = data.options;
  if (o.stabilisation == QuaternionStabilisation::kBaumgarte)
    gamma -= 2.0 * o.baumgarte_alpha_per_s * 2.0 * s.dot(sd) + o.baumgarte_beta_per_s * o.baumgarte_beta_per_s * (s.squaredNorm() - 1.0);
  rhs[7] = gamma;
}

// ---- evaluation and integration -------------------------------------------------------------

void lagrange_derivative(const Model& model, const LagrangeState& state, LagrangeData& data) {
  apply_rest_lengths(model, state, data);
  eval_double(model, state, data, true);
  Work<double> w;
  w.Q.swap(data.Q);
  solve_rods(model, data.options, state.y.data(), w, data.ydot.data(), data.lambda.data());
  w.Q.swap(data.Q);
}

void lagrange_step_rk4(const Model& model, LagrangeData& data, LagrangeState& state, double h) {
  auto& tmp = data.tmp;
  auto& k = data.stage;
  const double t0 = state.time_s;
  lagrange_derivative(model, state, data);
  k[0] = data.ydot;
  rk4_step(state.y, t0, h, k[0], k[1], k[2], k[3], tmp.y, [&](double t, Eigen::VectorXd& out) {
    tmp.time_s = t;
    lagrange_derivative(model, tmp, data);
    out = data.ydot;
  });
  state.time_s = t0 + h;
  if (data.options.stabilisation == QuaternionStabilisation::kProjection) project(model, state);
}

AdaptiveStep lagrange_step_dopri5(const Model& model, LagrangeData& data, LagrangeState& state, double h, const Tolerance& tol) {
  if (h < tol.h_min_s)
    throw SimulationError("Dormand-Prince step size fell below " + std::to_string(tol.h_min_s) + " s (stiff or singular dynamics)",
                          state.time_s);
  auto& k = data.stage;
  auto& tmp = data.tmp;
  const double t0 = state.time_s;
  lagrange_derivative(model, state, data);
  k[0] = data.ydot;
  const double err = dopri5_trial(state.y, t0, h, k, tmp.y, data.y_err, tol.rtol, tol.atol, [&](double t, Eigen::VectorXd& out) {
    tmp.time_s = t;
    lagrange_derivative(model, tmp, data);
    out = data.ydot;
  });
  const AdaptiveStep out = dopri5_control(err, h, tol.h_max_s);
  if (out.accepted) {
    state.y = tmp.y;
    state.time_s = t0 + h;
    if (data.options.stabilisation == QuaternionStabilisation::kProjection) project(model, state);
  }
  return out;
}

namespace {
// Cable stretches l - l0 of the state (one evaluation; data then holds f(state)).
void stretches(const Model& m, const LagrangeState& st, LagrangeData& d, Eigen::VectorXd& out) {
  lagrange_derivative(m, st, d);
  for (int k = 0; k < m.ncable(); ++k) out[k] = d.ne.cable_length_m[k] - d.ne.cable_rest_length_m[k];
}

// One fixed RK4 step of size h split at the first slack/taut crossing of a tension-only cable (as
// simulate() does for the Newton-Euler engine: linear interpolation of the stretch, up to 3 splits).
// Returns the number of splits.
int advance_rk4_located(const Model& m, LagrangeData& d, LagrangeState& s, double h) {
  int splits = 0;
  double remaining = h;
  Eigen::VectorXd& s0 = d.stretch_start_m;
  while (remaining > 0.0) {
    d.saved.y = s.y;
    d.saved.time_s = s.time_s;
    stretches(m, s, d, s0);
    lagrange_step_rk4(m, d, s, remaining);
    double theta = 1.0;
    lagrange_derivative(m, s, d);
    for (int k = 0; k < m.ncable(); ++k) {
      if (!m.cables[static_cast<std::size_t>(k)].tension_only) continue;
      const double a = s0[k], b = d.ne.cable_length_m[k] - d.ne.cable_rest_length_m[k];
      if ((a > 0.0) != (b > 0.0)) theta = std::min(theta, a / (a - b));
    }
    if (splits >= 3 || theta >= 1.0 || theta * remaining < 1e-6 * h || (1.0 - theta) * remaining < 1e-6 * h) break;
    s.y = d.saved.y;
    s.time_s = d.saved.time_s;
    const double h1 = theta * remaining;
    lagrange_step_rk4(m, d, s, h1);
    remaining -= h1;
    ++splits;
  }
  return splits;
}
}  // namespace

LagrangeRun lagrange_simulate(const Model& model, const SimulationOptions& opt, const LagrangeOptions& options, const State* initial,
                              const std::function<void(const LagrangeState&, const LagrangeData&)>& observer,
                              const std::function<void(double, const State&, Data&)>& controller) {
  validate(opt);
  if (opt.integrator == Integrator::kLieVerlet)
    throw Error("lagrange_simulate: integrator lie-verlet is specific to the Newton-Euler form (use rk4 or dopri5)");
  if (model.ground.type == Ground::Type::kImpulse)
    throw Error(
        "lagrange_simulate: the impulse ground is not supported by the Lagrange formulation (use ground type "
        "none or compliant, or the Newton-Euler simulate())");
  if (controller && opt.control_period_s > 0.0)
    throw Error(
        "lagrange_simulate: a sampled controller (control_period_s > 0) is supported by the Newton-Euler "
        "simulate() only; here the controller is called at every evaluation (set control_period_s = 0)");
  LagrangeData data = make_lagrange_data(model, options);
  data.ne.controller = controller;
  State x0 = initial ? *initial : model.initial_state;
  if (x0.x.size() != State::kStride * model.nrod()) throw Error("initial state has the wrong size for the model");
  normalize_quaternions(model, x0);
  LagrangeRun run;
  to_lagrange_state(model, x0, run.final_state);
  LagrangeState& st = run.final_state;
  const double t0 = st.time_s, t_end = t0 + opt.duration_s;
  auto after_step = [&]() {
    for (int j = 0; j < model.nrod(); ++j)
      run.max_constraint_violation = std::max(run.max_constraint_violation, std::abs(st.q(j).tail<4>().norm() - 1.0));
    if (!st.y.allFinite()) throw SimulationError("Lagrange state became non-finite (reduce the time step)", st.time_s);
    ++run.steps;
    if (observer) {
      lagrange_derivative(model, st, data);
      observer(st, data);
    }
  };
  if (opt.integrator == Integrator::kRK4) {
    const long n = fixed_step_count(opt);
    const double h = n > 0 ? opt.duration_s / static_cast<double>(n) : opt.dt_s;
    for (long i = 0; i < n; ++i) {
      if (opt.locate_slack_events)
        run.split_steps += advance_rk4_located(model, data, st, h) > 0 ? 1 : 0;
      else
        lagrange_step_rk4(model, data, st, h);
      st.time_s = t0 + static_cast<double>(i + 1) * h;
      after_step();
    }
  } else {
    double h = opt.dt_s;
    adaptive_integrate(
        t0, t_end, h, [&](double h_try) { return lagrange_step_dopri5(model, data, st, h_try, opt.tolerance); }, after_step,
        run.rejected_steps);
  }
  return run;
}

LagrangeRun lagrange_simulate(const Model& model, double duration_s, double dt_s, const LagrangeOptions& options, const State* initial,
                              const std::function<void(const LagrangeState&, const LagrangeData&)>& observer,
                              const std::function<void(double, const State&, Data&)>& controller) {
  if (!(duration_s >= 0.0) || !std::isfinite(duration_s)) throw Error("lagrange_simulate: duration must be >= 0 s");
  if (!(dt_s > 0.0) || !std::isfinite(dt_s)) throw Error("lagrange_simulate: dt must be > 0 s");
  SimulationOptions o;
  o.duration_s = duration_s;
  o.dt_s = dt_s;
  o.integrator = Integrator::kRK4;
  o.locate_slack_events = false;
  return lagrange_simulate(model, o, options, initial, observer, controller);
}

void linearize(const Model& model, const LagrangeState& state, LagrangeData& data, Eigen::MatrixXd& A, Eigen::MatrixXd& B,
               const std::vector<int>& cables_in) {
  check_state(model, state);
  std::vector<int> cables = cables_in;
  if (cables.empty())
    for (const auto& d : model.drives) cables.push_back(d.cable);
  for (int k : cables)
    if (k < 0 || k >= model.ncable()) throw Error("linearize: cable index " + std::to_string(k) + " out of range");
  apply_rest_lengths(model, state, data);
  const int nx = 14 * model.nrod(), nu = static_cast<int>(cables.size()), nd = nx + nu;
  std::vector<AD> y(static_cast<std::size_t>(nx)), l0(static_cast<std::size_t>(model.ncable())), ydot(static_cast<std::size_t>(nx)),
      lambda(static_cast<std::size_t>(model.nrod()));
  for (int i = 0; i < nx; ++i) y[static_cast<std::size_t>(i)] = AD(state.y[i], Eigen::VectorXd::Unit(nd, i));
  for (int k = 0; k < model.ncable(); ++k) l0[static_cast<std::size_t>(k)] = AD(data.ne.cable_rest_length_m[k], Eigen::VectorXd::Zero(nd));
  for (int c = 0; c < nu; ++c)
    l0[static_cast<std::size_t>(cables[static_cast<std::size_t>(c)])].derivatives() = Eigen::VectorXd::Unit(nd, nx + c);
  Work<AD> w;
  w.resize(model);
  node_kinematics(model, y.data(), w);
  generalized_forces(model, y.data(), l0.data(), &data.ne.f_W_ext_node, state.time_s, w, nullptr);
  solve_rods(model, data.options, y.data(), w, ydot.data(), lambda.data());
  A.resize(nx, nx);
  B.resize(nx, nu);
  for (int i = 0; i < nx; ++i) {
    const Eigen::VectorXd& g = ydot[static_cast<std::size_t>(i)].derivatives();
    if (g.size() == nd) {
      A.row(i) = g.head(nx).transpose();
      B.row(i) = g.tail(nu).transpose();
    } else {
      A.row(i).setZero();
      B.row(i).setZero();
    }
  }
}

}  // namespace tendyn::tensegrity
