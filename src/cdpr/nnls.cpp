// Lawson-Hanson NNLS (Lawson & Hanson, "Solving Least Squares Problems", 1974, ch. 23, algorithm
// NNLS): the algorithm behind MATLAB/Octave lsqnonneg. The passive-set least-squares problems use
// a QR factorisation updated by Givens rotations when a column enters or leaves (BoundedLS with
// l = 0, u = +inf), never the normal equations. Termination: the residual strictly decreases
// between outer iterations and passive sets cannot repeat (Lawson & Hanson, Theorem 23.10); the
// iteration cap only guards against rounding-induced cycling and is reported as iteration_limit.
#include <cmath>
#include <limits>

#include "tension_internal.hpp"

namespace tendyn::cdpr::detail {

void solve_lawson_hanson(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws,
                         TensionResult& res) {
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

}  // namespace tendyn::cdpr::detail
