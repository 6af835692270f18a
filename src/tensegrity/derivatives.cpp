// Step derivatives by forward-mode dual numbers through the RK4 step of jet_dynamics.hpp (the
// laws of law.hpp), and rollout gradients by reverse accumulation over the stored Jacobians.
#include <tendyn/tensegrity/derivatives.hpp>

#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/dynamics.hpp>

#include "tensegrity/jet_dynamics.hpp"
#include "tensegrity/law.hpp"

#include <ceres/jet.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

namespace {

constexpr int kChunk = 8;  // derivative directions per dual-number pass
using Jet = ceres::Jet<double, kChunk>;

bool is_ground_kind(ParameterKind k) {
  return k == ParameterKind::kFriction || k == ParameterKind::kGroundStiffness || k == ParameterKind::kGroundDamping;
}

void check_model(const Model& m, const char* fn) {
  const std::string f(fn);
  if (m.ground.type == Ground::Type::kImpulse)
    throw Error(f + ": model '" + m.name +
                "' has the impulse ground, whose impacts (located inside a step and applied as velocity jumps) are not "
                "differentiable; use the compliant ground (ground: {type: compliant}, or model.ground.type = compliant), "
                "whose force is smooth except at touch-down");
  if (!m.drives.empty())
    throw Error(f + ": model '" + m.name +
                "' has drives (they set rest lengths at every evaluation); here the controls are the "
                "cables' rest lengths: remove the drives (model.drives = [])");
  require_ideal_rods(m, f);
}

void check_parameters(const Model& m, const std::vector<ParameterGroup>& groups, const char* fn) {
  const std::string f(fn);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const ParameterGroup& g = groups[i];
    const std::string where = f + "(parameters[" + std::to_string(i) + "] '" + g.name + "')";
    if (g.kind == ParameterKind::kRestLength) throw Error(where + ": rest lengths are the controls; their derivatives are d/d(controls)");
    if (g.kind == ParameterKind::kInitialState) throw Error(where + ": the initial state is the state; its derivatives are d/d(state)");
    if (g.kind >= ParameterKind::kWinchCoulombFriction)
      throw Error(where + ": a winch parameter; the derivatives handle the documents' ideal rods only (no winch)");
    if (is_ground_kind(g.kind)) {
      if (m.ground.type != Ground::Type::kCompliant)
        throw Error(where + ": needs a compliant ground (the model's ground is " + to_string(m.ground.type) + ")");
      if (!g.elements.empty()) throw Error(where + ": a ground parameter takes no elements");
      continue;
    }
    const int nmax = g.kind == ParameterKind::kMass ? m.nrod() : m.ncable();
    if (g.elements.empty()) throw Error(where + ": no element");
    for (int e : g.elements)
      if (e < 0 || e >= nmax)
        throw Error(where + ": element " + std::to_string(e) + " is outside the model (" + std::to_string(nmax) +
                    (g.kind == ParameterKind::kMass ? " rods)" : " cables)"));
  }
}

void check_inputs(const Model& m, const Eigen::VectorXd& x, const Eigen::VectorXd& u, double h, const char* fn, const std::string& u_arg) {
  const std::string f(fn);
  if (x.size() != m.nx())
    throw Error(f + "(state): the state has " + std::to_string(x.size()) +
                " entries, the model needs 13 * nrod = " + std::to_string(m.nx()));
  if (!x.allFinite()) throw Error(f + "(state): the state is not finite");
  if (u.size() != m.ncable())
    throw Error(f + "(" + u_arg + "): " + std::to_string(u.size()) + " rest lengths given, the model has " + std::to_string(m.ncable()) +
                " cables");
  if (!u.allFinite()) throw Error(f + "(" + u_arg + "): a rest length is not finite");
  if (!(h > 0.0) || !std::isfinite(h)) throw Error(f + "(h_s): the step must be > 0 s and finite (got " + std::to_string(h) + ")");
}

// The model's physical values with the rest lengths u, in scalar T (no derivative seeded).
template <class T>
void fill_phys(const Model& m, const Eigen::VectorXd& u, jet_dynamics::Phys<T>& P) {
  const auto nc = static_cast<std::size_t>(m.ncable()), nr = static_cast<std::size_t>(m.nrod());
  P.k.resize(nc);
  P.c.resize(nc);
  P.l0.resize(nc);
  for (std::size_t k = 0; k < nc; ++k) {
    P.k[k] = T(m.cables[k].stiffness_Npm);
    P.c[k] = T(m.cables[k].damping_Nspm);
    P.l0[k] = T(u[static_cast<Eigen::Index>(k)]);
  }
  P.mass.resize(nr);
  P.It.resize(nr);
  P.Ia.resize(nr);
  for (std::size_t j = 0; j < nr; ++j) {
    P.mass[j] = T(m.rods[j].mass_kg);
    P.It[j] = T(m.rods[j].inertia_transverse_kgm2);
    P.Ia[j] = T(m.rods[j].inertia_axial_kgm2);
  }
  P.mu = T(m.ground.friction);
  P.gk = T(m.ground.stiffness_Npm);
  P.gc = T(m.ground.damping_Nspm);
}

// Seeds direction i of the dual numbers with parameter group g: every element's value moves by
// the same amount (a rod's inertia with its mass, at the ratio inertia / mass).
void seed_parameter(const Model& m, const ParameterGroup& g, int i, jet_dynamics::Phys<Jet>& P) {
  for (int e : g.elements) {
    const auto u = static_cast<std::size_t>(e);
    switch (g.kind) {
      case ParameterKind::kStiffness: P.k[u].v[i] += 1.0; break;
      case ParameterKind::kDamping: P.c[u].v[i] += 1.0; break;
      case ParameterKind::kMass: {
        const Rod& r = m.rods[u];
        P.mass[u].v[i] += 1.0;
        P.It[u].v[i] += r.inertia_transverse_kgm2 / r.mass_kg;
        P.Ia[u].v[i] += r.inertia_axial_kgm2 / r.mass_kg;
        break;
      }
      default: break;
    }
  }
  if (g.kind == ParameterKind::kFriction) P.mu.v[i] += 1.0;
  if (g.kind == ParameterKind::kGroundStiffness) P.gk.v[i] += 1.0;
  if (g.kind == ParameterKind::kGroundDamping) P.gc.v[i] += 1.0;
}

// Stretch l - l0 of every cable at state x with rest lengths u (the double kernel).
Eigen::VectorXd stretches(const Model& m, Data& d, const Eigen::VectorXd& x, const Eigen::VectorXd& u) {
  State s;
  s.x = x;
  d.cable_rest_length_m = u;
  compute_derivative(m, s, d);
  return d.cable_length_m - d.cable_rest_length_m;
}

StepDerivatives step_derivatives_checked(const Model& m, const Eigen::VectorXd& x, const Eigen::VectorXd& u, double h,
                                         const std::vector<ParameterGroup>& groups) {
  const int nx = m.nx(), nu = m.ncable(), np = static_cast<int>(groups.size());
  const int ndir = nx + nu + np;
  StepDerivatives out;
  out.x_next.resize(nx);
  out.A.resize(nx, nx);
  out.B.resize(nx, nu);
  out.P.resize(nx, np);
  jet_dynamics::Phys<Jet> P;
  jet_dynamics::Work<Jet> w;
  w.resize(m);
  for (int d0 = 0; d0 < ndir; d0 += kChunk) {
    fill_phys(m, u, P);
    for (int i = 0; i < nx; ++i) w.x[static_cast<std::size_t>(i)] = Jet(x[i]);
    for (int i = 0; i < kChunk && d0 + i < ndir; ++i) {
      const int d = d0 + i;
      if (d < nx)
        w.x[static_cast<std::size_t>(d)].v[i] = 1.0;
      else if (d < nx + nu)
        P.l0[static_cast<std::size_t>(d - nx)].v[i] = 1.0;
      else
        seed_parameter(m, groups[static_cast<std::size_t>(d - nx - nu)], i, P);
    }
    jet_dynamics::rk4(m, P, 0.0, h, w);
    for (int r = 0; r < nx; ++r) {
      const Jet& y = w.x[static_cast<std::size_t>(r)];
      if (d0 == 0) out.x_next[r] = y.a;
      for (int i = 0; i < kChunk && d0 + i < ndir; ++i) {
        const int d = d0 + i;
        if (d < nx)
          out.A(r, d) = y.v[i];
        else if (d < nx + nu)
          out.B(r, d - nx) = y.v[i];
        else
          out.P(r, d - nx - nu) = y.v[i];
      }
    }
  }
  Data data = make_data(m);
  const Eigen::VectorXd s0 = stretches(m, data, x, u), s1 = stretches(m, data, out.x_next, u);
  for (int k = 0; k < nu; ++k)
    if (m.cables[static_cast<std::size_t>(k)].tension_only && (s0[k] > 0.0) != (s1[k] > 0.0)) out.slack_crossing = true;
  return out;
}

}  // namespace

StepDerivatives step_derivatives(const Model& model, const State& state, const Eigen::VectorXd& rest_length_m, double h_s,
                                 const std::vector<ParameterGroup>& parameters) {
  check_model(model, "step_derivatives");
  check_parameters(model, parameters, "step_derivatives");
  check_inputs(model, state.x, rest_length_m, h_s, "step_derivatives", "rest_length_m");
  return step_derivatives_checked(model, state.x, rest_length_m, h_s, parameters);
}

Eigen::VectorXd step_value(const Model& model, const State& state, const Eigen::VectorXd& rest_length_m, double h_s) {
  check_model(model, "step_value");
  check_inputs(model, state.x, rest_length_m, h_s, "step_value", "rest_length_m");
  jet_dynamics::Phys<double> P;
  fill_phys(model, rest_length_m, P);
  jet_dynamics::Work<double> w;
  w.resize(model);
  for (int i = 0; i < model.nx(); ++i) w.x[static_cast<std::size_t>(i)] = state.x[i];
  jet_dynamics::rk4(model, P, 0.0, h_s, w);
  return Eigen::Map<const Eigen::VectorXd>(w.x.data(), model.nx());
}

Eigen::VectorXd parameter_values(const Model& model, const std::vector<ParameterGroup>& parameters) {
  check_parameters(model, parameters, "parameter_values");
  Eigen::VectorXd v(static_cast<Eigen::Index>(parameters.size()));
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const ParameterGroup& g = parameters[i];
    double s = 0.0;
    for (int e : g.elements) {
      const auto u = static_cast<std::size_t>(e);
      if (g.kind == ParameterKind::kStiffness) s += model.cables[u].stiffness_Npm;
      if (g.kind == ParameterKind::kDamping) s += model.cables[u].damping_Nspm;
      if (g.kind == ParameterKind::kMass) s += model.rods[u].mass_kg;
    }
    if (g.kind == ParameterKind::kFriction)
      s = model.ground.friction;
    else if (g.kind == ParameterKind::kGroundStiffness)
      s = model.ground.stiffness_Npm;
    else if (g.kind == ParameterKind::kGroundDamping)
      s = model.ground.damping_Nspm;
    else
      s /= static_cast<double>(g.elements.size());
    v[static_cast<Eigen::Index>(i)] = s;
  }
  return v;
}

void set_parameter_values(Model& model, const std::vector<ParameterGroup>& parameters, const Eigen::VectorXd& values) {
  check_parameters(model, parameters, "set_parameter_values");
  if (values.size() != static_cast<Eigen::Index>(parameters.size()))
    throw Error("set_parameter_values(values): " + std::to_string(values.size()) + " values for " + std::to_string(parameters.size()) +
                " parameters");
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const ParameterGroup& g = parameters[i];
    const double v = values[static_cast<Eigen::Index>(i)];
    const bool positive = g.kind == ParameterKind::kMass;
    if (!std::isfinite(v) || (positive ? !(v > 0.0) : !(v >= 0.0)))
      throw Error("set_parameter_values(values[" + std::to_string(i) + "] '" + g.name + "'): must be finite and " +
                  (positive ? "> 0" : ">= 0") + " (got " + std::to_string(v) + ")");
    for (int e : g.elements) {
      const auto u = static_cast<std::size_t>(e);
      switch (g.kind) {
        case ParameterKind::kStiffness: model.cables[u].stiffness_Npm = v; break;
        case ParameterKind::kDamping: model.cables[u].damping_Nspm = v; break;
        case ParameterKind::kMass: {
          Rod& r = model.rods[u];
          r.inertia_transverse_kgm2 *= v / r.mass_kg;
          r.inertia_axial_kgm2 *= v / r.mass_kg;
          r.mass_kg = v;
          break;
        }
        default: break;
      }
    }
    if (g.kind == ParameterKind::kFriction) model.ground.friction = v;
    if (g.kind == ParameterKind::kGroundStiffness) model.ground.stiffness_Npm = v;
    if (g.kind == ParameterKind::kGroundDamping) model.ground.damping_Nspm = v;
  }
}

RolloutDerivatives rollout_derivatives(const Model& model, const State& state0, const Eigen::MatrixXd& controls, double h_s,
                                       const std::vector<ParameterGroup>& parameters) {
  const char* fn = "rollout_derivatives";
  check_model(model, fn);
  check_parameters(model, parameters, fn);
  if (controls.cols() != model.ncable())
    throw Error(std::string(fn) + "(controls): " + std::to_string(controls.cols()) + " columns, the model has " +
                std::to_string(model.ncable()) + " cables (one row of rest lengths per step)");
  if (controls.rows() < 1) throw Error(std::string(fn) + "(controls): no step (0 rows)");
  const Eigen::Index N = controls.rows();
  RolloutDerivatives r;
  r.states.resize(N + 1, model.nx());
  check_inputs(model, state0.x, controls.row(0).transpose(), h_s, fn, "controls");
  r.states.row(0) = state0.x.transpose();
  r.A.reserve(static_cast<std::size_t>(N));
  r.B.reserve(static_cast<std::size_t>(N));
  r.P.reserve(static_cast<std::size_t>(N));
  for (Eigen::Index k = 0; k < N; ++k) {
    const Eigen::VectorXd u = controls.row(k).transpose();
    if (!u.allFinite()) throw Error(std::string(fn) + "(controls): row " + std::to_string(k) + " has a non-finite rest length");
    StepDerivatives s = step_derivatives_checked(model, r.states.row(k).transpose(), u, h_s, parameters);
    r.states.row(k + 1) = s.x_next.transpose();
    r.slack_crossings += s.slack_crossing ? 1 : 0;
    r.A.push_back(std::move(s.A));
    r.B.push_back(std::move(s.B));
    r.P.push_back(std::move(s.P));
  }
  return r;
}

RolloutGradient backpropagate(const RolloutDerivatives& r, const Eigen::MatrixXd& G, const Eigen::MatrixXd& H) {
  const auto N = static_cast<Eigen::Index>(r.A.size());
  const Eigen::Index nx = r.states.cols();
  const Eigen::Index nu = N > 0 ? r.B[0].cols() : 0, np = N > 0 ? r.P[0].cols() : 0;
  if (G.rows() != N + 1 || G.cols() != nx)
    throw Error("backpropagate(dL_dstates): must be (N + 1) x nx = " + std::to_string(N + 1) + " x " + std::to_string(nx) + " (got " +
                std::to_string(G.rows()) + " x " + std::to_string(G.cols()) + ")");
  const bool direct = H.size() > 0;
  if (direct && (H.rows() != N || H.cols() != nu))
    throw Error("backpropagate(dL_dcontrols_direct): must be N x nu = " + std::to_string(N) + " x " + std::to_string(nu) + " (got " +
                std::to_string(H.rows()) + " x " + std::to_string(H.cols()) + ")");
  RolloutGradient out;
  out.dL_dcontrols.resize(N, nu);
  out.dL_dparameters = Eigen::VectorXd::Zero(np);
  Eigen::VectorXd lambda = G.row(N).transpose();
  for (Eigen::Index k = N - 1; k >= 0; --k) {
    const auto ku = static_cast<std::size_t>(k);
    out.dL_dcontrols.row(k) = (r.B[ku].transpose() * lambda).transpose();
    if (direct) out.dL_dcontrols.row(k) += H.row(k);
    out.dL_dparameters += r.P[ku].transpose() * lambda;
    lambda = (G.row(k).transpose() + r.A[ku].transpose() * lambda).eval();
  }
  out.dL_dstate0 = lambda;
  out.states = r.states;
  return out;
}

namespace {

// Position p(x) of the loss' point and its gradient dp/dx (3 x nx).
void target_point(const Model& m, int node, const Eigen::VectorXd& x, Eigen::Vector3d& p, Eigen::MatrixXd& J) {
  J.setZero(3, m.nx());
  if (node < 0) {
    double M = 0.0;
    for (const Rod& r : m.rods) M += r.mass_kg;
    p.setZero();
    for (int j = 0; j < m.nrod(); ++j) {
      const double wj = m.rods[static_cast<std::size_t>(j)].mass_kg / M;
      for (int c = 0; c < 3; ++c) {
        p[c] += wj * x[State::kStride * j + c];
        J(c, State::kStride * j + c) = wj;
      }
    }
    return;
  }
  const Node& n = m.nodes[static_cast<std::size_t>(node)];
  const int base = State::kStride * n.rod;
  using J7 = ceres::Jet<double, 7>;  // p_WC and q of the node's rod
  J7 xr[7];
  for (int i = 0; i < 7; ++i) xr[i] = J7(x[base + i], i);
  J7 e[3];
  law::rod_axis(xr + 3, e);
  const double s = law::rod_end_offset(m.rods[static_cast<std::size_t>(n.rod)], n.end);
  for (int c = 0; c < 3; ++c) {
    const J7 pc = xr[c] + s * e[c];
    p[c] = pc.a;
    for (int i = 0; i < 7; ++i) J(c, base + i) = pc.v[i];
  }
}

}  // namespace

RolloutGradient rollout_grad(const Model& model, const State& state0, const Eigen::MatrixXd& controls, double h_s, const RolloutLoss& loss,
                             const std::vector<ParameterGroup>& parameters) {
  const char* fn = "rollout_grad";
  if (loss.target_node < -1 || loss.target_node >= model.nnode())
    throw Error(std::string(fn) + "(loss.target_node): " + std::to_string(loss.target_node) + " is outside the model's " +
                std::to_string(model.nnode()) + " nodes (-1: the centre of mass)");
  if (loss.target_node >= 0 && model.nodes[static_cast<std::size_t>(loss.target_node)].is_anchor())
    throw Error(std::string(fn) + "(loss.target_node): node " + std::to_string(loss.target_node) + " is an anchor (it does not move)");
  if (!loss.target_m.allFinite()) throw Error(std::string(fn) + "(loss.target_m): not finite");
  for (const auto& [w, name] :
       {std::pair{loss.target_weight, "target_weight"}, std::pair{loss.running_target_weight, "running_target_weight"},
        std::pair{loss.control_weight, "control_weight"}})
    if (!(w >= 0.0) || !std::isfinite(w)) throw Error(std::string(fn) + "(loss." + name + "): must be finite and >= 0");
  Eigen::VectorXd uref = loss.control_reference_m;
  if (uref.size() == 0) {
    uref.resize(model.ncable());
    for (int k = 0; k < model.ncable(); ++k) uref[k] = model.cables[static_cast<std::size_t>(k)].rest_length_m;
  } else if (uref.size() != model.ncable()) {
    throw Error(std::string(fn) + "(loss.control_reference_m): " + std::to_string(uref.size()) + " entries, the model has " +
                std::to_string(model.ncable()) + " cables");
  }
  const RolloutDerivatives r = rollout_derivatives(model, state0, controls, h_s, parameters);
  const Eigen::Index N = controls.rows();
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(N + 1, model.nx());
  double L = 0.0;
  Eigen::Vector3d p;
  Eigen::MatrixXd J;
  for (Eigen::Index k = 1; k <= N; ++k) {
    const double w = loss.running_target_weight + (k == N ? loss.target_weight : 0.0);
    if (w == 0.0) continue;
    target_point(model, loss.target_node, r.states.row(k).transpose(), p, J);
    const Eigen::Vector3d d = p - loss.target_m;
    L += w * d.squaredNorm();
    G.row(k) = (2.0 * w) * (J.transpose() * d).transpose();
  }
  Eigen::MatrixXd H;
  if (loss.control_weight > 0.0) {
    H.resize(N, model.ncable());
    for (Eigen::Index k = 0; k < N; ++k) {
      const Eigen::VectorXd du = controls.row(k).transpose() - uref;
      L += loss.control_weight * du.squaredNorm();
      H.row(k) = (2.0 * loss.control_weight) * du.transpose();
    }
  }
  RolloutGradient g = backpropagate(r, G, H);
  g.loss = L;
  return g;
}

}  // namespace tendyn::tensegrity
