// Lawson-Hanson NNLS (Lawson & Hanson, "Solving Least Squares Problems", 1974, ch. 23, algorithm
// NNLS): the algorithm behind MATLAB/Octave lsqnonneg. The passive-set least-squares problems use
// a QR factorisation updated by Givens rotations when a column enters or leaves (BoundedLS with
// l = 0, u = +inf), never the normal equations. Termination: the residual strictly decreases
// between outer iterations and passive sets cannot repeat (Lawson & Hanson, Theorem 23.10); the
// iteration cap only guards against rounding-induced cycling and is reported as iteration_limit.
#include <limits>

#include "tension_internal.hpp"

namespace tendyn::cdpr::detail {

void solve_lawson_hanson(const Eigen::Ref<const Eigen::MatrixXd>& J,
                         const Eigen::Ref<const Eigen::VectorXd>& w, const SolverOptions& o,
                         Workspace::Impl& ws, TensionResult& res) {
  const int n = static_cast<int>(J.cols());
  ws.lo.head(n).setZero();
  ws.hi.head(n).setConstant(std::numeric_limits<double>::infinity());
  const double tol = o.dual_tol > 0.0 ? o.dual_tol : default_dual_tol(J, w);
  const int maxit = o.max_iterations > 0 ? o.max_iterations : 3 * n + 30;
  int it = 0;
  const int st = ws.bls.solve(J, w, ws.lo.data(), ws.hi.data(), tol, maxit, ws.x.data(), &it);
  res.f_N = ws.x.head(n);
  res.iterations = it;
  res.status = st == 0 ? Status::ok : Status::iteration_limit;
  finish_result(J, w, o, ws, res, true);
}

}  // namespace tendyn::cdpr::detail
