// The tensegrity dynamics kernel as it was before issue 19 item 2 (src/tensegrity/dynamics.cpp at
// commit e7f7e91, three passes over Eigen columns with a node-to-rod lookup), kept verbatim as the
// reference of tests/tensegrity/dynamics_kernel_test.cpp (new kernel == old kernel) and as the
// baseline of bench/tensegrity_step.cpp (BM_LegacyStep). Not part of the library: do not use it
// elsewhere. It writes the same Data fields as the library's stages.
#pragma once
#include <tendyn/core/error.hpp>
#include <tendyn/core/integrate.hpp>
#include <tendyn/tensegrity/contact.hpp>
#include <tendyn/tensegrity/dynamics.hpp>

#include <cmath>
#include <string>

namespace tendyn::test::legacy {

using tensegrity::add_compliant_ground_forces;
using tensegrity::Cable;
using tensegrity::cable_length_failure;
using tensegrity::CableForceSign;
using tensegrity::DampingLaw;
using tensegrity::Data;
using tensegrity::Ground;
using tensegrity::Model;
using tensegrity::Node;
using tensegrity::Rod;
using tensegrity::State;
using tensegrity::update_rest_lengths;

inline Eigen::Vector3d axis_of(const double* q) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  return {2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)};
}

inline void forward_kinematics(const Model& model, const State& state, Data& data) {
  const int nr = model.nrod();
  const double* x = state.x.data();
  for (int j = 0; j < nr; ++j) {
    const double* xr = x + State::kStride * j;
    data.e_W_rod.col(j) = axis_of(xr + 3);
  }
  for (int i = 0; i < model.nnode(); ++i) {
    const Node& n = model.nodes[static_cast<std::size_t>(i)];
    if (n.is_anchor()) {
      data.p_W_node.col(i) = n.p_W_anchor;
      data.v_W_node.col(i).setZero();
      continue;
    }
    const Rod& r = model.rods[static_cast<std::size_t>(n.rod)];
    const double* xr = x + State::kStride * n.rod;
    const double s = n.end == 0 ? -(1.0 - r.com_ratio) * r.length_m : r.com_ratio * r.length_m;
    const Eigen::Vector3d d_W = s * data.e_W_rod.col(n.rod);  // p_CN in world frame
    const Eigen::Map<const Eigen::Vector3d> p(xr), v(xr + 7), w(xr + 10);
    data.p_W_node.col(i) = p + d_W;
    data.v_W_node.col(i) = v + w.cross(d_W);
  }
}

inline void compute_element_forces(const Model& model, const State& state, Data& data) {
  const int nc = model.ncable();
  if (!model.drives.empty() || data.controller) update_rest_lengths(model, state, data);
  for (int i = 0; i < model.nnode(); ++i) data.f_W_node.col(i) = data.f_W_ext_node[static_cast<std::size_t>(i)];
  const bool relative = model.damping_law == DampingLaw::kRelativeVelocity;
  const bool clamp = model.cable_force_sign == CableForceSign::kClampTension;
  for (int k = 0; k < nc; ++k) {
    const Cable& c = model.cables[static_cast<std::size_t>(k)];
    const int a = c.node[0], b = c.node[1];
    const Eigen::Vector3d d = data.p_W_node.col(b) - data.p_W_node.col(a);
    const double l = d.norm();
    if (!(l > 0.0)) {
      throw SimulationError(cable_length_failure(k < static_cast<int>(model.cable_ids.size()) ? model.cable_ids[static_cast<std::size_t>(k)]
                                                                                              : std::to_string(k),
                                                 l, state.time_s),
                            state.time_s);
    }
    const Eigen::Vector3d u = d / l;  // from a to b
    const Eigen::Vector3d dv = data.v_W_node.col(b) - data.v_W_node.col(a);
    const double rate = u.dot(dv);
    const double l0 = data.cable_rest_length_m[k];
    const double stretch = l - l0;
    data.cable_length_m[k] = l;
    data.cable_rate_mps[k] = rate;
    const bool slack = c.tension_only && stretch <= 0.0;
    data.cable_slack[static_cast<std::size_t>(k)] = slack ? 1 : 0;
    if (slack) {
      data.cable_tension_N[k] = 0.0;
      continue;
    }
    double tension = c.stiffness_Npm * stretch;
    Eigen::Vector3d f_a;  // force on node a
    if (relative) {
      f_a = tension * u + c.damping_Nspm * dv;
      tension = f_a.dot(u);
    } else {
      tension += c.damping_Nspm * rate;
      f_a = tension * u;
    }
    if (clamp && c.tension_only && tension < 0.0) {
      data.cable_slack[static_cast<std::size_t>(k)] = 1;
      data.cable_tension_N[k] = 0.0;
      continue;
    }
    data.cable_tension_N[k] = tension;
    data.f_W_node.col(a) += f_a;
    data.f_W_node.col(b) -= f_a;
  }
  if (model.ground.type == Ground::Type::kCompliant) add_compliant_ground_forces(model, data);
}

inline void compute_accelerations(const Model& model, const State& state, Data& data) {
  const int nr = model.nrod();
  for (int j = 0; j < nr; ++j) {
    const Rod& r = model.rods[static_cast<std::size_t>(j)];
    data.f_W_rod.col(j) = r.mass_kg * model.gravity_W;
    data.tau_W_rod.col(j).setZero();
    for (int e = 0; e < 2; ++e) {
      const int nd = r.node[e];
      const double s = e == 0 ? -(1.0 - r.com_ratio) * r.length_m : r.com_ratio * r.length_m;
      const Eigen::Vector3d f = data.f_W_node.col(nd);
      data.f_W_rod.col(j) += f;
      data.tau_W_rod.col(j) += s * data.e_W_rod.col(j).cross(f);
    }
    const double* xr = state.x.data() + State::kStride * j;
    double* dx = data.xdot.data() + State::kStride * j;
    const Eigen::Map<const Eigen::Vector3d> v(xr + 7), w(xr + 10);
    dx[0] = v.x();
    dx[1] = v.y();
    dx[2] = v.z();
    const double qw = xr[3], qx = xr[4], qy = xr[5], qz = xr[6];
    dx[3] = 0.5 * (-w.x() * qx - w.y() * qy - w.z() * qz);
    dx[4] = 0.5 * (w.x() * qw + w.y() * qz - w.z() * qy);
    dx[5] = 0.5 * (w.y() * qw + w.z() * qx - w.x() * qz);
    dx[6] = 0.5 * (w.z() * qw + w.x() * qy - w.y() * qx);
    const Eigen::Vector3d a = data.f_W_rod.col(j) / r.mass_kg;
    dx[7] = a.x();
    dx[8] = a.y();
    dx[9] = a.z();
    const Eigen::Vector3d e = data.e_W_rod.col(j);
    const Eigen::Vector3d tau = data.tau_W_rod.col(j);
    const double It = r.inertia_transverse_kgm2, Ia = r.inertia_axial_kgm2;
    const double tau_a = tau.dot(e), w_a = w.dot(e);
    Eigen::Vector3d wdot = (tau - tau_a * e - (Ia - It) * w_a * w.cross(e)) / It;
    if (Ia > 0.0) wdot += (tau_a / Ia) * e;
    dx[10] = wdot.x();
    dx[11] = wdot.y();
    dx[12] = wdot.z();
  }
}

inline void compute_derivative(const Model& model, const State& state, Data& data) {
  legacy::forward_kinematics(model, state, data);
  legacy::compute_element_forces(model, state, data);
  legacy::compute_accelerations(model, state, data);
}

inline void normalize_quaternions(const Model& model, State& state) {
  for (int j = 0; j < model.nrod(); ++j) {
    double* q = state.x.data() + State::kStride * j + 3;
    const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; ++i) q[i] /= n;
  }
}

// step_rk4 of src/tensegrity/integrate.cpp on the old kernel.
inline void step_rk4(const Model& model, Data& data, State& state, double h) {
  auto& tmp = data.tmp;
  const double t0 = state.time_s;
  data.stage[0] = data.xdot;
  rk4_step(state.x, t0, h, data.stage[0], data.stage[1], data.stage[2], data.stage[3], tmp.x, [&](double t, Eigen::VectorXd& out) {
    tmp.time_s = t;
    legacy::compute_derivative(model, tmp, data);
    out = data.xdot;
  });
  state.time_s = t0 + h;
  legacy::normalize_quaternions(model, state);
}

}  // namespace tendyn::test::legacy
