// Internal: the workspace of the tension solvers and the per-method entry points.
#pragma once
#include <tendyn/cdpr/tension.hpp>

#include <Eigen/Core>
#include <Eigen/QR>

#include <vector>

#include "dense_kernels.hpp"

namespace tendyn::cdpr {

struct Workspace::Impl {
  Impl(int max_rows, int max_cols);
  int max_rows, max_cols;
  detail::MinNormLS mnls;       // m x n problems
  detail::BoundedLS bls;        // m x n
  detail::BoundedLS ldp;        // (n + 1) x 2n (least-distance problem of the exact solver)
  Eigen::VectorXd lo, hi, x, x2, fm, rhs, r;  // n / m scratch
  std::vector<double> colbuf;   // m x n gathered columns
  std::vector<int> idx;         // n
  // exhaustive
  std::vector<double> norms, resid, sorted;  // 2^n - 1 each (n <= 24)
  // exact
  Eigen::MatrixXd Jt, Q, N, E;
  Eigen::VectorXd hv, ev, u, hwork, tm, zbuf, fldp;
  std::vector<double> lo2, hi2, xf;  // 2n zeros, 2n infinities, n
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr;
};

namespace detail {

/// Shared post-processing: residual, norms, loaded mask, near-singular / infeasible flags.
/// `status` on entry is the method's own status (ok or iteration_limit).
void finish_result(const Eigen::Ref<const Eigen::MatrixXd>& J,
                   const Eigen::Ref<const Eigen::VectorXd>& w, const SolverOptions& o,
                   Workspace::Impl& ws, TensionResult& res, bool exact_target = false);

void solve_exhaustive(const Eigen::Ref<const Eigen::MatrixXd>& J,
                      const Eigen::Ref<const Eigen::VectorXd>& w, const SolverOptions& o,
                      Workspace::Impl& ws, TensionResult& res);
void solve_lawson_hanson(const Eigen::Ref<const Eigen::MatrixXd>& J,
                         const Eigen::Ref<const Eigen::VectorXd>& w, const SolverOptions& o,
                         Workspace::Impl& ws, TensionResult& res);
void solve_exact(const Eigen::Ref<const Eigen::MatrixXd>& J,
                 const Eigen::Ref<const Eigen::VectorXd>& w, const SolverOptions& o,
                 Workspace::Impl& ws, TensionResult& res);
void solve_closed_form(const Eigen::Ref<const Eigen::MatrixXd>& J,
                       const Eigen::Ref<const Eigen::VectorXd>& w, const SolverOptions& o,
                       bool improved, Workspace::Impl& ws, TensionResult& res);

double default_dual_tol(const Eigen::Ref<const Eigen::MatrixXd>& J,
                        const Eigen::Ref<const Eigen::VectorXd>& w);

}  // namespace detail
}  // namespace tendyn::cdpr
