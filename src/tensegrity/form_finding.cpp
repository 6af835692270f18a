#include <tendyn/core/error.hpp>
#include <tendyn/core/rotation.hpp>
#include <tendyn/tensegrity/form_finding.hpp>

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tendyn::tensegrity {

namespace {

Model statics_model(const Model& m) {
  Model s = m;
  s.gravity_W.setZero();
  for (auto& f : s.f_W_ext_node) f.setZero();
  s.drives.clear();
  s.ground.type = Ground::Type::kNone;
  for (auto& c : s.cables) c.damping_Nspm = 0.0;
  return s;
}

// Rod residuals (net force, net torque about the COM) at zero velocity: 6 nrod numbers.
Eigen::VectorXd rod_residual(const Model& m, const State& st, Data& d) {
  State s = st;
  for (int j = 0; j < m.nrod(); ++j) {
    s.v_WC(j).setZero();
    s.w_W(j).setZero();
  }
  compute_derivative(m, s, d);
  Eigen::VectorXd r(6 * m.nrod());
  for (int j = 0; j < m.nrod(); ++j) {
    r.segment<3>(6 * j) = d.f_W_rod.col(j);
    r.segment<3>(6 * j + 3) = d.tau_W_rod.col(j);
  }
  return r;
}

void perturb(const Model& m, State& s, const Eigen::VectorXd& delta) {
  for (int j = 0; j < m.nrod(); ++j) {
    s.p_WC(j) += delta.segment<3>(6 * j);
    s.set_q_WB(j, (quat_exp(delta.segment<3>(6 * j + 3)) * s.q_WB(j)).normalized());
  }
}

}  // namespace

double max_node_residual(const Model& model, const State& state) {
  const Model m = statics_model(model);
  Data d = make_data(m);
  State s = state;
  for (int j = 0; j < m.nrod(); ++j) {
    s.v_WC(j).setZero();
    s.w_W(j).setZero();
  }
  compute_derivative(m, s, d);
  double worst = 0.0;
  for (int j = 0; j < m.nrod(); ++j) {
    const Rod& r = m.rods[static_cast<std::size_t>(j)];
    const Eigen::Vector3d e = d.e_W_rod.col(j);
    const Eigen::Vector3d f0 = d.f_W_node.col(r.node[0]), f1 = d.f_W_node.col(r.node[1]);
    const double N = 0.5 * (f1 - f0).dot(e);  // axial rod force that best balances the two ends
    worst = std::max({worst, (f0 + N * e).norm(), (f1 - N * e).norm()});
  }
  return worst;
}

FormFindingResult find_equilibrium(const Model& model, const FormFindingOptions& o) {
  validate(model);
  Model m = statics_model(model);
  double k_max = 0.0, m_min = std::numeric_limits<double>::infinity();
  for (const auto& c : m.cables) k_max = std::max(k_max, c.stiffness_Npm);
  for (const auto& r : m.rods) m_min = std::min(m_min, r.mass_kg);
  if (!(k_max > 0.0)) throw Error("form finding: no element has stiffness");
  const double gamma = o.damping_Nspm >= 0.0 ? o.damping_Nspm : std::sqrt(k_max * m_min);
  Model relax = m;
  relax.damping_law = DampingLaw::kRelativeVelocity;
  for (auto& c : relax.cables) c.damping_Nspm = gamma;
  SimulationOptions so;
  so.duration_s = o.relax_duration_s;
  so.dt_s = o.dt_s > 0.0 ? o.dt_s : 0.05 * std::sqrt(m_min / (4.0 * k_max));
  so.output_interval_s = o.relax_duration_s;
  so.energy_growth_limit = 1e6;
  const auto relaxed = simulate(relax, so);

  FormFindingResult res;
  State s = relaxed.final_state;
  s.time_s = 0.0;
  for (int j = 0; j < m.nrod(); ++j) {
    s.v_WC(j).setZero();
    s.w_W(j).setZero();
  }
  Data d = make_data(m);
  const int n = 6 * m.nrod();
  Eigen::MatrixXd J(n, n);
  for (int it = 0; it < o.max_newton_iterations; ++it) {
    res.max_node_residual_N = max_node_residual(m, s);
    if (res.max_node_residual_N <= o.tolerance_N) break;
    const Eigen::VectorXd r0 = rod_residual(m, s, d);
    const double h = 1e-7;
    for (int c = 0; c < n; ++c) {
      State sp = s, sm = s;
      Eigen::VectorXd dp = Eigen::VectorXd::Zero(n);
      dp[c] = h;
      perturb(m, sp, dp);
      perturb(m, sm, -dp);
      J.col(c) = (rod_residual(m, sp, d) - rod_residual(m, sm, d)) / (2 * h);
    }
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(J);
    cod.setThreshold(1e-9);
    const Eigen::VectorXd step = -cod.solve(r0);
    // backtracking: accept the step only if it lowers the residual
    double scale = 1.0;
    for (int b = 0; b < 20; ++b) {
      State trial = s;
      perturb(m, trial, scale * step);
      if (rod_residual(m, trial, d).norm() < r0.norm()) {
        s = trial;
        break;
      }
      scale *= 0.5;
    }
    res.newton_iterations = it + 1;
  }
  res.max_node_residual_N = max_node_residual(m, s);
  res.converged = res.max_node_residual_N <= o.tolerance_N;
  compute_derivative(m, s, d);
  for (int k = 0; k < m.ncable(); ++k)
    res.slack_cables += (m.cables[static_cast<std::size_t>(k)].tension_only && d.cable_length_m[k] <= d.cable_rest_length_m[k]) ? 1 : 0;
  res.state = s;
  return res;
}

}  // namespace tendyn::tensegrity
