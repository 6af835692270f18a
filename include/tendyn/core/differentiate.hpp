// Derivatives of sampled signals (motion and pose logs) by local quadratic least squares: a
// Savitzky-Golay filter of order 2 that uses the sample times as given, so uneven sampling and
// gaps are handled without resampling (Savitzky & Golay, Anal. Chem. 36 (1964) 1627; the
// least-squares form of any window).
//
// For sample k and half width h the window is samples k-h .. k+h; the fit
//   x(t) ~ c0 + c1 (t - t_k) + c2 (t - t_k)^2 / 2
// minimises the squared error over the window, and (c0, c1, c2) estimate x(t_k), dx/dt(t_k),
// d2x/dt2(t_k). With h = 1 (three samples) the quadratic interpolates and c1, c2 are the
// three-point central differences (for uniform spacing dt: (x+ - x-)/(2 dt) and
// (x+ - 2 x + x-)/dt^2, truncation error O(dt^2)); a wider window averages noise (the noise of
// c2 falls roughly as h^-2.5 for white noise) at the price of a bias O(h^2 dt^2 x'''').
// Only interior samples (h <= k < N - h) get estimates.
//
// Noise (errors in variables): a fit that regresses on differentiated samples inherits their
// noise in the regressor, which biases the fitted coefficients towards zero by about the share
// of the regressor's variance that is noise, and which the least-squares standard deviation does
// not contain. derivative_noise() estimates that share from the data: the white-noise level of
// each column from the residual of a local cubic through 5 samples (one degree of freedom per
// window; the median over windows, robust to a few outliers and to the signal's 4th derivative,
// which enters as x'''' dt^4), propagated through the fit weights into c1 and c2 and compared
// with the variance of c1 and c2 over the samples.
#pragma once
#include <Eigen/Core>

namespace tendyn {

/// Weights W (3 x count) of the local quadratic fit: (c0, c1, c2) = W x_window for any signal
/// sampled at t[0..count) (strictly increasing) around t_center. Throws tendyn::Error when
/// count < 3 or the times are not finite and strictly increasing. Cost O(count), allocates W.
Eigen::Matrix<double, 3, Eigen::Dynamic> quadratic_fit_weights(const double* t_s, int count, double t_center_s);

/// Smoothed values and first and second time derivatives of the columns of x.
struct QuadraticDerivatives {
  int first_row = 0;      ///< row of the input that output row 0 belongs to (= half_width)
  Eigen::MatrixXd value;  ///< (N - 2 h) x m  c0
  Eigen::MatrixXd d1;     ///< (N - 2 h) x m  c1 [unit/s]
  Eigen::MatrixXd d2;     ///< (N - 2 h) x m  c2 [unit/s^2]
};

/// Applies the fit at every interior sample of x (N x m, one row per time t_s (N)).
/// half_width >= 1. Throws tendyn::Error when t_s and x differ in length, N < 2 h + 1, or
/// t_s is not finite and strictly increasing ("sample k: time ... not after ..."). Cost O(N h m).
QuadraticDerivatives differentiate_quadratic(const Eigen::VectorXd& t_s, const Eigen::MatrixXd& x, int half_width);

/// Noise share of the derivatives of sampled signals (see the header comment).
struct DerivativeNoise {
  int half_width = 0;                 ///< window half width of the derivatives judged
  Eigen::VectorXd sample_std;         ///< (m) estimated white-noise std of each column [unit]
  Eigen::VectorXd d1_noise_fraction;  ///< (m) noise variance of c1 / variance of c1 over the samples, in [0, 1]
  Eigen::VectorXd d2_noise_fraction;  ///< (m) the same for c2
  /// Largest fraction of derivative `order` (1 or 2) over the columns, and its column in *column.
  [[nodiscard]] double worst(int order, Eigen::Index* column = nullptr) const;
};

/// Noise fraction of the derivatives differentiate_quadratic(t_s, x, half_width) gives. Needs
/// N >= max(5, 2 h + 1) samples; fewer than 5: sample_std and the fractions are 0 (no estimate).
/// Throws as differentiate_quadratic. Cost O(N (h + 1) m).
DerivativeNoise derivative_noise(const Eigen::VectorXd& t_s, const Eigen::MatrixXd& x, int half_width);

/// The smallest half width of 1, 2, 4, ..., max_half_width (the windows fitting in N samples)
/// whose derivatives of `order` (1 or 2) have a noise fraction <= max_fraction in every column,
/// or 0 when none has. A wider window adds a truncation bias O(h^2 dt^2 x'''') that this does not
/// judge. Throws as differentiate_quadratic. Cost O(N max_half_width m).
int smoothing_for_noise(const Eigen::VectorXd& t_s, const Eigen::MatrixXd& x, int order, double max_fraction = 0.01,
                        int max_half_width = 64);

/// The fraction above which a fit on differentiated data warns that the derivative noise
/// dominates (its parameters biased by about that fraction, outside their std): 0.01.
inline constexpr double kDerivativeNoiseWarning = 0.01;

}  // namespace tendyn
