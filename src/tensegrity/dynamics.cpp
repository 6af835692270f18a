#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/tensegrity/contact.hpp>
#include <tendyn/tensegrity/dynamics.hpp>

#include "tensegrity/law.hpp"

#include <algorithm>
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
  for (int i = 0; i < nn; ++i) {
    const Node& n = model.nodes[static_cast<std::size_t>(i)];
    if (n.is_anchor()) d.anchor_nodes.push_back(i);
    if (n.touches_ground()) d.ground_contact_nodes.push_back(i);
  }
  d.winch_target_m.setZero(model.nwinch());
  d.winch_command.setZero(model.nwinch());
  d.winch_torque_Nm.setZero(model.nwinch());
  d.winch_of_cable.assign(static_cast<std::size_t>(nc), -1);
  for (int w = 0; w < model.nwinch(); ++w) {
    const Winch& wi = model.winches[static_cast<std::size_t>(w)];
    d.winch_of_cable[static_cast<std::size_t>(wi.cable)] = w;
    if (wi.control == Winch::Control::kPosition) d.winch_target_m[w] = model.cables[static_cast<std::size_t>(wi.cable)].rest_length_m;
  }
  d.actuator_ctrl.setZero(model.nactuator());
  d.actuator_force_N.setZero(model.nactuator());
  d.actuator_of_cable.assign(static_cast<std::size_t>(nc), -1);
  d.actuator_state.assign(static_cast<std::size_t>(model.nactuator()), -1);
  for (int a = 0; a < model.nactuator(); ++a) {
    const ForceActuator& fa = model.force_actuators[static_cast<std::size_t>(a)];
    d.actuator_of_cable[static_cast<std::size_t>(fa.cable)] = a;
    d.actuator_ctrl[a] = fa.ctrl;
    d.actuator_state[static_cast<std::size_t>(a)] = model.activation_offset(a);
  }
  const int nx = model.nx();
  d.xdot.setZero(nx);
  d.evaluated.x.setZero(nx);
  d.evaluated.cable_rest_length_m.setZero(nc);
  d.evaluated.winch_target_m.setZero(model.nwinch());
  d.evaluated.actuator_ctrl.setZero(model.nactuator());
  d.evaluated.f_W_ext_node.assign(static_cast<std::size_t>(nn), Eigen::Vector3d::Zero());
  for (auto& s : d.stage) s.setZero(nx);
  d.tmp.x.setZero(nx);
  d.saved.x.setZero(nx);
  d.stretch_start_m.setZero(nc);
  d.x_err.setZero(nx);
  d.body_geometry = model.has_body_geometry();
  if (d.body_geometry) {
    d.r_W_node.setZero(3, nn);
    d.R_WB_rod.setZero(9, nr);
    d.tau_W_contact_rod.setZero(3, nr);
    d.rod_node_start.assign(static_cast<std::size_t>(nr) + 1, 0);
    for (int i = 0; i < nn; ++i)
      if (!model.nodes[static_cast<std::size_t>(i)].is_anchor())
        ++d.rod_node_start[static_cast<std::size_t>(model.nodes[static_cast<std::size_t>(i)].rod) + 1];
    for (int j = 0; j < nr; ++j) d.rod_node_start[static_cast<std::size_t>(j) + 1] += d.rod_node_start[static_cast<std::size_t>(j)];
    d.rod_nodes.assign(static_cast<std::size_t>(d.rod_node_start.back()), -1);
    std::vector<int> fill(d.rod_node_start.begin(), d.rod_node_start.end() - 1);
    for (int i = 0; i < nn; ++i) {
      const Node& n = model.nodes[static_cast<std::size_t>(i)];
      if (!n.is_anchor()) d.rod_nodes[static_cast<std::size_t>(fill[static_cast<std::size_t>(n.rod)]++)] = i;
    }
  }
  return d;
}

namespace {

// Kinematics of models with body points, end-caps or general inertia (Data::body_geometry): every
// node on a rod at d = R_WB p_BN. One pass per rod over its nodes (Data::rod_nodes), the rotation
// in registers, raw restrict pointers as in the kernel below. The body-frame points are read from
// the model at every evaluation (Model::p_BN's rule inline: a Data outlives changes of the model's
// parameters), with the same floating-point operations as Model::p_BN and R p_B.
void body_kinematics(const Model& model, const State& state, Data& data) {
  const int nr = model.nrod();
  const double* __restrict x = state.x.data();
  double* __restrict R_out = data.R_WB_rod.data();
  double* __restrict r_W = data.r_W_node.data();
  double* __restrict p_W = data.p_W_node.data();
  double* __restrict v_W = data.v_W_node.data();
  double* __restrict e_W = data.e_W_rod.data();
  const int* __restrict start = data.rod_node_start.data();
  const int* __restrict rod_nodes = data.rod_nodes.data();
  const Rod* rods = model.rods.data();
  const Node* nodes = model.nodes.data();
  for (int j = 0; j < nr; ++j) {
    double xr[State::kStride];  // a local copy: the stores below cannot alias it, so it stays in registers
    for (int c = 0; c < State::kStride; ++c) xr[c] = x[State::kStride * j + c];
    double R[9];
    law::rotation_matrix(xr + 3, R);
    for (int c = 0; c < 9; ++c) R_out[9 * j + c] = R[c];
    const Rod& r = rods[j];
    const bool general = r.general_inertia;
    for (int s = start[j]; s < start[j + 1]; ++s) {
      const int i = rod_nodes[s];
      const Node& n = nodes[i];
      double b[3];  // p_BN
      if (general || n.end == Node::kBodyPoint) {
        b[0] = n.p_B_m.x();
        b[1] = n.p_B_m.y();
        b[2] = n.p_B_m.z();
      } else {
        b[0] = 0.0;
        b[1] = 0.0;
        b[2] = law::rod_end_offset(r, n.end);
      }
      double d[3];
      for (int c = 0; c < 3; ++c) d[c] = R[3 * c] * b[0] + R[3 * c + 1] * b[1] + R[3 * c + 2] * b[2];
      r_W[3 * i] = d[0];
      r_W[3 * i + 1] = d[1];
      r_W[3 * i + 2] = d[2];
      law::point_kinematics(xr, d, p_W + 3 * i, v_W + 3 * i);
    }
    if (general) {
      const double* p0 = p_W + 3 * r.node[0];
      const double* p1 = p_W + 3 * r.node[1];
      for (int c = 0; c < 3; ++c) e_W[3 * j + c] = (p1[c] - p0[c]) / r.length_m;
    } else {
      e_W[3 * j] = R[2];
      e_W[3 * j + 1] = R[5];
      e_W[3 * j + 2] = R[8];
    }
  }
  for (const int i : data.anchor_nodes) {
    data.p_W_node.col(i) = model.nodes[static_cast<std::size_t>(i)].p_W_anchor;
    data.v_W_node.col(i).setZero();
  }
}

// Rod wrenches from every node force (lever R_WB p_BN) and the end-caps' contact torques, then
// each rod's state derivative: the axisymmetric law for the documents' rods, Euler's equations
// with the full inertia tensor for general ones.
void body_accelerations(const Model& model, const State& state, Data& data) {
  const int nr = model.nrod();
  const double* __restrict x = state.x.data();
  const double* __restrict f_W = data.f_W_node.data();
  const double* __restrict r_W = data.r_W_node.data();
  const double* __restrict R_W = data.R_WB_rod.data();
  const double* __restrict e_W = data.e_W_rod.data();
  const double* __restrict tau_contact = data.tau_W_contact_rod.data();
  double* __restrict f_rod = data.f_W_rod.data();
  double* __restrict tau_rod = data.tau_W_rod.data();
  double* __restrict xdot = data.xdot.data();
  const int* __restrict start = data.rod_node_start.data();
  const int* __restrict rod_nodes = data.rod_nodes.data();
  const Rod* rods = model.rods.data();
  const double g0 = model.gravity_W.x(), g1 = model.gravity_W.y(), g2 = model.gravity_W.z();
  for (int j = 0; j < nr; ++j) {
    const Rod& r = rods[j];
    double F[3] = {r.mass_kg * g0, r.mass_kg * g1, r.mass_kg * g2};
    double tau[3] = {tau_contact[3 * j], tau_contact[3 * j + 1], tau_contact[3 * j + 2]};
    for (int s = start[j]; s < start[j + 1]; ++s) {
      const int i = rod_nodes[s];
      law::add_wrench(r_W + 3 * i, f_W + 3 * i, F, tau);
    }
    for (int c = 0; c < 3; ++c) {
      f_rod[3 * j + c] = F[c];
      tau_rod[3 * j + c] = tau[c];
    }
    const double* xr = x + State::kStride * j;
    double* dx = xdot + State::kStride * j;
    if (r.general_inertia)
      law::body_rate(xr, F, tau, R_W + 9 * j, r.inertia_B_kgm2, r.mass_kg, dx);
    else
      law::rod_rate(xr, F, tau, e_W + 3 * j, r.mass_kg, r.inertia_transverse_kgm2, r.inertia_axial_kgm2, r.inertia_axial_kgm2 > 0.0, dx);
  }
}

}  // namespace

// The kernel below (issue 19 item 2) computes exactly what the first version computed (the
// Eigen-column code kept in tests/support/legacy_dynamics.hpp): the same floating-point operations
// in the same order, so results are bit-identical (dynamics_kernel_test.cpp). It is faster
// because it runs one pass per rod (both end nodes from the rod's state, no node-to-rod lookup),
// works on raw restrict pointers (no reloads after stores), and computes the cables' square
// roots and divisions as SIMD packets over groups of cables, kept in the structure-of-arrays
// scratch Data::cable_work (IEEE square root and division are exact in packets too).
void forward_kinematics(const Model& model, const State& state, Data& data) {
  if (data.body_geometry) {
    body_kinematics(model, state, data);
    return;
  }
  const int nr = model.nrod();
  const double* __restrict x = state.x.data();
  double* __restrict e_W = data.e_W_rod.data();
  double* __restrict p_W = data.p_W_node.data();
  double* __restrict v_W = data.v_W_node.data();
  const Rod* rods = model.rods.data();
  for (int j = 0; j < nr; ++j) {
    const double* xr = x + State::kStride * j;
    double e[3];  // in registers: the axis is on every stage's dependency chain
    law::rod_axis(xr + 3, e);
    e_W[3 * j] = e[0];
    e_W[3 * j + 1] = e[1];
    e_W[3 * j + 2] = e[2];
    const Rod& r = rods[j];
    for (int end = 0; end < 2; ++end) {
      const double s = law::rod_end_offset(r, end);
      const double d[3] = {s * e[0], s * e[1], s * e[2]};  // p_CN in the world frame
      law::point_kinematics(xr, d, p_W + 3 * r.node[end], v_W + 3 * r.node[end]);
    }
  }
  for (const int i : data.anchor_nodes) {
    data.p_W_node.col(i) = model.nodes[static_cast<std::size_t>(i)].p_W_anchor;
    data.v_W_node.col(i).setZero();
  }
}

void update_rest_lengths(const Model& model, const State& state, Data& data) {
  const bool winches = !model.winches.empty(), actuators = !model.force_actuators.empty();
  for (const auto& d : model.drives) {
    if (actuators && data.actuator_of_cable[static_cast<std::size_t>(d.cable)] >= 0) {  // the drive moves the command
      const int a = data.actuator_of_cable[static_cast<std::size_t>(d.cable)];
      data.actuator_ctrl[a] = model.force_actuators[static_cast<std::size_t>(a)].ctrl + drive_offset(d, state.time_s);
      continue;
    }
    const double l = model.cables[static_cast<std::size_t>(d.cable)].rest_length_m + drive_offset(d, state.time_s);
    if (winches && data.winch_of_cable[static_cast<std::size_t>(d.cable)] >= 0)
      data.winch_target_m[data.winch_of_cable[static_cast<std::size_t>(d.cable)]] = l;
    else
      data.cable_rest_length_m[d.cable] = l;
  }
  if (data.controller) data.controller(state.time_s, state, data);
  for (int w = 0; w < model.nwinch(); ++w) {  // the rest length follows the spool
    const Winch& wi = model.winches[static_cast<std::size_t>(w)];
    data.cable_rest_length_m[wi.cable] =
        model.cables[static_cast<std::size_t>(wi.cable)].rest_length_m + wi.length_per_rad() * state.x[model.winch_offset(w)];
  }
  if (data.controller) check_rest_length_limits(model, data, state.time_s);
}

namespace {

// The winches' motor equations (model.hpp, Winch) into data.xdot, from the cable tensions of
// compute_element_forces.
void winch_rates(const Model& model, const State& state, Data& data) {
  for (int w = 0; w < model.nwinch(); ++w) {
    const Winch& wi = model.winches[static_cast<std::size_t>(w)];
    const int o = model.winch_offset(w);
    const double omega = state.x[o + 1], integral = state.x[o + 2];
    const double lpr = wi.length_per_rad();
    double u, e = 0.0, limit = wi.command_limit;
    if (wi.control == Winch::Control::kPosition) {
      e = data.winch_target_m[w] - data.cable_rest_length_m[wi.cable];
      u = wi.kp_per_m * e + wi.ki_per_ms * integral - wi.kd_s_per_m * lpr * omega;
      limit = wi.position_command_limit();
    } else {
      u = data.winch_target_m[w];
    }
    double tau_m;
    const double u_raw = u;
    if (wi.control == Winch::Control::kTorque) {  // the target is the torque, inside the torque-speed envelope
      const double back = omega / wi.no_load_speed_radps;
      tau_m = std::clamp(data.winch_target_m[w], wi.stall_torque_Nm * (-limit - back), wi.stall_torque_Nm * (limit - back));
      u = tau_m / wi.stall_torque_Nm + back;
    } else {
      u = std::clamp(u, -limit, limit);
      tau_m = wi.stall_torque_Nm * (u - omega / wi.no_load_speed_radps);
    }
    const double tau_f = wi.coulomb_friction_Nm * omega / std::sqrt(omega * omega + wi.friction_speed_radps * wi.friction_speed_radps) +
                         wi.viscous_friction_Nmsprad * omega;
    const double tau_load = wi.backdrivable ? lpr * data.cable_tension_N[wi.cable] : 0.0;
    data.winch_command[w] = u;
    data.winch_torque_Nm[w] = tau_m;
    data.xdot[o] = omega;
    data.xdot[o + 1] = (tau_m - tau_f + tau_load) / wi.rotor_inertia_kgm2;
    // anti-windup: the integral stops while the output is saturated in the error's direction
    data.xdot[o + 2] = (u_raw != u && (u_raw > 0.0) == (e > 0.0)) ? 0.0 : e;
  }
}

}  // namespace

void check_rest_length_limits(const Model& model, const Data& data, double t_s) {
  for (int k = 0; k < model.ncable(); ++k) {
    if (!data.winch_of_cable.empty() && data.winch_of_cable[static_cast<std::size_t>(k)] >= 0) continue;  // the motor's
    const Cable& c = model.cables[static_cast<std::size_t>(k)];
    const double l0 = data.cable_rest_length_m[k];
    if (!(l0 >= c.rest_length_min_m && l0 <= c.rest_length_max_m)) {
      throw SimulationError(
          "controller set the rest length of cable '" +
              (k < static_cast<int>(model.cable_ids.size()) ? model.cable_ids[static_cast<std::size_t>(k)] : std::to_string(k)) + "' to " +
              std::to_string(l0) + " m, outside its limits [" + std::to_string(c.rest_length_min_m) + ", " +
              std::to_string(c.rest_length_max_m) + "] m",
          t_s);
    }
  }
}

namespace {

// The force actuators' forces (ForceActuator: MuJoCo's tendon actuators) on their cables' nodes,
// from the lengths, rates and unit vectors compute_element_forces has just written.
void add_actuator_forces(const Model& model, const State& state, Data& data) {
  const int nc = model.ncable();
  const double* w = data.cable_work.data();
  double* f_W = data.f_W_node.data();
  for (int a = 0; a < model.nactuator(); ++a) {
    const ForceActuator& fa = model.force_actuators[static_cast<std::size_t>(a)];
    const int k = fa.cable;
    const int xa = data.actuator_state[static_cast<std::size_t>(a)];  // the activation's index in x, or -1
    const double u = xa >= 0 ? state.x[xa] : law::actuator_ctrl(fa, data.actuator_ctrl[a]);
    const double F = law::actuator_force(fa, data.cable_length_m[k], data.cable_rate_mps[k], u);
    data.actuator_force_N[a] = F;
    const double g = fa.gear * F;  // along u on node b, against it on node a
    const int ia = 3 * model.cables[static_cast<std::size_t>(k)].node[0], ib = 3 * model.cables[static_cast<std::size_t>(k)].node[1];
    for (int c = 0; c < 3; ++c) {
      const double f = g * w[(7 + c) * nc + k];
      f_W[ia + c] -= f;
      f_W[ib + c] += f;
    }
  }
}

}  // namespace

void compute_element_forces(const Model& model, const State& state, Data& data) {
  const int nc = model.ncable(), nn = model.nnode();
  if (!model.drives.empty() || data.controller || !model.winches.empty()) update_rest_lengths(model, state, data);
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
  const DampingLaw damping_law = model.damping_law;
  const CableForceSign force_sign = model.cable_force_sign;
  for (int k = 0; k < nc; ++k) {
    const Cable& c = cables[k];
    const double l = w[6 * nc + k];
    if (!(l > 0.0)) {
      throw SimulationError(cable_length_failure(k < static_cast<int>(model.cable_ids.size()) ? model.cable_ids[static_cast<std::size_t>(k)]
                                                                                              : std::to_string(k),
                                                 l, state.time_s),
                            state.time_s);
    }
    const double u[3] = {w[7 * nc + k], w[8 * nc + k], w[9 * nc + k]};
    const double dv[3] = {w[3 * nc + k], w[4 * nc + k], w[5 * nc + k]};
    const double rate = w[10 * nc + k];
    length[k] = l;
    rate_out[k] = rate;
    double tension, f[3];  // f: force on node a
    const bool loaded =
        law::cable_force(l, u, dv, rate, l0[k], c.stiffness_Npm, c.damping_Nspm, c.tension_only, damping_law, force_sign, tension, f);
    slack_out[k] = loaded ? 0 : 1;
    tension_out[k] = tension;
    if (!loaded) continue;
    const int a = 3 * c.node[0], b = 3 * c.node[1];
    f_W[a] += f[0];
    f_W[a + 1] += f[1];
    f_W[a + 2] += f[2];
    f_W[b] -= f[0];
    f_W[b + 1] -= f[1];
    f_W[b + 2] -= f[2];
  }
  if (!model.force_actuators.empty()) add_actuator_forces(model, state, data);
  if (model.ground.type == Ground::Type::kCompliant) add_compliant_ground_forces(model, data, &state);
}

void compute_accelerations(const Model& model, const State& state, Data& data) {
  if (!model.winches.empty()) winch_rates(model, state, data);
  for (int a = 0; a < model.nactuator(); ++a) {  // the force actuators' activations
    const int xa = data.actuator_state[static_cast<std::size_t>(a)];
    if (xa < 0) continue;
    const ForceActuator& fa = model.force_actuators[static_cast<std::size_t>(a)];
    data.xdot[xa] = law::activation_rate(fa, law::actuator_ctrl(fa, data.actuator_ctrl[a]), state.x[xa]);
  }
  if (data.body_geometry) {
    body_accelerations(model, state, data);
    return;
  }
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
    const double* e = e_W + 3 * j;
    double F[3] = {r.mass_kg * g0, r.mass_kg * g1, r.mass_kg * g2};
    double T[3] = {0.0, 0.0, 0.0};  // (0 + x is kept: it turns -0 into +0 as before)
    for (int end = 0; end < 2; ++end) law::add_axial_wrench(law::rod_end_offset(r, end), e, f_W + 3 * r.node[end], F, T);
    f_rod[3 * j] = F[0];
    f_rod[3 * j + 1] = F[1];
    f_rod[3 * j + 2] = F[2];
    tau_rod[3 * j] = T[0];
    tau_rod[3 * j + 1] = T[1];
    tau_rod[3 * j + 2] = T[2];
    law::rod_rate(x + State::kStride * j, F, T, e, r.mass_kg, r.inertia_transverse_kgm2, r.inertia_axial_kgm2, r.inertia_axial_kgm2 > 0.0,
                  xdot + State::kStride * j);
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
    if (r.general_inertia) {
      const Eigen::Matrix3d R = state.q_WB(j).toRotationMatrix();
      const Eigen::Vector3d w_B = R.transpose() * w;
      en.kinetic_J += 0.5 * r.mass_kg * v.squaredNorm() + 0.5 * w_B.dot(r.inertia_B_kgm2 * w_B);
    } else {
      const Eigen::Vector3d e = data.e_W_rod.col(j);
      const double w_a = w.dot(e);
      const double w_perp2 = w.squaredNorm() - w_a * w_a;
      en.kinetic_J += 0.5 * r.mass_kg * v.squaredNorm() + 0.5 * (r.inertia_transverse_kgm2 * w_perp2 + r.inertia_axial_kgm2 * w_a * w_a);
    }
    en.gravitational_J -= r.mass_kg * model.gravity_W.dot(p);
  }
  for (int k = 0; k < model.ncable(); ++k) {
    // stored energy is a function of the length: a cable unloaded by the damping clamp still has it
    const double s = data.cable_length_m[k] - data.cable_rest_length_m[k];
    if (model.cables[static_cast<std::size_t>(k)].tension_only && s <= 0.0) continue;
    en.elastic_J += 0.5 * model.cables[static_cast<std::size_t>(k)].stiffness_Npm * s * s;
  }
  for (int w = 0; w < model.nwinch(); ++w) {  // the rotors
    const double omega = state.x[model.winch_offset(w) + 1];
    en.kinetic_J += 0.5 * model.winches[static_cast<std::size_t>(w)].rotor_inertia_kgm2 * omega * omega;
  }
  for (int i = 0; i < model.nnode(); ++i) en.external_J -= data.f_W_ext_node[static_cast<std::size_t>(i)].dot(data.p_W_node.col(i));
  en.elastic_J += ground_energy(model, data);
  return en;
}

void check_state_size(const Model& model, const State& state, const std::string& what) {
  if (state.x.size() != model.nx())
    throw Error(what + ": the state has " + std::to_string(state.x.size()) + " entries, the model needs " +
                (model.winches.empty() ? "13 * nrod = " : "13 * nrod + 3 * nwinch = ") + std::to_string(model.nx()));
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
    Eigen::Vector3d Iw;
    if (r.general_inertia) {
      const Eigen::Matrix3d R = state.q_WB(j).toRotationMatrix();
      Iw = R * (r.inertia_B_kgm2 * (R.transpose() * w));
    } else {
      const Eigen::Vector3d e = state.q_WB(j) * Eigen::Vector3d::UnitZ();
      const double w_a = w.dot(e);
      Iw = r.inertia_transverse_kgm2 * (w - w_a * e) + r.inertia_axial_kgm2 * w_a * e;
    }
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
  const std::string t = format_number(time_s, 6);
  if (!std::isfinite(length_m))
    return "state became non-finite at t = " + t + " s: cable '" + cable +
           "' has a non-finite length (blow-up: a force or position overflowed; reduce the time step or check stiffness/damping)";
  return "cable '" + cable + "' has zero length at t = " + t + " s (its two nodes coincide)";
}

}  // namespace tendyn::tensegrity
