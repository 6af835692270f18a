// Workspaces of a CDPR model. See include/tendyn/cdpr/workspace.hpp.
#include <tendyn/cdpr/workspace.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/core/worker_pool.hpp>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <numbers>

namespace tendyn::cdpr {
namespace {

constexpr double kRankRtol = 1e-10;

using SmallVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;

// A cable's share of a facet's offsets: with s = c . a_i, the largest of s f over f in [fmin, fmax]
// goes to d+ and the smallest to d- (the support of the available wrench set along c).
inline void add_facet_offsets(double s, double fmin, double fmax, double& dplus, double& dminus) {
  if (s > 0.0) {
    dplus += s * fmax;
    dminus += s * fmin;
  } else if (s < 0.0) {
    dplus += s * fmin;
    dminus += s * fmax;
  }
}

}  // namespace

struct WorkspaceEvaluator::Impl {
  const Model* model = nullptr;
  WorkspaceOptions options;
  TensionProblem problem;
  Workspace solver_ws;
  TensionResult result;
  Eigen::VectorXd f_cert;        // (n) last tensions
  Eigen::MatrixXd box_vertices;  // (m x K) external wrench vertices
  Eigen::MatrixXd vertices;      // (m x K) required wrenches at the last pose
  std::vector<int> combos;       // (ncombo x (m - 1)) column sets of the facet normals
  int ncombo = 0;
  bool margin_on = false;       // the facets are enumerated (margin requested or ellipsoid)
  bool report_margin = false;   // options.margin
  bool ellipsoid = false;       // the wrench set is an ellipsoid of non-zero shape
  Eigen::MatrixXd ell_E;        // (m x m) its shape, symmetrised
  bool closed_form_ok = false;  // finite f_max: the closed-form fast path applies
  // The facets through the null space of J (n - m = 1 or 2 redundant cables; see dual_margin)
  int dual_d = 0;                            // n - m when the dual path applies, else 0
  std::vector<int> complements;              // (ncombo x (d + 1)) the columns each facet leaves out
  Eigen::HouseholderQR<Eigen::MatrixXd> qr;  // of J^T
  Eigen::MatrixXd Q;                         // (n x n) its orthogonal factor
  Eigen::MatrixXd G;                         // (m x n) R^-1 Q1^T: c = G r for r in the row space of J
  Eigen::MatrixXd GW;                        // (n x K) G^T times each required wrench
  Eigen::VectorXd w;                         // (m) scratch
  Eigen::VectorXd rvec;                      // (m) residual scratch
  Eigen::VectorXd zero_w;                    // (m) closure right-hand side
  SolverOptions closure_options;

  Impl(const Model& m, const WorkspaceOptions& o)
      : model(&m),
        options(o),
        problem(make_tension_problem(m, o.group, o.rows)),
        solver_ws(std::max(1, problem.nrow()), std::max(1, problem.ncable())) {}

  [[nodiscard]] std::vector<std::string> row_names() const {
    static const char* kSpatial[] = {"fx", "fy", "fz", "mx", "my", "mz"};
    static const char* kPlanar[] = {"fx", "fy", "mz"};
    std::vector<std::string> out;
    for (int r : problem.row_index) out.emplace_back(model->motion == Motion::kPlanar ? kPlanar[r] : kSpatial[r]);
    return out;
  }

  void validate_and_size() {
    const int m = problem.nrow(), n = problem.ncable();
    auto& so = problem.options;
    if (!std::isnan(options.f_min_N)) so.f_min_N = options.f_min_N;
    if (!std::isnan(options.f_max_N)) so.f_max_N = options.f_max_N;
    if (!(so.f_min_N >= 0.0) || !std::isfinite(so.f_min_N))
      throw Error("workspace: f_min_N " + format_number(so.f_min_N, 6) + " must be finite and >= 0");
    if (!(so.f_max_N > so.f_min_N))
      throw Error("workspace: f_min_N " + format_number(so.f_min_N, 6) + " >= f_max_N " + format_number(so.f_max_N, 6) +
                  " (inverted or empty tension bounds)");
    if (!(options.feasibility_rtol > 0.0) || !std::isfinite(options.feasibility_rtol))
      throw Error("workspace: feasibility_rtol must be finite and > 0");
    const auto names = row_names();
    std::string rows_text;
    for (std::size_t i = 0; i < names.size(); ++i) rows_text += (i ? ", " : "") + names[i];
    const bool has_box = options.wrench_lo.size() > 0 || options.wrench_hi.size() > 0;
    const bool has_ell = options.wrench_centre.size() > 0 || options.wrench_shape.size() > 0;
    if (has_ell) validate_ellipsoid(has_box, m, names, rows_text);
    if (has_box && options.kind != WorkspaceKind::kFeasible)
      throw Error(std::string("wrench box: kind '") + to_string(options.kind) + "' takes no external wrench set (use kind feasible)");
    if (has_box) {
      if (options.wrench_lo.size() != m || options.wrench_hi.size() != m)
        throw Error("wrench box: " + std::to_string(options.wrench_lo.size()) + " lower and " + std::to_string(options.wrench_hi.size()) +
                    " upper values, the problem has " + std::to_string(m) + " rows (" + rows_text + ")");
      for (int r = 0; r < m; ++r) {
        const double lo = options.wrench_lo[r], hi = options.wrench_hi[r];
        if (!std::isfinite(lo) || !std::isfinite(hi))
          throw Error("wrench box: row " + names[static_cast<std::size_t>(r)] + ": bounds must be finite");
        if (lo > hi)
          throw Error("wrench box: row " + names[static_cast<std::size_t>(r)] + ": lower bound " + format_number(lo, 6) +
                      " > upper bound " + format_number(hi, 6) + " (empty wrench set)");
      }
    }
    // vertices of the box: rows with lo < hi double the count
    std::vector<int> free_rows;
    if (has_box)
      for (int r = 0; r < m; ++r)
        if (options.wrench_lo[r] < options.wrench_hi[r]) free_rows.push_back(r);
    const int K = 1 << free_rows.size();
    box_vertices = Eigen::MatrixXd::Zero(m, K);
    if (has_ell) box_vertices.col(0) = options.wrench_centre;
    for (int k = 0; k < K; ++k) {
      if (has_box) box_vertices.col(k) = options.wrench_lo;
      for (std::size_t b = 0; b < free_rows.size(); ++b)
        if (k & (1 << b)) box_vertices(free_rows[b], k) = options.wrench_hi[free_rows[b]];
    }
    vertices = Eigen::MatrixXd::Zero(m, K);
    w = Eigen::VectorXd::Zero(m);
    rvec = Eigen::VectorXd::Zero(m);
    zero_w = Eigen::VectorXd::Zero(m);
    f_cert = Eigen::VectorXd::Zero(n);
    result.f_N = Eigen::VectorXd::Zero(n);
    closed_form_ok = std::isfinite(so.f_max_N);
    closure_options = problem.options;
    closure_options.f_min_N = 1.0;
    closure_options.f_max_N = std::numeric_limits<double>::infinity();
    // facet normals of the zonotope: every set of m - 1 of the n columns
    report_margin = options.margin;
    margin_on = (options.margin || ellipsoid) && options.kind != WorkspaceKind::kClosure && m <= 6 && m >= 1;
    if (margin_on && m > 1) {
      const int k = m - 1;
      if (n < k) {
        margin_on = false;
      } else {
        double count = 1.0;  // C(n, k)
        for (int i = 0; i < k; ++i) count = count * (n - i) / (i + 1);
        if (count > options.max_margin_facets) {
          if (ellipsoid)
            throw Error("wrench ellipsoid: the exact test needs the " + format_number(count, 6) + " facet normals of " + std::to_string(n) +
                        " cables and " + std::to_string(m) + " rows, more than max_margin_facets " +
                        std::to_string(options.max_margin_facets));
          margin_on = false;
        } else {
          std::vector<int> idx(static_cast<std::size_t>(k));
          for (int i = 0; i < k; ++i) idx[static_cast<std::size_t>(i)] = i;
          for (;;) {
            combos.insert(combos.end(), idx.begin(), idx.end());
            ++ncombo;
            int i = k - 1;
            while (i >= 0 && idx[static_cast<std::size_t>(i)] == n - k + i) --i;
            if (i < 0) break;
            ++idx[static_cast<std::size_t>(i)];
            for (int j = i + 1; j < k; ++j) idx[static_cast<std::size_t>(j)] = idx[static_cast<std::size_t>(j - 1)] + 1;
          }
        }
      }
    } else if (margin_on) {
      ncombo = 1;  // m == 1: the normal is +-1
    }
    if (margin_on && m >= 2 && (n - m == 1 || n - m == 2) && ncombo > 0) {
      dual_d = n - m;
      const int k = m - 1;
      std::vector<char> in(static_cast<std::size_t>(n));
      for (int q = 0; q < ncombo; ++q) {
        std::fill(in.begin(), in.end(), 0);
        for (int j = 0; j < k; ++j) in[static_cast<std::size_t>(combos[static_cast<std::size_t>(q * k + j)])] = 1;
        for (int i = 0; i < n; ++i)
          if (!in[static_cast<std::size_t>(i)]) complements.push_back(i);
      }
      qr = Eigen::HouseholderQR<Eigen::MatrixXd>(n, m);
      Q = Eigen::MatrixXd::Zero(n, n);
      G = Eigen::MatrixXd::Zero(m, n);
      GW = Eigen::MatrixXd::Zero(n, box_vertices.cols());
    }
  }

  // The ellipsoid's checks; sets `ellipsoid` and `ell_E` (symmetrised) for a non-zero shape.
  void validate_ellipsoid(bool has_box, int m, const std::vector<std::string>& names, const std::string& rows_text) {
    const Eigen::VectorXd& c = options.wrench_centre;
    const Eigen::MatrixXd& E = options.wrench_shape;
    if (options.kind != WorkspaceKind::kFeasible)
      throw Error(std::string("wrench ellipsoid: kind '") + to_string(options.kind) + "' takes no external wrench set (use kind feasible)");
    if (has_box) throw Error("wrench ellipsoid: a box is given too (give one wrench set: a box or an ellipsoid)");
    if (c.size() != m || E.rows() != m || E.cols() != m)
      throw Error("wrench ellipsoid: centre of " + std::to_string(c.size()) + " values and shape " + std::to_string(E.rows()) + " x " +
                  std::to_string(E.cols()) + ", the problem has " + std::to_string(m) + " rows (" + rows_text + ")");
    for (int r = 0; r < m; ++r) {
      const std::string row = names[static_cast<std::size_t>(r)];
      if (!std::isfinite(c[r])) throw Error("wrench ellipsoid: centre row " + row + " is not finite");
      for (int k = 0; k < m; ++k)
        if (!std::isfinite(E(r, k)))
          throw Error("wrench ellipsoid: shape (" + row + ", " + names[static_cast<std::size_t>(k)] + ") is not finite");
    }
    const double scale = E.cwiseAbs().maxCoeff();
    for (int r = 0; r < m; ++r)
      for (int k = r + 1; k < m; ++k)
        if (std::abs(E(r, k) - E(k, r)) > 1e-12 * scale)
          throw Error("wrench ellipsoid: shape is not symmetric: (" + names[static_cast<std::size_t>(r)] + ", " +
                      names[static_cast<std::size_t>(k)] + ") = " + format_number(E(r, k), 9) + " but (" +
                      names[static_cast<std::size_t>(k)] + ", " + names[static_cast<std::size_t>(r)] + ") = " + format_number(E(k, r), 9));
    ell_E = 0.5 * (E + E.transpose());
    if (scale > 0.0) {
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(ell_E, Eigen::EigenvaluesOnly);
      const double lo = eig.eigenvalues().minCoeff(), hi = eig.eigenvalues().cwiseAbs().maxCoeff();
      if (lo < -1e-12 * hi)
        throw Error("wrench ellipsoid: shape is not positive semi-definite (smallest eigenvalue " + format_number(lo, 6) + ")");
    }
    ellipsoid = scale > 0.0;
  }

  // |E c| by loops (no temporary): the ellipsoid's support along the unit normal c (E symmetric)
  template <class Vec>
  [[nodiscard]] double ellipsoid_support(const Vec& c) const {
    double sum = 0.0;
    for (Eigen::Index r = 0; r < ell_E.rows(); ++r) {
      double d = 0.0;
      for (Eigen::Index k = 0; k < ell_E.cols(); ++k) d += ell_E(r, k) * c[k];
      sum += d * d;
    }
    return std::sqrt(sum);
  }

  // signed distance of every vertex to the facet with unit normal c: min over both sides (an
  // ellipsoid: of its centre, less its support along c)
  template <class Vec>
  [[nodiscard]] double facet_margin(const Vec& c, const Eigen::MatrixXd& J) const {
    const double fmin = problem.options.f_min_N, fmax = problem.options.f_max_N;
    double dplus = 0.0, dminus = 0.0;
    for (int i = 0; i < J.cols(); ++i) add_facet_offsets(c.dot(J.col(i)), fmin, fmax, dplus, dminus);
    double out = std::numeric_limits<double>::infinity();
    for (int k = 0; k < vertices.cols(); ++k) {
      const double cw = c.dot(vertices.col(k));
      out = std::min({out, dplus - cw, cw - dminus});
    }
    return ellipsoid ? out - ellipsoid_support(c) : out;
  }

  // Unit normal c of the hyperplane spanned by the M - 1 columns `cols` of J: the null vector of
  // the (M - 1) x M matrix B = [a_cols]^T by Gaussian elimination with full pivoting (one free
  // column, back substitution). False when the columns are dependent (a pivot <= tol).
  template <int M>
  [[nodiscard]] bool facet_normal(const int* cols, double tol, Eigen::Matrix<double, M, 1>& c) const {
    constexpr int K = M - 1;
    const Eigen::MatrixXd& J = problem.J;
    double B[K][M];
    for (int r = 0; r < K; ++r)
      for (int j = 0; j < M; ++j) B[r][j] = J(j, cols[r]);
    int piv[K];
    bool used[M] = {};
    for (int r = 0; r < K; ++r) {
      int pi = -1, pj = -1;
      double best = tol;
      for (int i = r; i < K; ++i)
        for (int j = 0; j < M; ++j)
          if (!used[j] && std::abs(B[i][j]) > best) {
            best = std::abs(B[i][j]);
            pi = i;
            pj = j;
          }
      if (pi < 0) return false;
      if (pi != r)
        for (int j = 0; j < M; ++j) std::swap(B[r][j], B[pi][j]);
      used[pj] = true;
      piv[r] = pj;
      for (int i = r + 1; i < K; ++i) {
        const double f = B[i][pj] / B[r][pj];
        for (int j = 0; j < M; ++j) B[i][j] -= f * B[r][j];
      }
    }
    int free_col = 0;
    while (used[free_col]) ++free_col;
    c.setZero();
    c[free_col] = 1.0;
    for (int r = K - 1; r >= 0; --r) {
      double sum = B[r][free_col];
      for (int s = r + 1; s < K; ++s) sum += B[r][piv[s]] * c[piv[s]];
      c[piv[r]] = -sum / B[r][piv[r]];
    }
    c /= c.norm();
    return true;
  }

  template <int M>
  [[nodiscard]] double capacity_margin_fixed(double Jmax) const {
    double margin = std::numeric_limits<double>::infinity();
    int facets = 0;
    Eigen::Matrix<double, M, 1> c;
    for (int q = 0; q < ncombo; ++q) {
      const int* cols = combos.data() + static_cast<std::size_t>(q) * static_cast<std::size_t>(M - 1);
      if (!facet_normal<M>(cols, 1e-9 * Jmax, c)) continue;
      margin = std::min(margin, facet_margin(c, problem.J));
      ++facets;
    }
    // no m - 1 independent columns: rank J < m, the set has no interior
    if (facets == 0) return std::numeric_limits<double>::quiet_NaN();
    return margin;
  }

  // The capacity margin through the null space of J, for n = m + 1 or m + 2 cables and J of full
  // rank m. A facet's unit normal c is orthogonal to its m - 1 columns S, so r = J^T c vanishes on
  // S and lies in J's row space, i.e. it is orthogonal to the null space N (n x d) of J: on the
  // d + 1 columns T left out, r_T is the null vector of the d x (d + 1) matrix N_T (d = 1: a
  // perpendicular, d = 2: a cross product), zero when S is dependent. Then c = G r / |G r| with
  // G = R^-1 Q1^T from J^T = Q R, and c . J_i = r_i / |G r|, c . w = r . (G^T w) / |G r|: per
  // facet O(m d) work instead of an elimination and n dot products. The same facets as
  // capacity_margin_fixed (matroid duality: S is independent iff rank N_T = d), equal margins up
  // to round-off. Returns false (nothing computed) when J is rank deficient.
  bool dual_margin(double& margin) {
    const Eigen::MatrixXd& J = problem.J;
    const int m = problem.nrow(), d = dual_d;
    qr.compute(J.transpose());  // into the factorisation's own storage (sized once)
    const auto& QR = qr.matrixQR();
    double rmax = 0.0, rmin = std::numeric_limits<double>::infinity();
    for (int i = 0; i < m; ++i) {
      rmax = std::max(rmax, std::abs(QR(i, i)));
      rmin = std::min(rmin, std::abs(QR(i, i)));
    }
    if (!(rmax > 0.0) || !(rmin > kRankRtol * rmax)) return false;
    Q = qr.householderQ();
    G = Q.leftCols(m).transpose();
    QR.topLeftCorner(m, m).triangularView<Eigen::Upper>().solveInPlace(G);
    GW.noalias() = G.transpose() * vertices;
    const double fmin = problem.options.f_min_N, fmax = problem.options.f_max_N;
    const int* T = complements.data();
    SmallVec c(m);
    double r[3];
    int facets = 0;
    margin = std::numeric_limits<double>::infinity();
    for (int q = 0; q < ncombo; ++q, T += d + 1) {
      if (d == 1) {
        r[0] = Q(T[1], m);
        r[1] = -Q(T[0], m);
      } else {
        const double a0 = Q(T[0], m), a1 = Q(T[1], m), a2 = Q(T[2], m);
        const double b0 = Q(T[0], m + 1), b1 = Q(T[1], m + 1), b2 = Q(T[2], m + 1);
        r[0] = a1 * b2 - a2 * b1;
        r[1] = a2 * b0 - a0 * b2;
        r[2] = a0 * b1 - a1 * b0;
      }
      double rr = 0.0;
      for (int j = 0; j <= d; ++j) rr += r[j] * r[j];
      if (!(rr > 1e-18)) continue;  // the m - 1 columns are dependent: no facet (N's columns are unit)
      double cc = 0.0;
      for (int i = 0; i < m; ++i) {
        double ci = 0.0;
        for (int j = 0; j <= d; ++j) ci += r[j] * G(i, T[j]);
        c[i] = ci;
        cc += ci * ci;
      }
      const double inv = 1.0 / std::sqrt(cc);
      double dplus = 0.0, dminus = 0.0;
      for (int j = 0; j <= d; ++j) add_facet_offsets(r[j] * inv, fmin, fmax, dplus, dminus);
      double out = std::numeric_limits<double>::infinity();
      for (int k = 0; k < GW.cols(); ++k) {
        double cw = 0.0;
        for (int j = 0; j <= d; ++j) cw += r[j] * GW(T[j], k);
        cw *= inv;
        out = std::min({out, dplus - cw, cw - dminus});
      }
      if (ellipsoid) {
        for (int i = 0; i < m; ++i) c[i] *= inv;
        out -= ellipsoid_support(c);
      }
      margin = std::min(margin, out);
      ++facets;
    }
    if (facets == 0) margin = std::numeric_limits<double>::quiet_NaN();
    return true;
  }

  [[nodiscard]] double capacity_margin(double Jmax) {
    if (dual_d > 0) {
      double margin = 0.0;
      if (dual_margin(margin)) return margin;
    }
    switch (problem.nrow()) {
      case 1: {
        SmallVec c(1);
        c[0] = 1.0;
        return facet_margin(c, problem.J);  // both ends of the interval
      }
      case 2: return capacity_margin_fixed<2>(Jmax);
      case 3: return capacity_margin_fixed<3>(Jmax);
      case 4: return capacity_margin_fixed<4>(Jmax);
      case 5: return capacity_margin_fixed<5>(Jmax);
      case 6: return capacity_margin_fixed<6>(Jmax);
      default: return std::numeric_limits<double>::quiet_NaN();
    }
  }

  // result.f_N within [f_min, f_max] and |J f - w| at round-off: a proof that w is feasible
  [[nodiscard]] bool certificate_holds(const Eigen::MatrixXd& J, const Eigen::VectorXd& wv, double Jmax) {
    const auto& f = result.f_N;
    if (!f.allFinite() || f.minCoeff() < problem.options.f_min_N || f.maxCoeff() > problem.options.f_max_N) return false;
    rvec.noalias() = J * f;
    rvec -= wv;
    const double res = rvec.norm();
    return res <= options.feasibility_rtol * (wv.norm() + Jmax * f.norm());
  }

  PoseVerdict evaluate(const Pose& pose) {
    if (!pose.p_WP.allFinite() || !pose.R_WP.allFinite()) throw Error("workspace: non-finite pose");
    PoseVerdict v;
    try {
      update_tension_problem(*model, pose, problem);
    } catch (const Error&) {
      v.cls = PoseClass::kUndefined;  // a cable of zero length
      return v;
    }
    const Eigen::MatrixXd& J = problem.J;
    const int m = problem.nrow();
    const double Jmax = J.size() ? J.cwiseAbs().maxCoeff() : 0.0;
    if (options.kind == WorkspaceKind::kClosure) {
      Eigen::JacobiSVD<Eigen::MatrixXd> svd(J);
      const auto& s = svd.singularValues();
      if (s.size() < m || s[0] <= 0.0 || s[m - 1] <= kRankRtol * s[0]) {
        v.cls = PoseClass::kOutside;
        v.residual = std::numeric_limits<double>::infinity();
        return v;
      }
      solve_tensions(Method::kExact, J, zero_w, closure_options, solver_ws, result);
      f_cert = result.f_N;
      v.residual = result.residual_norm;
      if (result.status == Status::kIterationLimit) {
        v.cls = PoseClass::kUndecided;
      } else {
        const double tol = options.feasibility_rtol * Jmax * result.tension_norm;
        v.cls = (std::isfinite(result.residual_norm) && result.residual_norm <= tol) ? PoseClass::kInside : PoseClass::kOutside;
      }
      return v;
    }
    for (int k = 0; k < vertices.cols(); ++k) vertices.col(k) = problem.w - box_vertices.col(k);
    v.cls = PoseClass::kInside;
    for (int k = 0; k < vertices.cols(); ++k) {
      w = vertices.col(k);
      // fast path: the improved closed form (Pott 2014) often finds a tension vector within the
      // bounds; verified here, it is a certificate and the exact solve is not needed
      if (closed_form_ok) {
        solve_tensions(Method::kImprovedClosedForm, J, w, problem.options, solver_ws, result);
        if (result.status == Status::kOk && certificate_holds(J, w, Jmax)) {
          f_cert = result.f_N;
          v.residual = std::max(v.residual, result.residual_norm);
          continue;
        }
      }
      solve_tensions(Method::kExact, J, w, problem.options, solver_ws, result);
      f_cert = result.f_N;
      if (result.status == Status::kIterationLimit) {
        v.cls = PoseClass::kUndecided;
        break;
      }
      const double res = std::isfinite(result.residual_norm) ? result.residual_norm : std::numeric_limits<double>::infinity();
      v.residual = std::max(v.residual, res);
      const double tol = options.feasibility_rtol * (w.norm() + Jmax * result.tension_norm);
      if (!(res <= tol) || !std::isfinite(result.tension_norm)) {
        v.cls = PoseClass::kOutside;
        break;
      }
    }
    if (ellipsoid && v.cls == PoseClass::kInside) {
      // the centre is inside; the ellipsoid is iff no facet is closer than its support
      Eigen::JacobiSVD<Eigen::MatrixXd> svd(J, Eigen::ComputeFullU);
      const auto& s = svd.singularValues();
      if (s.size() < m || s[0] <= 0.0 || s[m - 1] <= kRankRtol * s[0]) {
        // Z is flat: outside if the ellipsoid leaves J's column space, else not decided here
        const int rank = s.size() == 0 || s[0] <= 0.0 ? 0 : static_cast<int>((s.array() > kRankRtol * s[0]).count());
        const double off = (svd.matrixU().rightCols(m - rank).transpose() * ell_E).norm();
        v.cls = off > options.feasibility_rtol * ell_E.norm() ? PoseClass::kOutside : PoseClass::kUndecided;
        return v;
      }
      const double margin = capacity_margin(Jmax);
      const double fscale = std::isfinite(problem.options.f_max_N) ? problem.options.f_max_N : problem.options.f_min_N;
      const double tol =
          options.feasibility_rtol * (vertices.col(0).norm() + ell_E.norm() + Jmax * fscale * std::sqrt(static_cast<double>(J.cols())));
      if (std::isnan(margin))
        v.cls = PoseClass::kUndecided;
      else if (margin < -tol)
        v.cls = PoseClass::kOutside;
      if (report_margin) v.margin = margin;
      return v;
    }
    if (margin_on && report_margin) v.margin = capacity_margin(Jmax);
    return v;
  }
};

WorkspaceEvaluator::WorkspaceEvaluator(const Model& model, const WorkspaceOptions& options)
    : impl_(std::make_unique<Impl>(model, options)) {
  impl_->validate_and_size();
}
WorkspaceEvaluator::~WorkspaceEvaluator() = default;
WorkspaceEvaluator::WorkspaceEvaluator(WorkspaceEvaluator&&) noexcept = default;
WorkspaceEvaluator& WorkspaceEvaluator::operator=(WorkspaceEvaluator&&) noexcept = default;
PoseVerdict WorkspaceEvaluator::evaluate(const Pose& pose) { return impl_->evaluate(pose); }
const Eigen::VectorXd& WorkspaceEvaluator::last_tensions() const { return impl_->f_cert; }
const TensionProblem& WorkspaceEvaluator::problem() const { return impl_->problem; }
const Eigen::MatrixXd& WorkspaceEvaluator::wrench_vertices() const { return impl_->vertices; }
std::vector<std::string> WorkspaceEvaluator::row_names() const { return impl_->row_names(); }

namespace {

// Evaluators shared by the pose loops: a block takes a free one and gives it back.
class EvaluatorPool {
 public:
  EvaluatorPool(const Model& model, const WorkspaceOptions& options) : model_(model), options_(options) {
    free_.push_back(std::make_unique<WorkspaceEvaluator>(model, options));  // validates on the caller
  }
  std::unique_ptr<WorkspaceEvaluator> take() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        auto e = std::move(free_.back());
        free_.pop_back();
        return e;
      }
    }
    return std::make_unique<WorkspaceEvaluator>(model_, options_);
  }
  void give(std::unique_ptr<WorkspaceEvaluator> e) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(e));
  }

 private:
  const Model& model_;
  const WorkspaceOptions& options_;
  std::mutex mu_;
  std::vector<std::unique_ptr<WorkspaceEvaluator>> free_;
};

// Runs fn(evaluator, i) for i in [0, count) in blocks on the shared pool; progress between chunks.
template <class Fn>
void for_each_pose(EvaluatorPool& pool, int count, int threads, int block, const WorkspaceProgress& progress, Fn&& fn) {
  const int nblock = (count + block - 1) / block;
  const int nt = parallel_thread_count(std::max(1, nblock), threads);
  const int chunk = std::max(1, nt * 16);  // blocks between progress reports
  for (int b0 = 0; b0 < nblock; b0 += chunk) {
    const int nb = std::min(chunk, nblock - b0);
    parallel_for_balanced(WorkerPool::shared(), nb, threads, [&](int b) {
      auto e = pool.take();
      const int i0 = (b0 + b) * block, i1 = std::min(count, i0 + block);
      try {
        for (int i = i0; i < i1; ++i) fn(*e, i);
      } catch (...) {
        pool.give(std::move(e));
        throw;
      }
      pool.give(std::move(e));
    });
    if (progress) progress(static_cast<double>(b0 + nb) / nblock);
  }
}

void check_count(const char* what, int c) {
  if (c < 1) throw Error(std::string(what) + ": count " + std::to_string(c) + " must be >= 1");
}

}  // namespace

WorkspaceGridResult evaluate_grid(const Model& model, const WorkspaceOptions& options, const WorkspaceGrid& grid,
                                  const WorkspaceProgress& progress) {
  const bool planar = model.motion == Motion::kPlanar;
  static const char* kAxis[] = {"x", "y", "z"};
  const int naxis = planar ? 2 : 3;
  if (planar && grid.count[2] != 1) throw Error("grid: a planar model takes no z axis (z count must be 1)");
  double total = 1.0, cell = 1.0;
  for (int k = 0; k < naxis; ++k) {
    const std::string name = std::string("grid ") + kAxis[k];
    check_count(name.c_str(), grid.count[static_cast<std::size_t>(k)]);
    const double lo = grid.lo_m[k], hi = grid.hi_m[k];
    if (!std::isfinite(lo) || !std::isfinite(hi)) throw Error(name + ": bounds must be finite");
    if (lo > hi) throw Error(name + ": lower bound " + format_number(lo, 6) + " > upper bound " + format_number(hi, 6));
    total *= grid.count[static_cast<std::size_t>(k)];
    cell *= (hi - lo) / grid.count[static_cast<std::size_t>(k)];
  }
  if (!planar) check_count("grid z", grid.count[2]);
  if (total > 1e8) throw Error("grid: " + format_number(total, 6) + " points, more than the limit of 1e8");
  if (!grid.R_WP.allFinite()) throw Error("grid: non-finite orientation");
  EvaluatorPool pool(model, options);
  const int nx = grid.count[0], ny = grid.count[1], nz = planar ? 1 : grid.count[2];
  const int N = nx * ny * nz;
  WorkspaceGridResult out;
  out.p_WP.resize(3, N);
  out.verdicts.assign(static_cast<std::size_t>(N), PoseVerdict{});
  auto coord = [&](int k, int i) {
    const double lo = grid.lo_m[k], hi = grid.hi_m[k];
    return lo + (i + 0.5) * (hi - lo) / grid.count[static_cast<std::size_t>(k)];
  };
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < ny; ++iy)
      for (int ix = 0; ix < nx; ++ix) {
        const int i = ix + nx * (iy + ny * iz);
        out.p_WP.col(i) = Eigen::Vector3d(coord(0, ix), coord(1, iy), planar ? 0.0 : coord(2, iz));
      }
  for_each_pose(pool, N, options.threads, 256, progress, [&](WorkspaceEvaluator& e, int i) {
    Pose pose;
    pose.p_WP = out.p_WP.col(i);
    pose.R_WP = grid.R_WP;
    out.verdicts[static_cast<std::size_t>(i)] = e.evaluate(pose);
  });
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < ny; ++iy)
      for (int ix = 0; ix < nx; ++ix) {
        const int i = ix + nx * (iy + ny * iz);
        const PoseVerdict& v = out.verdicts[static_cast<std::size_t>(i)];
        if (v.cls == PoseClass::kUndefined) ++out.undefined_count;
        if (v.cls == PoseClass::kUndecided) ++out.undecided_count;
        if (!v.inside()) continue;
        ++out.inside_count;
        bool edge = ix == 0 || ix == nx - 1 || iy == 0 || iy == ny - 1 || (!planar && (iz == 0 || iz == nz - 1));
        if (edge) ++out.edge_inside_count;
        bool boundary = false;
        auto test = [&](int jx, int jy, int jz) {
          if (jx < 0 || jx >= nx || jy < 0 || jy >= ny || jz < 0 || jz >= nz) return;
          if (!out.verdicts[static_cast<std::size_t>(jx + nx * (jy + ny * jz))].inside()) boundary = true;
        };
        test(ix - 1, iy, iz);
        test(ix + 1, iy, iz);
        test(ix, iy - 1, iz);
        test(ix, iy + 1, iz);
        test(ix, iy, iz - 1);
        test(ix, iy, iz + 1);
        if (boundary) out.boundary.push_back(i);
      }
  out.cell_measure = cell;
  out.measure = out.inside_count * cell;
  return out;
}

std::vector<PoseVerdict> evaluate_poses(const Model& model, const WorkspaceOptions& options, const std::vector<Pose>& poses,
                                        const WorkspaceProgress& progress) {
  EvaluatorPool pool(model, options);
  std::vector<PoseVerdict> out(poses.size());
  for (std::size_t i = 0; i < poses.size(); ++i)
    if (!poses[i].p_WP.allFinite() || !poses[i].R_WP.allFinite()) throw Error("poses: pose " + std::to_string(i) + " is not finite");
  for_each_pose(pool, static_cast<int>(poses.size()), options.threads, 64, progress,
                [&](WorkspaceEvaluator& e, int i) { out[static_cast<std::size_t>(i)] = e.evaluate(poses[static_cast<std::size_t>(i)]); });
  return out;
}

std::vector<Pose> orientation_grid(const Model& model, const Eigen::Vector3d& p_WP_m, const Eigen::Vector3d& lo, const Eigen::Vector3d& hi,
                                   const std::array<int, 3>& count) {
  static const char* kAngle[] = {"roll", "pitch", "yaw"};
  if (!p_WP_m.allFinite()) throw Error("orientation grid: position must be finite");
  double total = 1.0;
  for (int k = 0; k < 3; ++k) {
    const std::string name = std::string("orientation grid ") + kAngle[k];
    check_count(name.c_str(), count[static_cast<std::size_t>(k)]);
    if (!std::isfinite(lo[k]) || !std::isfinite(hi[k])) throw Error(name + ": bounds must be finite");
    if (lo[k] > hi[k]) throw Error(name + ": lower bound " + format_number(lo[k], 6) + " > upper bound " + format_number(hi[k], 6));
    total *= count[static_cast<std::size_t>(k)];
  }
  if (total > 1e8) throw Error("orientation grid: more than 1e8 orientations");
  const bool planar = model.motion == Motion::kPlanar;
  if (planar && (count[0] != 1 || count[1] != 1 || lo[0] != 0.0 || hi[0] != 0.0 || lo[1] != 0.0 || hi[1] != 0.0))
    throw Error("orientation grid: a planar model turns about z only (roll and pitch must be 0)");
  if (planar && p_WP_m.z() != 0.0) throw Error("orientation grid: a planar model needs z = 0");
  auto angle = [&](int k, int i) {
    // a single point stands at the middle of [lo, hi] (lo itself when lo == hi)
    return lo[k] + (i + 0.5) * (hi[k] - lo[k]) / count[static_cast<std::size_t>(k)];
  };
  std::vector<Pose> out;
  out.reserve(static_cast<std::size_t>(total));
  for (int k = 0; k < count[2]; ++k)
    for (int j = 0; j < count[1]; ++j)
      for (int i = 0; i < count[0]; ++i) out.push_back(pose_from_xyz_rpy(p_WP_m, Eigen::Vector3d(angle(0, i), angle(1, j), angle(2, k))));
  return out;
}

RayResult cast_rays(const Model& model, const WorkspaceOptions& options, const RaySpec& spec, const WorkspaceProgress& progress) {
  check_count("rays", spec.count);
  if (spec.count > 10000000) throw Error("rays: count " + std::to_string(spec.count) + " above the limit of 1e7");
  auto positive = [](const char* name, double x) {
    if (!(x > 0.0) || !std::isfinite(x)) throw Error(std::string("rays: ") + name + " " + format_number(x, 6) + " must be finite and > 0");
  };
  positive("max_length_m", spec.max_length_m);
  positive("step_m", spec.step_m);
  positive("tol_m", spec.tol_m);
  if (spec.tol_m > spec.step_m) throw Error("rays: tol_m " + format_number(spec.tol_m, 6) + " > step_m " + format_number(spec.step_m, 6));
  if (!spec.start_m.allFinite() || !spec.R_WP.allFinite()) throw Error("rays: start point and orientation must be finite");
  const bool planar = model.motion == Motion::kPlanar;
  if (planar && spec.start_m.z() != 0.0) throw Error("rays: a planar model needs a start point with z = 0");
  EvaluatorPool pool(model, options);
  {
    auto e = pool.take();
    Pose pose;
    pose.p_WP = spec.start_m;
    pose.R_WP = spec.R_WP;
    const PoseVerdict v = e->evaluate(pose);
    pool.give(std::move(e));
    if (!v.inside())
      throw Error("ray start " + format_point(spec.start_m) + " m is not inside the " + to_string(options.kind) + " workspace (" +
                  to_string(v.cls) + ", residual " + format_number(v.residual, 6) + "): choose an inside start");
  }
  const int N = spec.count;
  RayResult out;
  out.direction.resize(3, N);
  out.distance_m = Eigen::VectorXd::Zero(N);
  out.boundary_m.resize(3, N);
  out.clipped.assign(static_cast<std::size_t>(N), false);
  out.verdicts.assign(static_cast<std::size_t>(N), PoseVerdict{});
  const double golden = std::numbers::pi * (3.0 - std::sqrt(5.0));
  for (int k = 0; k < N; ++k) {
    if (planar) {
      const double a = 2.0 * std::numbers::pi * k / N;
      out.direction.col(k) = Eigen::Vector3d(std::cos(a), std::sin(a), 0.0);
    } else {
      const double z = 1.0 - (2.0 * k + 1.0) / N;
      const double r = std::sqrt(std::max(0.0, 1.0 - z * z));
      const double a = golden * k;
      out.direction.col(k) = Eigen::Vector3d(r * std::cos(a), r * std::sin(a), z);
    }
  }
  std::vector<int> evals(static_cast<std::size_t>(N), 0);
  std::vector<char> clipped(static_cast<std::size_t>(N), 0);
  for_each_pose(pool, N, options.threads, 1, progress, [&](WorkspaceEvaluator& e, int k) {
    const Eigen::Vector3d d = out.direction.col(k);
    Pose pose;
    pose.R_WP = spec.R_WP;
    int& count = evals[static_cast<std::size_t>(k)];
    auto inside_at = [&](double s, PoseVerdict* keep) {
      pose.p_WP = spec.start_m + s * d;
      ++count;
      const PoseVerdict v = e.evaluate(pose);
      if (keep) *keep = v;
      return v.inside();
    };
    double in = 0.0, outside = -1.0;
    for (int step = 1;; ++step) {
      const double s = std::min(spec.max_length_m, step * spec.step_m);
      if (!inside_at(s, nullptr)) {
        outside = s;
        break;
      }
      in = s;
      if (s >= spec.max_length_m) break;
    }
    if (outside < 0.0) {
      clipped[static_cast<std::size_t>(k)] = 1;
    } else {
      while (outside - in > spec.tol_m) {
        const double mid = 0.5 * (in + outside);
        if (inside_at(mid, nullptr))
          in = mid;
        else
          outside = mid;
      }
    }
    out.distance_m[k] = in;
    out.boundary_m.col(k) = spec.start_m + in * d;
    inside_at(in, &out.verdicts[static_cast<std::size_t>(k)]);
  });
  double sum = 0.0;
  for (int k = 0; k < N; ++k) {
    out.clipped[static_cast<std::size_t>(k)] = clipped[static_cast<std::size_t>(k)] != 0;
    out.evaluations += evals[static_cast<std::size_t>(k)];
    const double r = out.distance_m[k];
    sum += planar ? r * r : r * r * r;
  }
  out.measure = planar ? std::numbers::pi / N * sum : 4.0 * std::numbers::pi / (3.0 * N) * sum;
  return out;
}

}  // namespace tendyn::cdpr
