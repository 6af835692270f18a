// Tension-solver front end: method names, the workspace, input checks, result post-processing
// and the KKT check of the exact problem.
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/core/error.hpp>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tension_internal.hpp"

namespace tendyn::cdpr {

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
      qr(mc, mr),
      Jg(mr, mc),
      Jc(mr, mc),
      wg(mr),
      fg(mc),
      wt(mc),
      col_exp(static_cast<std::size_t>(mc)),
      Jr(mr, mc),
      wr(mr),
      xr(mc) {}

Workspace::Workspace(int max_rows, int max_cols) {
  if (max_rows < 1 || max_cols < 1 || max_cols > 4096)
    throw Error("cdpr::Workspace: sizes must be >= 1 (got " + std::to_string(max_rows) + " x " + std::to_string(max_cols) + ")");
  impl_ = std::make_unique<Impl>(max_rows, max_cols);
}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;
int Workspace::max_rows() const { return impl_->max_rows; }
int Workspace::max_cols() const { return impl_->max_cols; }

namespace detail {

double default_dual_tol(const Eigen::Ref<const Eigen::MatrixXd>& J, const Eigen::Ref<const Eigen::VectorXd>& w) {
  // lsqnonneg's 10 eps |J|_1 max(m, n), scaled by |w| so the test is invariant to the wrench unit.
  const double norm1 = J.cwiseAbs().colwise().sum().maxCoeff();
  const double dim = static_cast<double>(std::max(J.rows(), J.cols()));
  return 10.0 * std::numeric_limits<double>::epsilon() * norm1 * dim * std::max(1.0, w.norm());
}

double scaled_dual_tol(const Scaled& p) {
  const double norm1 = p.Jc.cwiseAbs().colwise().sum().maxCoeff();
  const double dim = static_cast<double>(std::max(p.J.rows(), p.J.cols()));
  const double size = std::max({p.w.norm(), p.f_min, std::numeric_limits<double>::min()});
  return 10.0 * std::numeric_limits<double>::epsilon() * norm1 * dim * size;
}

double column_weighted_norm(const Eigen::Ref<const Eigen::MatrixXd>& J, const Eigen::Ref<const Eigen::VectorXd>& f, double f_floor) {
  double s = 0.0;
  for (Eigen::Index j = 0; j < J.cols(); ++j) s += J.col(j).norm() * std::max(std::abs(f[j]), f_floor);
  return s;
}

int bounded_least_squares(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, const double* lo, const double* hi, double* x,
                          int* iterations) {
  const auto m = p.Jc.rows();
  const auto n = p.Jc.cols();
  const double tol = o.dual_tol > 0.0 ? o.dual_tol : scaled_dual_tol(p);
  const int maxit = o.max_iterations > 0 ? o.max_iterations : 3 * static_cast<int>(n) + 30;
  int it = 0;
  const int st = ws.bls.solve(p.Jc, p.w, lo, hi, tol, maxit, x, &it, p.wt.data());
  ws.bls_on_Jc = true;
  *iterations = it;
  if (st != 0) return st;
  // Row sizes (largest entry per row of Jc) and their spread.
  double rmin = std::numeric_limits<double>::infinity(), rmax = 0.0;
  for (Eigen::Index i = 0; i < m; ++i) {
    const double ri = p.Jc.row(i).cwiseAbs().maxCoeff();
    if (ri > 0.0) {
      rmin = std::min(rmin, ri);
      rmax = std::max(rmax, ri);
    }
  }
  if (!(rmax > 1024.0 * rmin)) return st;
  const Eigen::Map<const Eigen::VectorXd> xv(x, n);
  auto r = ws.r.head(m);
  r.noalias() = p.Jc * xv;
  r -= p.w;
  const double r1 = r.norm();
  if (r1 <= residual_limit(p.Jc, p.w, xv, 0.0)) return st;  // already at round-off
  auto Jr = ws.Jr.topLeftCorner(m, n);
  auto wr = ws.wr.head(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    const double ri = p.Jc.row(i).cwiseAbs().maxCoeff();
    const int e = ri > 0.0 ? -(std::ilogb(ri) + 1) : 0;
    for (Eigen::Index j = 0; j < n; ++j) Jr(i, j) = std::ldexp(p.Jc(i, j), e);
    wr[i] = std::ldexp(p.w[i], e);
  }
  const double norm1 = Jr.cwiseAbs().colwise().sum().maxCoeff();
  const double dim = static_cast<double>(std::max(m, n));
  const double tol_r =
      10.0 * std::numeric_limits<double>::epsilon() * norm1 * dim * std::max({wr.norm(), p.f_min, std::numeric_limits<double>::min()});
  int it2 = 0;
  const int st2 = ws.bls.solve(Jr, wr, lo, hi, tol_r, maxit, ws.xr.data(), &it2);
  ws.bls_on_Jc = false;  // its QR now holds columns of D Jc
  *iterations += it2;
  if (st2 != 0) return st;
  const auto xr = ws.xr.head(n);
  r.noalias() = p.Jc * xr;
  r -= p.w;
  if (r.norm() < r1) std::copy(xr.data(), xr.data() + n, x);
  return st;
}

double residual_limit(const Eigen::Ref<const Eigen::MatrixXd>& J, const Eigen::Ref<const Eigen::VectorXd>& w,
                      const Eigen::Ref<const Eigen::VectorXd>& f, double rtol, double f_floor) {
  const double wn = w.norm();
  const double dim = static_cast<double>(J.rows() + J.cols());
  return rtol * wn + 8.0 * dim * std::numeric_limits<double>::epsilon() * (column_weighted_norm(J, f, f_floor) + wn);
}

void finish_result(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res, bool exact_target, double f_floor,
                   GivensQR* passive) {
  const int m = static_cast<int>(p.J.rows());
  const int n = static_cast<int>(p.J.cols());
  if (!res.f_N.allFinite()) {  // cannot happen for finite scaled input; never report it as ok
    res.status = Status::kNonFinite;
    res.reason = "the solver produced a non-finite tension";
    return;
  }
  auto r = ws.r.head(m);
  r.noalias() = p.J * res.f_N;
  r -= p.w;
  res.residual_norm = safe_norm(r);
  res.tension_norm = safe_norm(res.f_N);
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
  if (res.status == Status::kIterationLimit) {
    res.reason = "the active-set iteration cap was reached";
    return;
  }
  // Conditioning on the column-equilibrated J (a change of a cable's tension unit is not a
  // singularity); amplification |x_c| |Jc| / |w| with x_c = f_g .* 2^e_j the unknowns of Jc.
  // The flag is "pivot ratio of the rank-revealing QR of Jc^T < singular_rtol" (MinNormLS). That
  // ratio is at least sigma_min(Jc) / (sigma_max(Jc) sqrt(m)): pivot j is the largest column of
  // a trailing block whose norm is >= sigma_(j+1), and pivot 0 <= sigma_max. With sigma_max <=
  // |Jc|_F and sigma_min(Jc) >= sigma_min of any m of its columns (the solver's passive QR), a
  // bound well above singular_rtol and rank_rtol proves the flag false without the QR.
  const double jc_norm = p.Jc.norm();
  bool singular_J = false;
  if (n >= m) {
    const double lb = passive != nullptr ? passive->sigma_min_lower_bound() : 0.0;
    const double proven = lb / (jc_norm * std::sqrt(static_cast<double>(m)));
    if (!(proven >= 2.0 * std::max(o.singular_rtol, o.rank_rtol) + 1e-10)) {
      double ratio = 1.0;
      ws.mnls.factor(p.Jc.data(), static_cast<int>(p.Jc.outerStride()), m, n, o.rank_rtol, &ratio);
      singular_J = ratio < o.singular_rtol;
    }
  }
  const double wn = p.w.norm();
  const double xc_norm = res.f_N.cwiseProduct(p.wt).norm();
  const bool amplified = wn > 0.0 && xc_norm * jc_norm > o.amplification_limit * wn;
  if (singular_J || amplified) {
    res.status = Status::kNearSingular;
    res.reason = singular_J ? "the column-equilibrated J is near rank-deficient (pivot ratio below "
                              "singular_rtol)"
                            : "the tensions amplify the wrench by more than amplification_limit";
    return;
  }
  if (res.status != Status::kOk) return;
  const double rtol = exact_target ? o.infeasible_rtol : std::max(o.infeasible_rtol, o.residual_precision);
  if (res.residual_norm > residual_limit(p.J, p.w, res.f_N, rtol, f_floor)) {
    res.status = Status::kInfeasible;
    res.reason =
        "no tensions within the bounds meet the wrench: |J f - w| / |w| is above "
        "infeasible_rtol";
  }
}

}  // namespace detail

namespace {

/// Calls fn(std::integral_constant<int, M>) with M = m for m <= 6 (loops with a constant trip
/// count, unrolled) and M = 0 (any m) otherwise.
template <class Fn>
void with_rows(int m, Fn&& fn) {
  switch (m) {
    case 1: fn(std::integral_constant<int, 1>{}); break;
    case 2: fn(std::integral_constant<int, 2>{}); break;
    case 3: fn(std::integral_constant<int, 3>{}); break;
    case 4: fn(std::integral_constant<int, 4>{}); break;
    case 5: fn(std::integral_constant<int, 5>{}); break;
    case 6: fn(std::integral_constant<int, 6>{}); break;
    default: fn(std::integral_constant<int, 0>{}); break;
  }
}

/// |J|_max and whether an entry is non-finite (all exponent bits set: integer tests, no
/// floating-point dependency chain). M > 0: m as a constant.
template <int M>
void scan_J(const double* J, Eigen::Index ld, int m_any, int n, double& jmax, bool& nonfinite) {
  const int m = M > 0 ? M : m_any;
  constexpr std::uint64_t kExpBits = 0x7ff0000000000000ULL;
  double mx = 0.0;
  bool bad = false;
  for (int j = 0; j < n; ++j) {
    const double* src = J + j * ld;
    for (int i = 0; i < m; ++i) {
      mx = std::max(mx, std::abs(src[i]));
      bad |= (std::bit_cast<std::uint64_t>(src[i]) & kExpBits) == kExpBits;
    }
  }
  jmax = mx;
  nonfinite = bad;
}

/// Jg = J 2^-a and Jc = Jg diag(2^-e_j) with e_j making each column's largest entry of Jc lie in
/// [0.5, 1): col_exp[j] = e_j, wt[j] = 2^e_j. The same values as element-wise ldexp: a product
/// with a normal power of two, hoisted out of the loop; times_pow2 per entry when 2^-a or 2^-e_j
/// is not a normal number. Jc is recomputed from J rather than re-read from Jg (a vector load
/// of two entries just stored one by one would stall on store forwarding).
template <int M>
void scale_J(const double* J, Eigen::Index ld, int m_any, int n, int a, double* Jg, Eigen::Index ldg, double* Jc, Eigen::Index ldc,
             int* col_exp, double* wt) {
  const int m = M > 0 ? M : m_any;
  const bool a_normal = -a >= -1022 && -a <= 1023;
  const double sa = a_normal ? detail::times_pow2(1.0, -a) : 0.0;
  for (int j = 0; j < n; ++j) {
    const double* src = J + j * ld;
    double* g = Jg + j * ldg;
    double cmax = 0.0;
    if (a_normal) {
      for (int i = 0; i < m; ++i) {
        const double gi = src[i] * sa;
        g[i] = gi;
        cmax = std::max(cmax, std::abs(gi));
      }
    } else {
      for (int i = 0; i < m; ++i) {
        g[i] = detail::times_pow2(src[i], -a);
        cmax = std::max(cmax, std::abs(g[i]));
      }
    }
    const int e = cmax > 0.0 ? detail::fast_ilogb(cmax) + 1 : 0;
    col_exp[j] = e;
    wt[j] = detail::times_pow2(1.0, e);
    double* c = Jc + j * ldc;
    if (a_normal && -e >= -1022 && -e <= 1023) {
      const double se = detail::times_pow2(1.0, -e);
      for (int i = 0; i < m; ++i) c[i] = (src[i] * sa) * se;
    } else {
      for (int i = 0; i < m; ++i) c[i] = detail::times_pow2(detail::times_pow2(src[i], -a), -e);
    }
  }
}

}  // namespace

void solve_tensions(Method method, const Eigen::Ref<const Eigen::MatrixXd>& J, const Eigen::Ref<const Eigen::VectorXd>& w,
                    const SolverOptions& o, Workspace& workspace, TensionResult& res) {
  auto& ws = workspace.impl();
  const auto m = J.rows();
  const auto n = J.cols();
  // Built only on the error path: the hot path must not allocate.
  const auto where = [method] { return std::string("tension (") + to_string(method) + "): "; };
  if (m < 1 || n < 1) throw Error(where() + "empty structure matrix");
  if (w.size() != m) throw Error(where() + "wrench has " + std::to_string(w.size()) + " entries but J has " + std::to_string(m) + " rows");
  if (m > ws.max_rows || n > ws.max_cols)
    throw Error(where() + "J is " + std::to_string(m) + " x " + std::to_string(n) + ", larger than the workspace (" +
                std::to_string(ws.max_rows) + " x " + std::to_string(ws.max_cols) + ")");
  if (n > 64) throw Error(where() + "at most 64 cables are supported (got " + std::to_string(n) + ")");
  // |J|_max and the finiteness check in one pass.
  double jmax = 0.0;
  bool nonfinite = false;
  with_rows(static_cast<int>(m), [&](auto rows) {
    scan_J<decltype(rows)::value>(J.data(), J.outerStride(), static_cast<int>(m), static_cast<int>(n), jmax, nonfinite);
  });
  if (nonfinite) throw Error(where() + "structure matrix J has a non-finite entry");
  if (!w.allFinite()) throw Error(where() + "wrench has a non-finite entry");
  if (!(o.f_min_N >= 0.0) || !std::isfinite(o.f_min_N))
    throw Error(where() + "f_min must be finite and >= 0 (got " + std::to_string(o.f_min_N) + ")");
  if (!(o.f_max_N > o.f_min_N)) throw Error(where() + "f_max must be > f_min (got " + std::to_string(o.f_max_N) + ")");
  if (!(o.iqr_coefficient >= 0.0) || !(o.residual_precision > 0.0) || !(o.rank_rtol > 0.0))
    throw Error(where() + "iqr_coefficient must be >= 0, residual_precision and rank_rtol > 0");
  const bool closed = method == Method::kClosedForm || method == Method::kImprovedClosedForm;
  const bool centred = method == Method::kCentred || method == Method::kCentroid;
  if ((closed || centred) && !std::isfinite(o.f_max_N))
    throw Error(where() + "needs a finite f_max (the method centres on (f_min + f_max)/2)");
  if (method == Method::kCentroid && n != m + 2)
    throw Error(where() + "needs exactly 2 more cables than wrench rows (got " + std::to_string(n) + " cables, " + std::to_string(m) +
                " rows); use centred for other redundancies");
  if (res.f_N.size() != n) res.f_N.resize(n);
  res.f_N.setZero();
  res.status = Status::kOk;
  res.reason = "";
  res.iterations = 0;
  res.outliers = 0;

  // Equilibration by powers of two (exact; see tension.hpp and docs/CDPR.md).
  const int a = jmax > 0.0 ? detail::fast_ilogb(jmax) + 1 : 0;
  auto Jg = ws.Jg.topLeftCorner(m, n);
  auto Jc = ws.Jc.topLeftCorner(m, n);
  auto wt = ws.wt.head(n);
  with_rows(static_cast<int>(m), [&](auto rows) {
    scale_J<decltype(rows)::value>(J.data(), J.outerStride(), static_cast<int>(m), static_cast<int>(n), a, ws.Jg.data(),
                                   ws.Jg.outerStride(), ws.Jc.data(), ws.Jc.outerStride(), ws.col_exp.data(), wt.data());
  });
  // Tension exponent: the largest of |w|_inf 2^-a, f_min (and f_max for the closed forms), in
  // exponent arithmetic so that nothing overflows on the way.
  const double winf = w.cwiseAbs().maxCoeff();
  int t_exp = std::numeric_limits<int>::min();
  if (winf > 0.0) t_exp = detail::fast_ilogb(winf) - a;
  if (o.f_min_N > 0.0) t_exp = std::max(t_exp, detail::fast_ilogb(o.f_min_N));
  if (closed || centred) t_exp = std::max(t_exp, detail::fast_ilogb(o.f_max_N));
  const int b = t_exp == std::numeric_limits<int>::min() ? 0 : -(t_exp + 1);
  auto wg = ws.wg.head(m);
  for (Eigen::Index i = 0; i < m; ++i) wg[i] = detail::times_pow2(w[i], b - a);
  double f_max_g = detail::times_pow2(o.f_max_N, b);    // (= ldexp; inf stays inf)
  if (std::isinf(f_max_g) && std::isfinite(o.f_max_N))  // f_max beyond 2^1024 |w|: no bound
    f_max_g = std::numeric_limits<double>::max();
  const detail::Scaled p{Jg, wg, Jc, wt, ws.col_exp.data(), detail::times_pow2(o.f_min_N, b), f_max_g};

  switch (method) {
    case Method::kExhaustive: detail::solve_exhaustive(p, o, ws, res); break;
    case Method::kLawsonHanson: detail::solve_lawson_hanson(p, o, ws, res); break;
    case Method::kExact: detail::solve_exact(p, o, ws, res); break;
    case Method::kClosedForm: detail::solve_closed_form(p, o, false, ws, res); break;
    case Method::kImprovedClosedForm: detail::solve_closed_form(p, o, true, ws, res); break;
    case Method::kCentred: detail::solve_exact(p, o, ws, res, true); break;
    case Method::kCentroid: detail::solve_centroid(p, o, ws, res); break;
  }

  // Unscale: f = f_g 2^-b, |J f - w| = |J_g f_g - w_g| 2^(a - b).
  for (Eigen::Index j = 0; j < n; ++j) res.f_N[j] = detail::times_pow2(res.f_N[j], -b) + 0.0;  // no -0
  res.tension_norm = detail::times_pow2(res.tension_norm, -b);
  res.residual_norm = detail::times_pow2(res.residual_norm, a - b);
  if (res.status != Status::kNonFinite && (!res.f_N.allFinite() || !std::isfinite(res.tension_norm) || !std::isfinite(res.residual_norm))) {
    res.status = Status::kNonFinite;
    res.reason = "the answer overflows the double range when unscaled (|w| too large for J)";
  }
  // Exhaustive and Lawson-Hanson solve f >= 0: a bound they did not enforce is reported, never ok.
  const bool bounded = o.f_min_N > 0.0 || std::isfinite(o.f_max_N);
  if (bounded && (method == Method::kExhaustive || method == Method::kLawsonHanson) && res.status != Status::kNonFinite &&
      res.status != Status::kIterationLimit) {
    const double slack = 1e-9 * std::max(o.f_min_N, res.f_N.lpNorm<Eigen::Infinity>());
    bool outside = false;
    for (Eigen::Index j = 0; j < n; ++j) outside |= res.f_N[j] < o.f_min_N - slack || res.f_N[j] > o.f_max_N + slack;
    if (outside) {
      res.status = Status::kOutOfBounds;
      res.reason = o.f_min_N > 0.0 && res.f_N.minCoeff() < o.f_min_N - slack
                       ? "the method solves f >= 0 only and a tension is below f_min (use exact or a "
                         "closed form to enforce the bounds)"
                       : "the method solves f >= 0 only and a tension is above f_max (use exact or a "
                         "closed form to enforce the bounds)";
    }
  }
}

TensionResult solve_tensions(Method method, const Eigen::MatrixXd& J, const Eigen::VectorXd& w, const SolverOptions& options) {
  Workspace ws(std::max<int>(1, static_cast<int>(J.rows())), std::max<int>(1, static_cast<int>(J.cols())));
  TensionResult res;
  solve_tensions(method, J, w, options, ws, res);
  return res;
}

double kkt_violation(const Eigen::MatrixXd& J, const Eigen::VectorXd& w, const Eigen::VectorXd& f, double f_min_N, double f_max_N) {
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
  // Stationarity is the equation A x = f (x >= 0 on the bound multipliers): scaling its rows
  // (cables) does not change whether it holds, so rows and columns are equilibrated by powers of
  // two and the residual is measured relative to the scaled f. Without this a cable whose column
  // of J is orders of magnitude larger dominates the NNLS and ends it early.
  Eigen::VectorXd fs = f;
  for (int i = 0; i < n; ++i) {
    const double rmax = std::max(A.row(i).cwiseAbs().maxCoeff(), std::abs(f[i]));
    if (rmax > 0.0) {
      const double s = std::ldexp(1.0, -(std::ilogb(rmax) + 1));
      A.row(i) *= s;
      fs[i] *= s;
    }
  }
  for (int k = 0; k < p; ++k) {
    const double cmax = A.col(k).cwiseAbs().maxCoeff();
    if (cmax > 0.0) A.col(k) *= std::ldexp(1.0, -(std::ilogb(cmax) + 1));
  }
  detail::BoundedLS bls(n, p);
  std::vector<double> lo(p, 0.0), hi(p, std::numeric_limits<double>::infinity()), x(p);
  int it = 0;
  const double tol = 10.0 * std::numeric_limits<double>::epsilon() * A.cwiseAbs().colwise().sum().maxCoeff() *
                     static_cast<double>(std::max(n, p)) * fs.norm();
  bls.solve(A, fs, lo.data(), hi.data(), tol, 50 * p + 100, x.data(), &it);
  const Eigen::Map<const Eigen::VectorXd> xv(x.data(), p);
  const double v2 = (A * xv - fs).norm() / (fs.lpNorm<Eigen::Infinity>() + 1.0);
  return std::max({v1 / gscale, vb / fscale, v2});
}

}  // namespace tendyn::cdpr
