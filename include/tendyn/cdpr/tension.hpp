// Cable tension distribution: given the structure matrix J (m x n, m <= 6 wrench rows, n cables)
// and a wrench w (m), find tensions f (n) [N] with f >= 0 (or f_min <= f <= f_max).
//
// Goal of document 002 (Marchuk et al. 2023, eqs. (1)-(3) and the six-step method):
// minimise the residual |J f - w|, then the norm |f|, subject to f >= 0.
//
// Methods (all behind solve_tensions()):
//  * exhaustive      the document's method: all 2^n - 1 loaded subsets, min-norm least squares per
//                    subset, negatives zeroed, IQR outlier rejection of the solution norms,
//                    residual rounded, min residual -> min norm -> most cables. The subsets are
//                    visited depth-first so that each one's factorisation is its parent's plus
//                    one column (O(m^2) update); subsets whose condition bound exceeds 1e4 are
//                    re-solved by the rank-revealing QR of the reference kernel. Cost
//                    O(2^n m (m + n)), optionally on several threads. Supports n <= 24.
//  * lawson_hanson   NNLS (Lawson & Hanson 1974, ch. 23; the algorithm of MATLAB/Octave lsqnonneg)
//                    with a QR factorisation of the passive columns updated by Givens rotations
//                    (no normal equations). Minimises |J f - w| over f >= 0 only (no norm stage).
//                    For m <= 6 rows a fixed-size kernel on the stack (no allocation, no library
//                    call); the general kernel stays reachable (lawson_hanson_reference).
//  * exact           the lexicographic optimum: min |J f - w| over f_min <= f <= f_max, then min |f|
//                    among those minimisers (a unique point). Stage 1 bounded least squares (the
//                    Lawson-Hanson active set generalised to two bounds, Stark & Parker 1995), stage
//                    2 a primal active-set QP (Nocedal & Wright 2006, alg. 16.3) started from the
//                    stage-1 point. See docs/CDPR.md for the termination argument.
//  * closed_form     Pott, Bruckmann, Mikelsons 2009 ("Closed-form force distribution for parallel
//                    wire robots"): f = f_m + J^+ (w - J f_m), f_m = (f_min + f_max)/2. Exact wrench,
//                    feasible only if f_min <= f <= f_max (else status infeasible).
//  * improved_closed_form  Pott 2014 ("An improved force distribution algorithm for
//                    over-constrained cable-driven parallel robots"): repeat the closed form; while a
//                    tension violates its bounds, fix the worst one at the violated bound, move its
//                    contribution to the right-hand side and drop the cable; infeasible when fewer
//                    cables than rank(J) remain. Mikelsons et al. 2008 (ICRA, barycentre method)
//                    is cited as the origin of the f_m-centred formulation.
//  * centred         min |f - f_m| (f_m = (f_min + f_max)/2) over f_min <= f <= f_max among the
//                    minimisers of |J f - w| in the bounds: the exact solver's two stages with the
//                    second one centred on f_m. A projection of f_m onto the feasible set
//                    {f : J f = w, bounds}, hence continuous in (J, w) wherever that set has an
//                    interior point (any redundancy n - rank(J)); unlike exact (the projection of
//                    0) it keeps the tensions away from both bounds. Needs a finite f_max.
//  * centroid        n = m + 2 cables: the centroid (barycentre) of the feasible polygon
//                    {f : J f = w, f_min <= f <= f_max}, a 2-D convex polygon in the null-space
//                    coordinates of J (Gouttefarde, Lamaury, Reichert, Bruckmann, "A versatile
//                    tension distribution algorithm for n-DOF parallel robots driven by n+2
//                    cables", IEEE Trans. Robotics 31(6):1444-1457, 2015). The polygon is built by
//                    clipping with the 2n bound half-planes around the centred point; its area
//                    centroid does not depend on the null-space basis, and it is continuous where
//                    the polygon has a non-zero area. Needs a finite f_max and n = m + 2; when no
//                    tension meets the wrench the centred answer is returned (status infeasible).
//
// Equilibration (docs/CDPR.md): every method solves a scaled copy of the problem and unscales the
// answer. All scale factors are powers of two, so scaling and unscaling are exact (no rounding):
//  * J is multiplied by 2^-a so that max |J_ij| lies in [0.5, 1);
//  * tensions by 2^b (and w by 2^(b - a)) so that the largest of |w|_inf 2^-a, f_min (and f_max
//    for the closed forms) lies in [0.5, 1) - no intermediate can overflow for finite input;
//  * Lawson-Hanson and the first stage of exact also scale each column j by 2^-e_j so that its
//    largest entry lies in [0.5, 1): the QR, the step lengths and the optimality test work on
//    columns of equal size. The entering column is still chosen by the gradient of the original
//    problem (as lsqnonneg does), so the active-set path is lsqnonneg's; only the tolerances
//    become scale-aware (column scale spreads of 1e8 and more give lsqnonneg's loaded set and a
//    residual at round-off).
// Rows are not scaled: scaling row i by d_i changes the least-squares objective to the weighted
// sum of d_i^2 r_i^2, i.e. a different answer whenever J f = w has no exact solution.
// The minimum-norm stages (exhaustive, exact stage 2) and the closed forms are defined in the
// Euclidean norm of f, which column scaling would change, so they use the global scaling only.
#pragma once
#include <tendyn/core/enum_names.hpp>

#include <Eigen/Core>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

namespace tendyn::cdpr {

enum class Method { kExhaustive, kLawsonHanson, kExact, kClosedForm, kImprovedClosedForm, kCentred, kCentroid };
/// The names of Method (tendyn/core/enum_names.hpp), aliases after the name.
constexpr EnumNames<Method, 12> enum_names(Method) {
  return {"tension method",
          {{{Method::kExhaustive, "exhaustive"},
            {Method::kLawsonHanson, "lawson-hanson"},
            {Method::kLawsonHanson, "nnls"},
            {Method::kLawsonHanson, "lsqnonneg"},
            {Method::kExact, "exact"},
            {Method::kClosedForm, "closed-form"},
            {Method::kImprovedClosedForm, "improved-closed-form"},
            {Method::kCentred, "centred"},
            {Method::kCentred, "centered"},
            {Method::kCentroid, "centroid"},
            {Method::kCentroid, "barycentre"},
            {Method::kCentroid, "barycenter"}}}};
}
/// "exhaustive", "lawson-hanson" (also "nnls", "lsqnonneg"), "exact", "closed-form",
/// "improved-closed-form", "centred" (also "centered"), "centroid" (also "barycentre",
/// "barycenter"); case-insensitive, '_' may stand for '-'. Throws tendyn::Error naming the
/// accepted names for any other text.
inline Method method_from_string(const std::string& name) { return enum_from_string<Method>(name); }
/// "exhaustive", "lawson-hanson", "exact", "closed-form", "improved-closed-form", "centred",
/// "centroid".
inline const char* to_string(Method method) { return enum_to_string(method); }

enum class Status {
  kOk,              ///< solution found
  kNearSingular,    ///< J (or the chosen loaded subset) is (near) rank deficient; f is returned
                    ///< but equilibrium may not hold (see residual_norm)
  kInfeasible,      ///< no f within the bounds meets the method's target (closed forms), or the
                    ///< minimal residual is not zero (other methods: f is still the best one)
  kIterationLimit,  ///< the iteration cap was reached; f is the last iterate
  kNonFinite,       ///< the answer is not representable: a tension, |f| or the residual overflows
                    ///< the double range (e.g. |w| near 1e300 with |J| ~ 1), or the solver met a
                    ///< non-finite intermediate. f may hold infinities; never use it.
  kOutOfBounds      ///< exhaustive and lawson-hanson solve f >= 0 only: the options carry bounds
                    ///< (f_min_N > 0 or a finite f_max_N) and a tension of the answer lies outside
                    ///< them. f is the method's answer to f >= 0, not a solution of the bounded
                    ///< problem (use exact or a closed form for that).
};
/// The names of Status (tendyn/core/enum_names.hpp).
constexpr EnumNames<Status, 6> enum_names(Status) {
  return {"tension status",
          {{{Status::kOk, "ok"},
            {Status::kNearSingular, "near_singular"},
            {Status::kInfeasible, "infeasible"},
            {Status::kIterationLimit, "iteration_limit"},
            {Status::kNonFinite, "non_finite"},
            {Status::kOutOfBounds, "out_of_bounds"}}}};
}
/// "ok", "near_singular", "infeasible", "iteration_limit", "non_finite", "out_of_bounds" (the names
/// in CSV and JSON outputs).
inline const char* to_string(Status status) { return enum_to_string(status); }
/// The inverse of to_string(Status) (any case, '-' = '_'). Throws tendyn::Error naming the accepted names.
inline Status status_from_string(const std::string& name) { return enum_from_string<Status>(name); }

struct SolverOptions {
  /// Lower tension bound [N]: enforced by exact and the closed forms; exhaustive and
  /// lawson-hanson solve f >= 0 and report a violated bound as Status::kOutOfBounds. The default
  /// 0 is not a model's bound: the model owns the bounds (cdpr::Model::f_min_N, f_max_N); take
  /// them from solver_options(model) (tension_problem.hpp) or TensionProblem::options, and treat
  /// any other value here as an explicit override.
  double f_min_N = 0.0;
  double f_max_N = std::numeric_limits<double>::infinity();  ///< upper bound [N] (as f_min_N)
  /// Rank tolerance of the rank-revealing QR: pivots below rank_rtol * (largest pivot) are zero.
  double rank_rtol = 1e-10;
  /// J is flagged near_singular when sigma_min(J)/sigma_max(J) < singular_rtol (only when J has
  /// at least as many columns as rows).
  double singular_rtol = 1e-8;
  /// A result is flagged near_singular when |f| sigma_max(J) / |w| exceeds this amplification.
  double amplification_limit = 1e6;
  /// Relative residual |J f - w| / |w| above which a result is reported infeasible.
  double infeasible_rtol = 1e-6;
  /// Exhaustive: interquartile-range coefficient k; norms > Q3 + k (Q3 - Q1) are outliers
  /// (document step 4 "a large coefficient").
  double iqr_coefficient = 10.0;
  /// Exhaustive: residuals are rounded to this precision relative to |w| (document step 5):
  /// key = round(|J f - w| / (precision |w|)).
  double residual_precision = 1e-6;
  /// Exhaustive: two norms are tied (step 6) when they differ by less than this relative amount.
  double norm_tie_rtol = 1e-12;
  /// Lawson-Hanson / exact: optimality tolerance on the dual vector J^T (w - J f) of the
  /// equilibrated problem (unit-size columns, see above); <= 0 selects lsqnonneg's
  /// 10 eps |J|_1 max(m, n), times max(|w|, f_min) of the equilibrated problem.
  double dual_tol = -1.0;
  /// Lawson-Hanson / exact: cap on active-set iterations; <= 0 selects 3 n + 30.
  int max_iterations = -1;
  /// Exhaustive: threads that share the 2^n - 1 subsets (core/parallel.hpp); <= 0: one per
  /// hardware thread. The answer is bit-identical for any count (every subset is solved by the
  /// same arithmetic whichever thread takes it; the selection runs serially in subset order).
  /// 1 (default) runs on the calling thread without allocating; more threads start threads per
  /// call (which allocates) and are used only from 2^10 subsets on.
  int threads = 1;
  /// Exhaustive: refactorise every subset from scratch with the rank-revealing QR (the issue-5
  /// kernel, ~5x slower) instead of updating the factorisation along the subset tree. Kept as the
  /// reference of the tests and the baseline of bench/cdpr_tension_bench.cpp.
  bool exhaustive_refactor = false;
  /// Lawson-Hanson: run the general bounded least-squares kernel (BoundedLS, any row count)
  /// instead of the fixed-size kernel used for m <= 6 rows. The same active-set path and the same
  /// answer to rounding; kept as the reference of the tests and the baseline of
  /// bench/cdpr_tension_bench.cpp.
  bool lawson_hanson_reference = false;
};

struct TensionResult {
  Eigen::VectorXd f_N;            ///< (n) tensions [N]
  std::uint64_t loaded_mask = 0;  ///< bit i set when f_i > 0 (n <= 64)
  int loaded_count = 0;
  double residual_norm = 0.0;  ///< |J f - w| [N, N m mixed, as given]
  double tension_norm = 0.0;   ///< |f| [N]
  Status status = Status::kOk;
  /// Why the status is not ok (a static string, "" when ok), e.g. "a tension overflows the double
  /// range when unscaled".
  const char* reason = "";
  int iterations = 0;  ///< active-set iterations, or subsets tried (exhaustive)
  int outliers = 0;    ///< exhaustive: subsets rejected by the IQR rule
};

/// Preallocated scratch for every method, sized for at most `max_rows` x `max_cols` problems
/// (exhaustive additionally 2^max_cols norms when max_cols <= 24). All solve calls on problems
/// within those sizes do not allocate. Not thread safe: one workspace per thread.
class Workspace {
 public:
  Workspace(int max_rows, int max_cols);
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  [[nodiscard]] int max_rows() const;
  [[nodiscard]] int max_cols() const;
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// Solves the tension distribution with `method` for J (m x n) and w (m) [N, N m].
/// `result.f_N` [N] is resized once if needed. Bounds f_min/f_max are used by exact and the closed
/// forms; exhaustive and lawson_hanson solve f >= 0 (as in the document) and, when a tension of
/// their answer lies outside [f_min, f_max] by more than 1e-9 of the larger of f_min and |f|_inf,
/// return status out_of_bounds (Status::kOutOfBounds) instead of ok, infeasible or near_singular.
/// Throws tendyn::Error (message names the method) on: J or w empty, non-finite, or of sizes that
/// do not match each other or exceed the workspace; n > 64; f_min < 0 or f_max <= f_min; n > 24
/// for exhaustive; an infinite f_max for the closed forms, centred and centroid; n != m + 2 for
/// centroid.
/// Never returns status ok with a non-finite f, |f| or residual (see Status::kNonFinite).
/// Closed forms: a final tension within the method's slack (1e-12 f_max) outside [f_min, f_max]
/// is round-off and is clamped to the bound; when the method finds no feasible point but
/// f = f_min (every cable at its lower bound, e.g. f = 0 for w = 0) meets the wrench, that f is
/// returned with status ok.
/// Cost: exhaustive O(2^n m (m + n)) (options.threads threads; O(2^n m^2 n) with
/// exhaustive_refactor); lawson_hanson O(m n + m^2) per active-set step (typically <= n
/// steps); exact and centred two such active-set solves plus an O(n m^2) QR; centroid that plus
/// a second QR and an O(n^2) polygon clipping; closed forms O(n m^2) per pass.
void solve_tensions(Method method, const Eigen::Ref<const Eigen::MatrixXd>& J, const Eigen::Ref<const Eigen::VectorXd>& w,
                    const SolverOptions& options, Workspace& workspace, TensionResult& result);

/// Convenience: allocates a workspace per call.
TensionResult solve_tensions(Method method, const Eigen::MatrixXd& J, const Eigen::VectorXd& w, const SolverOptions& options = {});

/// Violation of the optimality (KKT) conditions of the exact problem at f, scaled to be
/// dimensionless:
///  stage 1: g = J^T (J f - w); at a free f_i |g_i|, at f_i = f_min g_i >= 0, at f_max g_i <= 0;
///  stage 2: with v = J f, exists lambda: f_i - (J^T lambda)_i = 0 free, >= 0 at f_min, <= 0 at f_max
///           (lambda by least squares on the free entries);
///  bounds: f_min <= f <= f_max.
/// Returns the max violation divided by (|J| |J f - w| + |f| + |w| + tiny) as documented in
/// docs/CDPR.md. Used by tests (target <= 1e-9).
double kkt_violation(const Eigen::MatrixXd& J, const Eigen::VectorXd& w, const Eigen::VectorXd& f, double f_min_N = 0.0,
                     double f_max_N = std::numeric_limits<double>::infinity());

}  // namespace tendyn::cdpr
