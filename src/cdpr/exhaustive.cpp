// The exhaustive method of document 002 ("NNLS with outlier exclusion"), steps 1-6:
//  1) all non-empty loaded subsets (bit masks 1 .. 2^n - 1);
//  2) columns of unloaded cables are dropped (equivalent to zeroing them);
//  3) minimum-norm least squares per subset (rank-revealing QR, see MinNormLS), negatives zeroed;
//  4) outliers among the solution norms rejected: norm > Q3 + k (Q3 - Q1), quartiles by linear
//     interpolation between order statistics (Hyndman & Fan type 7, as R's default);
//  5) residual |J f - w| rounded to residual_precision |w|; keep the smallest;
//  6) among those the smallest |f| (ties within norm_tie_rtol); ties -> most loaded cables, then
//     the last subset in enumeration order ("the last vector found").
// No allocation per subset: columns are gathered into a preallocated buffer.
#include <tendyn/core/error.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "tension_internal.hpp"

namespace tendyn::cdpr::detail {

namespace {
double quantile_type7(std::vector<double>& v, std::size_t count, double p) {
  const double h = static_cast<double>(count - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo),
                   v.begin() + static_cast<std::ptrdiff_t>(count));
  const double a = v[lo];
  if (lo + 1 >= count) return a;
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo + 1),
                                     v.begin() + static_cast<std::ptrdiff_t>(count));
  return a + (h - static_cast<double>(lo)) * (b - a);
}
}  // namespace

void solve_exhaustive(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws,
                      TensionResult& res) {
  const auto& J = p.J;
  const auto& w = p.w;
  const int m = static_cast<int>(J.rows());
  const int n = static_cast<int>(J.cols());
  if (n > 24)
    throw Error("tension (exhaustive): at most 24 cables (2^24 subsets); got " +
                std::to_string(n) + " - use the exact method");
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
  double* buf = ws.colbuf.data();
  double* xs = ws.x.data();
  int* idx = ws.idx.data();
  double* r = ws.r.data();
  const double* wp = w.data();

  auto solve_subset = [&](std::uint32_t mask, double& norm, double& resid) {
    int k = 0;
    for (std::uint32_t b = mask; b != 0; b &= b - 1) {
      const int i = std::countr_zero(b);
      const double* src = J.data() + static_cast<std::ptrdiff_t>(i) * J.outerStride();
      double* dst = buf + static_cast<std::ptrdiff_t>(k) * m;
      for (int q = 0; q < m; ++q) dst[q] = src[q];
      idx[k++] = i;
    }
    ws.mnls.solve(buf, m, m, k, wp, xs, o.rank_rtol);
    double n2 = 0.0;
    for (int q = 0; q < m; ++q) r[q] = wp[q];
    for (int j = 0; j < k; ++j) {
      double v = xs[j];
      if (!(v > 0.0)) v = 0.0;  // step 3: negative tensions are zeroed
      xs[j] = v;
      if (v == 0.0) continue;
      n2 += v * v;
      const double* col = buf + static_cast<std::ptrdiff_t>(j) * m;
      for (int q = 0; q < m; ++q) r[q] -= v * col[q];
    }
    double r2 = 0.0;
    for (int q = 0; q < m; ++q) r2 += r[q] * r[q];
    norm = std::sqrt(n2);
    resid = std::sqrt(r2);
    return k;
  };

  for (std::size_t s = 0; s < count; ++s)
    solve_subset(static_cast<std::uint32_t>(s + 1), ws.norms[s], ws.resid[s]);

  // Step 4: interquartile-range outlier rule on the solution norms.
  std::copy(ws.norms.begin(), ws.norms.begin() + static_cast<std::ptrdiff_t>(count),
            ws.sorted.begin());
  const double q1 = quantile_type7(ws.sorted, count, 0.25);
  const double q3 = quantile_type7(ws.sorted, count, 0.75);
  const double threshold = q3 + o.iqr_coefficient * (q3 - q1);

  // Step 5: rounded residuals.
  const double unit = o.residual_precision * wn;
  double best_key_all = HUGE_VAL, best_key = HUGE_VAL;
  int outliers = 0;
  for (std::size_t s = 0; s < count; ++s) {
    const double key = std::nearbyint(ws.resid[s] / unit);
    ws.sorted[s] = key;  // reuse as key storage
    best_key_all = std::min(best_key_all, key);
    if (ws.norms[s] > threshold) {
      ++outliers;
      continue;
    }
    best_key = std::min(best_key, key);
  }
  // Step 6: min norm, then most loaded cables, then the last one found.
  std::size_t best = count;
  double best_norm = HUGE_VAL;
  int best_pop = -1;
  for (std::size_t s = 0; s < count; ++s) {
    if (ws.norms[s] > threshold || ws.sorted[s] != best_key) continue;
    const double nrm = ws.norms[s];
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
  const int k = solve_subset(static_cast<std::uint32_t>(best + 1), nrm, rs);
  for (int j = 0; j < k; ++j) res.f_N[idx[j]] = xs[j];
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
