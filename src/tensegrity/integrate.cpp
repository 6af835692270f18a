#include <tendyn/core/error.hpp>
#include <tendyn/core/rotation.hpp>
#include <tendyn/tensegrity/integrate.hpp>

#include <algorithm>
#include <cmath>

namespace tendyn::tensegrity {

void step_rk4(const Model& model, Data& data, State& state, double h) {
  auto& tmp = data.tmp;
  const double t0 = state.time_s;
  data.stage[0] = data.xdot;
  rk4_step(state.x, t0, h, data.stage[0], data.stage[1], data.stage[2], data.stage[3], tmp.x, [&](double t, Eigen::VectorXd& out) {
    tmp.time_s = t;
    compute_derivative(model, tmp, data);
    out = data.xdot;
  });
  state.time_s = t0 + h;
  normalize_quaternions(model, state);
}

namespace {
// Kick: v += dt F/m, L += dt tau; angular velocity recomputed from the angular momentum.
void kick(const Model& model, const Data& data, State& state, double dt) {
  for (int j = 0; j < model.nrod(); ++j) {
    const Rod& r = model.rods[static_cast<std::size_t>(j)];
    state.v_WC(j) += (dt / r.mass_kg) * data.f_W_rod.col(j);
    const Eigen::Vector3d e = state.q_WB(j) * Eigen::Vector3d::UnitZ();
    const Eigen::Vector3d w = state.w_W(j);
    const double It = r.inertia_transverse_kgm2, Ia = r.inertia_axial_kgm2;
    const double w_a = w.dot(e);
    Eigen::Vector3d L = It * (w - w_a * e) + Ia * w_a * e;
    L += dt * data.tau_W_rod.col(j);
    const double L_a = L.dot(e);
    const double w_a_new = Ia > 0.0 ? L_a / Ia : w_a;  // thin rod: axial spin is kinematic only
    state.w_W(j) = (L - L_a * e) / It + w_a_new * e;
  }
}

// Drift: exact free motion for time dt. For an axisymmetric body with world angular momentum L
// and body spin W3 = w . e, R(t) = exp(t L / It) R0 exp(t (It - Ia)/It W3 z).
void drift(const Model& model, State& state, double dt) {
  for (int j = 0; j < model.nrod(); ++j) {
    const Rod& r = model.rods[static_cast<std::size_t>(j)];
    state.p_WC(j) += dt * state.v_WC(j);
    const Eigen::Quaterniond q = state.q_WB(j);
    const Eigen::Vector3d e = q * Eigen::Vector3d::UnitZ();
    const Eigen::Vector3d w = state.w_W(j);
    const double It = r.inertia_transverse_kgm2, Ia = r.inertia_axial_kgm2;
    const double w_a = w.dot(e);
    const Eigen::Vector3d L = It * (w - w_a * e) + Ia * w_a * e;
    const double body_rate = (It - Ia) / It * w_a;
    const Eigen::Quaterniond q_new = (quat_exp(dt * L / It) * q * quat_exp(Eigen::Vector3d(0, 0, dt * body_rate))).normalized();
    state.set_q_WB(j, q_new);
    const Eigen::Vector3d e_new = q_new * Eigen::Vector3d::UnitZ();
    state.w_W(j) = L / It + body_rate * e_new;  // L and w . e are constant in free motion
  }
}
}  // namespace

void step_lie_verlet(const Model& model, Data& data, State& state, double h) {
  if (data.body_geometry)
    for (const Rod& r : model.rods)
      if (r.general_inertia)
        throw Error("lie-verlet: its drift is the free motion of an axisymmetric rod; model '" + model.name +
                    "' has rods of a general inertia tensor (use rk4 or dopri5)");
  kick(model, data, state, 0.5 * h);
  drift(model, state, h);
  state.time_s += h;
  compute_derivative(model, state, data);
  bool damped = false;
  for (const auto& c : model.cables) damped = damped || c.damping_Nspm > 0.0;
  if (damped) {
    // Velocity-dependent forces: evaluate them at a predicted end-of-step velocity, so that the
    // second kick is second-order accurate (one extra evaluation; none without damping).
    data.tmp.x = state.x;
    data.tmp.time_s = state.time_s;
    kick(model, data, data.tmp, 0.5 * h);
    forward_kinematics(model, data.tmp, data);
    // positions are those of `state`; only velocities differ
    compute_element_forces(model, data.tmp, data);
    compute_accelerations(model, state, data);
  }
  kick(model, data, state, 0.5 * h);
}

AdaptiveStep step_dopri5(const Model& model, Data& data, State& state, double h, const Tolerance& tol) {
  if (h < tol.h_min_s)
    throw SimulationError("Dormand-Prince step size fell below " + std::to_string(tol.h_min_s) + " s (stiff or singular dynamics)",
                          state.time_s);
  auto& k = data.stage;
  auto& tmp = data.tmp;
  const double t0 = state.time_s;
  k[0] = data.xdot;
  const double err = dopri5_trial(state.x, t0, h, k, tmp.x, data.x_err, tol.rtol, tol.atol, [&](double t, Eigen::VectorXd& out) {
    tmp.time_s = t;
    compute_derivative(model, tmp, data);
    out = data.xdot;
  });
  const AdaptiveStep out = dopri5_control(err, h, tol.h_max_s);
  if (out.accepted) {
    state.x = tmp.x;
    state.time_s = t0 + h;
    normalize_quaternions(model, state);
  } else {
    data.xdot = k[0];  // keep the precondition for the retry
  }
  return out;
}

}  // namespace tendyn::tensegrity
