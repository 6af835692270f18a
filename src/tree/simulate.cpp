#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/core/integrate.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tree/simulate.hpp>

#include "io/yaml_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tendyn::tree {

TorqueSchedule::TorqueSchedule(std::vector<double> t, std::vector<Eigen::VectorXd> tau) : t_(std::move(t)), tau_(std::move(tau)) {
  if (t_.size() != tau_.size()) throw Error("tree: torque schedule: times and rows differ in count");
  for (std::size_t k = 0; k < t_.size(); ++k) {
    if (!std::isfinite(t_[k]) || !tau_[k].allFinite())
      throw Error("tree: torque schedule: row " + std::to_string(k + 1) + " is not finite");
    if (tau_[k].size() != tau_[0].size()) throw Error("tree: torque schedule: row " + std::to_string(k + 1) + " has a different size");
    if (k > 0 && !(t_[k] > t_[k - 1])) throw Error("tree: torque schedule: times must increase (row " + std::to_string(k + 1) + ")");
  }
}

TorqueSchedule TorqueSchedule::load_csv(const std::string& file, int nv) {
  io::CsvReader csv(file, io::CsvLimits{}, io::CsvHeader::kOptional);
  if (csv.ncolumn() != nv + 1)
    throw Error(file + ":" + std::to_string(csv.line()) + ": torque schedule: expected " + std::to_string(nv + 1) +
                " columns (t and nv = " + std::to_string(nv) + " torques), got " + std::to_string(csv.ncolumn()));
  std::vector<double> ts;
  std::vector<Eigen::VectorXd> rows;
  while (csv.next()) {
    ts.push_back(csv.number(0));
    Eigen::VectorXd tau(nv);
    for (int j = 0; j < nv; ++j) tau[j] = csv.number(j + 1);
    rows.push_back(std::move(tau));
  }
  if (ts.empty()) throw Error(file + ": torque schedule has no rows");
  try {
    return TorqueSchedule(ts, rows);
  } catch (const Error& e) {
    throw Error(file + ": " + e.what());
  }
}

void TorqueSchedule::eval(double t, Eigen::VectorXd& out) const {
  if (t_.empty()) {
    out.setZero();
    return;
  }
  if (t <= t_.front()) {
    out = tau_.front();
    return;
  }
  if (t >= t_.back()) {
    out = tau_.back();
    return;
  }
  const auto it = std::upper_bound(t_.begin(), t_.end(), t);
  const std::size_t k = static_cast<std::size_t>(it - t_.begin());
  const double s = (t - t_[k - 1]) / (t_[k] - t_[k - 1]);
  out = (1.0 - s) * tau_[k - 1] + s * tau_[k];
}

Rk4::Rk4(const Model& model) : model_(model), data_(make_data(model)) {
  for (auto* x : {&x_, &k_[0], &k_[1], &k_[2], &k_[3], &stage_}) x->setZero(model.nq + model.nv);
  for (auto* x : {&qs_, &dq_}) x->setZero(model.nq);
  for (auto* x : {&vs_, &dv_, &tau_}) x->setZero(model.nv);
}

void Rk4::deriv(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const TorqueFn& torque, const std::vector<LinkWrench>& fext,
                Eigen::VectorXd& dq, Eigen::VectorXd& dv) {
  tau_.setZero();
  if (torque) {
    torque(t, q, v, tau_);
    if (!tau_.allFinite()) throw SimulationError("tree: the joint torque is not finite", t);
  }
  velocity_to_qdot(model_, q, v, dq);
  dv = aba(model_, data_, q, v, tau_, fext);
}

void Rk4::step(double t, double h, Eigen::VectorXd& q, Eigen::VectorXd& v, const TorqueFn& torque, const std::vector<LinkWrench>& fext) {
  const Eigen::Index nq = model_.nq, nv = model_.nv;
  x_.head(nq) = q;
  x_.tail(nv) = v;
  // f(t, [q; v]) = [qdot; vdot] into out, from the vectors qs_, vs_
  auto eval = [&](double ts, Eigen::VectorXd& out) {
    deriv(ts, qs_, vs_, torque, fext, dq_, dv_);
    out.head(nq) = dq_;
    out.tail(nv) = dv_;
  };
  qs_ = q;
  vs_ = v;
  eval(t, k_[0]);
  rk4_step(x_, t, h, k_[0], k_[1], k_[2], k_[3], stage_, [&](double ts, Eigen::VectorXd& out) {
    qs_ = stage_.head(nq);
    vs_ = stage_.tail(nv);
    eval(ts, out);
  });
  q = x_.head(nq);
  v = x_.tail(nv);
  normalize_configuration(model_, q);
  if (!q.allFinite() || !v.allFinite()) throw SimulationError("tree: state became non-finite", t + h);
}

}  // namespace tendyn::tree

namespace tendyn::tree {

namespace {
// Steps between samples (>= 1); options already checked by simulation_steps.
long output_stride(const SimulationOptions& o) {
  if (!(o.output_interval_s > 0.0)) return 1;
  return std::max(1L, std::lround(o.output_interval_s / o.dt_s));
}
}  // namespace

long simulation_steps(const SimulationOptions& o) {
  if (!std::isfinite(o.dt_s) || !(o.dt_s > 0.0))
    throw Error("tree simulate: dt_s must be a finite number > 0 (got " + format_number(o.dt_s, 6) + ")");
  if (!std::isfinite(o.duration_s) || o.duration_s < 0.0)
    throw Error("tree simulate: duration_s must be a finite number >= 0 (got " + format_number(o.duration_s, 6) + ")");
  if (!std::isfinite(o.output_interval_s))
    throw Error("tree simulate: output_interval_s must be finite (got " + format_number(o.output_interval_s, 6) + ")");
  const double ratio = o.duration_s / o.dt_s;
  if (ratio > 1099511627776.0)  // 2^40
    throw Error("tree simulate: duration_s / dt_s = " + format_number(ratio, 6) + " steps is too many");
  const long steps = std::lround(ratio);
  if (o.duration_s > 0.0 && steps == 0)
    throw Error("tree simulate: duration_s = " + format_number(o.duration_s, 6) +
                " is shorter than half a step (dt_s = " + format_number(o.dt_s, 6) + "): no step would run");
  if (o.output_interval_s > 0.0) {
    const double k = o.output_interval_s / o.dt_s;
    if (std::lround(k) < 1 || std::abs(k - static_cast<double>(std::lround(k))) > 1e-9 * k)
      throw Error("tree simulate: output_interval_s = " + format_number(o.output_interval_s, 6) +
                  " is not a whole multiple of dt_s = " + format_number(o.dt_s, 6));
  }
  return steps;
}

io::OutputEstimate estimate_simulate_output(const Model& model, const SimulationOptions& options, double frame_interval_s) {
  const long steps = simulation_steps(options);
  const double samples = static_cast<double>(sample_count(steps, output_stride(options)));
  const double cols = 2.0 + model.nq + 2.0 * model.nv;
  const double frames = frame_interval_s > 0.0 ? std::floor(options.duration_s / frame_interval_s) + 2.0 : 0.0;
  // per viewer frame (viz::add_tree_frame): link origins and centres of mass, joint axes (at most
  // one per link), COM, four energies, and q, qd, tau in the joint plots
  const double frame_values = 9.0 * model.nlinks() + 7.0 + model.nq + 2.0 * model.nv;
  io::OutputEstimate e;
  e.output_bytes = io::kBytesPerNumber * (samples * cols + frames * frame_values);
  e.memory_bytes = 8.0 * (samples * cols + frames * frame_values);
  char buf[200];
  std::snprintf(buf, sizeof buf, "%.3g rows x %.0f columns of results and %.3g viewer frames", samples, cols, frames);
  e.output_what = buf;
  std::snprintf(buf, sizeof buf, "%.3g samples of %.0f numbers and %.3g viewer frames", samples, cols, frames);
  e.memory_what = buf;
  return e;
}

long sample_count(long steps, long stride) { return 1 + steps / stride + (steps % stride != 0 ? 1 : 0); }

SimulationResult simulate(const Model& model, const SimulationOptions& options, const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                          const TorqueFn& torque, Observer* observer, const std::function<void(double)>& progress) {
  const long steps = simulation_steps(options);
  const long stride = output_stride(options);
  model.check_q(q0, "q0");
  model.check_v(v0, "v0");
  if (!q0.allFinite()) throw Error("tree simulate: q0 is not finite");
  if (!v0.allFinite()) throw Error("tree simulate: v0 is not finite");
  const double dt = options.dt_s;
  const long n = sample_count(steps, stride);

  SimulationResult r;
  r.steps = steps;
  r.dt_s = dt;
  r.output_stride = stride;
  r.t_s.resize(n);
  r.q.resize(n, model.nq);
  r.v.resize(n, model.nv);
  r.tau.resize(n, model.nv);
  r.energy_J.resize(n);

  Eigen::VectorXd q = q0, v = v0, tau = Eigen::VectorXd::Zero(model.nv);
  normalize_configuration(model, q);
  Rk4 rk(model);
  Data d = make_data(model);
  long row = 0;
  auto record = [&](double t) {
    tau.setZero();
    if (torque) {
      torque(t, q, v, tau);
      if (!tau.allFinite()) throw SimulationError("tree: the joint torque is not finite", t);
    }
    r.t_s[row] = t;
    r.q.row(row) = q.transpose();
    r.v.row(row) = v.transpose();
    r.tau.row(row) = tau.transpose();
    r.energy_J[row] = kinetic_energy(model, d, q, v) + potential_energy(model, d, q);
    ++row;
  };
  record(0.0);
  if (observer) observer->on_step(0, steps, 0.0, q, v);
  for (long k = 0; k < steps; ++k) {
    rk.step(k * dt, dt, q, v, torque);
    const double t = (k + 1) * dt;
    if ((k + 1) % stride == 0 || k + 1 == steps) record(t);
    if (observer) observer->on_step(k + 1, steps, t, q, v);
    if (progress) progress(static_cast<double>(k + 1) / static_cast<double>(steps));
  }
  return r;
}

}  // namespace tendyn::tree
