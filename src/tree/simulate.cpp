#include <tendyn/core/error.hpp>
#include <tendyn/core/integrate.hpp>
#include <tendyn/tree/simulate.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace tendyn::tree {

TorqueSchedule::TorqueSchedule(std::vector<double> t, std::vector<Eigen::VectorXd> tau)
    : t_(std::move(t)), tau_(std::move(tau)) {
  if (t_.size() != tau_.size()) throw Error("tree: torque schedule: times and rows differ in count");
  for (std::size_t k = 0; k < t_.size(); ++k) {
    if (!std::isfinite(t_[k]) || !tau_[k].allFinite())
      throw Error("tree: torque schedule: row " + std::to_string(k + 1) + " is not finite");
    if (tau_[k].size() != tau_[0].size())
      throw Error("tree: torque schedule: row " + std::to_string(k + 1) + " has a different size");
    if (k > 0 && !(t_[k] > t_[k - 1]))
      throw Error("tree: torque schedule: times must increase (row " + std::to_string(k + 1) + ")");
  }
}

TorqueSchedule TorqueSchedule::load_csv(const std::string& file, int nv) {
  std::ifstream in(file);
  if (!in) throw Error(file + ": cannot read torque schedule");
  std::vector<double> ts;
  std::vector<Eigen::VectorXd> rows;
  std::string line;
  int ln = 0;
  while (std::getline(in, line)) {
    ++ln;
    if (line.empty() || line[0] == '#') continue;
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream is(line);
    std::vector<double> vals;
    std::string tok;
    bool numeric = true;
    while (is >> tok) {
      char* end = nullptr;
      const double x = std::strtod(tok.c_str(), &end);
      if (end == tok.c_str() || *end != '\0') {
        numeric = false;
        break;
      }
      vals.push_back(x);
    }
    if (!numeric) {
      if (ts.empty() && ln == 1) continue;  // header
      throw Error(file + ":" + std::to_string(ln) + ": torque schedule: not a number: '" + tok + "'");
    }
    if (static_cast<int>(vals.size()) != nv + 1)
      throw Error(file + ":" + std::to_string(ln) + ": torque schedule: expected " +
                  std::to_string(nv + 1) + " columns (t and nv = " + std::to_string(nv) +
                  " torques), got " + std::to_string(vals.size()));
    ts.push_back(vals[0]);
    rows.push_back(Eigen::Map<Eigen::VectorXd>(vals.data() + 1, nv));
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

Rk4::Rk4(const Model& model) : model_(model), data_(model) {
  for (auto* x : {&x_, &k_[0], &k_[1], &k_[2], &k_[3], &stage_}) x->setZero(model.nq + model.nv);
  for (auto* x : {&qs_, &dq_}) x->setZero(model.nq);
  for (auto* x : {&vs_, &dv_, &tau_}) x->setZero(model.nv);
}

void Rk4::deriv(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const TorqueFn& torque,
                const std::vector<LinkWrench>& fext, Eigen::VectorXd& dq, Eigen::VectorXd& dv) {
  tau_.setZero();
  if (torque) torque(t, q, v, tau_);
  velocity_to_qdot(model_, q, v, dq);
  dv = aba(model_, data_, q, v, tau_, fext);
}

void Rk4::step(double t, double h, Eigen::VectorXd& q, Eigen::VectorXd& v, const TorqueFn& torque,
               const std::vector<LinkWrench>& fext) {
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
  if (!q.allFinite() || !v.allFinite())
    throw SimulationError("tree: state became non-finite", t + h);
}

}  // namespace tendyn::tree
