#include "dense_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tendyn::cdpr::detail {

namespace {
/// x <- (I - beta v v^T) x on rows [from, to): one Householder reflection.
inline void reflect(const double* v, double* x, int from, int to, double beta) {
  double dot = 0.0;
  for (int i = from; i < to; ++i) dot += v[i] * x[i];
  const double tau = beta * dot;
  for (int i = from; i < to; ++i) x[i] -= tau * v[i];
}
}  // namespace

// ---------------------------------------------------------------------------------------------
MinNormLS::MinNormLS(int max_rows, int max_cols)
    : max_rows_(max_rows),
      max_cols_(max_cols),
      T_(static_cast<std::size_t>(max_rows) * max_cols),
      beta_(max_rows),
      rdiag_(max_rows),
      c_(max_rows),
      y_(max_rows),
      M_(static_cast<std::size_t>(max_rows) * max_rows),
      mbeta_(max_rows),
      z_(max_cols),
      perm_(max_rows) {}

int MinNormLS::factor(const double* A, int lda, int m, int k, double rtol, double* pivot_ratio) {
  m_ = m;
  k_ = k;
  const int ld = max_cols_;
  double* T = T_.data();
  for (int j = 0; j < m; ++j) {
    for (int i = 0; i < k; ++i) T[i + j * ld] = A[j + i * lda];
    perm_[j] = j;
  }
  const int pmax = std::min(m, k);
  int r = 0;
  double ref = 0.0, ratio = 0.0;
  for (int j = 0; j < pmax; ++j) {
    int best = j;
    double bestn = -1.0;
    for (int q = j; q < m; ++q) {
      const double* col = T + q * ld;
      double s = 0.0;
      for (int i = j; i < k; ++i) s += col[i] * col[i];
      if (s > bestn) {
        bestn = s;
        best = q;
      }
    }
    if (best != j) {
      double* a = T + j * ld;
      double* b = T + best * ld;
      for (int i = 0; i < k; ++i) std::swap(a[i], b[i]);
      std::swap(perm_[j], perm_[best]);
    }
    const double alpha = std::sqrt(bestn);
    if (j == 0) ref = alpha;
    ratio = ref > 0.0 ? alpha / ref : 0.0;
    if (alpha == 0.0 || alpha <= rtol * ref) break;
    double* v = T + j * ld;
    const double s = v[j] >= 0.0 ? alpha : -alpha;
    v[j] += s;
    const double beta = 1.0 / (s * v[j]);
    for (int q = j + 1; q < m; ++q) {
      double* col = T + q * ld;
      reflect(v, col, j, k, beta);
    }
    beta_[j] = beta;
    rdiag_[j] = -s;
    r = j + 1;
  }
  if (pivot_ratio != nullptr) *pivot_ratio = ratio;
  r_ = r;
  return r;
}

void MinNormLS::apply(const double* b, double* x) {
  const int m = m_, k = k_, r = r_, ld = max_cols_;
  const double* T = T_.data();
  if (r == 0) {
    std::fill(x, x + k, 0.0);
    return;
  }
  double* c = c_.data();
  double* y = y_.data();
  for (int i = 0; i < m; ++i) c[i] = b[perm_[i]];
  // R(i, q), i < q, is T[i + q ld]; R(i, i) = rdiag_[i]. Solve min |R_r^T y - c|.
  if (r == m) {
    for (int q = 0; q < m; ++q) {
      double s = c[q];
      const double* col = T + q * ld;
      for (int i = 0; i < q; ++i) s -= col[i] * y[i];
      y[q] = s / rdiag_[q];
    }
  } else {
    // M = R_r^T (m x r), column-major with leading dimension max_rows_.
    const int lm = max_rows_;
    double* M = M_.data();
    for (int i = 0; i < r; ++i) {
      double* mc = M + i * lm;
      for (int q = 0; q < i; ++q) mc[q] = 0.0;
      mc[i] = rdiag_[i];
      for (int q = i + 1; q < m; ++q) mc[q] = T[i + q * ld];
    }
    for (int i = 0; i < r; ++i) {
      double* v = M + i * lm;
      double a2 = 0.0;
      for (int q = i; q < m; ++q) a2 += v[q] * v[q];
      const double alpha = std::sqrt(a2);
      const double s = v[i] >= 0.0 ? alpha : -alpha;
      v[i] += s;
      const double beta = 1.0 / (s * v[i]);
      for (int j = i + 1; j < r; ++j) {
        double* col = M + j * lm;
        reflect(v, col, i, m, beta);
      }
      reflect(v, c, i, m, beta);
      mbeta_[i] = -s;  // diagonal of the triangular factor
    }
    for (int i = r - 1; i >= 0; --i) {
      double s = c[i];
      for (int j = i + 1; j < r; ++j) s -= M[i + j * lm] * y[j];
      y[i] = s / mbeta_[i];
    }
  }
  // x = H_0 ... H_{r-1} [y; 0]
  double* z = z_.data();
  for (int i = 0; i < r; ++i) z[i] = y[i];
  for (int i = r; i < k; ++i) z[i] = 0.0;
  for (int j = r - 1; j >= 0; --j) {
    const double* v = T + j * ld;
    reflect(v, z, j, k, beta_[j]);
  }
  std::copy(z, z + k, x);
}

// ---------------------------------------------------------------------------------------------
GivensQR::GivensQR(int max_rows, int /*max_cols*/)
    : max_rows_(max_rows),
      Q_(static_cast<std::size_t>(max_rows) * max_rows),
      R_(static_cast<std::size_t>(max_rows) * (max_rows + 1)),
      tmp_(max_rows) {}

void GivensQR::reset(int m) {
  m_ = m;
  k_ = 0;
  const int ld = max_rows_;
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) Q_[i + j * ld] = (i == j) ? 1.0 : 0.0;
}

void GivensQR::rotate_q(int i, double c, double s) {
  const int ld = max_rows_;
  double* qa = Q_.data() + i * ld;
  double* qb = Q_.data() + (i + 1) * ld;
  for (int r = 0; r < m_; ++r) {
    const double a = qa[r], b = qb[r];
    qa[r] = c * a + s * b;
    qb[r] = -s * a + c * b;
  }
}

void GivensQR::rotate_rows(int i, int j_from, double c, double s) {
  const int ld = max_rows_;
  for (int j = j_from; j < k_; ++j) {
    double* col = R_.data() + j * ld;
    const double a = col[i], b = col[i + 1];
    col[i] = c * a + s * b;
    col[i + 1] = -s * a + c * b;
  }
}

bool GivensQR::append(const double* a, double independence_tol) {
  if (k_ >= m_) return false;
  const int ld = max_rows_;
  double anorm2 = 0.0;
  double* col = R_.data() + k_ * ld;
  for (int i = 0; i < m_; ++i) {
    const double* q = Q_.data() + i * ld;
    double s = 0.0;
    for (int r = 0; r < m_; ++r) s += q[r] * a[r];
    col[i] = s;
    anorm2 += a[i] * a[i];
  }
  for (int i = m_ - 1; i > k_; --i) {
    const double x = col[i - 1], y = col[i];
    if (y == 0.0) continue;
    const double rr = std::hypot(x, y);
    const double c = x / rr, s = y / rr;
    col[i - 1] = rr;
    col[i] = 0.0;
    rotate_q(i - 1, c, s);
  }
  if (std::abs(col[k_]) <= independence_tol * std::sqrt(anorm2) || anorm2 == 0.0) return false;
  ++k_;
  return true;
}

void GivensQR::remove(int p) {
  const int ld = max_rows_;
  for (int j = p; j + 1 < k_; ++j) {
    double* dst = R_.data() + j * ld;
    const double* src = R_.data() + (j + 1) * ld;
    for (int i = 0; i < m_; ++i) dst[i] = src[i];
  }
  --k_;
  for (int j = p; j < k_; ++j) {
    double* col = R_.data() + j * ld;
    const double x = col[j], y = col[j + 1];
    if (y == 0.0) continue;
    const double rr = std::hypot(x, y);
    const double c = x / rr, s = y / rr;
    rotate_rows(j, j, c, s);
    col[j + 1] = 0.0;
    rotate_q(j, c, s);
  }
}

void GivensQR::solve(const double* b, double* z) {
  const int ld = max_rows_;
  double* qtb = tmp_.data();
  for (int i = 0; i < k_; ++i) {
    const double* q = Q_.data() + i * ld;
    double s = 0.0;
    for (int r = 0; r < m_; ++r) s += q[r] * b[r];
    qtb[i] = s;
  }
  for (int i = k_ - 1; i >= 0; --i) {
    double s = qtb[i];
    for (int j = i + 1; j < k_; ++j) s -= R_[i + j * ld] * z[j];
    z[i] = s / R_[i + i * ld];
  }
}

double GivensQR::sigma_min_lower_bound() {
  if (k_ != m_ || m_ == 0) return 0.0;
  // Column j of R^-1 by back substitution (R z = e_j, z_i = 0 for i > j); sum of squares.
  const int ld = max_rows_;
  const double* R = R_.data();
  double* z = tmp_.data();
  double f2 = 0.0;
  for (int j = 0; j < k_; ++j) {
    z[j] = 1.0 / R[j + j * ld];
    f2 += z[j] * z[j];
    for (int i = j - 1; i >= 0; --i) {
      double s = 0.0;
      for (int l = i + 1; l <= j; ++l) s -= R[i + l * ld] * z[l];
      z[i] = s / R[i + i * ld];
      f2 += z[i] * z[i];
    }
  }
  return f2 > 0.0 && std::isfinite(f2) ? 1.0 / std::sqrt(f2) : 0.0;
}

// ---------------------------------------------------------------------------------------------
BoundedLS::BoundedLS(int max_rows, int max_cols)
    : qr_(max_rows, max_cols),
      state_(max_cols),
      order_(max_cols),
      excluded_(max_cols),
      g_(max_cols),
      r_(max_rows),
      rhs_(max_rows),
      z_(max_cols),
      col_(max_rows) {}

int BoundedLS::solve(const Eigen::Ref<const Eigen::MatrixXd>& J, const Eigen::Ref<const Eigen::VectorXd>& w, const double* l,
                     const double* u, double dual_tol, int max_iterations, double* x, int* iterations, const double* select_weight) {
  const int m = static_cast<int>(J.rows());
  const int n = static_cast<int>(J.cols());
  constexpr int kFree = 0, kLower = 1, kUpper = 2;
  for (int i = 0; i < n; ++i) {
    x[i] = l[i];
    state_[i] = kLower;
    excluded_[i] = 0;
  }
  qr_.reset(m);
  int nfree = 0;
  int iters = 0;
  int status = 0;
  // Independence threshold for a new passive column (relative to its norm).
  constexpr double kIndep = 1e-13;

  // Raw column pointers (the same arithmetic in the same order as J(r, i) indexing).
  const double* Jd = J.data();
  const Eigen::Index ldj = J.outerStride();
  const double* wd = w.data();
  double* rv = r_.data();
  auto residual = [&](bool skip_free) {
    for (int r = 0; r < m; ++r) rv[r] = wd[r];
    for (int i = 0; i < n; ++i) {
      if (skip_free && state_[i] == kFree) continue;
      const double xi = x[i];
      if (xi == 0.0) continue;
      const double* c = Jd + i * ldj;
      for (int r = 0; r < m; ++r) rv[r] -= c[r] * xi;
    }
  };

  for (;;) {
    residual(false);
    int t = -1;
    double best = 0.0;
    for (int i = 0; i < n; ++i) {
      if (state_[i] == kFree || excluded_[i]) continue;
      double gi = 0.0;
      const double* c = Jd + i * ldj;
      for (int r = 0; r < m; ++r) gi += c[r] * rv[r];
      const double score = state_[i] == kLower ? gi : -gi;
      if (!(score > dual_tol)) continue;
      const double weighted = select_weight != nullptr ? score * select_weight[i] : score;
      if (t < 0 || weighted > best) {
        best = weighted;
        t = i;
      }
    }
    if (t < 0) break;
    if (iters >= max_iterations) {
      status = 1;
      break;
    }
    for (int r = 0; r < m; ++r) col_[r] = Jd[t * ldj + r];
    if (!qr_.append(col_.data(), kIndep)) {
      excluded_[t] = 1;  // numerically dependent on the passive columns
      ++iters;
      continue;
    }
    const int from = state_[t];
    state_[t] = kFree;
    order_[nfree++] = t;
    bool first = true;
    for (;;) {
      ++iters;
      if (iters > max_iterations) {
        status = 1;
        break;
      }
      residual(true);  // rhs = w - J_bound x_bound
      qr_.solve(r_.data(), z_.data());
      double alpha = 2.0;
      int bad = -1;
      bool bad_lower = true;
      for (int p = 0; p < nfree; ++p) {
        const int i = order_[p];
        const double zi = z_[p];
        double a;
        bool lower;
        if (zi <= l[i]) {
          const double den = x[i] - zi;
          a = den > 0.0 ? (x[i] - l[i]) / den : 0.0;
          lower = true;
        } else if (zi >= u[i]) {
          const double den = zi - x[i];
          a = den > 0.0 ? (u[i] - x[i]) / den : 0.0;
          lower = false;
        } else {
          continue;
        }
        if (a < alpha) {
          alpha = a;
          bad = p;
          bad_lower = lower;
        }
      }
      if (bad < 0) {
        for (int p = 0; p < nfree; ++p) x[order_[p]] = z_[p];
        break;
      }
      const bool wrong_way = (from == kLower) == bad_lower;
      if (first && order_[bad] == t && wrong_way) {
        // The entering variable moves the wrong way: only possible through rounding. Undo and
        // never pick it again in this solve (this guards against cycling).
        qr_.remove(bad);
        for (int p = bad; p + 1 < nfree; ++p) order_[p] = order_[p + 1];
        --nfree;
        state_[t] = from;
        excluded_[t] = 1;
        break;
      }
      first = false;
      alpha = std::clamp(alpha, 0.0, 1.0);
      for (int p = 0; p < nfree; ++p) {
        const int i = order_[p];
        x[i] += alpha * (z_[p] - x[i]);
      }
      for (int p = nfree - 1; p >= 0; --p) {
        const int i = order_[p];
        int to = kFree;
        if (p == bad) {
          to = bad_lower ? kLower : kUpper;
        } else if (x[i] <= l[i]) {
          to = kLower;
        } else if (x[i] >= u[i]) {
          to = kUpper;
        }
        if (to == kFree) continue;
        x[i] = (to == kLower) ? l[i] : u[i];
        state_[i] = to;
        qr_.remove(p);
        for (int q = p; q + 1 < nfree; ++q) order_[q] = order_[q + 1];
        --nfree;
      }
      if (nfree == 0) break;
    }
    if (status != 0) break;
  }
  if (iterations != nullptr) *iterations = iters;
  return status;
}

}  // namespace tendyn::cdpr::detail
