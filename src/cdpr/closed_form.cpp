// Closed-form force distribution for bounded tensions.
//  * Pott, Bruckmann, Mikelsons, "Closed-form force distribution for parallel wire robots",
//    Computational Kinematics 2009, pp. 25-34: with the medium feasible force f_m = (f_min +
//    f_max)/2, f = f_m + J^+ (w - J f_m) (written for J f = w; the paper uses A^T f + w = 0).
//    This is the bounded-tension solution closest to f_m in the Euclidean norm; it is feasible
//    only if every entry lies in [f_min, f_max]. (The f_m-centred formulation follows the
//    barycentric idea of Mikelsons, Bruckmann, Hiller, Schramm, ICRA 2008.)
//  * Pott, "An improved force distribution algorithm for over-constrained cable-driven parallel
//    robots", Computational Kinematics 2014 (Mechanisms and Machine Science 15, pp. 139-146):
//    when entries violate the bounds, the one with the largest violation is fixed at the violated
//    bound, its force is moved to the right-hand side, and the closed form is re-applied to the
//    remaining cables; stop when feasible, or report infeasible when fewer cables than wrench
//    rows remain.
//  Round-off: a final tension within the slack (1e-12 f_max) outside [f_min, f_max] counts as
//  feasible and is clamped onto the bound (e.g. -5.7e-13 -> 0 for w = 0). When the method finds
//  no feasible point but f = f_min (all cables at the lower bound; f = 0 for w = 0 and f_min = 0)
//  meets the wrench, that f is returned as ok: the method must not call a solvable case
//  infeasible because its f_m-centred answer leaves the box.
#include <cmath>

#include "tension_internal.hpp"

namespace tendyn::cdpr::detail {

void solve_closed_form(const Scaled& p, const SolverOptions& o, bool improved, Workspace::Impl& ws, TensionResult& res) {
  const auto& J = p.J;
  const auto& w = p.w;
  const int m = static_cast<int>(J.rows());
  const int n = static_cast<int>(J.cols());
  const double f_min = p.f_min, f_max = p.f_max;
  const double fmid = 0.5 * (f_min + f_max);
  const double slack = 1e-12 * f_max;
  // Active (not yet fixed) cables are listed in idx[0..na).
  int na = n;
  for (int i = 0; i < n; ++i) ws.idx[i] = i;
  Eigen::VectorXd& f = res.f_N;
  f.setConstant(fmid);
  auto rhs = ws.hv.head(m);
  bool feasible = false;
  int iters = 0;
  for (;;) {
    ++iters;
    rhs = w;
    for (int i = 0; i < n; ++i) rhs -= J.col(i) * f[i];  // fixed cables at bound, others at f_m
    for (int j = 0; j < na; ++j) {
      const int i = ws.idx[j];
      for (int k = 0; k < m; ++k) ws.colbuf[static_cast<std::size_t>(j) * m + k] = J(k, i);
    }
    ws.mnls.solve(ws.colbuf.data(), m, m, na, rhs.data(), ws.xf.data(), o.rank_rtol);
    int worst = -1;
    double worst_v = slack;
    for (int j = 0; j < na; ++j) {
      const int i = ws.idx[j];
      f[i] = fmid + ws.xf[j];
      const double viol = std::max(f_min - f[i], f[i] - f_max);
      if (viol > worst_v) {
        worst_v = viol;
        worst = j;
      }
    }
    if (worst < 0) {
      feasible = true;
      break;
    }
    if (!improved || na - 1 < m) break;
    const int i = ws.idx[worst];
    f[i] = f[i] < f_min ? f_min : f_max;
    for (int j = worst; j + 1 < na; ++j) ws.idx[j] = ws.idx[j + 1];
    --na;
    // Remaining cables restart from f_m.
    for (int j = 0; j < na; ++j) f[ws.idx[j]] = fmid;
  }
  res.iterations = iters;
  // Within the slack a tension counts as on its bound: put it there (also when infeasible, where
  // only the violations beyond the slack remain).
  for (int i = 0; i < n; ++i) {
    if (f[i] < f_min && f[i] >= f_min - slack) f[i] = f_min;
    if (f[i] > f_max && f[i] <= f_max + slack) f[i] = f_max;
  }
  if (!feasible) {
    // Is f = f_min an exact answer? (Checked in the scaled problem: |J f_min 1 - w|.)
    auto r = ws.tm.head(m);
    auto fl = ws.x2.head(n);
    fl.setConstant(f_min);
    r.noalias() = J * fl;
    r -= w;
    if (r.norm() <= residual_limit(J, w, fl, o.infeasible_rtol)) {
      f.setConstant(f_min);
      feasible = true;
    }
  }
  res.status = Status::kOk;
  finish_result(p, o, ws, res, true, fmid);
  if (!feasible && res.status == Status::kOk) {
    res.status = Status::kInfeasible;
    res.reason = improved ? "no tensions within [f_min, f_max] found: fewer free cables than "
                            "wrench rows remain"
                          : "the closed-form tensions leave [f_min, f_max]";
  }
}

}  // namespace tendyn::cdpr::detail
