// Small dense kernels for the tension solvers (internal). All work on preallocated buffers:
// no allocation after construction. Matrices are column-major, m <= rows capacity.
#pragma once
#include <Eigen/Core>

#include <vector>

namespace tendyn::cdpr::detail {

/// Minimum-norm least squares x = A^+ b (rank-revealing) for A (m x k), via Householder QR with
/// column pivoting of A^T (k x m): A^T P = Q R, rank r = number of pivots > rtol * first pivot;
/// then x = Q_r y with y = argmin |R^T y - P^T b| (a second small QR when r < m).
/// This is a complete orthogonal decomposition of A (Golub & Van Loan, 4th ed., 5.4.2).
class MinNormLS {
 public:
  MinNormLS(int max_rows, int max_cols);
  /// Factorises A (m x k, column-major, leading dimension lda >= m). Returns the numerical rank.
  /// `pivot_ratio` (optional) receives |pivot_last| / |pivot_0| where pivot_last is the last
  /// pivot examined (the first one below tolerance, or the min(m, k)-th): a cheap estimate of
  /// sigma_min / sigma_max (1 well conditioned, ~0 rank deficient).
  int factor(const double* A, int lda, int m, int k, double rtol, double* pivot_ratio = nullptr);
  /// x (k) = A^+ b for the last factorised A; b has m entries.
  void apply(const double* b, double* x);
  int solve(const double* A, int lda, int m, int k, const double* b, double* x, double rtol, double* pivot_ratio = nullptr) {
    const int r = factor(A, lda, m, k, rtol, pivot_ratio);
    apply(b, x);
    return r;
  }

 private:
  int max_rows_, max_cols_, m_ = 0, k_ = 0, r_ = 0;
  std::vector<double> T_;  // (max_cols x max_rows) A^T, overwritten by reflectors
  std::vector<double> beta_, rdiag_, c_, y_, M_, mbeta_, z_;
  std::vector<int> perm_;
};

/// QR factorisation Q R of a growing/shrinking set of columns of an m x n matrix, updated with
/// Givens rotations (Golub & Van Loan 6.5): add a column in O(m^2), delete one in O(m k).
class GivensQR {
 public:
  GivensQR(int max_rows, int max_cols);
  void reset(int m);
  /// Appends column a (m). Returns false (factorisation unchanged) when k == m already or when
  /// the new diagonal of R is <= independence_tol * |a| (numerically dependent column).
  bool append(const double* a, double independence_tol);
  /// Removes the column at position p (0-based, in insertion order).
  void remove(int p);
  /// Least squares on the kept columns: z (k) = argmin |A_k z - b|.
  void solve(const double* b, double* z);
  [[nodiscard]] int size() const { return k_; }
  /// 1 / |R^-1|_F, a lower bound on sigma_min of the kept columns (their singular values are
  /// R's), when they number m (square R); 0 when fewer or R is singular. O(m^3 / 6).
  double sigma_min_lower_bound();

 private:
  void rotate_rows(int i, int j_from, double c, double s);  // rows (i, i+1) of R from column j
  void rotate_q(int i, double c, double s);                 // columns (i, i+1) of Q
  int max_rows_, m_ = 0, k_ = 0;                            // columns never exceed rows in a QR of independent columns
  std::vector<double> Q_, R_, tmp_;
};

/// Bounded-variable least squares: min |J x - w| s.t. l <= x <= u (u may be +inf, l finite),
/// by the Lawson-Hanson active-set method generalised to two bounds (Stark & Parker 1995).
/// With l = 0, u = inf it is exactly Lawson-Hanson NNLS (Octave/MATLAB lsqnonneg).
/// Returns 0 on convergence, 1 when the iteration cap was hit. `iterations` = inner + outer steps.
/// A bound variable i may enter when its gradient score exceeds dual_tol; among those the one with
/// the largest score * select_weight[i] enters (select_weight == nullptr: weight 1). With J
/// column-scaled by 1/s_i and select_weight[i] = s_i this picks the column the unscaled problem
/// (and lsqnonneg) would pick, while the tolerance test works on the scaled columns.
class BoundedLS {
 public:
  BoundedLS(int max_rows, int max_cols);
  int solve(const Eigen::Ref<const Eigen::MatrixXd>& J, const Eigen::Ref<const Eigen::VectorXd>& w, const double* l, const double* u,
            double dual_tol, int max_iterations, double* x, int* iterations, const double* select_weight = nullptr);
  /// The QR of the free (passive) columns of the last solve's J at its end.
  GivensQR& qr() { return qr_; }

 private:
  GivensQR qr_;
  std::vector<int> state_;  // 0 free, 1 at lower, 2 at upper
  std::vector<int> order_;  // free indices in insertion order (matches qr_ columns)
  std::vector<char> excluded_;
  std::vector<double> g_, r_, rhs_, z_, col_;
};

}  // namespace tendyn::cdpr::detail
