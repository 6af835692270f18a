// Local quadratic least-squares derivatives (include/tendyn/core/differentiate.hpp).
#include <tendyn/core/differentiate.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/io/csv.hpp>

#include <Eigen/QR>

#include <cmath>
#include <string>

namespace tendyn {

Eigen::Matrix<double, 3, Eigen::Dynamic> quadratic_fit_weights(const double* t_s, int count, double t_center_s) {
  if (count < 3) throw Error("quadratic fit: needs at least 3 samples, got " + std::to_string(count));
  // Scale the time offsets by the window length so the Vandermonde matrix is well conditioned.
  const double span = t_s[count - 1] - t_s[0];
  if (!std::isfinite(span) || !(span > 0.0)) throw Error("quadratic fit: sample times are not increasing");
  Eigen::MatrixXd V(count, 3);
  for (int i = 0; i < count; ++i) {
    if (!std::isfinite(t_s[i]) || (i > 0 && !(t_s[i] > t_s[i - 1])))
      throw Error("quadratic fit: sample times are not finite and strictly increasing");
    const double s = (t_s[i] - t_center_s) / span;
    V(i, 0) = 1.0;
    V(i, 1) = s;
    V(i, 2) = 0.5 * s * s;
  }
  // Least squares c_scaled = pinv(V) x; pinv(V) from the QR of V (full column rank: >= 3 distinct times).
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(V);
  const Eigen::MatrixXd P = qr.solve(Eigen::MatrixXd::Identity(count, count));  // 3 x count
  Eigen::Matrix<double, 3, Eigen::Dynamic> W = P;
  W.row(1) /= span;
  W.row(2) /= span * span;
  return W;
}

QuadraticDerivatives differentiate_quadratic(const Eigen::VectorXd& t_s, const Eigen::MatrixXd& x, int half_width) {
  const auto n = t_s.size();
  if (half_width < 1) throw Error("differentiate: half width must be >= 1, got " + std::to_string(half_width));
  if (x.rows() != n)
    throw Error("differentiate: " + std::to_string(n) + " times but " + std::to_string(x.rows()) + " rows");
  const Eigen::Index w = 2 * static_cast<Eigen::Index>(half_width) + 1;
  if (n < w)
    throw Error("differentiate: " + std::to_string(n) + " samples, a window of " + std::to_string(w) +
                " (half width " + std::to_string(half_width) + ") needs at least " + std::to_string(w));
  for (Eigen::Index k = 0; k < n; ++k) {
    if (!std::isfinite(t_s[k])) throw Error("differentiate: sample " + std::to_string(k) + ": time is not finite");
    if (k > 0 && !(t_s[k] > t_s[k - 1]))
      throw Error("differentiate: sample " + std::to_string(k) + ": time " + io::format_number(t_s[k]) +
                  " s is not after " + io::format_number(t_s[k - 1]) + " s");
  }
  QuadraticDerivatives r;
  r.first_row = half_width;
  const Eigen::Index rows = n - w + 1;
  r.value.resize(rows, x.cols());
  r.d1.resize(rows, x.cols());
  r.d2.resize(rows, x.cols());
  for (Eigen::Index i = 0; i < rows; ++i) {
    const Eigen::Index k = i + half_width;
    const auto W = quadratic_fit_weights(t_s.data() + i, static_cast<int>(w), t_s[k]);
    const Eigen::MatrixXd c = W * x.middleRows(i, w);  // 3 x m
    r.value.row(i) = c.row(0);
    r.d1.row(i) = c.row(1);
    r.d2.row(i) = c.row(2);
  }
  return r;
}

}  // namespace tendyn
