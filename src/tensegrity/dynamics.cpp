#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/contact.hpp>
#include <tendyn/tensegrity/dynamics.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace tendyn::tensegrity {

namespace {
// Rod axis e = R(q) z, written out: third column of the rotation matrix.
inline Eigen::Vector3d axis_of(const double* q) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  return {2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)};
}
}  // namespace

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
  const int nx = State::kStride * nr;
  d.xdot.setZero(nx);
  for (auto& s : d.stage) s.setZero(nx);
  d.tmp.x.setZero(nx);
  d.saved.x.setZero(nx);
  d.stretch_start_m.setZero(nc);
  d.x_err.setZero(nx);
  return d;
}

void forward_kinematics(const Model& model, const State& state, Data& data) {
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
      throw SimulationError(cable_length_failure(
                                k < static_cast<int>(model.cable_ids.size()) ? model.cable_ids[static_cast<std::size_t>(k)] : std::to_string(k),
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
      // eq. (3): f_d on a = -gamma (v_a - v_b) = gamma dv
      f_a = tension * u + c.damping_Nspm * dv;
      tension = f_a.dot(u);
    } else {
      tension += c.damping_Nspm * rate;
      f_a = tension * u;
    }
    if (clamp && c.tension_only && tension < 0.0) {
      // a cable cannot push, even while damping (CableForceSign::kClampTension): no force at all
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

void compute_accelerations(const Model& model, const State& state, Data& data) {
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
    // position
    dx[0] = v.x();
    dx[1] = v.y();
    dx[2] = v.z();
    // q' = 1/2 [0, w] (x) q   (world-frame angular velocity multiplies from the left)
    const double qw = xr[3], qx = xr[4], qy = xr[5], qz = xr[6];
    dx[3] = 0.5 * (-w.x() * qx - w.y() * qy - w.z() * qz);
    dx[4] = 0.5 * (w.x() * qw + w.y() * qz - w.z() * qy);
    dx[5] = 0.5 * (w.y() * qw + w.z() * qx - w.x() * qz);
    dx[6] = 0.5 * (w.z() * qw + w.x() * qy - w.y() * qx);
    // linear acceleration
    const Eigen::Vector3d a = data.f_W_rod.col(j) / r.mass_kg;
    dx[7] = a.x();
    dx[8] = a.y();
    dx[9] = a.z();
    // angular acceleration (see header): w' = (tau_perp - (Ia - It) w_a (w x e)) / It + e tau_a / Ia
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
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
  for (int j = 0; j < model.nrod(); ++j) p += model.rods[static_cast<std::size_t>(j)].mass_kg * state.v_WC(j);
  return p;
}

Eigen::Vector3d angular_momentum(const Model& model, const State& state) {
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
