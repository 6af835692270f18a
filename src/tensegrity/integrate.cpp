#include <tendyn/core/error.hpp>
#include <tendyn/core/rotation.hpp>
#include <tendyn/tensegrity/integrate.hpp>

#include <algorithm>
#include <cmath>

namespace tendyn::tensegrity {

Integrator integrator_from_string(const std::string& name) {
  if (name == "rk4") return Integrator::kRK4;
  if (name == "dopri5" || name == "dormand-prince") return Integrator::kDormandPrince45;
  if (name == "lie-verlet" || name == "symplectic") return Integrator::kLieVerlet;
  throw Error("unknown integrator '" + name + "' (valid: rk4, dopri5, lie-verlet)");
}

const char* to_string(Integrator integrator) {
  switch (integrator) {
    case Integrator::kRK4: return "rk4";
    case Integrator::kDormandPrince45: return "dopri5";
    case Integrator::kLieVerlet: return "lie-verlet";
  }
  return "?";
}

void step_rk4(const Model& model, Data& data, State& state, double h) {
  auto& k1 = data.stage[0];
  auto& k2 = data.stage[1];
  auto& k3 = data.stage[2];
  auto& tmp = data.tmp;
  const double t0 = state.time_s;
  k1 = data.xdot;
  tmp.time_s = t0 + 0.5 * h;
  tmp.x = state.x + (0.5 * h) * k1;
  compute_derivative(model, tmp, data);
  k2 = data.xdot;
  tmp.x = state.x + (0.5 * h) * k2;
  compute_derivative(model, tmp, data);
  k3 = data.xdot;
  tmp.time_s = t0 + h;
  tmp.x = state.x + h * k3;
  compute_derivative(model, tmp, data);
  state.x += (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + data.xdot);
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
    const Eigen::Quaterniond q_new =
        (quat_exp(dt * L / It) * q * quat_exp(Eigen::Vector3d(0, 0, dt * body_rate))).normalized();
    state.set_q_WB(j, q_new);
    const Eigen::Vector3d e_new = q_new * Eigen::Vector3d::UnitZ();
    state.w_W(j) = L / It + body_rate * e_new;  // L and w . e are constant in free motion
  }
}
}  // namespace

void step_lie_verlet(const Model& model, Data& data, State& state, double h) {
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

namespace {
// Dormand & Prince (1980) coefficients.
constexpr double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
constexpr double a21 = 1.0 / 5;
constexpr double a31 = 3.0 / 40, a32 = 9.0 / 40;
constexpr double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
constexpr double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
constexpr double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176, a65 = -5103.0 / 18656;
constexpr double b1 = 35.0 / 384, b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784, b6 = 11.0 / 84;
// e = b(5th) - b*(4th)
constexpr double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200, e6 = 22.0 / 525,
                 e7 = -1.0 / 40;
}  // namespace

AdaptiveStep step_dopri5(const Model& model, Data& data, State& state, double h, const Tolerance& tol) {
  if (h < tol.h_min_s)
    throw SimulationError("Dormand-Prince step size fell below " + std::to_string(tol.h_min_s) +
                              " s (stiff or singular dynamics)",
                          state.time_s);
  auto& k = data.stage;
  auto& tmp = data.tmp;
  const double t0 = state.time_s;
  k[0] = data.xdot;
  auto eval = [&](double c, int out) {
    tmp.time_s = t0 + c * h;
    compute_derivative(model, tmp, data);
    k[out] = data.xdot;
  };
  tmp.x = state.x + h * a21 * k[0];
  eval(c2, 1);
  tmp.x = state.x + h * (a31 * k[0] + a32 * k[1]);
  eval(c3, 2);
  tmp.x = state.x + h * (a41 * k[0] + a42 * k[1] + a43 * k[2]);
  eval(c4, 3);
  tmp.x = state.x + h * (a51 * k[0] + a52 * k[1] + a53 * k[2] + a54 * k[3]);
  eval(c5, 4);
  tmp.x = state.x + h * (a61 * k[0] + a62 * k[1] + a63 * k[2] + a64 * k[3] + a65 * k[4]);
  eval(1.0, 5);
  tmp.x = state.x + h * (b1 * k[0] + b3 * k[2] + b4 * k[3] + b5 * k[4] + b6 * k[5]);
  eval(1.0, 6);
  data.x_err = h * (e1 * k[0] + e3 * k[2] + e4 * k[3] + e5 * k[4] + e6 * k[5] + e7 * k[6]);
  double sum = 0.0;
  const auto n = state.x.size();
  for (Eigen::Index i = 0; i < n; ++i) {
    const double sc = tol.atol + tol.rtol * std::max(std::abs(state.x[i]), std::abs(tmp.x[i]));
    const double r = data.x_err[i] / sc;
    sum += r * r;
  }
  const double err = std::sqrt(sum / static_cast<double>(n));
  AdaptiveStep out;
  out.h_used = h;
  out.error = err;
  if (!std::isfinite(err)) {
    out.accepted = false;
    out.h_next = 0.2 * h;
    data.xdot = k[0];
    return out;
  }
  const double factor = err == 0.0 ? 5.0 : std::clamp(0.9 * std::pow(err, -0.2), 0.2, 5.0);
  out.h_next = std::min(h * factor, tol.h_max_s);
  if (err <= 1.0) {
    out.accepted = true;
    state.x = tmp.x;
    state.time_s = t0 + h;
    normalize_quaternions(model, state);
  } else {
    out.h_next = std::min(out.h_next, h);
    data.xdot = k[0];  // keep the precondition for the retry
  }
  return out;
}

}  // namespace tendyn::tensegrity
