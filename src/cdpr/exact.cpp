// Exact lexicographic solver: minimise |J f - w| over f_min <= f <= f_max, then |f| among the
// minimisers. The minimiser set is {f : J f = v*, bounds} with v* = J f* unique (the residual is
// strictly convex in J f), so the second stage is a strictly convex QP with a unique answer.
//
// Stage 1: bounded least squares by the Lawson-Hanson active set generalised to two bounds
//          (Stark & Parker 1995, BVLS); finite for the same reason as NNLS.
// Stage 2: eliminate J f = v*: f = f0 + N z, N an orthonormal basis of null(J) (pivoted QR of
//          J^T), f0 = f* - N N^T f* the row-space part. Since f0 is orthogonal to range(N),
//          |f|^2 = |f0|^2 + |z|^2, so stage 2 is the least-distance problem
//              min |z|  s.t.  N z >= f_min - f0,  -N z >= f0 - f_max,
//          solved exactly by Lawson & Hanson's LDP algorithm (1974, ch. 23, section 4): one NNLS
//          on the (d+1) x p matrix [G^T; h^T]; finite termination by the NNLS theorem.
//          Finally the face identified by the positive LDP multipliers is re-solved as an
//          equality-constrained min-norm problem (polish to machine precision).
// Centred variant (method centred): stage 2 minimises |f - c| with c = (f_min + f_max)/2 the
//          same for every cable: in the shifted unknowns g = f - c (bounds lo - c, hi - c, wrench
//          v* - J c) it is the same least-distance problem, so the code below runs on g.
#include <algorithm>
#include <cmath>
#include <limits>

#include "tension_internal.hpp"

namespace tendyn::cdpr::detail {

void solve_exact(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res, bool centred) {
  const auto& J = p.J;
  const auto& w = p.w;
  const int m = static_cast<int>(J.rows());
  const int n = static_cast<int>(J.cols());
  constexpr double kInf = std::numeric_limits<double>::infinity();
  auto lo = ws.lo.head(n);
  auto hi = ws.hi.head(n);
  // Stage 1 on the column-equilibrated Jc: unknowns x_c,j = f_j 2^e_j, bounds scaled alike.
  for (int j = 0; j < n; ++j) {
    lo[j] = std::ldexp(p.f_min, p.col_exp[j]);
    hi[j] = std::isfinite(p.f_max) ? std::ldexp(p.f_max, p.col_exp[j]) : kInf;
  }
  int it1 = 0;
  const int st1 = bounded_least_squares(p, o, ws, lo.data(), hi.data(), ws.x.data(), &it1);
  auto x = ws.x.head(n);
  for (int j = 0; j < n; ++j) x[j] = std::ldexp(x[j], -p.col_exp[j]);
  res.iterations = it1;
  if (st1 != 0) {
    res.f_N = x;
    res.status = Status::kIterationLimit;
    finish_result(p, o, ws, res, true);
    return;
  }
  // Stage 2 is homogeneous in f (J f = v, bounds, |f|). When the stage-1 tensions are far from
  // unit size (a bounded problem against a huge wrench: f_max = 3e4 beside |w| = 1e300 leaves
  // f ~ 1e-296 after the equilibration, whose squares underflow) it runs on f 2^-s2, an exact
  // rescaling; otherwise s2 = 0 and nothing changes.
  int s2 = 0;
  const double size = std::max(x.lpNorm<Eigen::Infinity>(), p.f_min);
  if (size > 0.0 && std::isfinite(size)) {
    const int e = fast_ilogb(size);
    if (e < -480 || e >= 480) s2 = e + 1;
  }
  if (s2 != 0)
    for (int j = 0; j < n; ++j) x[j] = times_pow2(x[j], -s2);
  // Stage 2 works in the Euclidean norm of f: the same bounds for every cable.
  lo.setConstant(times_pow2(p.f_min, -s2));
  hi.setConstant(std::isfinite(p.f_max) ? times_pow2(p.f_max, -s2) : kInf);
  auto v = ws.rhs.head(m);
  v.noalias() = J * x;
  // Centred: shift to g = f - c (see the header comment); undone after stage 2.
  const double c = centred ? 0.5 * (lo[0] + hi[0]) : 0.0;
  if (centred) {
    for (int j = 0; j < n; ++j) {
      x[j] -= c;
      lo[j] -= c;
      hi[j] -= c;
    }
    for (int j = 0; j < n; ++j) v.noalias() -= c * J.col(j);
  }

  // Null space of J from a pivoted QR of J^T (n x m).
  ws.Jt = J.transpose();
  ws.qr.setThreshold(o.rank_rtol);
  ws.qr.compute(ws.Jt);
  const int rank = static_cast<int>(ws.qr.rank());
  const int d = n - rank;
  if (d > 0) {
    ws.qr.householderQ().evalTo(ws.Q, ws.hwork);
    const auto N = ws.Q.rightCols(d);
    auto x0 = ws.x2.head(n);
    auto t = ws.hv.head(d);
    t.noalias() = N.transpose() * x;
    x0 = x;
    x0.noalias() -= N * t;
    // LDP constraints g_j^T z >= h_j, stored as columns [g_j; h_j] of E.
    int p = 0;
    ws.E.resize(d + 1, 2 * n);  // no-op after the first call of this size
    for (int i = 0; i < n; ++i) {
      ws.E.col(p).head(d) = N.row(i).transpose();
      ws.E(d, p) = lo[i] - x0[i];
      ++p;
      if (std::isfinite(hi[i])) {
        ws.E.col(p).head(d) = -N.row(i).transpose();
        ws.E(d, p) = x0[i] - hi[i];
        ++p;
      }
    }
    auto F = ws.ev.head(d + 1);
    F.setZero();
    F[d] = 1.0;
    const auto E = ws.E.block(0, 0, d + 1, p);
    auto ulo = ws.u.head(p);
    int it2 = 0;
    const int st2 = ws.ldp.solve(E, F, ws.lo2.data(), ws.hi2.data(), default_dual_tol(E, F), 3 * p + 30, ulo.data(), &it2);
    res.iterations += it2;
    auto rv = ws.r.head(d + 1);
    rv.noalias() = E * ulo;
    rv -= F;
    const double rho = rv[d];
    if (st2 == 0 && rv.norm() > 0.0 && rho < 0.0) {
      // z = -rv(0:d) / rho; f = x0 + N z (kept in fldp to fall back on)
      auto zv = ws.zbuf.head(d);
      zv = rv.head(d) / rho;
      auto fldp = ws.fldp.head(n);
      fldp = x0;
      fldp.noalias() -= N * zv;
      auto fz = ws.fm.head(n);
      fz = fldp;
      // Polish: bounds with positive multipliers are active; re-solve the rest exactly.
      int q = 0, nf = 0;
      auto rhs = ws.hv.head(m);
      rhs = v;
      for (int i = 0; i < n; ++i) {
        const bool act_lo = ulo[q++] > 0.0;
        bool act_hi = false;
        if (std::isfinite(hi[i])) act_hi = ulo[q++] > 0.0;
        if (act_lo || act_hi) {
          fz[i] = act_lo ? lo[i] : hi[i];
          rhs -= J.col(i) * fz[i];
        } else {
          for (int k = 0; k < m; ++k) ws.colbuf[static_cast<std::size_t>(nf) * m + k] = J(k, i);
          ws.idx[nf++] = i;
        }
      }
      bool ok = true;
      if (nf > 0) {
        double* xf = ws.xf.data();
        ws.mnls.solve(ws.colbuf.data(), m, m, nf, rhs.data(), xf, o.rank_rtol);
        const double slack = 1e-12 * (fz.lpNorm<Eigen::Infinity>() + 1.0);
        for (int j = 0; j < nf; ++j) {
          const int i = ws.idx[j];
          if (xf[j] < lo[i] - slack || xf[j] > hi[i] + slack) ok = false;
        }
        if (ok) {
          for (int j = 0; j < nf; ++j) {
            const int i = ws.idx[j];
            fz[i] = std::min(std::max(xf[j], lo[i]), hi[i]);
          }
          // Iterative refinement with the same factorisation: the min-norm solve leaves a
          // residual of order eps |A| |x|, far above round-off of J f when the columns differ in
          // size by orders of magnitude; each step cuts it by about eps cond(A). The correction
          // A^+ r lies in the row space, so the point stays the minimum-norm one.
          auto rr = ws.tm.head(m);
          for (int step = 0; step < 2; ++step) {
            rr = v;
            rr.noalias() -= J * fz;
            ws.mnls.apply(rr.data(), xf);
            for (int j = 0; j < nf; ++j) {
              const int i = ws.idx[j];
              fz[i] = std::min(std::max(fz[i] + xf[j], lo[i]), hi[i]);
            }
          }
        }
      }
      if (!ok) {  // keep the LDP point, clipped to the bounds against rounding
        fz = fldp.cwiseMax(lo).cwiseMin(hi);
      }
      // Accept only if it is no worse than the stage-1 point (guards against a failed LDP).
      const double tol_res = 1e-9 * (column_weighted_norm(J, x) + w.norm());
      auto jf = ws.tm.head(m);
      jf.noalias() = J * fz;
      jf -= v;
      if (fz.squaredNorm() <= x.squaredNorm() && jf.norm() <= tol_res) x = fz;
    }
  }
  if (centred)
    for (int j = 0; j < n; ++j) x[j] = std::min(std::max(x[j] + c, lo[j] + c), hi[j] + c);
  if (s2 != 0)
    for (int j = 0; j < n; ++j) x[j] = times_pow2(x[j], s2);
  res.f_N = x;
  res.status = Status::kOk;
  finish_result(p, o, ws, res, true);
}

}  // namespace tendyn::cdpr::detail
