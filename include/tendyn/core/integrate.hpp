// Explicit Runge-Kutta steps and step-size control shared by every module (tensegrity Newton-Euler
// and Lagrange forms, CDPR platform dynamics, tree robots).
//
// The state is one Eigen::VectorXd x; the caller binds the derivative through a functor
//   eval(double t_s, Eigen::VectorXd& out)   // out = f(t_s, stage)
// where `stage` is a vector the caller passed to the step (the step writes the stage state into it
// before each call). All scratch vectors are the caller's, sized once to x.size(): the steps do not
// allocate. What belongs to a model (quaternion renormalisation, slack-event and impact location,
// the simulated time kept in a State) stays with the caller, on top of these steps.
//
// Floating-point contract: the expressions below fix the operation order of every module's
// results (e.g. x + h/6 (k1 + 2 k2 + 2 k3 + k4)); changing them changes every output file.
#pragma once
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tendyn {

/// Error control of the adaptive Dormand-Prince integration: component i of a step is accepted
/// when the RMS over i of err_i / (atol + rtol max(|x0_i|, |x1_i|)) is <= 1.
struct Tolerance {
  double rtol = 1e-8;      ///< relative tolerance [-]
  double atol = 1e-10;     ///< absolute tolerance [state units]
  double h_min_s = 1e-12;  ///< smallest step [s]; going below it is a SimulationError (module steps)
  double h_max_s = 0.1;    ///< largest suggested step [s]
};

/// Result of one attempted adaptive step.
struct AdaptiveStep {
  bool accepted = false;
  double h_used = 0.0;  ///< [s] the attempted step
  double h_next = 0.0;  ///< [s] suggested next step
  double error = 0.0;   ///< scaled RMS error estimate (accept when <= 1)
};

/// One classical Runge-Kutta step of size h_s [s] from (t0_s, x): 4 evaluations, 4th order.
/// Precondition: k1 = f(t0_s, x). k2, k3, k4 and `stage` are scratch of x.size(); eval(t, out)
/// must write f(t, stage) into out (it is called at t0 + h/2, t0 + h/2, t0 + h). On return x is
/// advanced to t0 + h; k4 holds f at the last stage. No allocation.
template <class Eval>
void rk4_step(Eigen::VectorXd& x, double t0_s, double h_s, const Eigen::VectorXd& k1, Eigen::VectorXd& k2, Eigen::VectorXd& k3,
              Eigen::VectorXd& k4, Eigen::VectorXd& stage, Eval&& eval) {
  stage = x + (0.5 * h_s) * k1;
  eval(t0_s + 0.5 * h_s, k2);
  stage = x + (0.5 * h_s) * k2;
  eval(t0_s + 0.5 * h_s, k3);
  stage = x + h_s * k3;
  eval(t0_s + h_s, k4);
  x += (h_s / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
}

/// One Dormand-Prince 5(4) trial step of size h_s from (t0_s, x0) (Dormand & Prince 1980, "A
/// family of embedded Runge-Kutta formulae"): 6 evaluations (k[6] is first-same-as-last).
/// Precondition: k[0] = f(t0_s, x0). k[1..6], `stage` and `err` are scratch of x0.size(); eval(t,
/// out) must write f(t, stage) into out. On return `stage` holds the 5th-order solution at t0 + h,
/// `err` the embedded error estimate (5th - 4th order), k[6] = f(t0 + h, stage), and the result is
/// the scaled RMS error sqrt(mean_i (err_i / (atol + rtol max(|x0_i|, |stage_i|)))^2): accept the
/// step when <= 1 (see dopri5_control). x0 is not changed. No allocation.
template <class Eval>
double dopri5_trial(const Eigen::VectorXd& x0, double t0_s, double h_s, Eigen::VectorXd (&k)[7], Eigen::VectorXd& stage,
                    Eigen::VectorXd& err, double rtol, double atol, Eval&& eval) {
  constexpr double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
  constexpr double a21 = 1.0 / 5;
  constexpr double a31 = 3.0 / 40, a32 = 9.0 / 40;
  constexpr double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
  constexpr double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
  constexpr double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176, a65 = -5103.0 / 18656;
  constexpr double b1 = 35.0 / 384, b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784, b6 = 11.0 / 84;
  // e = b (5th order) - b* (4th order)
  constexpr double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200, e6 = 22.0 / 525, e7 = -1.0 / 40;
  const double h = h_s;
  stage = x0 + h * a21 * k[0];
  eval(t0_s + c2 * h, k[1]);
  stage = x0 + h * (a31 * k[0] + a32 * k[1]);
  eval(t0_s + c3 * h, k[2]);
  stage = x0 + h * (a41 * k[0] + a42 * k[1] + a43 * k[2]);
  eval(t0_s + c4 * h, k[3]);
  stage = x0 + h * (a51 * k[0] + a52 * k[1] + a53 * k[2] + a54 * k[3]);
  eval(t0_s + c5 * h, k[4]);
  stage = x0 + h * (a61 * k[0] + a62 * k[1] + a63 * k[2] + a64 * k[3] + a65 * k[4]);
  eval(t0_s + 1.0 * h, k[5]);
  stage = x0 + h * (b1 * k[0] + b3 * k[2] + b4 * k[3] + b5 * k[4] + b6 * k[5]);
  eval(t0_s + 1.0 * h, k[6]);
  err = h * (e1 * k[0] + e3 * k[2] + e4 * k[3] + e5 * k[4] + e6 * k[5] + e7 * k[6]);
  double sum = 0.0;
  const auto n = x0.size();
  for (Eigen::Index i = 0; i < n; ++i) {
    const double sc = atol + rtol * std::max(std::abs(x0[i]), std::abs(stage[i]));
    const double r = err[i] / sc;
    sum += r * r;
  }
  return std::sqrt(sum / static_cast<double>(n));
}

/// Step-size control after a trial of size h_s with scaled error `error` (the result of
/// dopri5_trial): accepted when error <= 1; next step h 0.9 error^(-1/5) clamped to [0.2 h, 5 h]
/// (5 h when error = 0), never above h_max_s, and after a rejection never above h. A non-finite
/// error is a rejection with h_next = 0.2 h. Pass h_max_s = infinity for no ceiling.
inline AdaptiveStep dopri5_control(double error, double h_s, double h_max_s) {
  AdaptiveStep r;
  r.h_used = h_s;
  r.error = error;
  if (!std::isfinite(error)) {
    r.h_next = 0.2 * h_s;
    return r;
  }
  const double factor = error == 0.0 ? 5.0 : std::clamp(0.9 * std::pow(error, -0.2), 0.2, 5.0);
  const double h_next = std::min(h_s * factor, h_max_s);
  r.accepted = error <= 1.0;
  r.h_next = r.accepted ? h_next : std::min(h_next, h_s);
  return r;
}

/// The step-size control loop: one accepted adaptive step. Tries min(h_s, h_limit_s) with
/// `trial(h) -> AdaptiveStep` (which advances the caller's state by h when it accepts and leaves
/// it unchanged otherwise), retrying with the suggested step after each rejection (counted in
/// `rejected`). h_s is updated to the suggested next step, except when the accepted step was
/// shortened by h_limit_s (landing on an output or end time says nothing new about h). Returns the
/// accepted step. Errors (a step below the minimum) are thrown by `trial`.
template <class Trial>
AdaptiveStep adaptive_advance(double& h_s, double h_limit_s, Trial&& trial, long& rejected) {
  for (;;) {
    const double h_try = std::min(h_s, h_limit_s);
    const AdaptiveStep r = trial(h_try);
    if (r.accepted) {
      if (!(h_try < h_s)) h_s = r.h_next;
      return r;
    }
    ++rejected;
    h_s = r.h_next;
  }
}

/// Adaptive integration from t0_s to t_end_s: accepted steps (adaptive_advance, limited to the
/// remaining time) until the time is within 1e-12 max(1, |t_end|) of t_end_s; `after()` is called
/// after every accepted step. h_s is the first trial step on entry and the suggested next step on
/// return. Returns the end time, exactly t_end_s when the last step was limited by it (the caller's
/// own time, t + h per step, may differ from it by rounding).
template <class Trial, class After>
double adaptive_integrate(double t0_s, double t_end_s, double& h_s, Trial&& trial, After&& after, long& rejected) {
  double t = t0_s;
  while (t < t_end_s - 1e-12 * std::max(1.0, std::abs(t_end_s))) {
    const double h_limit = t_end_s - t;
    const AdaptiveStep r = adaptive_advance(h_s, h_limit, trial, rejected);
    t = r.h_used == h_limit ? t_end_s : t + r.h_used;
    after();
  }
  return t;
}

}  // namespace tendyn
