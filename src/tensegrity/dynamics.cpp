#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/contact.hpp>
#include <tendyn/tensegrity/dynamics.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace tendyn::tensegrity {

Data make_data(const Model& model) {
  const int nn = model.nnode(), nr = model.nrod(), nc = model.ncable();
  Data d;
  d.p_W_node.setZero(3, nn);
  d.v_W_node.setZero(3, nn);
  d.e_W_rod.setZero(3, nr);
  d.f_W_node.setZero(3, nn);
  d.f_W_rod.setZero(3, nr);
  d.tau_W_rod.setZero(3, nr);
  d.cable_rest_length_m.resize(nc);
  for (int k = 0; k < nc; ++k) d.cable_rest_length_m[k] = model.cables[static_cast<std::size_t>(k)].rest_length_m;
  d.cable_length_m.setZero(nc);
  d.cable_rate_mps.setZero(nc);
  d.cable_tension_N.setZero(nc);
  d.cable_slack.assign(static_cast<std::size_t>(nc), 0);
  d.f_W_ext_node = model.f_W_ext_node;
  d.f_W_ext_node.resize(static_cast<std::size_t>(nn), Eigen::Vector3d::Zero());
  d.cable_work.setZero(nc, 11);
  for (int i = 0; i < nn; ++i)
    if (model.nodes[static_cast<std::size_t>(i)].is_anchor()) d.anchor_nodes.push_back(i);
  const int nx = State::kStride * nr;
  d.xdot.setZero(nx);
  for (auto& s : d.stage) s.setZero(nx);
  d.tmp.x.setZero(nx);
  d.saved.x.setZero(nx);
  d.stretch_start_m.setZero(nc);
  d.x_err.setZero(nx);
  return d;
}

// The kernel below (issue 19 item 2) computes exactly what the first version computed (the
// Eigen-column code kept in tests/support/legacy_dynamics.hpp): the same floating-point operations
// in the same order, so results are bit-identical (dynamics_kernel_test.cpp). It is faster
// because it runs one pass per rod (both end nodes from the rod's state, no node-to-rod lookup),
// works on raw restrict pointers (no reloads after stores), and computes the cables' square
// roots and divisions as SIMD packets over groups of cables, kept in the structure-of-arrays
// scratch Data::cable_work (IEEE square root and division are exact in packets too).
void forward_kinematics(const Model& model, const State& state, Data& data) {
  const int nr = model.nrod();
  const double* __restrict x = state.x.data();
  double* __restrict e_W = data.e_W_rod.data();
  double* __restrict p_W = data.p_W_node.data();
  double* __restrict v_W = data.v_W_node.data();
  const Rod* rods = model.rods.data();
  for (int j = 0; j < nr; ++j) {
    const double* xr = x + State::kStride * j;
    // rod axis e = R(q) z: third column of the rotation matrix
    const double qw = xr[3], qx = xr[4], qy = xr[5], qz = xr[6];
    const double e0 = 2.0 * (qx * qz + qw * qy), e1 = 2.0 * (qy * qz - qw * qx), e2 = 1.0 - 2.0 * (qx * qx + qy * qy);
    e_W[3 * j] = e0;
    e_W[3 * j + 1] = e1;
    e_W[3 * j + 2] = e2;
    const double w0 = xr[10], w1 = xr[11], w2 = xr[12];
    const Rod& r = rods[j];
    for (int end = 0; end < 2; ++end) {
      const double s = end == 0 ? -(1.0 - r.com_ratio) * r.length_m : r.com_ratio * r.length_m;
      const double d0 = s * e0, d1 = s * e1, d2 = s * e2;  // p_CN in the world frame
      double* p = p_W + 3 * r.node[end];
      double* v = v_W + 3 * r.node[end];
      p[0] = xr[0] + d0;
      p[1] = xr[1] + d1;
      p[2] = xr[2] + d2;
      v[0] = xr[7] + (w1 * d2 - w2 * d1);  // v_C + w x p_CN
      v[1] = xr[8] + (w2 * d0 - w0 * d2);
      v[2] = xr[9] + (w0 * d1 - w1 * d0);
    }
  }
  for (const int i : data.anchor_nodes) {
    data.p_W_node.col(i) = model.nodes[static_cast<std::size_t>(i)].p_W_anchor;
    data.v_W_node.col(i).setZero();
  }
}

void update_rest_lengths(const Model& model, const State& state, Data& data) {
  for (const auto& d : model.drives)
    data.cable_rest_length_m[d.cable] = model.cables[static_cast<std::size_t>(d.cable)].rest_length_m + drive_offset(d, state.time_s);
  if (!data.controller) return;
  data.controller(state.time_s, state, data);
  check_rest_length_limits(model, data, state.time_s);
}

void check_rest_length_limits(const Model& model, const Data& data, double t_s) {
  for (int k = 0; k < model.ncable(); ++k) {
    const Cable& c = model.cables[static_cast<std::size_t>(k)];
    const double l0 = data.cable_rest_length_m[k];
    if (!(l0 >= c.rest_length_min_m && l0 <= c.rest_length_max_m)) {
      throw SimulationError("controller set the rest length of cable '" +
                                (k < static_cast<int>(model.cable_ids.size()) ? model.cable_ids[static_cast<std::size_t>(k)] : std::to_string(k)) +
                                "' to " + std::to_string(l0) + " m, outside its limits [" + std::to_string(c.rest_length_min_m) + ", " +
                                std::to_string(c.rest_length_max_m) + "] m",
                            t_s);
    }
  }
}

void compute_element_forces(const Model& model, const State& state, Data& data) {
  const int nc = model.ncable(), nn = model.nnode();
  if (!model.drives.empty() || data.controller) update_rest_lengths(model, state, data);
  double* __restrict f_W = data.f_W_node.data();
  for (int i = 0; i < nn; ++i) {
    const Eigen::Vector3d& fe = data.f_W_ext_node[static_cast<std::size_t>(i)];
    f_W[3 * i] = fe.x();
    f_W[3 * i + 1] = fe.y();
    f_W[3 * i + 2] = fe.z();
  }
  const double* __restrict p_W = data.p_W_node.data();
  const double* __restrict v_W = data.v_W_node.data();
  double* __restrict w = data.cable_work.data();  // (nc x 11), column-major: see Data
  const Cable* cables = model.cables.data();
  {
    // packets of P cables (Eigen's packet type: 2 doubles with SSE2, 4 with AVX): gather d and dv,
    // then l = |d|, u = d / l, rate = u . dv in registers, in the order of the scalar expressions
    // d.norm(), d / l, u.dot(dv); the remaining nc mod P cables one by one, the same way
    namespace ei = Eigen::internal;
    using Packet = ei::packet_traits<double>::type;
    constexpr int P = ei::packet_traits<double>::size;
    alignas(64) double g[6][P];
    int k = 0;
    for (; k + P <= nc; k += P) {
      for (int i = 0; i < P; ++i) {
        const int a = 3 * cables[k + i].node[0], b = 3 * cables[k + i].node[1];
        g[0][i] = p_W[b] - p_W[a];
        g[1][i] = p_W[b + 1] - p_W[a + 1];
        g[2][i] = p_W[b + 2] - p_W[a + 2];
        g[3][i] = v_W[b] - v_W[a];
        g[4][i] = v_W[b + 1] - v_W[a + 1];
        g[5][i] = v_W[b + 2] - v_W[a + 2];
      }
      const Packet dx = ei::pload<Packet>(g[0]), dy = ei::pload<Packet>(g[1]), dz = ei::pload<Packet>(g[2]);
      const Packet l = ei::psqrt(ei::padd(ei::padd(ei::pmul(dx, dx), ei::pmul(dy, dy)), ei::pmul(dz, dz)));
      const Packet ux = ei::pdiv(dx, l), uy = ei::pdiv(dy, l), uz = ei::pdiv(dz, l);
      const Packet rate = ei::padd(ei::padd(ei::pmul(ux, ei::pload<Packet>(g[3])), ei::pmul(uy, ei::pload<Packet>(g[4]))),
                                   ei::pmul(uz, ei::pload<Packet>(g[5])));
      ei::pstoreu(w + k, dx);
      ei::pstoreu(w + nc + k, dy);
      ei::pstoreu(w + 2 * nc + k, dz);
      ei::pstoreu(w + 3 * nc + k, ei::pload<Packet>(g[3]));
      ei::pstoreu(w + 4 * nc + k, ei::pload<Packet>(g[4]));
      ei::pstoreu(w + 5 * nc + k, ei::pload<Packet>(g[5]));
      ei::pstoreu(w + 6 * nc + k, l);
      ei::pstoreu(w + 7 * nc + k, ux);
      ei::pstoreu(w + 8 * nc + k, uy);
      ei::pstoreu(w + 9 * nc + k, uz);
      ei::pstoreu(w + 10 * nc + k, rate);
    }
    for (; k < nc; ++k) {
      const int a = 3 * cables[k].node[0], b = 3 * cables[k].node[1];
      const double dx = p_W[b] - p_W[a], dy = p_W[b + 1] - p_W[a + 1], dz = p_W[b + 2] - p_W[a + 2];
      const double dvx = v_W[b] - v_W[a], dvy = v_W[b + 1] - v_W[a + 1], dvz = v_W[b + 2] - v_W[a + 2];
      const double l = std::sqrt(dx * dx + dy * dy + dz * dz);
      const double ux = dx / l, uy = dy / l, uz = dz / l;
      w[k] = dx;
      w[nc + k] = dy;
      w[2 * nc + k] = dz;
      w[3 * nc + k] = dvx;
      w[4 * nc + k] = dvy;
      w[5 * nc + k] = dvz;
      w[6 * nc + k] = l;
      w[7 * nc + k] = ux;
      w[8 * nc + k] = uy;
      w[9 * nc + k] = uz;
      w[10 * nc + k] = ux * dvx + uy * dvy + uz * dvz;
    }
  }
  const double* __restrict l0 = data.cable_rest_length_m.data();
  double* __restrict length = data.cable_length_m.data();
  double* __restrict rate_out = data.cable_rate_mps.data();
  double* __restrict tension_out = data.cable_tension_N.data();
  std::uint8_t* __restrict slack_out = data.cable_slack.data();
  const bool relative = model.damping_law == DampingLaw::kRelativeVelocity;
  const bool clamp = model.cable_force_sign == CableForceSign::kClampTension;
  for (int k = 0; k < nc; ++k) {
    const Cable& c = cables[k];
    const double l = w[6 * nc + k];
    if (!(l > 0.0)) {
      throw SimulationError(cable_length_failure(
                                k < static_cast<int>(model.cable_ids.size()) ? model.cable_ids[static_cast<std::size_t>(k)] : std::to_string(k),
                                l, state.time_s),
                            state.time_s);
    }
    const double u0 = w[7 * nc + k], u1 = w[8 * nc + k], u2 = w[9 * nc + k];
    const double rate = w[10 * nc + k];
    const double stretch = l - l0[k];
    length[k] = l;
    rate_out[k] = rate;
    if (c.tension_only && stretch <= 0.0) {
      slack_out[k] = 1;
      tension_out[k] = 0.0;
      continue;
    }
    double tension = c.stiffness_Npm * stretch;
    double f0, f1, f2;  // force on node a
    if (relative) {
      // eq. (3): f_d on a = -gamma (v_a - v_b) = gamma dv
      f0 = tension * u0 + c.damping_Nspm * w[3 * nc + k];
      f1 = tension * u1 + c.damping_Nspm * w[4 * nc + k];
      f2 = tension * u2 + c.damping_Nspm * w[5 * nc + k];
      tension = f0 * u0 + f1 * u1 + f2 * u2;
    } else {
      tension += c.damping_Nspm * rate;
      f0 = tension * u0;
      f1 = tension * u1;
      f2 = tension * u2;
    }
    if (clamp && c.tension_only && tension < 0.0) {
      // a cable cannot push, even while damping (CableForceSign::kClampTension): no force at all
      slack_out[k] = 1;
      tension_out[k] = 0.0;
      continue;
    }
    slack_out[k] = 0;
    tension_out[k] = tension;
    const int a = 3 * c.node[0], b = 3 * c.node[1];
    f_W[a] += f0;
    f_W[a + 1] += f1;
    f_W[a + 2] += f2;
    f_W[b] -= f0;
    f_W[b + 1] -= f1;
    f_W[b + 2] -= f2;
  }
  if (model.ground.type == Ground::Type::kCompliant) add_compliant_ground_forces(model, data);
}

void compute_accelerations(const Model& model, const State& state, Data& data) {
  const int nr = model.nrod();
  const double* __restrict x = state.x.data();
  const double* __restrict f_W = data.f_W_node.data();
  const double* __restrict e_W = data.e_W_rod.data();
  double* __restrict f_rod = data.f_W_rod.data();
  double* __restrict tau_rod = data.tau_W_rod.data();
  double* __restrict xdot = data.xdot.data();
  const Rod* rods = model.rods.data();
  const double g0 = model.gravity_W.x(), g1 = model.gravity_W.y(), g2 = model.gravity_W.z();
  for (int j = 0; j < nr; ++j) {
    const Rod& r = rods[j];
    const double e0 = e_W[3 * j], e1 = e_W[3 * j + 1], e2 = e_W[3 * j + 2];
    double F0 = r.mass_kg * g0, F1 = r.mass_kg * g1, F2 = r.mass_kg * g2;
    double T0 = 0.0, T1 = 0.0, T2 = 0.0;  // (0 + x is kept: it turns -0 into +0 as before)
    for (int end = 0; end < 2; ++end) {
      const double* f = f_W + 3 * r.node[end];
      const double s = end == 0 ? -(1.0 - r.com_ratio) * r.length_m : r.com_ratio * r.length_m;
      const double fx = f[0], fy = f[1], fz = f[2];
      F0 += fx;
      F1 += fy;
      F2 += fz;
      T0 += s * (e1 * fz - e2 * fy);  // s (e x f)
      T1 += s * (e2 * fx - e0 * fz);
      T2 += s * (e0 * fy - e1 * fx);
    }
    f_rod[3 * j] = F0;
    f_rod[3 * j + 1] = F1;
    f_rod[3 * j + 2] = F2;
    tau_rod[3 * j] = T0;
    tau_rod[3 * j + 1] = T1;
    tau_rod[3 * j + 2] = T2;
    const double* xr = x + State::kStride * j;
    double* dx = xdot + State::kStride * j;
    const double wx = xr[10], wy = xr[11], wz = xr[12];
    // position
    dx[0] = xr[7];
    dx[1] = xr[8];
    dx[2] = xr[9];
    // q' = 1/2 [0, w] (x) q   (world-frame angular velocity multiplies from the left)
    const double qw = xr[3], qx = xr[4], qy = xr[5], qz = xr[6];
    dx[3] = 0.5 * (-wx * qx - wy * qy - wz * qz);
    dx[4] = 0.5 * (wx * qw + wy * qz - wz * qy);
    dx[5] = 0.5 * (wy * qw + wz * qx - wx * qz);
    dx[6] = 0.5 * (wz * qw + wx * qy - wy * qx);
    // linear acceleration
    const double m = r.mass_kg;
    dx[7] = F0 / m;
    dx[8] = F1 / m;
    dx[9] = F2 / m;
    // angular acceleration (see header): w' = (tau_perp - (Ia - It) w_a (w x e)) / It + e tau_a / Ia
    const double It = r.inertia_transverse_kgm2, Ia = r.inertia_axial_kgm2;
    const double tau_a = T0 * e0 + T1 * e1 + T2 * e2, w_a = wx * e0 + wy * e1 + wz * e2;
    const double gyro = (Ia - It) * w_a;
    double a0 = (T0 - tau_a * e0 - gyro * (wy * e2 - wz * e1)) / It;
    double a1 = (T1 - tau_a * e1 - gyro * (wz * e0 - wx * e2)) / It;
    double a2 = (T2 - tau_a * e2 - gyro * (wx * e1 - wy * e0)) / It;
    if (Ia > 0.0) {
      const double axial = tau_a / Ia;
      a0 += axial * e0;
      a1 += axial * e1;
      a2 += axial * e2;
    }
    dx[10] = a0;
    dx[11] = a1;
    dx[12] = a2;
  }
}

void compute_derivative(const Model& model, const State& state, Data& data) {
  forward_kinematics(model, state, data);
  compute_element_forces(model, state, data);
  compute_accelerations(model, state, data);
}

Energy compute_energy(const Model& model, const State& state, const Data& data) {
  Energy en;
  for (int j = 0; j < model.nrod(); ++j) {
    const Rod& r = model.rods[static_cast<std::size_t>(j)];
    const Eigen::Vector3d v = state.v_WC(j), w = state.w_W(j), p = state.p_WC(j);
    const Eigen::Vector3d e = data.e_W_rod.col(j);
    const double w_a = w.dot(e);
    const double w_perp2 = w.squaredNorm() - w_a * w_a;
    en.kinetic_J += 0.5 * r.mass_kg * v.squaredNorm() + 0.5 * (r.inertia_transverse_kgm2 * w_perp2 + r.inertia_axial_kgm2 * w_a * w_a);
    en.gravitational_J -= r.mass_kg * model.gravity_W.dot(p);
  }
  for (int k = 0; k < model.ncable(); ++k) {
    // stored energy is a function of the length: a cable unloaded by the damping clamp still has it
    const double s = data.cable_length_m[k] - data.cable_rest_length_m[k];
    if (model.cables[static_cast<std::size_t>(k)].tension_only && s <= 0.0) continue;
    en.elastic_J += 0.5 * model.cables[static_cast<std::size_t>(k)].stiffness_Npm * s * s;
  }
  for (int i = 0; i < model.nnode(); ++i) en.external_J -= data.f_W_ext_node[static_cast<std::size_t>(i)].dot(data.p_W_node.col(i));
  en.elastic_J += ground_energy(model, data);
  return en;
}

void check_state_size(const Model& model, const State& state, const std::string& what) {
  if (state.x.size() != State::kStride * model.nrod())
    throw Error(what + ": the state has " + std::to_string(state.x.size()) + " entries, the model needs 13 * nrod = " +
                std::to_string(State::kStride * model.nrod()));
}

Eigen::MatrixX3d node_positions(const Model& model, const State& state) {
  check_state_size(model, state, "node_positions");
  // through forward_kinematics itself, so that the numbers are those of data.p_W_node
  Data data = make_data(model);
  forward_kinematics(model, state, data);
  return data.p_W_node.transpose();
}

Eigen::Vector3d center_of_mass(const Model& model, const State& state) {
  check_state_size(model, state, "center_of_mass");
  Eigen::Vector3d c = Eigen::Vector3d::Zero();
  double m = 0.0;
  for (int j = 0; j < model.nrod(); ++j) {
    const double mj = model.rods[static_cast<std::size_t>(j)].mass_kg;
    c += mj * state.p_WC(j);
    m += mj;
  }
  return c / m;
}

Eigen::Vector3d linear_momentum(const Model& model, const State& state) {
  check_state_size(model, state, "linear_momentum");
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
  for (int j = 0; j < model.nrod(); ++j) p += model.rods[static_cast<std::size_t>(j)].mass_kg * state.v_WC(j);
  return p;
}

Eigen::Vector3d angular_momentum(const Model& model, const State& state) {
  check_state_size(model, state, "angular_momentum");
  Eigen::Vector3d h = Eigen::Vector3d::Zero();
  for (int j = 0; j < model.nrod(); ++j) {
    const Rod& r = model.rods[static_cast<std::size_t>(j)];
    const Eigen::Vector3d w = state.w_W(j);
    const Eigen::Vector3d e = state.q_WB(j) * Eigen::Vector3d::UnitZ();
    const double w_a = w.dot(e);
    const Eigen::Vector3d Iw = r.inertia_transverse_kgm2 * (w - w_a * e) + r.inertia_axial_kgm2 * w_a * e;
    h += state.p_WC(j).cross(r.mass_kg * state.v_WC(j)) + Iw;
  }
  return h;
}

void normalize_quaternions(const Model& model, State& state) {
  for (int j = 0; j < model.nrod(); ++j) {
    double* q = state.x.data() + State::kStride * j + 3;
    const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; ++i) q[i] /= n;
  }
}

std::string cable_length_failure(const std::string& cable, double length_m, double time_s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", time_s);
  if (!std::isfinite(length_m))
    return "state became non-finite at t = " + std::string(buf) + " s: cable '" + cable +
           "' has a non-finite length (blow-up: a force or position overflowed; reduce the time step or check stiffness/damping)";
  return "cable '" + cable + "' has zero length at t = " + std::string(buf) + " s (its two nodes coincide)";
}

}  // namespace tendyn::tensegrity
