// Private: the Dormand-Prince 5(4) trial step (Dormand & Prince 1980, "A family of embedded
// Runge-Kutta formulae"), shared by the Newton-Euler and Lagrange integrators.
#pragma once
#include <Eigen/Core>

#include <algorithm>
#include <cmath>

namespace tendyn::detail {

/// One trial step of size h from x0. Precondition: k[0] = f(t0, x0). `stage` is the scratch
/// vector that `eval(c, k_out)` evaluates at time t0 + c h (it must write f(t0 + c h, stage) into
/// k_out). On return `stage` holds the 5th-order solution at t0 + h, `err` the embedded error
/// estimate, k[6] = f(t0 + h, stage) (first-same-as-last), and the result is the RMS of
/// err_i / (atol + rtol max(|x0_i|, |stage_i|)): accept the step when <= 1. 6 evaluations.
template <class Eval>
double dopri5_trial(const Eigen::VectorXd& x0, double h, Eigen::VectorXd (&k)[7], Eigen::VectorXd& stage,
                    Eigen::VectorXd& err, double rtol, double atol, Eval&& eval) {
  constexpr double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
  constexpr double a21 = 1.0 / 5;
  constexpr double a31 = 3.0 / 40, a32 = 9.0 / 40;
  constexpr double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
  constexpr double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
  constexpr double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176, a65 = -5103.0 / 18656;
  constexpr double b1 = 35.0 / 384, b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784, b6 = 11.0 / 84;
  // e = b (5th order) - b* (4th order)
  constexpr double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200, e6 = 22.0 / 525,
                   e7 = -1.0 / 40;
  stage = x0 + h * a21 * k[0];
  eval(c2, k[1]);
  stage = x0 + h * (a31 * k[0] + a32 * k[1]);
  eval(c3, k[2]);
  stage = x0 + h * (a41 * k[0] + a42 * k[1] + a43 * k[2]);
  eval(c4, k[3]);
  stage = x0 + h * (a51 * k[0] + a52 * k[1] + a53 * k[2] + a54 * k[3]);
  eval(c5, k[4]);
  stage = x0 + h * (a61 * k[0] + a62 * k[1] + a63 * k[2] + a64 * k[3] + a65 * k[4]);
  eval(1.0, k[5]);
  stage = x0 + h * (b1 * k[0] + b3 * k[2] + b4 * k[3] + b5 * k[4] + b6 * k[5]);
  eval(1.0, k[6]);
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

/// Step-size factor for the next step: 0.9 err^(-1/5), clamped to [0.2, 5].
inline double dopri5_factor(double err) { return err == 0.0 ? 5.0 : std::clamp(0.9 * std::pow(err, -0.2), 0.2, 5.0); }

/// Step control after a trial of size h with scaled error `err`: whether to accept, and the next
/// step (a non-finite error: 0.2 h; a rejection never suggests a larger step; never above h_max).
struct Dopri5Decision {
  bool accept;
  double h_next;
};
inline Dopri5Decision dopri5_decide(double err, double h, double h_max) {
  if (!std::isfinite(err)) return {false, 0.2 * h};
  const double h_next = std::min(h * dopri5_factor(err), h_max);
  return err <= 1.0 ? Dopri5Decision{true, h_next} : Dopri5Decision{false, std::min(h_next, h)};
}

}  // namespace tendyn::detail
