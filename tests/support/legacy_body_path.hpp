// The general-body path of src/tensegrity/dynamics.cpp (models with body points, end-caps or rods
// of a general inertia: Data::body_geometry) as it was before it was rewritten on raw restrict
// pointers (commit a69e15f: Eigen columns, Model::p_BN per node), kept verbatim as the reference of
// tests/tensegrity/dynamics_kernel_test.cpp (the rewritten path computes the same numbers, bit for
// bit). Not part of the library: do not use it elsewhere. It writes the same Data fields as the
// library's stages; the winches' motor equations (unchanged) are not in it.
#pragma once
#include <tendyn/tensegrity/dynamics.hpp>

#include "tensegrity/law.hpp"

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

}  // namespace tendyn::test::legacy_body
