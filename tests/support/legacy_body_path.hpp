// The general-body path of src/tensegrity/dynamics.cpp (models with body points, end-caps or rods
// of a general inertia: Data::body_geometry) as it was before it was rewritten on raw restrict
// pointers (commit a69e15f: Eigen columns, Model::p_BN per node), kept verbatim as the reference of
// tests/tensegrity/dynamics_kernel_test.cpp (the rewritten path computes the same numbers, bit for
// bit). Not part of the library: do not use it elsewhere. It writes the same Data fields as the
// library's stages. Also kept: the compliant ground's loop of the general path and the winches'
// motor equations as they were before the contact candidates were listed in Data and the position
// loop's limit was read without a division (every node visited, Winch::position_command_limit()).
#pragma once
#include <tendyn/tensegrity/dynamics.hpp>

#include "tensegrity/law.hpp"

#include <algorithm>
#include <cmath>

namespace tendyn::test::legacy_body {

namespace law = tensegrity::law;
using tensegrity::Data;
using tensegrity::Model;
using tensegrity::Rod;
using tensegrity::State;

inline void body_kinematics(const Model& model, const State& state, Data& data) {
  for (int j = 0; j < model.nrod(); ++j) {
    const double* xr = state.x.data() + State::kStride * j;
    double* R = data.R_WB_rod.col(j).data();
    law::rotation_matrix(xr + 3, R);
    const Rod& r = model.rods[static_cast<std::size_t>(j)];
    for (int s = data.rod_node_start[static_cast<std::size_t>(j)]; s < data.rod_node_start[static_cast<std::size_t>(j) + 1]; ++s) {
      const int i = data.rod_nodes[static_cast<std::size_t>(s)];
      const Eigen::Vector3d p_B = model.p_BN(i);
      double* d = data.r_W_node.col(i).data();
      for (int c = 0; c < 3; ++c) d[c] = R[3 * c] * p_B.x() + R[3 * c + 1] * p_B.y() + R[3 * c + 2] * p_B.z();
      law::point_kinematics(xr, d, data.p_W_node.col(i).data(), data.v_W_node.col(i).data());
    }
    if (r.general_inertia) {
      data.e_W_rod.col(j) = (data.p_W_node.col(r.node[1]) - data.p_W_node.col(r.node[0])) / r.length_m;
    } else {
      data.e_W_rod.col(j) = Eigen::Vector3d(R[2], R[5], R[8]);
    }
  }
  for (const int i : data.anchor_nodes) {
    data.p_W_node.col(i) = model.nodes[static_cast<std::size_t>(i)].p_W_anchor;
    data.v_W_node.col(i).setZero();
  }
}

inline void body_accelerations(const Model& model, const State& state, Data& data) {
  const Eigen::Vector3d& g = model.gravity_W;
  for (int j = 0; j < model.nrod(); ++j) {
    const Rod& r = model.rods[static_cast<std::size_t>(j)];
    double F[3] = {r.mass_kg * g.x(), r.mass_kg * g.y(), r.mass_kg * g.z()};
    double tau[3] = {data.tau_W_contact_rod(0, j), data.tau_W_contact_rod(1, j), data.tau_W_contact_rod(2, j)};
    for (int s = data.rod_node_start[static_cast<std::size_t>(j)]; s < data.rod_node_start[static_cast<std::size_t>(j) + 1]; ++s) {
      const int i = data.rod_nodes[static_cast<std::size_t>(s)];
      law::add_wrench(data.r_W_node.col(i).data(), data.f_W_node.col(i).data(), F, tau);
    }
    for (int c = 0; c < 3; ++c) {
      data.f_W_rod(c, j) = F[c];
      data.tau_W_rod(c, j) = tau[c];
    }
    const double* xr = state.x.data() + State::kStride * j;
    double* dx = data.xdot.data() + State::kStride * j;
    if (r.general_inertia)
      law::body_rate(xr, F, tau, data.R_WB_rod.col(j).data(), r.inertia_B_kgm2, r.mass_kg, dx);
    else
      law::rod_rate(xr, F, tau, data.e_W_rod.col(j).data(), r.mass_kg, r.inertia_transverse_kgm2, r.inertia_axial_kgm2,
                    r.inertia_axial_kgm2 > 0.0, dx);
  }
}

// contact.cpp's add_compliant_ground_forces on the general path (Data::body_geometry) before the
// candidates were listed: every node visited, those that touch the ground evaluated.
inline double compliant_ground_forces(const Model& model, Data& data, const State* state) {
  const tensegrity::Ground& g = model.ground;
  double energy = 0.0;
  auto touch = [&](int nd) {
    const tensegrity::Node& n = model.nodes[static_cast<std::size_t>(nd)];
    double v[3], f[3];
    for (int c = 0; c < 3; ++c) v[c] = data.v_W_node(c, nd);
    if (n.radius_m > 0.0 && state != nullptr) {
      const double* w = state->x.data() + State::kStride * n.rod + 10;
      v[0] += w[1] * -n.radius_m;
      v[1] -= w[0] * -n.radius_m;
    }
    const double depth = model.ground.height_m - (data.p_W_node(2, nd) - n.radius_m);
    if (!law::compliant_ground_force(depth, v, g.stiffness_Npm, g.damping_Nspm, g.friction, g.slip_velocity_mps, f)) return;
    data.f_W_node(0, nd) += f[0];
    data.f_W_node(1, nd) += f[1];
    data.f_W_node(2, nd) += f[2];
    const double r = model.nodes[static_cast<std::size_t>(nd)].radius_m;
    if (r > 0.0) {
      const int j = model.nodes[static_cast<std::size_t>(nd)].rod;
      data.tau_W_contact_rod(0, j) += r * f[1];
      data.tau_W_contact_rod(1, j) -= r * f[0];
    }
    energy += 0.5 * g.stiffness_Npm * depth * depth;
  };
  data.tau_W_contact_rod.setZero();
  for (int nd = 0; nd < model.nnode(); ++nd)
    if (model.nodes[static_cast<std::size_t>(nd)].touches_ground()) touch(nd);
  return energy;
}

// dynamics.cpp's winch_rates (the winches' motor equations, model.hpp Winch) into data.xdot.
inline void winch_rates(const Model& model, const State& state, Data& data) {
  using tensegrity::Winch;
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
    if (wi.control == Winch::Control::kTorque) {
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
    data.xdot[o + 2] = (u_raw != u && (u_raw > 0.0) == (e > 0.0)) ? 0.0 : e;
  }
}

}  // namespace tendyn::test::legacy_body
