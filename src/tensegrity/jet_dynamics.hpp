// The tensegrity dynamics of the documents' ideal rods and its RK4 step, as templates on the
// scalar type T: double for values, ceres::Jet for exact forward-mode derivatives through the
// integrator (identify.cpp: the identification's prediction; derivatives.cpp: step and rollout
// derivatives). Every law comes from law.hpp; this file only assembles them the way
// compute_derivative and step_rk4 do (same operations, same order). Private header (src/).
#pragma once
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/dynamics.hpp>

#include "tensegrity/law.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

// The Jet instantiations of the dynamics are large: GCC -O3 then leaves Eigen's small fixed-size
// assignments inside ceres::Jet's operators out of line (a call per Jet operation, 60 % of the
// time). flatten inlines everything into the few functions below: 6x less CPU per Jacobian, same
// numbers (no reassociation: the same operations in the same order).
#if defined(__GNUC__)
#define TENDYN_FLATTEN __attribute__((flatten))
#else
#define TENDYN_FLATTEN
#endif

namespace tendyn::tensegrity::jet_dynamics {

using law::value_of;

inline std::string element_id(const std::vector<std::string>& ids, int i, const char* what) {
  return i < static_cast<int>(ids.size()) ? ids[static_cast<std::size_t>(i)] : std::string(what) + std::to_string(i);
}

// Physical values for one evaluation.
template <class T>
struct Phys {
  std::vector<T> k, c, l0, mass, It, Ia;
  T mu, gk, gc;
};

// Scratch of one simulation in scalar T.
template <class T>
struct Work {
  std::vector<T> x, k1, k2, k3, k4, stage;
  std::vector<T> p, v, f, e;    // 3 nnode, 3 nnode, 3 nnode, 3 nrod
  std::vector<double> drive_u;  // (ncable) drive offset at the current time (0 without drive)
  void resize(const Model& m) {
    const auto nx = static_cast<std::size_t>(State::kStride * m.nrod());
    for (auto* a : {&x, &k1, &k2, &k3, &k4, &stage}) a->assign(nx, T(0.0));
    const auto nn = static_cast<std::size_t>(3 * m.nnode());
    p.assign(nn, T(0.0));
    v.assign(nn, T(0.0));
    f.assign(nn, T(0.0));
    e.assign(static_cast<std::size_t>(3 * m.nrod()), T(0.0));
    drive_u.assign(static_cast<std::size_t>(m.ncable()), 0.0);
  }
};

// Node positions and velocities (forward_kinematics), with the law of src/tensegrity/law.hpp.
template <class T>
TENDYN_FLATTEN void kinematics(const Model& m, const T* x, Work<T>& w) {
  for (int j = 0; j < m.nrod(); ++j) law::rod_axis(x + State::kStride * j + 3, &w.e[static_cast<std::size_t>(3 * j)]);
  for (int i = 0; i < m.nnode(); ++i) {
    const Node& n = m.nodes[static_cast<std::size_t>(i)];
    T* p = &w.p[static_cast<std::size_t>(3 * i)];
    T* v = &w.v[static_cast<std::size_t>(3 * i)];
    if (n.is_anchor()) {
      for (int c = 0; c < 3; ++c) {
        p[c] = T(n.p_W_anchor[c]);
        v[c] = T(0.0);
      }
      continue;
    }
    const T* e = &w.e[static_cast<std::size_t>(3 * n.rod)];
    const double s = law::rod_end_offset(m.rods[static_cast<std::size_t>(n.rod)], n.end);
    const T d[3] = {s * e[0], s * e[1], s * e[2]};
    law::point_kinematics(x + State::kStride * n.rod, d, p, v);
  }
}

// Tension of cable k from the kinematics in w (law::cable_force); f_a: force on the first node.
// Returns false when the element carries no force.
template <class T>
TENDYN_FLATTEN bool cable_force(const Model& m, const Phys<T>& P, const Work<T>& w, int k, double t, T& tension, T* f_a) {
  using std::sqrt;
  const Cable& cb = m.cables[static_cast<std::size_t>(k)];
  const auto a = static_cast<std::size_t>(3 * cb.node[0]), b = static_cast<std::size_t>(3 * cb.node[1]);
  const T d[3] = {w.p[b] - w.p[a], w.p[b + 1] - w.p[a + 1], w.p[b + 2] - w.p[a + 2]};
  const T l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(value_of(l) > 0.0)) throw SimulationError(cable_length_failure(element_id(m.cable_ids, k, "cable"), value_of(l), t), t);
  const T u[3] = {d[0] / l, d[1] / l, d[2] / l};
  const T dv[3] = {w.v[b] - w.v[a], w.v[b + 1] - w.v[a + 1], w.v[b + 2] - w.v[a + 2]};
  const T rate = u[0] * dv[0] + u[1] * dv[1] + u[2] * dv[2];
  const auto ku = static_cast<std::size_t>(k);
  return law::cable_force(l, u, dv, rate, P.l0[ku] + w.drive_u[ku], P.k[ku], P.c[ku], cb.tension_only, m.damping_law, m.cable_force_sign,
                          tension, f_a);
}

template <class T>
void set_drive_offsets(const Model& m, double t, Work<T>& w) {
  for (const auto& d : m.drives) w.drive_u[static_cast<std::size_t>(d.cable)] = drive_offset(d, t);
}

// x' = f(t, x) (compute_derivative: element forces, compliant ground, Newton-Euler per rod).
template <class T>
TENDYN_FLATTEN void derivative(const Model& m, const Phys<T>& P, double t, const T* x, T* xd, Work<T>& w) {
  set_drive_offsets(m, t, w);
  kinematics(m, x, w);
  for (int i = 0; i < m.nnode(); ++i)
    for (int c = 0; c < 3; ++c) w.f[static_cast<std::size_t>(3 * i + c)] = T(m.f_W_ext_node[static_cast<std::size_t>(i)][c]);
  for (int k = 0; k < m.ncable(); ++k) {
    T tension, fa[3];
    if (!cable_force(m, P, w, k, t, tension, fa)) continue;
    const Cable& cb = m.cables[static_cast<std::size_t>(k)];
    const auto a = static_cast<std::size_t>(3 * cb.node[0]), b = static_cast<std::size_t>(3 * cb.node[1]);
    for (std::size_t c = 0; c < 3; ++c) {
      w.f[a + c] += fa[c];
      w.f[b + c] -= fa[c];
    }
  }
  if (m.ground.type == Ground::Type::kCompliant) {  // add_compliant_ground_forces (contact.cpp)
    const Ground& g = m.ground;
    for (const Rod& r : m.rods)
      for (int end = 0; end < 2; ++end) {
        const auto nd = static_cast<std::size_t>(3 * r.node[end]);
        T f[3];
        if (!law::compliant_ground_force(T(g.height_m - w.p[nd + 2]), &w.v[nd], P.gk, P.gc, P.mu, g.slip_velocity_mps, f)) continue;
        for (std::size_t c = 0; c < 3; ++c) w.f[nd + c] += f[c];
      }
  }
  for (int j = 0; j < m.nrod(); ++j) {  // compute_accelerations
    const auto ju = static_cast<std::size_t>(j);
    const Rod& r = m.rods[ju];
    const T* e = &w.e[3 * ju];
    T F[3], tau[3];
    for (int c = 0; c < 3; ++c) {
      F[c] = P.mass[ju] * m.gravity_W[c];
      tau[c] = T(0.0);
    }
    for (int end = 0; end < 2; ++end)
      law::add_axial_wrench(law::rod_end_offset(r, end), e, &w.f[static_cast<std::size_t>(3 * r.node[end])], F, tau);
    law::rod_rate(x + State::kStride * j, F, tau, e, P.mass[ju], P.It[ju], P.Ia[ju], r.inertia_axial_kgm2 > 0.0, xd + State::kStride * j);
  }
}

template <class T>
TENDYN_FLATTEN void normalize_quaternions(const Model& m, T* x) {
  using std::sqrt;
  for (int j = 0; j < m.nrod(); ++j) {
    T* q = x + State::kStride * j + 3;
    const T n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int c = 0; c < 4; ++c) q[c] /= n;
  }
}

// One RK4 step (core/integrate.hpp rk4_step) from (t0, w.x), quaternions renormalised after.
template <class T>
void rk4(const Model& m, const Phys<T>& P, double t0, double h, Work<T>& w) {
  const std::size_t n = w.x.size();
  derivative(m, P, t0, w.x.data(), w.k1.data(), w);
  for (std::size_t i = 0; i < n; ++i) w.stage[i] = w.x[i] + (0.5 * h) * w.k1[i];
  derivative(m, P, t0 + 0.5 * h, w.stage.data(), w.k2.data(), w);
  for (std::size_t i = 0; i < n; ++i) w.stage[i] = w.x[i] + (0.5 * h) * w.k2[i];
  derivative(m, P, t0 + 0.5 * h, w.stage.data(), w.k3.data(), w);
  for (std::size_t i = 0; i < n; ++i) w.stage[i] = w.x[i] + h * w.k3[i];
  derivative(m, P, t0 + h, w.stage.data(), w.k4.data(), w);
  for (std::size_t i = 0; i < n; ++i) w.x[i] += (h / 6.0) * (w.k1[i] + 2.0 * w.k2[i] + 2.0 * w.k3[i] + w.k4[i]);
  normalize_quaternions(m, w.x.data());
}

// Advances w.x from t0 to t1 in ceil((t1 - t0) / dt) equal RK4 steps.
template <class T>
void advance(const Model& m, const Phys<T>& P, double t0, double t1, double dt, Work<T>& w) {
  const double span = t1 - t0;
  const long n = std::max(1L, static_cast<long>(std::ceil(span / dt - 1e-9)));
  const double h = span / static_cast<double>(n);
  for (long s = 0; s < n; ++s) rk4(m, P, t0 + static_cast<double>(s) * h, h, w);
}

}  // namespace tendyn::tensegrity::jet_dynamics
