// Lawson-Hanson NNLS (Lawson & Hanson, "Solving Least Squares Problems", 1974, ch. 23, algorithm
// NNLS): the algorithm behind MATLAB/Octave lsqnonneg. The passive-set least-squares problems use
// a QR factorisation updated by Givens rotations when a column enters or leaves (Golub & Van Loan,
// 4th ed., 6.5), never the normal equations. Termination: the residual strictly decreases
// between outer iterations and passive sets cannot repeat (Lawson & Hanson, Theorem 23.10); the
// iteration cap only guards against rounding-induced cycling and is reported as iteration_limit.
//
// Two implementations of the same active-set path (same entering rule, tolerances, independence
// test, wrong-way exclusion and iteration count):
//  * FixedNnls<M> (m = M <= 6 rows, every CDPR): all state on the stack with the row count a
//    compile-time constant; Q (M x M), R and c = Q^T w are updated together by each Givens
//    rotation, so a passive solve is one back substitution (no Q^T w product per inner step);
//    rotations use sqrt(x^2 + y^2) (the scaled entries are below sqrt(m), so the squares cannot
//    overflow; hypot only where they could underflow) and R's reciprocal diagonal is kept, so back
//    substitutions multiply; the gradient of all columns is M vectorisable row updates on a
//    transposed copy of Jc (each entry summed in the same order as a column dot product); the
//    diagnostics of finish_result are computed in one fused pass from the kernel's own R
//    (sigma_min(Jc) >= 1 / |R^-1|_F). A Householder append (one square root per column instead of
//    M-1-k rotations) was tried and measured no faster at 6x12.
//  * BoundedLS with l = 0, u = inf (dense_kernels.cpp): any m, and every problem whose rows differ
//    in size by more than 2^10 (bounded_least_squares' row-equilibrated retry).
// The two agree to rounding (tests/cdpr/nnls_test.cpp compares them on random problems).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "tension_internal.hpp"

namespace tendyn::cdpr::detail {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kMaxCols = 64;  // the fixed kernel's column capacity (loaded_mask has 64 bits)

/// sqrt(x^2 + y^2) without a library call when the squares stay in the normal range.
inline double givens_norm(double x, double y) {
  const double s = x * x + y * y;
  if (s >= 1e-280 && s <= 1e280) return std::sqrt(s);
  return std::hypot(x, y);
}

template <int M>
class FixedNnls {
 public:
  /// Runs NNLS on Jc (M x n, leading dimension ld) and w. Returns 0 (converged) or 1 (cap).
  /// `JT` (M x kMaxCols, row-major: JT[r * kMaxCols + i] = J(r, i)) is J's transposed copy: the
  /// gradient of all columns is then M vectorisable row updates, each entry summed in the same
  /// order as a column dot product.
  int solve(const double* J, std::ptrdiff_t ld, const double* JT, int n, const double* w, double tol, int maxit, const double* weight,
            double* x, int* iterations) {
    for (int r = 0; r < M; ++r) {
      for (int i = 0; i < M; ++i) Q_[i + r * M] = r == i ? 1.0 : 0.0;
      c_[r] = w[r];
    }
    k_ = 0;
    std::uint64_t passive = 0, excluded = 0;
    for (int i = 0; i < n; ++i) x[i] = 0.0;
    int iters = 0, status = 0;
    constexpr double kIndep = 1e-13;
    double rv[M];
    for (;;) {
      // r = w - J_P x_P (the bound entries are 0).
      for (int r = 0; r < M; ++r) rv[r] = w[r];
      for (std::uint64_t b = passive; b != 0; b &= b - 1) {
        const int i = std::countr_zero(b);
        const double xi = x[i];
        if (xi == 0.0) continue;
        const double* a = J + i * ld;
        for (int r = 0; r < M; ++r) rv[r] -= a[r] * xi;
      }
      double g[kMaxCols];
      for (int i = 0; i < n; ++i) g[i] = 0.0;
      for (int r = 0; r < M; ++r) {
        const double* row = JT + r * kMaxCols;
        const double rr = rv[r];
        for (int i = 0; i < n; ++i) g[i] += row[i] * rr;
      }
      int t = -1;
      double best = 0.0;
      for (int i = 0; i < n; ++i) {
        if (((passive | excluded) >> i) & 1u) continue;
        const double gi = g[i];
        if (!(gi > tol)) continue;
        const double weighted = gi * weight[i];
        if (t < 0 || weighted > best) {
          best = weighted;
          t = i;
        }
      }
      if (t < 0) break;
      if (iters >= maxit) {
        status = 1;
        break;
      }
      if (!append(J + t * ld, kIndep)) {
        excluded |= std::uint64_t{1} << t;  // numerically dependent on the passive columns
        ++iters;
        continue;
      }
      passive |= std::uint64_t{1} << t;
      order_[k_ - 1] = t;
      bool first = true;
      for (;;) {
        ++iters;
        if (iters > maxit) {
          status = 1;
          break;
        }
        double z[M];
        back_substitute(z);
        double alpha = 2.0;
        int bad = -1;
        for (int p = 0; p < k_; ++p) {
          const double zi = z[p];
          if (!(zi <= 0.0)) continue;
          const double xi = x[order_[p]];
          const double den = xi - zi;
          const double a = den > 0.0 ? xi / den : 0.0;
          if (a < alpha) {
            alpha = a;
            bad = p;
          }
        }
        if (bad < 0) {
          for (int p = 0; p < k_; ++p) x[order_[p]] = z[p];
          break;
        }
        if (first && order_[bad] == t) {
          // The entering variable moves the wrong way: only possible through rounding. Undo and
          // never pick it again in this solve (this guards against cycling).
          remove(bad);
          passive &= ~(std::uint64_t{1} << t);
          excluded |= std::uint64_t{1} << t;
          break;
        }
        first = false;
        alpha = std::clamp(alpha, 0.0, 1.0);
        for (int p = 0; p < k_; ++p) {
          const int i = order_[p];
          x[i] += alpha * (z[p] - x[i]);
        }
        for (int p = k_ - 1; p >= 0; --p) {
          const int i = order_[p];
          if (p != bad && !(x[i] <= 0.0)) continue;
          x[i] = 0.0;
          passive &= ~(std::uint64_t{1} << i);
          remove(p);
        }
        if (k_ == 0) break;
      }
      if (status != 0) break;
    }
    *iterations = iters;
    return status;
  }

  /// 1 / |R^-1|_F when the passive set has M columns (a lower bound on sigma_min of those
  /// columns, hence of Jc), else 0.
  double sigma_min_lower_bound() const {
    if (k_ != M) return 0.0;
    const double* inv = rinv_;
    double f2 = 0.0, z[M];
    for (int j = 0; j < M; ++j) {
      z[j] = inv[j];
      f2 += z[j] * z[j];
      for (int i = j - 1; i >= 0; --i) {
        double s = 0.0;
        for (int l = i + 1; l <= j; ++l) s -= R_[i + l * M] * z[l];
        z[i] = s * inv[i];
        f2 += z[i] * z[i];
      }
    }
    return f2 > 0.0 && std::isfinite(f2) ? 1.0 / std::sqrt(f2) : 0.0;
  }

 private:
  /// Rotation (c, s) on columns (i, i+1) of Q and entries (i, i+1) of c = Q^T w.
  void rotate_q(int i, double cs, double sn) {
    if constexpr (M < 2) return;  // never called with one row (no pair of rows to rotate)
    double* qa = Q_ + i * M;
    double* qb = qa + M;
    for (int r = 0; r < M; ++r) {
      const double a = qa[r], b = qb[r];
      qa[r] = cs * a + sn * b;
      qb[r] = -sn * a + cs * b;
    }
    const double a = c_[i], b = c_[i + 1];
    c_[i] = cs * a + sn * b;
    c_[i + 1] = -sn * a + cs * b;
  }

  bool append(const double* a, double indep) {
    if (k_ >= M) return false;
    double* col = R_ + k_ * M;
    double anorm2 = 0.0;
    for (int i = 0; i < M; ++i) {
      const double* q = Q_ + i * M;
      double s = 0.0;
      for (int r = 0; r < M; ++r) s += q[r] * a[r];
      col[i] = s;
      anorm2 += a[i] * a[i];
    }
    for (int i = M - 1; i > k_; --i) {
      const double xx = col[i - 1], yy = col[i];
      if (yy == 0.0) continue;
      const double rr = givens_norm(xx, yy);
      const double inv = 1.0 / rr;
      col[i - 1] = rr;
      col[i] = 0.0;
      rotate_q(i - 1, xx * inv, yy * inv);
    }
    if (std::abs(col[k_]) <= indep * std::sqrt(anorm2) || anorm2 == 0.0) return false;
    rinv_[k_] = 1.0 / col[k_];
    ++k_;
    return true;
  }

  void remove(int p) {
    for (int j = p; j + 1 < k_; ++j) {
      double* dst = R_ + j * M;
      const double* src = dst + M;
      for (int i = 0; i < M; ++i) dst[i] = src[i];
      order_[j] = order_[j + 1];
    }
    --k_;
    for (int j = p; j < k_; ++j) {
      double* col = R_ + j * M;
      const double xx = col[j], yy = col[j + 1];
      if (yy == 0.0) {
        rinv_[j] = 1.0 / xx;
        continue;
      }
      const double rr = givens_norm(xx, yy);
      const double inv = 1.0 / rr;
      const double cs = xx * inv, sn = yy * inv;
      for (int l = j + 1; l < k_; ++l) {
        double* cl = R_ + l * M;
        const double a = cl[j], b = cl[j + 1];
        cl[j] = cs * a + sn * b;
        cl[j + 1] = -sn * a + cs * b;
      }
      col[j] = rr;
      col[j + 1] = 0.0;
      rinv_[j] = inv;
      rotate_q(j, cs, sn);
    }
  }

  void back_substitute(double* z) const {
    for (int i = k_ - 1; i >= 0; --i) {
      double s = c_[i];
      for (int j = i + 1; j < k_; ++j) s -= R_[i + j * M] * z[j];
      z[i] = s * rinv_[i];
    }
  }

  double Q_[M * M];
  double R_[M * M];
  double c_[M];
  double rinv_[M];  // 1 / R(i, i), kept with R (the back substitutions multiply)
  int order_[M];
  int k_ = 0;
};

/// The whole Lawson-Hanson method for m = M: kernel, unscaling, and finish_result's
/// diagnostics (same verdicts and thresholds, see tension.cpp) in fused fixed-size passes.
/// Returns false (nothing done) when the rows of Jc differ in size by more than 2^10: then
/// bounded_least_squares may retry with the rows equilibrated, and the general path runs.
template <int M>
bool lawson_hanson_fixed(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res) {
  const int n = static_cast<int>(p.J.cols());
  const double* Jc = p.Jc.data();
  const std::ptrdiff_t ldc = p.Jc.outerStride();
  const double* Jg = p.J.data();
  const std::ptrdiff_t ldg = p.J.outerStride();
  const double* w = p.w.data();
  double w2 = 0.0;
  for (int r = 0; r < M; ++r) w2 += w[r] * w[r];
  const double wn = std::sqrt(w2);
  // |Jc|_1, |Jc|_F and the rows' largest entries in one pass.
  double norm1 = 0.0, jc2 = 0.0, rowmax[M] = {};
  alignas(16) double JT[M * kMaxCols];
  for (int j = 0; j < n; ++j) {
    const double* a = Jc + j * ldc;
    double s = 0.0;
    for (int r = 0; r < M; ++r) {
      const double v = std::abs(a[r]);
      s += v;
      jc2 += a[r] * a[r];
      rowmax[r] = std::max(rowmax[r], v);
      JT[r * kMaxCols + j] = a[r];
    }
    norm1 = std::max(norm1, s);
  }
  double rmin = std::numeric_limits<double>::infinity(), rmax = 0.0;
  for (int r = 0; r < M; ++r)
    if (rowmax[r] > 0.0) {
      rmin = std::min(rmin, rowmax[r]);
      rmax = std::max(rmax, rowmax[r]);
    }
  if (rmax > 1024.0 * rmin) return false;
  double tol = o.dual_tol;
  if (!(tol > 0.0)) {
    const double dim = static_cast<double>(std::max(M, n));
    tol = 10.0 * kEps * norm1 * dim * std::max({wn, p.f_min, std::numeric_limits<double>::min()});
  }
  const int maxit = o.max_iterations > 0 ? o.max_iterations : 3 * n + 30;
  FixedNnls<M> k;
  double* x = ws.x.data();
  int it = 0;
  const int st = k.solve(Jc, ldc, JT, n, w, tol, maxit, p.wt.data(), x, &it);
  res.iterations = it;
  res.status = st == 0 ? Status::kOk : Status::kIterationLimit;

  // finish_result, fused: f_g, residual, norms, loaded set, verdicts.
  double* f = res.f_N.data();
  double rv[M];
  for (int r = 0; r < M; ++r) rv[r] = -w[r];
  double f2 = 0.0, fmax = 0.0, xc2 = 0.0, cwn = 0.0;
  bool finite = true;
  for (int j = 0; j < n; ++j) {
    const double fj = times_pow2(x[j], -p.col_exp[j]);
    f[j] = fj;
    if (fj == 0.0) continue;
    finite = finite && std::isfinite(fj);
    const double* a = Jg + j * ldg;
    double a2 = 0.0;
    for (int r = 0; r < M; ++r) {
      rv[r] += a[r] * fj;
      a2 += a[r] * a[r];
    }
    f2 += fj * fj;
    fmax = std::max(fmax, std::abs(fj));
    xc2 += x[j] * x[j];
    cwn += std::sqrt(a2) * std::abs(fj);
  }
  if (!finite) {
    res.status = Status::kNonFinite;
    res.reason = "the solver produced a non-finite tension";
    return true;
  }
  double r2 = 0.0, res_max = 0.0;
  for (int r = 0; r < M; ++r) {
    r2 += rv[r] * rv[r];
    res_max = std::max(res_max, std::abs(rv[r]));
  }
  // Squares that under- or overflow (tiny tensions beside a large f_min, ...): safe_norm.
  const auto in_range = [](double v) { return v == 0.0 || (v >= 0x1p-480 && v < 0x1p480); };
  res.residual_norm = in_range(res_max) ? std::sqrt(r2) : safe_norm(Eigen::Map<const Eigen::VectorXd>(rv, M));
  res.tension_norm = in_range(fmax) ? std::sqrt(f2) : safe_norm(res.f_N);
  res.loaded_mask = 0;
  res.loaded_count = 0;
  const double noise = 1e-12 * fmax;
  for (int j = 0; j < n; ++j)
    if (f[j] > noise) {
      res.loaded_mask |= std::uint64_t{1} << j;
      ++res.loaded_count;
    }
  if (res.status == Status::kIterationLimit) {
    res.reason = "the active-set iteration cap was reached";
    return true;
  }
  const double jc_norm = std::sqrt(jc2);
  bool singular_J = false;
  if (n >= M) {
    const double proven = k.sigma_min_lower_bound() / (jc_norm * std::sqrt(static_cast<double>(M)));
    if (!(proven >= 2.0 * std::max(o.singular_rtol, o.rank_rtol) + 1e-10)) {
      double ratio = 1.0;
      ws.mnls.factor(Jc, static_cast<int>(ldc), M, n, o.rank_rtol, &ratio);
      singular_J = ratio < o.singular_rtol;
    }
  }
  const bool amplified = wn > 0.0 && std::sqrt(xc2) * jc_norm > o.amplification_limit * wn;
  if (singular_J || amplified) {
    res.status = Status::kNearSingular;
    res.reason = singular_J ? "the column-equilibrated J is near rank-deficient (pivot ratio below "
                              "singular_rtol)"
                            : "the tensions amplify the wrench by more than amplification_limit";
    return true;
  }
  const double dim = static_cast<double>(M + n);
  const double limit = o.infeasible_rtol * wn + 8.0 * dim * kEps * (cwn + wn);
  if (res.residual_norm > limit) {
    res.status = Status::kInfeasible;
    res.reason =
        "no tensions within the bounds meet the wrench: |J f - w| / |w| is above "
        "infeasible_rtol";
  }
  return true;
}

void solve_lawson_hanson_general(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res) {
  // Solved on the column-equilibrated Jc (unknowns x_c = f_g .* 2^e_j); the entering column is
  // chosen by the gradient of the unscaled problem (weights 2^e_j), as in lsqnonneg.
  const int n = static_cast<int>(p.J.cols());
  ws.lo.head(n).setZero();
  ws.hi.head(n).setConstant(std::numeric_limits<double>::infinity());
  int it = 0;
  const int st = bounded_least_squares(p, o, ws, ws.lo.data(), ws.hi.data(), ws.x.data(), &it);
  for (int j = 0; j < n; ++j) res.f_N[j] = times_pow2(ws.x[j], -p.col_exp[j]);
  res.iterations = it;
  res.status = st == 0 ? Status::kOk : Status::kIterationLimit;
  finish_result(p, o, ws, res, true, 0.0, ws.bls_on_Jc ? &ws.bls.qr() : nullptr);
}

}  // namespace

void solve_lawson_hanson(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res) {
  if (!o.lawson_hanson_reference && p.J.cols() <= 64) {
    bool done = false;
    switch (p.J.rows()) {
      case 1: done = lawson_hanson_fixed<1>(p, o, ws, res); break;
      case 2: done = lawson_hanson_fixed<2>(p, o, ws, res); break;
      case 3: done = lawson_hanson_fixed<3>(p, o, ws, res); break;
      case 4: done = lawson_hanson_fixed<4>(p, o, ws, res); break;
      case 5: done = lawson_hanson_fixed<5>(p, o, ws, res); break;
      case 6: done = lawson_hanson_fixed<6>(p, o, ws, res); break;
      default: break;
    }
    if (done) return;
  }
  solve_lawson_hanson_general(p, o, ws, res);
}

}  // namespace tendyn::cdpr::detail
