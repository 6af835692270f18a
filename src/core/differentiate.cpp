// Local quadratic least-squares derivatives (include/tendyn/core/differentiate.hpp).
#include <tendyn/core/differentiate.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

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
  if (x.rows() != n) throw Error("differentiate: " + std::to_string(n) + " times but " + std::to_string(x.rows()) + " rows");
  const Eigen::Index w = 2 * static_cast<Eigen::Index>(half_width) + 1;
  if (n < w)
    throw Error("differentiate: " + std::to_string(n) + " samples, a window of " + std::to_string(w) + " (half width " +
                std::to_string(half_width) + ") needs at least " + std::to_string(w));
  for (Eigen::Index k = 0; k < n; ++k) {
    if (!std::isfinite(t_s[k])) throw Error("differentiate: sample " + std::to_string(k) + ": time is not finite");
    if (k > 0 && !(t_s[k] > t_s[k - 1]))
      throw Error("differentiate: sample " + std::to_string(k) + ": time " + format_number(t_s[k]) + " s is not after " +
                  format_number(t_s[k - 1]) + " s");
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

namespace {

// White-noise std of each column from the residual of a local cubic through 5 samples.
Eigen::VectorXd sample_noise_std(const Eigen::VectorXd& t_s, const Eigen::MatrixXd& x) {
  const Eigen::Index n = t_s.size(), m = x.cols();
  Eigen::VectorXd sd = Eigen::VectorXd::Zero(m);
  if (n < 5) return sd;
  std::vector<std::vector<double>> e2(static_cast<std::size_t>(m));
  Eigen::Matrix<double, 5, 4> V;
  for (Eigen::Index k = 2; k + 2 < n; ++k) {
    const double span = t_s[k + 2] - t_s[k - 2];
    for (int i = 0; i < 5; ++i) {
      const double s = (t_s[k - 2 + i] - t_s[k]) / span;
      V(i, 0) = 1.0;
      V(i, 1) = s;
      V(i, 2) = s * s;
      V(i, 3) = s * s * s;
    }
    // The unit vector orthogonal to the cubics on these 5 times: the last column of Q.
    const Eigen::HouseholderQR<Eigen::Matrix<double, 5, 4>> qr(V);
    const Eigen::Matrix<double, 5, 1> nv = qr.householderQ() * Eigen::Matrix<double, 5, 1>::Unit(4);
    for (Eigen::Index j = 0; j < m; ++j) {
      const double e = nv.dot(x.block<5, 1>(k - 2, j));
      e2[static_cast<std::size_t>(j)].push_back(e * e);
    }
  }
  constexpr double kMedianChi2_1 = 0.454936423119572;  // median of chi^2 with 1 degree of freedom
  for (Eigen::Index j = 0; j < m; ++j) {
    auto& v = e2[static_cast<std::size_t>(j)];
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    sd[j] = std::sqrt(*mid / kMedianChi2_1);
  }
  return sd;
}

DerivativeNoise noise_at(const Eigen::VectorXd& t_s, const Eigen::MatrixXd& x, int half_width, const Eigen::VectorXd& sd) {
  const QuadraticDerivatives q = differentiate_quadratic(t_s, x, half_width);
  const Eigen::Index rows = q.d1.rows(), m = x.cols(), w = 2 * static_cast<Eigen::Index>(half_width) + 1;
  double g1 = 0.0, g2 = 0.0;  // mean squared noise gains of c1 and c2
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto W = quadratic_fit_weights(t_s.data() + i, static_cast<int>(w), t_s[i + half_width]);
    g1 += W.row(1).squaredNorm();
    g2 += W.row(2).squaredNorm();
  }
  g1 /= static_cast<double>(rows);
  g2 /= static_cast<double>(rows);
  DerivativeNoise r;
  r.half_width = half_width;
  r.sample_std = sd;
  r.d1_noise_fraction.resize(m);
  r.d2_noise_fraction.resize(m);
  const auto fraction = [](double noise_var, const auto& c) {
    const double var = (c.array() - c.mean()).square().mean();
    if (!(noise_var > 0.0)) return 0.0;
    return var > 0.0 ? std::min(1.0, noise_var / var) : 1.0;
  };
  for (Eigen::Index j = 0; j < m; ++j) {
    r.d1_noise_fraction[j] = fraction(sd[j] * sd[j] * g1, q.d1.col(j));
    r.d2_noise_fraction[j] = fraction(sd[j] * sd[j] * g2, q.d2.col(j));
  }
  return r;
}

}  // namespace

double DerivativeNoise::worst(int order, Eigen::Index* column) const {
  const Eigen::VectorXd& f = order == 1 ? d1_noise_fraction : d2_noise_fraction;
  Eigen::Index k = 0;
  const double v = f.size() > 0 ? f.maxCoeff(&k) : 0.0;
  if (column) *column = k;
  return v;
}

DerivativeNoise derivative_noise(const Eigen::VectorXd& t_s, const Eigen::MatrixXd& x, int half_width) {
  (void)differentiate_quadratic(t_s, x.leftCols(0), half_width);  // argument checks first
  return noise_at(t_s, x, half_width, sample_noise_std(t_s, x));
}

int smoothing_for_noise(const Eigen::VectorXd& t_s, const Eigen::MatrixXd& x, int order, double max_fraction, int max_half_width) {
  (void)differentiate_quadratic(t_s, x.leftCols(0), 1);
  const Eigen::VectorXd sd = sample_noise_std(t_s, x);
  for (int h = 1; h <= max_half_width && 2 * static_cast<Eigen::Index>(h) + 1 <= t_s.size(); h *= 2)
    if (noise_at(t_s, x, h, sd).worst(order) <= max_fraction) return h;
  return 0;
}

}  // namespace tendyn
