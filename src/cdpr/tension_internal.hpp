// Internal: the workspace of the tension solvers and the per-method entry points.
#pragma once
#include <tendyn/cdpr/tension.hpp>

#include <Eigen/Core>
#include <Eigen/QR>

#include <bit>
#include <cmath>
#include <cstdint>

#include <vector>

#include "dense_kernels.hpp"

namespace tendyn::cdpr {

namespace detail {

/// Per-thread scratch of the updating exhaustive kernel (exhaustive.cpp), sized for m <= rows,
/// n <= cols. Tall subsets (k <= m columns) keep A_S = Q R by Gram-Schmidt with
/// re-orthogonalisation and R^-1; wide ones (k > m) P = (A_S A_S^T)^-1 and P w by
/// Sherman-Morrison updates, one m x m matrix per level of the depth-first walk.
struct ExhaustiveScratch {
  ExhaustiveScratch(int rows, int cols);
  std::vector<double> Q, R, Ri;  // m x m each (column-major, leading dimension m)
  std::vector<double> c;         // m: Q^T w
  std::vector<double> a2, ri2;   // n + 1: |A_S|_F^2 and |R^-1|_F^2 per level
  std::vector<double> colsq;     // n: |J_j|^2
  std::vector<double> B;         // m x m: Q R^-T at level m
  std::vector<double> P, y;      // per level >= m: (A_S A_S^T)^-1 (m x m) and P w (m)
  std::vector<double> x, r, t;   // n, m, m
  std::vector<int> cols;         // n: the current subset's columns, descending
  std::vector<int> idx;          // n: the fallback's gathered column indices
  std::vector<double> colbuf;    // m x n: gathered columns of the reference fallback
  MinNormLS mnls;                // the reference fallback
};

}  // namespace detail

struct Workspace::Impl {
  Impl(int max_rows, int max_cols);
  int max_rows, max_cols;
  detail::MinNormLS mnls;                     // m x n problems
  detail::BoundedLS bls;                      // m x n
  detail::BoundedLS ldp;                      // (n + 1) x 2n (least-distance problem of the exact solver)
  Eigen::VectorXd lo, hi, x, x2, fm, rhs, r;  // n / m scratch
  std::vector<double> colbuf;                 // m x n gathered columns
  std::vector<int> idx;                       // n
  // exhaustive
  std::vector<double> norms, resid, sorted;   // 2^n - 1 each (n <= 24): norms, residual keys, copy
  std::vector<std::uint32_t> hist;            // 2^16 buckets of order_statistics (2^n - 1 >= 2^16)
  std::vector<detail::ExhaustiveScratch> ex;  // one per thread (sized by the first call)
  // exact
  Eigen::MatrixXd Jt, Q, N, E;
  Eigen::VectorXd hv, ev, u, hwork, tm, zbuf, fldp;
  std::vector<double> lo2, hi2, xf;  // 2n zeros, 2n infinities, n
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr;
  // equilibration (tension.cpp)
  Eigen::MatrixXd Jg, Jc;      // max_rows x max_cols: J 2^-a; J 2^-a diag(2^-e_j)
  Eigen::VectorXd wg, fg, wt;  // m: scaled wrench; n: scaled tensions, column weights 2^e_j
  std::vector<int> col_exp;    // n: e_j
  Eigen::MatrixXd Jr;          // max_rows x max_cols: D Jc (rows equilibrated, fallback solve)
  Eigen::VectorXd wr, xr;      // m: D w; n: the fallback's unknowns
  bool bls_on_Jc = false;      // the last bls.solve ran on the scaled problem's Jc
};

namespace detail {

/// x 2^e, bit-identical to std::ldexp(x, e) (a product with a power of two is exact, or correctly
/// rounded when it under- or overflows), without a library call when 2^e is a normal number.
inline double times_pow2(double x, int e) {
  if (e >= -1022 && e <= 1023) return x * std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
  return std::ldexp(x, e);
}

/// std::ilogb(x) for finite x != 0, reading the exponent field of a normal number directly (no
/// library call); zero, subnormal and non-finite x go to std::ilogb.
inline int fast_ilogb(double x) {
  const int field = static_cast<int>((std::bit_cast<std::uint64_t>(x) >> 52) & 0x7ff);
  if (field != 0 && field != 0x7ff) return field - 1023;
  return std::ilogb(x);
}

/// |v| whose squares neither underflow nor overflow: v.norm() when the largest entry lies in
/// [2^-480, 2^480) (the same bits as before), else the norm of v scaled by the power of two of its
/// largest entry (exact), scaled back. The equilibrated tensions are that small when a bounded
/// problem meets a huge wrench (f_max 3e4 beside |w| 1e300: f_g ~ 1e-296, whose squares were 0).
template <class V>
double safe_norm(const V& v) {
  const double mx = v.template lpNorm<Eigen::Infinity>();
  if (!(mx > 0.0) || !std::isfinite(mx)) return v.norm();
  const int e = fast_ilogb(mx);
  if (e >= -480 && e < 480) return v.norm();
  return times_pow2((v * times_pow2(1.0, -e)).norm(), e);
}

/// The equilibrated problem every method solves (see tension.hpp): tensions f_g = f 2^b.
struct Scaled {
  Eigen::Ref<const Eigen::MatrixXd> J;   ///< (m x n) J 2^-a
  Eigen::Ref<const Eigen::VectorXd> w;   ///< (m) w 2^(b - a)
  Eigen::Ref<const Eigen::MatrixXd> Jc;  ///< (m x n) J 2^-a diag(2^-e_j): columns of max in [0.5, 1)
  Eigen::Ref<const Eigen::VectorXd> wt;  ///< (n) 2^e_j: x_c = f_g .* wt are Jc's unknowns
  const int* col_exp;                    ///< (n) e_j (<= 0)
  double f_min, f_max;                   ///< f_min 2^b, f_max 2^b (f_max may be +inf)
};

}  // namespace detail

namespace detail {

/// Shared post-processing on the scaled problem (res.f_N holds f_g): residual, norms, loaded
/// mask, near-singular / infeasible flags. `status` on entry is the method's own status (ok or
/// iteration_limit). The front end unscales afterwards.
/// `f_floor`: tensions smaller than this still count as this large in the round-off floor of
/// the residual (the closed forms compute f = f_m + correction, so their rounding is relative
/// to f_m, not to f).
/// `passive` (optional): a QR of some columns of p.Jc (the solver's own factorisation of its
/// final free set). When it has m columns its R bounds sigma_min(Jc) from below, which usually
/// proves J is not near singular without the rank-revealing QR of the whole Jc; only when the
/// bound cannot decide is that QR run. The status is the same either way (docs/CDPR.md).
void finish_result(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res, bool exact_target = false,
                   double f_floor = 0.0, GivensQR* passive = nullptr);

/// sum_j |J_j| max(|f_j|, f_floor): the size of the terms of J f (a bound on |J f| that, unlike
/// |J|_F |f|, stays tight when column sizes differ by orders of magnitude). O(m n), no allocation.
double column_weighted_norm(const Eigen::Ref<const Eigen::MatrixXd>& J, const Eigen::Ref<const Eigen::VectorXd>& f, double f_floor = 0.0);

/// |J f - w| above which a result is infeasible: infeasible_rtol (or `rtol`) |w| plus the
/// round-off floor of evaluating J f, 8 (m + n) eps (column_weighted_norm(J, f, f_floor) + |w|),
/// so that w = 0 with an exact f is not called infeasible.
double residual_limit(const Eigen::Ref<const Eigen::MatrixXd>& J, const Eigen::Ref<const Eigen::VectorXd>& w,
                      const Eigen::Ref<const Eigen::VectorXd>& f, double rtol, double f_floor = 0.0);

/// Order statistics without sorting: out[i] = the value of rank ranks[i] (0-based, ascending
/// value) among v[0, count), for k <= 4 ranks given in non-decreasing order, each < count. One
/// pass builds a histogram of the top 16 bits of an order-preserving integer key of each value
/// (IEEE total order), a second gathers the elements of the buckets holding the ranks into buf
/// (count doubles), and std::nth_element selects inside them. v is not reordered. For input
/// without NaN the values equal std::nth_element's on the whole array. Cost O(count + 2^16) plus
/// the selections in the located buckets (at most count elements when all values share one
/// bucket). `hist` is resized to 2^16 (no allocation once it has that size).
void order_statistics(const double* v, std::size_t count, const std::size_t* ranks, int k, double* out, std::vector<std::uint32_t>& hist,
                      double* buf);

// The methods work on the scaled problem and leave f_g in res.f_N.
void solve_exhaustive(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res);
void solve_lawson_hanson(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res);
/// centred = false: the exact method; true: stage 2 minimises |f - f_m|, f_m = (f_min + f_max)/2
/// (needs a finite p.f_max).
void solve_exact(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res, bool centred = false);
/// n = m + 2: the centred point, then the centroid of the feasible polygon (tension_centroid.cpp).
void solve_centroid(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res);
void solve_closed_form(const Scaled& p, const SolverOptions& o, bool improved, Workspace::Impl& ws, TensionResult& res);

/// Bounded least squares min |Jc x - w| s.t. lo <= x <= hi (x: Jc's unknowns) for Lawson-Hanson
/// and exact stage 1: BoundedLS on Jc with lsqnonneg's entering rule (weights p.wt). When the
/// rows of Jc differ in size by more than 2^10 and the answer's residual is above round-off, the
/// gradient of the small rows may be below the rounding noise of the large ones and the active
/// set stops early; then the problem is solved again with the rows equilibrated (D Jc, D w, D a
/// power of two per row), and that answer is kept if its unweighted residual |Jc x - w| is
/// smaller. Returns BoundedLS's status (0 converged, 1 iteration cap).
int bounded_least_squares(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, const double* lo, const double* hi, double* x,
                          int* iterations);

/// lsqnonneg's 10 eps |J|_1 max(m, n), times max(1, |w|) (used by kkt_violation).
double default_dual_tol(const Eigen::Ref<const Eigen::MatrixXd>& J, const Eigen::Ref<const Eigen::VectorXd>& w);
/// The dual tolerance of the equilibrated problem: 10 eps |Jc|_1 max(m, n) max(|w|, f_min).
double scaled_dual_tol(const Scaled& p);

}  // namespace detail
}  // namespace tendyn::cdpr
