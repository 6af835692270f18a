// The exhaustive method of document 002 ("NNLS with outlier exclusion"), steps 1-6:
//  1) all non-empty loaded subsets (bit masks 1 .. 2^n - 1);
//  2) columns of unloaded cables are dropped (equivalent to zeroing them);
//  3) minimum-norm least squares per subset, negatives zeroed;
//  4) outliers among the solution norms rejected: norm > Q3 + k (Q3 - Q1), quartiles by linear
//     interpolation between order statistics (Hyndman & Fan type 7, as R's default);
//  5) residual |J f - w| rounded to residual_precision |w|; keep the smallest;
//  6) among those the smallest |f| (ties within norm_tie_rtol); ties -> most loaded cables, then
//     the last subset in enumeration order ("the last vector found").
//
// Step 3, updating kernel (default). The subsets are visited depth-first on the tree whose node S
// has the children S + {j}, j < min S, so every subset's factorisation is its parent's plus one
// column and nothing is ever removed (no downdates); columns enter in descending index order:
//  * tall subsets (k <= m columns): A_S = Q R by modified Gram-Schmidt with one
//    re-orthogonalisation pass (Giraud, Langou, Rozloznik 2005: "twice is enough"), plus R^-1
//    grown a column at a time; x = R^-1 (Q^T w). O(m k) per new column.
//  * wide subsets (k > m): the min-norm solution x = A_S^T y with y = P w, P = (A_S A_S^T)^-1.
//    At the first wide level P = B B^T, B = Q R^-T from the square tall factors; every further
//    column a is a rank-one update A_S A_S^T + a a^T, so P and y follow by Sherman-Morrison
//    (Golub & Van Loan, 4th ed., 2.1.4), denominator 1 + a^T P a >= 1 (an update, never a
//    downdate). O(m^2 + m k) per subset, no square roots. This is the normal-equation route:
//    its x carries ~eps kappa^2 errors, so (i) subsets must pass the condition bound below, and
//    (ii) when the residual matters (a tension was clipped, or residual_precision < 1e-8) and
//    its error bound 16 eps kappa_bound^2 |w| is not 1e4 times below the rounding unit
//    residual_precision |w|, one step of iterative refinement x += A_S^T P (w - A_S x) brings it
//    to ~eps kappa (the corrected semi-normal equations, Bjorck 1996, sec. 2.5.4). When nothing
//    is clipped and
//    residual_precision >= 1e-8 the residual is rounding noise (< 1e-9 |w| at kappa <= 1e4) whose
//    rounded key is 0 for either kernel, and it is stored as 0.
//    Chosen over Gray-code order with QR column updates/downdates: the depth-first tree needs no
//    downdate (the unstable half), and the update costs O(m^2) without square roots.
//  A subset is solved this way only when its condition bound kappa <= |A_S|_F |R^-1|_F (tall;
//  wide: the R^-1 of its first m (highest) columns, since adding columns cannot lower sigma_min) is at most
//  1e4 (and 0.01 / (rank_rtol sqrt(m))); then the reference QR below would find full rank too.
//  Every other subset (rank deficient, near singular: the document's example-4 outliers) is
//  solved by the reference kernel, so its numbers are exactly the reference's.
//  Tall subsets use Gram-Schmidt rather than the normal equations A_S^T A_S (which square kappa
//  in the least-squares residual that step 5 rounds).
// Step 3, reference kernel (options.exhaustive_refactor, the issue-5 code): every subset from
//  scratch by MinNormLS (Householder QR with column pivoting of A_S^T, rank-revealing).
// The selected subset is always re-solved by the reference kernel, so the returned tensions are
// the reference kernel's whenever both kernels select the same subset.
// Threads: the tree is cut into 2^d subtrees by the choices on the top d columns; each subset's
// factorisation is still built from its columns in descending order, so every norm and residual is
// bit-identical for any thread count, and the selection (steps 4-6) runs serially in subset order.
// No allocation per subset (and none at all with one thread after the first call of a size).
#include <tendyn/core/error.hpp>
#include <tendyn/core/parallel.hpp>
#include <tendyn/core/worker_pool.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "tension_internal.hpp"

namespace tendyn::cdpr::detail {

ExhaustiveScratch::ExhaustiveScratch(int rows, int cols)
    : Q(static_cast<std::size_t>(rows) * rows),
      R(static_cast<std::size_t>(rows) * rows),
      Ri(static_cast<std::size_t>(rows) * rows),
      c(static_cast<std::size_t>(rows)),
      a2(static_cast<std::size_t>(cols) + 1),
      ri2(static_cast<std::size_t>(cols) + 1),
      colsq(static_cast<std::size_t>(cols)),
      B(static_cast<std::size_t>(rows) * rows),
      P((static_cast<std::size_t>(cols) + 1) * rows * rows),
      y((static_cast<std::size_t>(cols) + 1) * rows),
      x(static_cast<std::size_t>(cols)),
      r(static_cast<std::size_t>(rows)),
      t(static_cast<std::size_t>(rows)),
      cols(static_cast<std::size_t>(cols)),
      idx(static_cast<std::size_t>(cols)),
      colbuf(static_cast<std::size_t>(rows) * cols),
      mnls(rows, cols) {}

namespace {

/// Subsets with a larger condition bound go to the reference kernel. The wide subsets' norms carry
/// errors up to ~eps kappa^2 (1e-8 relative at 1e4); their residuals are refined (see above).
constexpr double kCondLimit = 1e4;

/// Q(p) of v[0, count) by type-7 interpolation between order statistics (Hyndman & Fan, as R's
/// default), given that v[from, count) holds exactly the elements of rank >= from (from = 0: no
/// precondition). Reorders v; returns the lower order statistic's rank.
std::size_t quantile_type7(std::vector<double>& v, std::size_t from, std::size_t count, double p, double& q) {
  const auto at = [&](std::size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
  const double h = static_cast<double>(count - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  std::nth_element(at(from), at(lo), at(count));
  const double a = v[lo];
  if (lo + 1 >= count) {
    q = a;
    return lo;
  }
  const double b = *std::min_element(at(lo + 1), at(count));
  q = a + (h - static_cast<double>(lo)) * (b - a);
  return lo;
}

}  // namespace

void order_statistics(const double* v, std::size_t count, const std::size_t* ranks, int k, double* out, std::vector<std::uint32_t>& hist,
                      double* buf) {
  constexpr int kBits = 16;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  // IEEE total order as unsigned integers: negative values bit-inverted, positive ones offset.
  const auto bucket_of = [](double x) {
    const auto b = std::bit_cast<std::uint64_t>(x);
    return static_cast<std::uint32_t>(((b >> 63) != 0 ? ~b : b | (std::uint64_t{1} << 63)) >> (64 - kBits));
  };
  if (k < 1 || k > 4) throw Error("order_statistics: 1 to 4 ranks, got " + std::to_string(k));
  hist.assign(kBuckets, 0);
  for (std::size_t s = 0; s < count; ++s) ++hist[bucket_of(v[s])];
  // Each rank's bucket and its rank inside the bucket (ranks non-decreasing).
  std::uint32_t bucket[4] = {};
  std::size_t inner[4] = {};
  int r = 0;
  std::size_t below = 0;
  for (std::size_t b = 0; b < kBuckets && r < k; ++b) {
    for (; r < k && ranks[r] < below + hist[b]; ++r) {
      bucket[r] = static_cast<std::uint32_t>(b);
      inner[r] = ranks[r] - below;
    }
    below += hist[b];
  }
  if (r < k) throw Error("order_statistics: rank " + std::to_string(ranks[r]) + " of " + std::to_string(count) + " values");
  // The distinct buckets, their segments in buf, and one gathering pass.
  std::uint32_t distinct[4];
  std::size_t begin[4], fill[4];
  int nd = 0;
  std::size_t total = 0;
  for (int i = 0; i < k; ++i)
    if (nd == 0 || distinct[nd - 1] != bucket[i]) {
      distinct[nd] = bucket[i];
      begin[nd] = fill[nd] = total;
      total += hist[bucket[i]];
      ++nd;
    }
  for (std::size_t s = 0; s < count; ++s) {
    const std::uint32_t b = bucket_of(v[s]);
    for (int j = 0; j < nd; ++j)
      if (b == distinct[j]) {
        buf[fill[j]++] = v[s];
        break;
      }
  }
  for (int i = 0, j = 0; i < k; ++i) {
    while (distinct[j] != bucket[i]) ++j;
    double* seg = buf + begin[j];
    std::nth_element(seg, seg + inner[i], seg + hist[distinct[j]]);
    out[i] = seg[inner[i]];
  }
}

namespace {

/// From this many subsets (n >= 16 columns) on the quartiles come from order_statistics (two
/// passes over the norms, O(count + 2^16), ~2 ms at n = 20) instead of two nth_element selections
/// on a copy the workers write (~10 ms at n = 20, two threads each on its own copy before).
constexpr std::size_t kHistogramQuartiles = (std::size_t{1} << 16) - 1;

/// The quartiles q1 = Q(0.25), q3 = Q(0.75) of the norms (type 7). Below kHistogramQuartiles
/// subsets: two selections on `copy` (reordered; the second on the part above the first
/// quartile's order statistic, where nth_element leaves the larger elements). From it on: the
/// four order statistics from order_statistics on `norms` (copy: its gather buffer). Order
/// statistics are unique values, so the quartiles are the same either way.
void quartiles_type7(const std::vector<double>& norms, std::vector<double>& copy, std::vector<std::uint32_t>& hist, std::size_t count,
                     double& q1, double& q3) {
  if (count < kHistogramQuartiles) {
    const std::size_t lo1 = quantile_type7(copy, 0, count, 0.25, q1);
    quantile_type7(copy, lo1, count, 0.75, q3);
    return;
  }
  const double h1 = static_cast<double>(count - 1) * 0.25, h3 = static_cast<double>(count - 1) * 0.75;
  const auto lo1 = static_cast<std::size_t>(std::floor(h1)), lo3 = static_cast<std::size_t>(std::floor(h3));
  const std::size_t ranks[4] = {lo1, lo1 + 1, lo3, lo3 + 1};  // lo3 + 1 < count here
  double x[4];
  order_statistics(norms.data(), count, ranks, 4, x, hist, copy.data());
  q1 = x[0] + (h1 - static_cast<double>(lo1)) * (x[1] - x[0]);  // as quantile_type7
  q3 = x[2] + (h3 - static_cast<double>(lo3)) * (x[3] - x[2]);
}

/// Step 3's tail, shared by both kernels: negatives of x (k) zeroed, |x| and |w - A_S x| with
/// column j of A_S at col(j). The loop order is the issue-5 code's.
template <class Col>
void clip_and_measure(int m, int k, const double* w, double* x, double* r, Col col, double& norm, double& resid) {
  double n2 = 0.0;
  for (int q = 0; q < m; ++q) r[q] = w[q];
  for (int j = 0; j < k; ++j) {
    double v = x[j];
    if (!(v > 0.0)) v = 0.0;  // step 3: negative tensions are zeroed
    x[j] = v;
    if (v == 0.0) continue;
    n2 += v * v;
    const double* a = col(j);
    for (int q = 0; q < m; ++q) r[q] -= v * a[q];
  }
  double r2 = 0.0;
  for (int q = 0; q < m; ++q) r2 += r[q] * r[q];
  norm = std::sqrt(n2);
  resid = std::sqrt(r2);
}

/// The reference kernel for one subset: gather, rank-revealing min-norm QR, clip, measure.
/// Leaves the subset's columns in idx and its clipped solution in xs; returns the size.
int solve_subset_reference(const Scaled& p, const SolverOptions& o, MinNormLS& mnls, double* buf, int* idx, double* xs, double* r,
                           std::uint32_t mask, double& norm, double& resid) {
  const auto& J = p.J;
  const int m = static_cast<int>(J.rows());
  int k = 0;
  for (std::uint32_t b = mask; b != 0; b &= b - 1) {
    const int i = std::countr_zero(b);
    const double* src = J.data() + static_cast<std::ptrdiff_t>(i) * J.outerStride();
    double* dst = buf + static_cast<std::ptrdiff_t>(k) * m;
    for (int q = 0; q < m; ++q) dst[q] = src[q];
    idx[k++] = i;
  }
  mnls.solve(buf, m, m, k, p.w.data(), xs, o.rank_rtol);
  clip_and_measure(
      m, k, p.w.data(), xs, r, [&](int j) { return buf + static_cast<std::ptrdiff_t>(j) * m; }, norm, resid);
  return k;
}

/// Where a subset's results go (slot = mask - 1): its solution norm (twice: the selection's copy
/// and the quantiles' scratch, written by the worker threads instead of one serial copy
/// afterwards) and its rounded residual key nearbyint(|r| / unit) of step 5, also computed by the
/// workers. The same arithmetic as the serial passes it replaces.
struct SubsetOut {
  double* norms;
  double* norms_copy;  ///< a copy for the quartiles' selections, or nullptr (histogram quartiles)
  double* keys;
  double unit;  ///< residual_precision |w|
  void store(std::size_t slot, double norm, double resid) const {
    norms[slot] = norm;
    if (norms_copy != nullptr) norms_copy[slot] = norm;
    keys[slot] = std::nearbyint(resid / unit);
  }
};

/// Depth-first walk of the subset tree with factorisations updated one column at a time.
/// M > 0: the row count as a compile-time constant (loops unrolled); M = 0: any m.
template <int M>
class Walker {
  static constexpr int kLocal = M > 0 ? M : 1;

 public:
  Walker(const Scaled& p, const SolverOptions& o, ExhaustiveScratch& s, const SubsetOut& out) : p_(p), o_(o), s_(s), out_(out) {
    m_ = M > 0 ? M : static_cast<int>(p.J.rows());
    n_ = static_cast<int>(p.J.cols());
    J_ = p.J.data();
    ld_ = p.J.outerStride();
    w_ = p.w.data();
    cond_limit_ = std::min(kCondLimit, 0.01 / (o.rank_rtol * std::sqrt(static_cast<double>(m_))));
    zero_wide_residual_ = o.residual_precision >= 1e-8;
    wn_ = p.w.norm();
    unit_ = out.unit;
    for (int j = 0; j < n_; ++j) {
      const double* a = col(j);
      double an = 0.0;
      for (int q = 0; q < m_; ++q) an += a[q] * a[q];
      s_.colsq[static_cast<std::size_t>(j)] = an;
    }
  }

  /// Every subset whose intersection with the columns [0, d) is `prefix` (the empty subset
  /// excluded).
  /// Columns are added in descending index order: the deep levels of the walk then vary the low
  /// bits of the mask, so consecutive subsets store their norm and residual close together (with
  /// ascending order they land 2^(n-1) slots apart: a cache miss per subset from n ~ 18 on).
  /// `task` in [0, 2^d) fixes the choices on the top d columns [n - d, n).
  void run(std::uint32_t task, int d) {
    k_ = 0;
    mask_ = 0;
    s_.a2[0] = 0.0;
    s_.ri2[0] = 0.0;
    const std::uint32_t prefix = d > 0 ? task << (n_ - d) : 0;
    for (int j = n_ - 1; j >= n_ - d; --j)
      if ((prefix >> j) & 1u) push(j);
    if (prefix != 0) evaluate();
    walk(n_ - d - 1);
  }

 private:
  [[nodiscard]] int m() const { return M > 0 ? M : m_; }
  const double* col(int j) const { return J_ + static_cast<std::ptrdiff_t>(j) * ld_; }
  double* P(int level) { return s_.P.data() + static_cast<std::ptrdiff_t>(level) * m() * m(); }
  double* y(int level) { return s_.y.data() + static_cast<std::ptrdiff_t>(level) * m(); }

  void walk(int start) {
    for (int j = start; j >= 0; --j) {
      push(j);
      evaluate();
      walk(j - 1);
      --k_;
      mask_ &= ~(std::uint32_t{1} << j);
    }
  }

  void push(int j) {
    const double* a = col(j);
    const int m = this->m();
    s_.cols[static_cast<std::size_t>(k_)] = j;
    s_.a2[static_cast<std::size_t>(k_) + 1] = s_.a2[static_cast<std::size_t>(k_)] + s_.colsq[static_cast<std::size_t>(j)];
    if (k_ < m) {
      append_tall(a);
    } else {
      if (k_ == m) start_wide();
      append_wide(a);
    }
    ++k_;
    mask_ |= std::uint32_t{1} << j;
  }

  // New column k_ of Q, R and R^-1 (k_ < m): modified Gram-Schmidt, twice.
  void append_tall(const double* a) {
    const int m = this->m(), k = k_;
    double* Q = s_.Q.data();
    double* qk = Q + static_cast<std::ptrdiff_t>(k) * m;
    double* rk = s_.R.data() + static_cast<std::ptrdiff_t>(k) * m;
    double vbuf[kLocal];  // the new column in registers while the others are projected out
    double* v = M > 0 ? vbuf : qk;
    for (int q = 0; q < m; ++q) v[q] = a[q];
    for (int i = 0; i < k; ++i) rk[i] = 0.0;
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < k; ++i) {
        const double* qi = Q + static_cast<std::ptrdiff_t>(i) * m;
        double h = 0.0;
        for (int q = 0; q < m; ++q) h += qi[q] * v[q];
        rk[i] += h;
        for (int q = 0; q < m; ++q) v[q] -= h * qi[q];
      }
    }
    double nv = 0.0;
    for (int q = 0; q < m; ++q) nv += v[q] * v[q];
    nv = std::sqrt(nv);
    rk[k] = nv;
    const double inv = 1.0 / nv;  // inf for a dependent column: its bound is then inf (fallback)
    double cw = 0.0;
    for (int q = 0; q < m; ++q) {
      qk[q] = v[q] * inv;
      cw += qk[q] * w_[q];
    }
    s_.c[static_cast<std::size_t>(k)] = cw;
    const double* Ri = s_.Ri.data();
    double* rik = s_.Ri.data() + static_cast<std::ptrdiff_t>(k) * m;
    double f2 = inv * inv;
    for (int i = 0; i < k; ++i) {
      double sum = 0.0;
      for (int l = i; l < k; ++l) sum += Ri[i + static_cast<std::ptrdiff_t>(l) * m] * rk[l];
      rik[i] = -sum * inv;
      f2 += rik[i] * rik[i];
    }
    rik[k] = inv;
    s_.ri2[static_cast<std::size_t>(k) + 1] = s_.ri2[static_cast<std::size_t>(k)] + f2;
  }

  // Level m (square A_S = Q R): P = (A_S A_S^T)^-1 = B B^T with B = Q R^-T, and y = P w.
  void start_wide() {
    const int m = this->m();
    const double* Q = s_.Q.data();
    const double* Ri = s_.Ri.data();
    double* B = s_.B.data();
    for (int i = 0; i < m; ++i)  // column i of B = sum_{l >= i} Ri(i, l) Q_l
      for (int q = 0; q < m; ++q) {
        double sum = 0.0;
        for (int l = i; l < m; ++l) sum += Q[q + static_cast<std::ptrdiff_t>(l) * m] * Ri[i + static_cast<std::ptrdiff_t>(l) * m];
        B[q + static_cast<std::ptrdiff_t>(i) * m] = sum;
      }
    double* P0 = P(m);
    for (int c = 0; c < m; ++c)
      for (int r = 0; r <= c; ++r) {  // symmetric: the upper triangle, mirrored
        double sum = 0.0;
        for (int i = 0; i < m; ++i) sum += B[r + static_cast<std::ptrdiff_t>(i) * m] * B[c + static_cast<std::ptrdiff_t>(i) * m];
        P0[r + static_cast<std::ptrdiff_t>(c) * m] = sum;
        P0[c + static_cast<std::ptrdiff_t>(r) * m] = sum;
      }
    double* y0 = y(m);
    for (int r = 0; r < m; ++r) {
      double sum = 0.0;
      for (int c = 0; c < m; ++c) sum += P0[r + static_cast<std::ptrdiff_t>(c) * m] * w_[c];
      y0[r] = sum;
    }
  }

  // Level k_ -> k_ + 1 > m: Sherman-Morrison on P = (A_S A_S^T)^-1 for the added column a
  // (a rank-one update of A_S A_S^T, so 1 + a^T P a >= 1), and y = P w alongside.
  void append_wide(const double* a) {
    const int m = this->m();
    const double* Pk = P(k_);
    double* Pn = P(k_ + 1);
    const double* yk = y(k_);
    double* yn = y(k_ + 1);
    double gbuf[kLocal];  // a local g stays in registers (it cannot alias P or y)
    double* g = M > 0 ? gbuf : s_.t.data();
    for (int r = 0; r < m; ++r) g[r] = 0.0;
    for (int c = 0; c < m; ++c) {
      const double* pc = Pk + static_cast<std::ptrdiff_t>(c) * m;
      for (int r = 0; r < m; ++r) g[r] += pc[r] * a[c];
    }
    double ag = 0.0, ay = 0.0;
    for (int r = 0; r < m; ++r) {
      ag += a[r] * g[r];
      ay += a[r] * yk[r];
    }
    const double inv_d = 1.0 / (1.0 + ag);
    const double t = ay * inv_d;
    for (int r = 0; r < m; ++r) yn[r] = yk[r] - t * g[r];
    for (int c = 0; c < m; ++c) {
      const double gc = g[c] * inv_d;
      const double* pc = Pk + static_cast<std::ptrdiff_t>(c) * m;
      double* nc = Pn + static_cast<std::ptrdiff_t>(c) * m;
      for (int r = 0; r < m; ++r) nc[r] = pc[r] - g[r] * gc;
    }
  }

  void evaluate() {
    const int m = this->m(), k = k_;
    double* x = s_.x.data();
    const std::size_t slot = mask_ - 1;
    const double bound2 = s_.a2[static_cast<std::size_t>(k)] * s_.ri2[static_cast<std::size_t>(std::min(k, m))];
    if (!(bound2 <= cond_limit_ * cond_limit_)) {  // rank deficient or near singular: reference
      double nrm = 0.0, rs = 0.0;
      solve_subset_reference(p_, o_, s_.mnls, s_.colbuf.data(), s_.idx.data(), x, s_.r.data(), mask_, nrm, rs);
      out_.store(slot, nrm, rs);
      return;
    }
    if (k <= m) {
      const double* Ri = s_.Ri.data();
      const double* c = s_.c.data();
      for (int i = 0; i < k; ++i) {
        double sum = 0.0;
        for (int l = i; l < k; ++l) sum += Ri[i + static_cast<std::ptrdiff_t>(l) * m] * c[l];
        x[i] = sum;
      }
    } else {
      const double* yk = y(k);
      bool positive = true;
      double n2 = 0.0;
      for (int j = 0; j < k; ++j) {
        const double* a = col(s_.cols[static_cast<std::size_t>(j)]);
        double sum = 0.0;
        for (int q = 0; q < m; ++q) sum += a[q] * yk[q];
        x[j] = sum;
        positive = positive && sum > 0.0;
        n2 += sum * sum;
      }
      if (positive && zero_wide_residual_) {
        // Nothing clipped and A_S has full row rank: J f = w, the residual is rounding noise
        // (< 1e-9 |w| for kappa <= 1e4) and its rounded key is 0 either way.
        out_.store(slot, std::sqrt(n2), 0.0);
        return;
      }
      // The residual decides. Its error without refinement is ~eps kappa^2 |w| <= eps bound2 |w|;
      // when that is not 1e4 times below the rounding unit, one step of iterative refinement
      // (the corrected semi-normal equations, Bjorck 1996, sec. 2.5.4): x += A_S^T P (w - A_S x).
      if (16.0 * std::numeric_limits<double>::epsilon() * bound2 * wn_ > 1e-4 * unit_) refine(x);
    }
    double nrm = 0.0, rs = 0.0;
    clip_and_measure(
        m, k, w_, x, s_.r.data(), [&](int j) { return col(s_.cols[static_cast<std::size_t>(j)]); }, nrm, rs);
    out_.store(slot, nrm, rs);
  }

  void refine(double* x) {
    const int m = this->m(), k = k_;
    {
      double* r = s_.r.data();
      for (int q = 0; q < m; ++q) r[q] = w_[q];
      for (int j = 0; j < k; ++j) {
        const double* a = col(s_.cols[static_cast<std::size_t>(j)]);
        for (int q = 0; q < m; ++q) r[q] -= x[j] * a[q];
      }
      const double* Pk = P(k);
      double dbuf[kLocal];
      double* dy = M > 0 ? dbuf : s_.t.data();
      for (int q = 0; q < m; ++q) dy[q] = 0.0;
      for (int c = 0; c < m; ++c) {
        const double* pc = Pk + static_cast<std::ptrdiff_t>(c) * m;
        for (int q = 0; q < m; ++q) dy[q] += pc[q] * r[c];
      }
      for (int j = 0; j < k; ++j) {
        const double* a = col(s_.cols[static_cast<std::size_t>(j)]);
        double sum = 0.0;
        for (int q = 0; q < m; ++q) sum += a[q] * dy[q];
        x[j] += sum;
      }
    }
  }

  const Scaled& p_;
  const SolverOptions& o_;
  ExhaustiveScratch& s_;
  const SubsetOut& out_;
  int m_ = 0, n_ = 0, k_ = 0;
  const double* J_ = nullptr;
  Eigen::Index ld_ = 0;
  const double* w_ = nullptr;
  double cond_limit_ = 0.0;
  bool zero_wide_residual_ = true;
  double wn_ = 0.0, unit_ = 0.0;  // |w|, the residual rounding unit residual_precision |w|
  std::uint32_t mask_ = 0;
};

/// Runs the walk for task `task` of 2^d (or the whole tree for d = 0) with m as a constant.
template <int M>
void walk_task(const Scaled& p, const SolverOptions& o, ExhaustiveScratch& s, const SubsetOut& out, std::uint32_t task, int d) {
  Walker<M>(p, o, s, out).run(task, d);
}

void walk_task_any(const Scaled& p, const SolverOptions& o, ExhaustiveScratch& s, const SubsetOut& out, std::uint32_t task, int d) {
  switch (p.J.rows()) {
    case 1: walk_task<1>(p, o, s, out, task, d); break;
    case 2: walk_task<2>(p, o, s, out, task, d); break;
    case 3: walk_task<3>(p, o, s, out, task, d); break;
    case 4: walk_task<4>(p, o, s, out, task, d); break;
    case 5: walk_task<5>(p, o, s, out, task, d); break;
    case 6: walk_task<6>(p, o, s, out, task, d); break;
    default: walk_task<0>(p, o, s, out, task, d); break;
  }
}

}  // namespace

void solve_exhaustive(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res) {
  const auto& w = p.w;
  const int n = static_cast<int>(p.J.cols());
  if (n > 24) throw Error("tension (exhaustive): at most 24 cables (2^24 subsets); got " + std::to_string(n) + " - use the exact method");
  const double wn = w.norm();
  if (wn == 0.0) {  // the document requires a non-zero right-hand side; f = 0 is exact
    finish_result(p, o, ws, res);
    return;
  }
  const std::size_t count = (std::size_t{1} << n) - 1;
  if (ws.norms.size() < count) {  // once per problem size
    ws.norms.resize(count);
    ws.resid.resize(count);
    ws.sorted.resize(count);
  }

  const double unit = o.residual_precision * wn;
  // Threads only pay from about a thousand subsets on (waking a worker costs microseconds to tens of us).
  const int threads = o.exhaustive_refactor || count < 1024 ? 1 : parallel_thread_count(static_cast<long>(count), o.threads);
  const SubsetOut out{ws.norms.data(), count < kHistogramQuartiles ? ws.sorted.data() : nullptr, ws.resid.data(), unit};
  if (o.exhaustive_refactor) {
    for (std::size_t s = 0; s < count; ++s) {
      double nrm = 0.0, rs = 0.0;
      solve_subset_reference(p, o, ws.mnls, ws.colbuf.data(), ws.idx.data(), ws.x.data(), ws.r.data(), static_cast<std::uint32_t>(s + 1),
                             nrm, rs);
      out.store(s, nrm, rs);
    }
  } else {
    // 2^d subtrees, about 32 per thread: the subtrees with many top columns set hold only wide
    // (dearer) subsets, and fine tasks taken in turn from a shared counter even this out.
    int d = 0;
    if (threads > 1) d = std::min(n - 1, static_cast<int>(std::bit_width(static_cast<unsigned>(threads - 1))) + 5);
    while (ws.ex.size() < static_cast<std::size_t>(threads)) ws.ex.emplace_back(ws.max_rows, ws.max_cols);
    if (threads == 1) {
      walk_task_any(p, o, ws.ex[0], out, 0, 0);
    } else {
      const std::uint32_t tasks = std::uint32_t{1} << d;
      std::atomic<std::uint32_t> next{0};
      WorkerPool::shared().run(threads, [&](int t) {  // persistent workers: no thread start per solve
        auto& scratch = ws.ex[static_cast<std::size_t>(t)];
        for (std::uint32_t task = next.fetch_add(1); task < tasks; task = next.fetch_add(1)) walk_task_any(p, o, scratch, out, task, d);
      });
    }
  }

  // Step 4: interquartile-range outlier rule on the solution norms.
  double q1 = 0.0, q3 = 0.0;
  quartiles_type7(ws.norms, ws.sorted, ws.hist, count, q1, q3);
  const double threshold = q3 + o.iqr_coefficient * (q3 - q1);

  // Steps 5 and 6 in one pass over the rounded residual keys (ws.resid): the smallest key among
  // the non-outliers, and among the subsets with that key the minimum norm, then the most loaded
  // cables, then the last one found. A smaller key restarts the candidates, so the candidates of
  // the final key are met in the same order as by a separate step-6 pass.
  double best_key_all = HUGE_VAL, best_key = HUGE_VAL;
  int outliers = 0;
  std::size_t best = count;
  double best_norm = HUGE_VAL;
  int best_pop = -1;
  for (std::size_t s = 0; s < count; ++s) {
    const double key = ws.resid[s];
    best_key_all = std::min(best_key_all, key);
    const double nrm = ws.norms[s];
    if (nrm > threshold) {
      ++outliers;
      continue;
    }
    if (!(key <= best_key)) continue;  // (a NaN key is never a candidate, as before)
    if (key < best_key) {
      best_key = key;
      best = count;
    }
    const int pop = std::popcount(static_cast<std::uint32_t>(s + 1));
    bool take = best == count;
    if (!take) {
      const double tie = o.norm_tie_rtol * std::max(best_norm, nrm);
      take = nrm < best_norm - tie || (nrm <= best_norm + tie && pop >= best_pop);
    }
    if (take) {
      best = s;
      best_norm = nrm;
      best_pop = pop;
    }
  }
  double nrm = 0.0, rs = 0.0;
  const int k = solve_subset_reference(p, o, ws.mnls, ws.colbuf.data(), ws.idx.data(), ws.x.data(), ws.r.data(),
                                       static_cast<std::uint32_t>(best + 1), nrm, rs);
  for (int j = 0; j < k; ++j) res.f_N[ws.idx[j]] = ws.x[j];
  res.iterations = static_cast<int>(count);
  res.outliers = outliers;
  finish_result(p, o, ws, res);
  // The document's example 4: the smallest residuals belong to outlier (near-singular) subsets.
  if (best_key_all < best_key && res.status != Status::kIterationLimit) {
    res.status = Status::kNearSingular;
    res.reason = "the smallest residuals belong to outlier subsets (near-singular subsets)";
  }
}

}  // namespace tendyn::cdpr::detail
