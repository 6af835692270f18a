// Fixed-step simulation of a tree model: classical 4th-order Runge-Kutta on (q, v) with ABA as
// the acceleration (free joints: q integrated in the embedding (p, quaternion) and the
// quaternion renormalised after each step). Joint torques come from a callback or a table.
#pragma once
#include <tendyn/tree/algorithms.hpp>

#include <Eigen/Core>

#include <functional>
#include <string>
#include <vector>

namespace tendyn::tree {

/// tau(t, q, v) -> tau (nv), written into the last argument (already sized nv).
using TorqueFn = std::function<void(double, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                    Eigen::VectorXd&)>;

/// Piecewise-linear joint-torque schedule: rows (t [s], tau_1..tau_nv), strictly increasing t;
/// constant before the first and after the last row.
class TorqueSchedule {
 public:
  TorqueSchedule() = default;
  /// Throws tendyn::Error if rows are ragged, non-finite or t not increasing.
  TorqueSchedule(std::vector<double> t, std::vector<Eigen::VectorXd> tau);
  /// Reads a CSV file: optional header line, then "t,tau1,...,taunv". Throws naming file:line.
  static TorqueSchedule load_csv(const std::string& file, int nv);
  void eval(double t, Eigen::VectorXd& out) const;
  [[nodiscard]] bool empty() const { return t_.empty(); }

 private:
  std::vector<double> t_;
  std::vector<Eigen::VectorXd> tau_;
};

/// RK4 integrator with all stage storage allocated at construction. Keeps a reference to
/// `model`, which must outlive it.
class Rk4 {
 public:
  explicit Rk4(const Model& model);
  /// Advances (q, v) from t by h [s]. Throws tendyn::SimulationError on a non-finite state.
  void step(double t, double h, Eigen::VectorXd& q, Eigen::VectorXd& v, const TorqueFn& torque,
            const std::vector<LinkWrench>& fext = {});

 private:
  const Model& model_;
  Data data_;
  // RK4 (core/integrate.hpp) on x = [q; v]; qs_, vs_, dq_, dv_ unpack one stage
  Eigen::VectorXd x_, k_[4], stage_, qs_, vs_, dq_, dv_, tau_;
  void deriv(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const TorqueFn& torque,
             const std::vector<LinkWrench>& fext, Eigen::VectorXd& dq, Eigen::VectorXd& dv);
};

}  // namespace tendyn::tree
