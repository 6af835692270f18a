#include <tendyn/core/format.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/rotation.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/form_finding.hpp>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace tendyn::tensegrity {

namespace {

// Every rod at rest (velocities and angular velocities zero).
void zero_velocities(const Model& m, State& s) {
  for (int j = 0; j < m.nrod(); ++j) {
    s.v_WC(j).setZero();
    s.w_W(j).setZero();
  }
}

// The model of the statics on the ground: gravity and the model's external forces kept, no
// ground (its reactions are unknowns), no drives, no damping.
Model ground_statics_model(const Model& m) {
  Model s = m;
  s.drives.clear();
  s.ground.type = Ground::Type::kNone;
  for (auto& c : s.cables) c.damping_Nspm = 0.0;
  return s;
}

// The free-standing statics of form-finding: the ground statics without gravity and external forces.
Model statics_model(const Model& m) {
  Model s = ground_statics_model(m);
  s.gravity_W.setZero();
  for (auto& f : s.f_W_ext_node) f.setZero();
  return s;
}

// Rod residuals (net force, net torque about the COM) at zero velocity: 6 nrod numbers.
Eigen::VectorXd rod_residual(const Model& m, const State& st, Data& d) {
  State s = st;
  zero_velocities(m, s);
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
  zero_velocities(m, s);
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
  require_ideal_rods(model, "find_equilibrium");
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
  zero_velocities(m, s);
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

// ---------------------------------------------------------------------------------------------
// Settling on the ground

namespace {

// Numbers in error messages: 6 significant digits (io::format_number, as "%g").
std::string fmt(double v) { return format_number(v, 6); }

// Rod residuals (net force, net torque about the COM / (L/2)) at zero velocity with `reaction`
// added at the contact nodes: 6 nrod numbers [N].
Eigen::VectorXd rod_residual_on_ground(const Model& m, const State& st, const std::vector<int>& contacts,
                                       const std::vector<Eigen::Vector3d>& reaction, Data& d) {
  State s = st;
  zero_velocities(m, s);
  d.f_W_ext_node = m.f_W_ext_node;
  d.f_W_ext_node.resize(static_cast<std::size_t>(m.nnode()), Eigen::Vector3d::Zero());
  for (std::size_t c = 0; c < contacts.size(); ++c) d.f_W_ext_node[static_cast<std::size_t>(contacts[c])] += reaction[c];
  compute_derivative(m, s, d);
  Eigen::VectorXd r(6 * m.nrod());
  for (int j = 0; j < m.nrod(); ++j) {
    r.segment<3>(6 * j) = d.f_W_rod.col(j);
    r.segment<3>(6 * j + 3) = d.tau_W_rod.col(j) / (0.5 * m.rods[static_cast<std::size_t>(j)].length_m);
  }
  return r;
}

std::string id_of(const std::vector<std::string>& ids, int i, const char* prefix) {
  return static_cast<std::size_t>(i) < ids.size() ? ids[static_cast<std::size_t>(i)] : prefix + std::to_string(i);
}

double max_abs(const Eigen::VectorXd& v) { return v.size() ? v.cwiseAbs().maxCoeff() : 0.0; }

double max_rod_end_speed(const Model& m, const Data& d) {
  double v = 0.0;
  for (int i = 0; i < m.nnode(); ++i)
    if (!m.nodes[static_cast<std::size_t>(i)].is_anchor()) v = std::max(v, d.v_W_node.col(i).norm());
  return v;
}

void check_settle_inputs(const Model& model, const SettleOptions& o) {
  validate(model);
  require_ideal_rods(model, "settle_on_ground");
  if (model.ground.type == Ground::Type::kNone) throw Error("settle_on_ground: the model has no ground (ground.type is none)");
  if (!(model.gravity_W.z() < 0.0))
    throw Error("settle_on_ground: gravity must point down (gravity_W.z < 0), got " + fmt(model.gravity_W.z()));
  if (model.nrod() == 0) throw Error("settle_on_ground: the model has no rods");
  if (!(o.max_duration_s > 0.0) || !(o.speed_tolerance_mps > 0.0) || !(o.quiet_time_s >= 0.0) || !(o.contact_tolerance_m >= 0.0) ||
      !(o.tolerance_N > 0.0) || o.max_newton_iterations < 1 || !std::isfinite(o.max_duration_s))
    throw Error(
        "settle_on_ground: options must be positive and finite (max_duration_s, speed_tolerance_mps, tolerance_N, "
        "max_newton_iterations; quiet_time_s, contact_tolerance_m >= 0)");
}

// One settle on the ground (settle_on_ground), step by step: the model without drives (dyn) for
// the damped settle, the ground statics model (st) for the contact polish and the stability check,
// their work data, the contacts with their reactions, and the result.
struct Settle {
  const Model& model;
  const SettleOptions& o;
  double h = 0.0, k_max = 0.0, dt = 0.0;
  Model dyn;
  State s;
  Data d;
  SettleResult res;
  StepOptions so;
  long max_steps = 0;
  Model st;
  Data ds;
  int nr = 0;
  std::vector<int> contacts;
  std::vector<Eigen::Vector3d> reaction, pin;

  Settle(const Model& m, const SettleOptions& opt);
  void damped_settle();
  void contact_polish();
  Eigen::VectorXd solve_pinned();
  bool stable_or_pushed(int attempt);
  void check_contact_forces();
  void recentre();
  void check_cables();
};

// (1) the start: the model's initial state at rest, placed on the ground if asked
Settle::Settle(const Model& m, const SettleOptions& opt) : model(m), o(opt) {
  h = model.ground.height_m;
  double m_min = std::numeric_limits<double>::infinity();
  for (const auto& c : model.cables) k_max = std::max(k_max, c.stiffness_Npm);
  for (const auto& r : model.rods) m_min = std::min(m_min, r.mass_kg);
  if (!(k_max > 0.0)) throw Error("settle_on_ground: no element has stiffness");
  dt = o.dt_s > 0.0 ? o.dt_s : 0.05 * std::sqrt(m_min / (4.0 * k_max));

  dyn = model;
  dyn.drives.clear();
  s = model.initial_state;
  s.time_s = 0.0;
  zero_velocities(dyn, s);
  d = make_data(dyn);
  if (o.place_on_ground) {
    forward_kinematics(dyn, s, d);
    double zmin = std::numeric_limits<double>::infinity();
    for (int i = 0; i < dyn.nnode(); ++i)
      if (!dyn.nodes[static_cast<std::size_t>(i)].is_anchor()) zmin = std::min(zmin, d.p_W_node(2, i));
    for (int j = 0; j < dyn.nrod(); ++j) s.p_WC(j).z() += h - zmin;
  }

  so.integrator = Integrator::kRK4;
  max_steps = static_cast<long>(std::ceil(o.max_duration_s / dt));
  st = ground_statics_model(model);
  ds = make_data(st);
  nr = 6 * st.nrod();
}

// (2) damped settle: kinetic damping
void Settle::damped_settle() {
  compute_derivative(dyn, s, d);
  double ke_prev = 0.0, quiet_s = 0.0, speed = 0.0;
  for (; res.steps < max_steps; ++res.steps) {
    step(dyn, d, s, dt, so, static_cast<double>(res.steps + 1) * dt);
    const double ke = compute_energy(dyn, s, d).kinetic_J;
    speed = max_rod_end_speed(dyn, d);
    if (ke < ke_prev) {  // past a kinetic-energy peak: remove it
      zero_velocities(dyn, s);
      compute_derivative(dyn, s, d);
      ++res.kinetic_resets;
      ke_prev = 0.0;
    } else {
      ke_prev = ke;
    }
    quiet_s = speed < o.speed_tolerance_mps ? quiet_s + dt : 0.0;
    if (quiet_s >= o.quiet_time_s && quiet_s > 0.0) {
      ++res.steps;
      break;
    }
  }
  res.settle_time_s = static_cast<double>(res.steps) * dt;
  res.max_node_speed_mps = speed;
  if (quiet_s < o.quiet_time_s || quiet_s == 0.0)
    throw SimulationError("settle_on_ground: not at rest after " + fmt(o.max_duration_s) + " s of damped settling (fastest rod end " +
                              fmt(speed) + " m/s, tolerance " + fmt(o.speed_tolerance_mps) + " m/s for " + fmt(o.quiet_time_s) + " s)",
                          res.settle_time_s);
  zero_velocities(dyn, s);
}

// (3) contact polish: the rod ends within contact_tolerance_m of the ground are pinned where they
// are and the rest state with its reactions is solved; contacts that pull are released and the
// state solved again
void Settle::contact_polish() {
  forward_kinematics(st, s, ds);
  contacts.clear();
  for (int i = 0; i < st.nnode(); ++i)
    if (!st.nodes[static_cast<std::size_t>(i)].is_anchor() && ds.p_W_node(2, i) - h <= o.contact_tolerance_m) contacts.push_back(i);
  pin.clear();
  double polish_residual = 0.0;
  for (int round = 0;; ++round) {
    if (contacts.empty())
      throw SimulationError("settle_on_ground: no rod end rests on the ground after the damped settle", res.settle_time_s);
    const int nc = static_cast<int>(contacts.size());
    const Eigen::VectorXd r0 = solve_pinned();
    polish_residual = max_abs(r0);
    res.max_residual_N = max_abs(r0.head(nr));
    // release the contacts that pull on the ground, then solve again
    std::vector<int> keep;
    for (int c = 0; c < nc; ++c)
      if (reaction[static_cast<std::size_t>(c)].z() > 0.0) keep.push_back(contacts[static_cast<std::size_t>(c)]);
    if (static_cast<int>(keep.size()) == nc || round >= st.nnode()) break;
    contacts = keep;
  }
  if (!(polish_residual <= o.tolerance_N))
    throw SimulationError("settle_on_ground: the contact polish did not converge (residual " + fmt(polish_residual) + " N, tolerance " +
                              fmt(o.tolerance_N) + " N)",
                          res.settle_time_s);
}

// One round of the polish: the contacts pinned at their current (x, y) on the ground, the state and
// the reactions solved by Levenberg-Marquardt; returns the last residual (rod residuals, then the
// pins' k_max-weighted gaps).
Eigen::VectorXd Settle::solve_pinned() {
  const int nc = static_cast<int>(contacts.size());
  pin.assign(contacts.size(), Eigen::Vector3d::Zero());
  forward_kinematics(st, s, ds);
  for (int c = 0; c < nc; ++c)
    pin[static_cast<std::size_t>(c)] =
        Eigen::Vector3d(ds.p_W_node(0, contacts[static_cast<std::size_t>(c)]), ds.p_W_node(1, contacts[static_cast<std::size_t>(c)]), h);
  reaction.assign(contacts.size(), Eigen::Vector3d::Zero());
  auto residual = [&](const State& x, const std::vector<Eigen::Vector3d>& rc) {
    Eigen::VectorXd r(nr + 3 * nc);
    r.head(nr) = rod_residual_on_ground(st, x, contacts, rc, ds);  // also runs forward_kinematics on x
    for (int c = 0; c < nc; ++c)
      r.segment<3>(nr + 3 * c) = k_max * (ds.p_W_node.col(contacts[static_cast<std::size_t>(c)]) - pin[static_cast<std::size_t>(c)]);
    return r;
  };
  auto apply = [&](State& x, std::vector<Eigen::Vector3d>& rc, const Eigen::VectorXd& delta) {
    perturb(st, x, delta.head(nr));
    for (int c = 0; c < nc; ++c) rc[static_cast<std::size_t>(c)] += delta.segment<3>(nr + 3 * c);
  };
  const int n = nr + 3 * nc;
  Eigen::MatrixXd J(n, n);
  double lm_mu = -1.0;
  Eigen::VectorXd r0 = residual(s, reaction);
  for (int it = 0; it < o.max_newton_iterations && max_abs(r0) > o.tolerance_N; ++it) {
    for (int c = 0; c < n; ++c) {
      const double hc = c < nr ? 1e-7 : 1e-3;
      Eigen::VectorXd dp = Eigen::VectorXd::Zero(n);
      dp[c] = hc;
      State sp = s, sm = s;
      auto rp = reaction, rm = reaction;
      apply(sp, rp, dp);
      apply(sm, rm, -dp);
      J.col(c) = (residual(sp, rp) - residual(sm, rm)) / (2 * hc);
    }
    // Levenberg-Marquardt: the pinned structure may keep a soft mode (a rotation about a line
    // of contacts that only gravity resists), where a plain Gauss-Newton step explodes
    const Eigen::MatrixXd JtJ = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r0;
    if (lm_mu < 0.0) lm_mu = 1e-8 * JtJ.diagonal().maxCoeff();
    bool accepted = false;
    for (int b = 0; b < 40 && !accepted; ++b) {
      Eigen::MatrixXd A = JtJ;
      A.diagonal().array() += lm_mu;
      const Eigen::VectorXd delta = -A.ldlt().solve(g);
      State xs = s;
      auto rc = reaction;
      apply(xs, rc, delta);
      const Eigen::VectorXd r1 = residual(xs, rc);
      if (r1.norm() < r0.norm()) {
        s = xs;
        reaction = rc;
        r0 = r1;
        accepted = true;
        lm_mu = std::max(lm_mu / 4.0, 1e-14 * JtJ.diagonal().maxCoeff());
      } else {
        lm_mu *= 4.0;
      }
    }
    ++res.newton_iterations;
    if (!accepted) break;
  }
  return r0;
}

// (4) stability: the tangent stiffness of the pinned rest state (contacts as stiff springs around
// their reactions) must have no negative eigenvalue; an unstable balance (e.g. on a line of two
// contacts) is pushed along its unstable mode (returns false: settle again)
bool Settle::stable_or_pushed(int attempt) {
  const double k_pen = 1e3 * k_max;
  auto wrench = [&](const State& x) {
    forward_kinematics(st, x, ds);
    std::vector<Eigen::Vector3d> rc = reaction;
    for (std::size_t c = 0; c < contacts.size(); ++c) rc[c] -= k_pen * (ds.p_W_node.col(contacts[c]) - pin[c]);
    Eigen::VectorXd r = rod_residual_on_ground(st, x, contacts, rc, ds);
    for (int j = 0; j < st.nrod(); ++j) r.segment<3>(6 * j + 3) *= 0.5 * st.rods[static_cast<std::size_t>(j)].length_m;  // torque [N m]
    return r;
  };
  Eigen::MatrixXd K(nr, nr);
  for (int c = 0; c < nr; ++c) {
    Eigen::VectorXd dp = Eigen::VectorXd::Zero(nr);
    dp[c] = 1e-7;
    State sp = s, sm = s;
    perturb(st, sp, dp);
    perturb(st, sm, -dp);
    K.col(c) = -(wrench(sp) - wrench(sm)) / 2e-7;
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(0.5 * (K + K.transpose()));
  res.min_stiffness_eigenvalue = eig.eigenvalues()[0];
  if (eig.eigenvalues()[0] >= -1e-6 * k_max) return true;
  if (attempt >= 20)
    throw SimulationError(
        "settle_on_ground: still an unstable balance after 20 pushes (stiffness eigenvalue " + fmt(eig.eigenvalues()[0]) + ")",
        res.settle_time_s);
  ++res.unstable_pushes;
  Eigen::VectorXd mode = eig.eigenvectors().col(0);
  State sp = s;
  perturb(st, sp, 1e-6 * mode);
  forward_kinematics(st, sp, ds);
  const Eigen::Matrix3Xd p1 = ds.p_W_node;
  forward_kinematics(st, s, ds);
  const double moved = (p1 - ds.p_W_node).colwise().norm().maxCoeff() / 1e-6;  // node displacement per unit of the mode
  // push it down-hill: the direction that lowers the potential along the mode is either sign;
  // take the one that lowers the COM
  sp = s;
  perturb(st, sp, 1e-6 * mode);
  const double z_plus = center_of_mass(st, sp).z();
  perturb(st, s, (z_plus <= center_of_mass(st, s).z() ? 1.0 : -1.0) * (1e-3 / std::max(moved, 1e-12)) * mode);
  return false;
}

// The reactions of the rest state: every contact pushes, within the ground's friction cone.
void Settle::check_contact_forces() {
  res.contact_nodes = contacts;
  res.contact_force_W_N = reaction;
  res.min_normal_force_N = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < contacts.size(); ++c) {
    const Eigen::Vector3d& f = reaction[c];
    res.min_normal_force_N = std::min(res.min_normal_force_N, f.z());
    res.max_friction_ratio = std::max(res.max_friction_ratio, f.head<2>().norm() / f.z());
  }
  if (!(res.min_normal_force_N > 0.0))
    throw SimulationError("settle_on_ground: ground node " + id_of(model.node_ids, contacts.front(), "node ") + " would pull on the ground",
                          res.settle_time_s);
  if (res.max_friction_ratio > model.ground.friction * (1.0 + 1e-9))
    throw SimulationError("settle_on_ground: the rest state needs friction " + fmt(res.max_friction_ratio) + " > ground friction " +
                              fmt(model.ground.friction),
                          res.settle_time_s);
}

// back over the start: a horizontal translation keeps a rest state on a flat ground (no anchors)
void Settle::recentre() {
  bool anchored = false;
  for (const auto& nd : model.nodes) anchored = anchored || nd.is_anchor();
  if (o.keep_centroid_xy && !anchored) {
    Eigen::Vector2d shift = Eigen::Vector2d::Zero();
    for (int j = 0; j < model.nrod(); ++j) shift += (model.initial_state.p_WC(j) - s.p_WC(j)).head<2>() / model.nrod();
    for (int j = 0; j < model.nrod(); ++j) s.p_WC(j).head<2>() += shift;
  }
}

// cables at rest
void Settle::check_cables() {
  rod_residual_on_ground(st, s, contacts, reaction, ds);
  res.min_cable_tension_N = std::numeric_limits<double>::infinity();
  std::string first_slack;
  for (int c = 0; c < st.ncable(); ++c) {
    if (!st.cables[static_cast<std::size_t>(c)].tension_only) continue;
    res.min_cable_tension_N = std::min(res.min_cable_tension_N, ds.cable_tension_N[c]);
    if (ds.cable_slack[static_cast<std::size_t>(c)]) {
      ++res.slack_cables;
      if (first_slack.empty())
        first_slack = id_of(model.cable_ids, c, "cable ") + " (length " + fmt(ds.cable_length_m[c]) + " m <= rest length " +
                      fmt(ds.cable_rest_length_m[c]) + " m)";
    }
  }
  if (res.slack_cables > 0 && !o.allow_slack)
    throw Error("settle_on_ground: " + std::to_string(res.slack_cables) + " cable(s) slack at rest on the ground, first " + first_slack);
}

}  // namespace

double max_residual_on_ground(const Model& model, const State& state, const std::vector<int>& contact_nodes,
                              const std::vector<Eigen::Vector3d>& contact_force_W_N) {
  if (contact_nodes.size() != contact_force_W_N.size())
    throw Error("max_residual_on_ground: contact_nodes and contact_force_W_N differ in size");
  for (const int i : contact_nodes)
    if (i < 0 || i >= model.nnode()) throw Error("max_residual_on_ground: contact node index " + std::to_string(i) + " out of range");
  const Model m = ground_statics_model(model);
  Data d = make_data(m);
  return max_abs(rod_residual_on_ground(m, state, contact_nodes, contact_force_W_N, d));
}

SettleResult settle_on_ground(const Model& model, const SettleOptions& o) {
  check_settle_inputs(model, o);
  Settle S(model, o);
  for (int attempt = 0;; ++attempt) {
    S.damped_settle();
    S.contact_polish();
    if (S.stable_or_pushed(attempt)) break;
  }
  S.check_contact_forces();
  S.recentre();
  S.check_cables();
  S.res.state = S.s;
  return S.res;
}

}  // namespace tendyn::tensegrity
