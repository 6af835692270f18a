// Tension-solver front end: method names, the workspace, input checks, result post-processing
// and the KKT check of the exact problem.
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/core/error.hpp>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <limits>

#include "tension_internal.hpp"

namespace tendyn::cdpr {

Method parse_method(const std::string& name) {
  std::string s;
  for (char c : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::replace(s.begin(), s.end(), '_', '-');
  if (s == "exhaustive") return Method::exhaustive;
  if (s == "lawson-hanson" || s == "nnls" || s == "lsqnonneg") return Method::lawson_hanson;
  if (s == "exact") return Method::exact;
  if (s == "closed-form") return Method::closed_form;
  if (s == "improved-closed-form") return Method::improved_closed_form;
  throw Error("tension method '" + name +
              "': unknown (expected exhaustive, lawson-hanson, exact, closed-form, "
              "improved-closed-form)");
}

const char* method_name(Method method) {
  switch (method) {
    case Method::exhaustive: return "exhaustive";
    case Method::lawson_hanson: return "lawson-hanson";
    case Method::exact: return "exact";
    case Method::closed_form: return "closed-form";
    case Method::improved_closed_form: return "improved-closed-form";
  }
  return "?";
}

const char* status_name(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::near_singular: return "near_singular";
    case Status::infeasible: return "infeasible";
    case Status::iteration_limit: return "iteration_limit";
  }
  return "?";
}

Workspace::Impl::Impl(int mr, int mc)
    : max_rows(mr),
      max_cols(mc),
      mnls(mr, mc),
      bls(mr, mc),
      ldp(mc + 1, 2 * mc),
      lo(mc),
      hi(mc),
      x(mc),
      x2(mc),
      fm(mc),
      rhs(std::max(mr, mc + 1)),
      r(std::max(mr, mc + 1)),
      colbuf(static_cast<std::size_t>(mr) * mc),
      idx(mc),
      Jt(mc, mr),
      Q(mc, mc),
      E(mc + 1, 2 * mc),
      hv(std::max(mr, mc + 1)),
      ev(mc + 1),
      u(2 * mc),
      hwork(mc),
      tm(mr),
      zbuf(mc),
      fldp(mc),
      lo2(static_cast<std::size_t>(2 * mc), 0.0),
      hi2(static_cast<std::size_t>(2 * mc), std::numeric_limits<double>::infinity()),
      xf(static_cast<std::size_t>(mc)),
      qr(mc, mr) {}

Workspace::Workspace(int max_rows, int max_cols) {
  if (max_rows < 1 || max_cols < 1 || max_cols > 4096)
    throw Error("cdpr::Workspace: sizes must be >= 1 (got " + std::to_string(max_rows) + " x " +
                std::to_string(max_cols) + ")");
  impl_ = std::make_unique<Impl>(max_rows, max_cols);
}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;
int Workspace::max_rows() const { return impl_->max_rows; }
int Workspace::max_cols() const { return impl_->max_cols; }

namespace detail {

double default_dual_tol(const Eigen::Ref<const Eigen::MatrixXd>& J,
                        const Eigen::Ref<const Eigen::VectorXd>& w) {
  // lsqnonneg's 10 eps |J|_1 max(m, n), scaled by |w| so the test is invariant to the wrench unit.
  const double norm1 = J.cwiseAbs().colwise().sum().maxCoeff();
  const double dim = static_cast<double>(std::max(J.rows(), J.cols()));
  return 10.0 * std::numeric_limits<double>::epsilon() * norm1 * dim * std::max(1.0, w.norm());
}

void finish_result(const Eigen::Ref<const Eigen::MatrixXd>& J,
                   const Eigen::Ref<const Eigen::VectorXd>& w, const SolverOptions& o,
                   Workspace::Impl& ws, TensionResult& res, bool exact_target) {
  const int m = static_cast<int>(J.rows());
  const int n = static_cast<int>(J.cols());
  auto r = ws.r.head(m);
  r.noalias() = J * res.f_N;
  r -= w;
  res.residual_norm = r.norm();
  res.tension_norm = res.f_N.norm();
  res.loaded_mask = 0;
  res.loaded_count = 0;
  // Loaded: above rounding noise of the largest tension (e.g. 1e-13 N beside 1e3 N is zero).
  const double noise = 1e-12 * res.f_N.lpNorm<Eigen::Infinity>();
  for (int i = 0; i < n; ++i) {
    if (res.f_N[i] > noise) {
      res.loaded_mask |= (std::uint64_t{1} << i);
      ++res.loaded_count;
    }
  }
  if (res.status == Status::iteration_limit) return;
  double ratio = 1.0;
  ws.mnls.factor(J.data(), static_cast<int>(J.outerStride()), m, n, o.rank_rtol, &ratio);
  const double wn = w.norm();
  const bool singular_J = n >= m && ratio < o.singular_rtol;
  const bool amplified = wn > 0.0 && res.tension_norm * J.norm() > o.amplification_limit * wn;
  if (singular_J || amplified) {
    res.status = Status::near_singular;
    return;
  }
  if (res.status != Status::ok) return;
  const double limit = exact_target ? o.infeasible_rtol
                                    : std::max(o.infeasible_rtol, o.residual_precision);
  if (res.residual_norm > limit * std::max(wn, std::numeric_limits<double>::min()))
    res.status = Status::infeasible;
}

}  // namespace detail

void solve_tensions(Method method, const Eigen::Ref<const Eigen::MatrixXd>& J,
                    const Eigen::Ref<const Eigen::VectorXd>& w, const SolverOptions& o,
                    Workspace& workspace, TensionResult& res) {
  auto& ws = workspace.impl();
  const auto m = J.rows();
  const auto n = J.cols();
  // Built only on the error path: the hot path must not allocate.
  const auto where = [method] { return std::string("tension (") + method_name(method) + "): "; };
  if (m < 1 || n < 1) throw Error(where() + "empty structure matrix");
  if (w.size() != m)
    throw Error(where() + "wrench has " + std::to_string(w.size()) + " entries but J has " +
                std::to_string(m) + " rows");
  if (m > ws.max_rows || n > ws.max_cols)
    throw Error(where() + "J is " + std::to_string(m) + " x " + std::to_string(n) +
                ", larger than the workspace (" + std::to_string(ws.max_rows) + " x " +
                std::to_string(ws.max_cols) + ")");
  if (n > 64) throw Error(where() + "at most 64 cables are supported (got " + std::to_string(n) + ")");
  if (!J.allFinite()) throw Error(where() + "structure matrix J has a non-finite entry");
  if (!w.allFinite()) throw Error(where() + "wrench has a non-finite entry");
  if (!(o.f_min_N >= 0.0) || !std::isfinite(o.f_min_N))
    throw Error(where() + "f_min must be finite and >= 0 (got " + std::to_string(o.f_min_N) + ")");
  if (!(o.f_max_N > o.f_min_N))
    throw Error(where() + "f_max must be > f_min (got " + std::to_string(o.f_max_N) + ")");
  if (!(o.iqr_coefficient >= 0.0) || !(o.residual_precision > 0.0) || !(o.rank_rtol > 0.0))
    throw Error(where() + "iqr_coefficient must be >= 0, residual_precision and rank_rtol > 0");
  if (res.f_N.size() != n) res.f_N.resize(n);
  res.f_N.setZero();
  res.status = Status::ok;
  res.iterations = 0;
  res.outliers = 0;
  switch (method) {
    case Method::exhaustive: detail::solve_exhaustive(J, w, o, ws, res); break;
    case Method::lawson_hanson: detail::solve_lawson_hanson(J, w, o, ws, res); break;
    case Method::exact: detail::solve_exact(J, w, o, ws, res); break;
    case Method::closed_form: detail::solve_closed_form(J, w, o, false, ws, res); break;
    case Method::improved_closed_form: detail::solve_closed_form(J, w, o, true, ws, res); break;
  }
}

TensionResult solve_tensions(Method method, const Eigen::MatrixXd& J, const Eigen::VectorXd& w,
                             const SolverOptions& options) {
  Workspace ws(std::max<int>(1, static_cast<int>(J.rows())),
               std::max<int>(1, static_cast<int>(J.cols())));
  TensionResult res;
  solve_tensions(method, J, w, options, ws, res);
  return res;
}

double kkt_violation(const Eigen::MatrixXd& J, const Eigen::VectorXd& w, const Eigen::VectorXd& f,
                     double f_min_N, double f_max_N) {
  const int m = static_cast<int>(J.rows());
  const int n = static_cast<int>(J.cols());
  if (f.size() != n || w.size() != m) throw Error("kkt_violation: size mismatch");
  const double fscale = f.lpNorm<Eigen::Infinity>() + 1.0;
  const double atol = 1e-12 * fscale;
  const Eigen::VectorXd r = J * f - w;
  const Eigen::VectorXd g = J.transpose() * r;
  const double jn = J.norm();
  const double gscale = jn * (jn * f.norm() + w.norm()) + std::numeric_limits<double>::min();
  double v1 = 0.0, vb = 0.0;
  std::vector<int> lower, upper;
  for (int i = 0; i < n; ++i) {
    vb = std::max({vb, f_min_N - f[i], f[i] - f_max_N});
    if (f[i] <= f_min_N + atol) {
      lower.push_back(i);
      v1 = std::max(v1, -g[i]);
    } else if (f[i] >= f_max_N - atol) {
      upper.push_back(i);
      v1 = std::max(v1, g[i]);
    } else {
      v1 = std::max(v1, std::abs(g[i]));
    }
  }
  // Stage 2 stationarity: f = J^T lambda + sum_lower mu_i e_i - sum_upper nu_i e_i, mu, nu >= 0.
  // Written as an NNLS in (lambda+, lambda-, mu, nu); its residual is the violation.
  const int p = 2 * m + static_cast<int>(lower.size() + upper.size());
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, p);
  A.leftCols(m) = J.transpose();
  A.middleCols(m, m) = -J.transpose();
  int c = 2 * m;
  for (int i : lower) A(i, c++) = 1.0;
  for (int i : upper) A(i, c++) = -1.0;
  detail::BoundedLS bls(n, p);
  std::vector<double> lo(p, 0.0), hi(p, std::numeric_limits<double>::infinity()), x(p);
  int it = 0;
  bls.solve(A, f, lo.data(), hi.data(), detail::default_dual_tol(A, f), 50 * p + 100, x.data(),
            &it);
  const Eigen::Map<const Eigen::VectorXd> xv(x.data(), p);
  const double v2 = (A * xv - f).norm() / fscale;
  return std::max({v1 / gscale, vb / fscale, v2});
}

}  // namespace tendyn::cdpr
