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
#include <tendyn/core/error.hpp>

#include <cmath>

#include "tension_internal.hpp"

namespace tendyn::cdpr::detail {

void solve_closed_form(const Eigen::Ref<const Eigen::MatrixXd>& J,
                       const Eigen::Ref<const Eigen::VectorXd>& w, const SolverOptions& o,
                       bool improved, Workspace::Impl& ws, TensionResult& res) {
  const int m = static_cast<int>(J.rows());
  const int n = static_cast<int>(J.cols());
  if (!std::isfinite(o.f_max_N))
    throw Error(std::string("tension (") + (improved ? "improved-closed-form" : "closed-form") +
                "): needs a finite f_max (the method centres on (f_min + f_max)/2)");
  const double fmid = 0.5 * (o.f_min_N + o.f_max_N);
  const double slack = 1e-12 * o.f_max_N;
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
      const double viol = std::max(o.f_min_N - f[i], f[i] - o.f_max_N);
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
    f[i] = f[i] < o.f_min_N ? o.f_min_N : o.f_max_N;
    for (int j = worst; j + 1 < na; ++j) ws.idx[j] = ws.idx[j + 1];
    --na;
    // Remaining cables restart from f_m.
    for (int j = 0; j < na; ++j) f[ws.idx[j]] = fmid;
  }
  res.f_N = f;
  res.iterations = iters;
  res.status = Status::ok;
  finish_result(J, w, o, ws, res, true);
  if (!feasible && res.status == Status::ok) res.status = Status::infeasible;
}

}  // namespace tendyn::cdpr::detail
