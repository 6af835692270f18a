// The identification's solve: the multiple-shooting setup, the Ceres problem, Levenberg-Marquardt
// with restarts, the covariance, identifiability and the verdict. See identify.hpp and docs/IDENTIFY.md.
#include "tensegrity/identify_internal.hpp"

#include <ceres/ceres.h>
#include <ceres/covariance.h>
#include <ceres/manifold.h>
#include <ceres/product_manifold.h>
#include <ceres/sphere_manifold.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

namespace identify_detail {

Setup make_setup(const Model& m, const MotionData& d, const std::vector<ParameterGroup>& groups, const IdentifyOptions& o) {
  validate(o);
  validate(m, d);
  if (const double steps = identify_step_count(d.t_s, o.dt_s); !(steps <= kIdentifyMaxSteps))
    throw Error("identify option dt_s: " + num(steps) + " integration steps per pass over the data (" + num(d.t_s.back() - d.t_s.front()) +
                " s of data at dt " + num(o.dt_s) + " s), above the limit " + num(kIdentifyMaxSteps));
  check_model_supported(m);
  require_ideal_rods(m, "identify (multiple shooting with automatic derivatives)");
  Setup S;
  S.model = &m;
  S.data = &d;
  S.options = o;
  S.layout = make_layout(m, groups);
  const double cs = o.continuity_sigma_m;
  S.continuity_weight = {1 / cs, 1 / cs, 1 / cs, 1 / cs, 1 / cs, 1 / cs, 0.1 / cs, 0.1 / cs, 0.1 / cs, 0.01 / cs, 0.01 / cs, 0.01 / cs};
  // segment boundaries: a new segment starts at the first sample at least segment_s after the
  // current start, moved forward (up to 3 samples) to a sample where every rod has both end markers
  const int N = d.nsample();
  std::vector<int> rod_complete(static_cast<std::size_t>(N), 1);
  {
    std::vector<int> marker_of_node(static_cast<std::size_t>(m.nnode()), -1);
    for (int i = 0; i < d.nmarker(); ++i) marker_of_node[static_cast<std::size_t>(d.marker_nodes[static_cast<std::size_t>(i)])] = i;
    for (int s = 0; s < N; ++s)
      for (const Rod& r : m.rods)
        for (int e = 0; e < 2; ++e) {
          const int mk = marker_of_node[static_cast<std::size_t>(r.node[e])];
          if (mk < 0 || std::isnan(d.p_W_marker_m(s, 3 * mk))) rod_complete[static_cast<std::size_t>(s)] = 0;
        }
  }
  std::vector<int> starts{0};
  for (;;) {
    const int s0 = starts.back();
    int s = s0 + 1;
    while (s < N && d.t_s[static_cast<std::size_t>(s)] - d.t_s[static_cast<std::size_t>(s0)] < o.segment_s - 1e-9) ++s;
    for (int k = 0; k < 3 && s < N - 1 && !rod_complete[static_cast<std::size_t>(s)]; ++k) ++s;
    if (s >= N - 1) break;
    // a final segment shorter than half a segment joins the previous one
    if (d.t_s[static_cast<std::size_t>(N - 1)] - d.t_s[static_cast<std::size_t>(s)] < 0.5 * o.segment_s) break;
    starts.push_back(s);
  }
  for (std::size_t k = 0; k < starts.size(); ++k) {
    Segment sg;
    sg.first = starts[k];
    sg.final = k + 1 == starts.size();
    sg.end = sg.final ? N - 1 : starts[k + 1];
    sg.last = sg.final ? N - 1 : starts[k + 1] - 1;
    for (int s = sg.first; s <= sg.last; ++s) {
      for (int i = 0; i < d.nmarker(); ++i)
        if (!std::isnan(d.p_W_marker_m(s, 3 * i))) sg.obs.push_back({s, Observation::kMarker, i});
      for (int i = 0; i < static_cast<int>(d.length_cables.size()); ++i)
        if (!std::isnan(d.cable_length_m(s, i))) sg.obs.push_back({s, Observation::kLength, i});
      for (int i = 0; i < static_cast<int>(d.tension_cables.size()); ++i)
        if (!std::isnan(d.cable_tension_N(s, i))) sg.obs.push_back({s, Observation::kTension, i});
    }
    for (const auto& ob : sg.obs) sg.nresidual += ob.type == Observation::kMarker ? 3 : 1;
    if (!sg.final) sg.nresidual += kStateParams * m.nrod();
    S.segments.push_back(std::move(sg));
  }
  for (const auto& sg : S.segments)
    if (sg.nresidual == 0)
      throw Error("identify: the data between t = " + num(d.t_s[static_cast<std::size_t>(sg.first)]) + " s and " +
                  num(d.t_s[static_cast<std::size_t>(sg.last)]) + " s have no measured value");
  return S;
}

std::string fit_statistics(double variance_factor, double vf_bound, int dof, const double* gap, double gap_bound) {
  std::string out = "variance factor " + num(variance_factor) + " (bound " + io::format_number(vf_bound, 4) + " for " +
                    std::to_string(dof) + " degrees of freedom)";
  if (gap)
    out += ", largest continuity gap " + io::format_number(*gap * 1e3, 3) + " mm (bound " + io::format_number(gap_bound * 1e3, 3) + " mm)";
  return out;
}

void flag_no_effect(std::vector<double> sens, IdentifyResult& R) {
  const int np = static_cast<int>(R.parameters.size());
  double top = 0.0;
  for (int i = 0; i < np; ++i) {
    const FittedParameter& f = R.parameters[static_cast<std::size_t>(i)];
    double scale = std::max(std::abs(f.fitted), std::abs(f.nominal));
    if (scale == 0.0) scale = 1.0;
    sens[static_cast<std::size_t>(i)] = std::sqrt(sens[static_cast<std::size_t>(i)]) * scale;
    top = std::max(top, sens[static_cast<std::size_t>(i)]);
  }
  for (int i = 0; i < np; ++i)
    if (!(sens[static_cast<std::size_t>(i)] > 1e-12 * top))
      R.unidentifiable.push_back(R.parameters[static_cast<std::size_t>(i)].name + ": no effect on the data");
}

void flag_uncertain(IdentifyResult& R) {
  if (!R.covariance_ok) return;
  const int np = static_cast<int>(R.parameters.size());
  // (3) a standard deviation larger than the value, a correlation of magnitude above 0.999
  for (const auto& f : R.parameters)
    if (f.std > std::abs(f.fitted))
      R.unidentifiable.push_back(f.name + ": its standard deviation " + num(f.std) + " is larger than its value " + num(f.fitted));
  for (int a = 0; a < np; ++a)
    for (int c = a + 1; c < np; ++c)
      if (std::abs(R.correlation(a, c)) > 0.999)
        R.unidentifiable.push_back(R.parameters[static_cast<std::size_t>(a)].name + " and " +
                                   R.parameters[static_cast<std::size_t>(c)].name + ": correlation " +
                                   io::format_number(R.correlation(a, c), 6) + " (only a combination is determined)");
}

void judge_fit(const VerdictFacts& f, const IdentifyOptions& options, IdentifyResult& R) {
  const bool vf_ok = R.variance_factor <= f.vf_bound, gap_ok = !f.shooting || f.gap <= f.gap_bound;
  const std::string stats =
      fit_statistics(f.dof > 0 ? 2.0 * f.cost / f.dof : kNaN, f.vf_bound, f.dof, f.shooting ? &f.gap : nullptr, f.gap_bound);
  std::string not_determined;
  for (const auto& u : R.unidentifiable) not_determined += (not_determined.empty() ? "" : "; ") + u;
  if (!vf_ok || !gap_ok) {
    const std::string noise =
        vf_ok ? std::string() : ": the residuals are " + io::format_number(std::sqrt(R.variance_factor), 3) + " times the stated sigmas";
    if (f.iteration_limit) {
      R.verdict = FitVerdict::kNotConverged;
      R.verdict_reason = stats + noise + "; the solver stopped at the iteration limit (" + std::to_string(options.max_iterations) +
                         " per fit): raise --max-iterations";
    } else if (R.starts > 1 && f.last_restart_improved) {
      R.verdict = FitVerdict::kLocalMinimum;
      R.verdict_reason = stats + noise + "; the last restart still lowered the cost by more than " +
                         num(100.0 * options.restart_min_improvement) + " %: another start may find a lower minimum (--restarts)";
    } else if (vf_ok) {
      R.verdict = FitVerdict::kLocalMinimum;
      R.verdict_reason = stats +
                         "; the residuals are at the noise but the segments do not join: a local minimum of the segment states, or a "
                         "model that fits each segment only with a state of its own";
    } else {
      R.verdict = FitVerdict::kPoorFit;
      R.verdict_reason = stats + noise + "; " +
                         (R.starts > 1 ? std::to_string(R.starts) + " starts ended within " + num(100.0 * options.restart_min_improvement) +
                                             " % of the same cost: "
                                       : std::string("no restart ran (a local minimum is not excluded): ")) +
                         "the model cannot explain the data (an unmodelled cable, drive or load, a value that is not fitted) or the "
                         "sigmas are below the real noise";
    }
    if (!not_determined.empty()) R.verdict_reason += "; not determined: " + not_determined;
  } else if (!R.unidentifiable.empty()) {
    R.verdict = FitVerdict::kNotIdentifiable;
    R.verdict_reason = stats + "; not determined: " + not_determined;
  } else {
    R.verdict = FitVerdict::kGood;
    R.verdict_reason = stats;
  }
}

ceres::Solver::Options lm_solver_options(const IdentifyOptions& options) {
  ceres::Solver::Options so;
  so.minimizer_type = ceres::TRUST_REGION;
  so.trust_region_strategy_type = ceres::LEVENBERG_MARQUARDT;
  so.max_num_iterations = options.max_iterations;
  so.function_tolerance = options.function_tolerance;
  so.parameter_tolerance = options.parameter_tolerance;
  so.gradient_tolerance = options.gradient_tolerance;
  so.num_threads = 1;
  so.logging_type = ceres::SILENT;
  so.minimizer_progress_to_stdout = false;
  return so;
}

namespace {

// The cost at the current values of a problem, summed in residual-block order by one thread
// (Ceres sums per thread during Solve: its costs differ in the last bits between thread counts).
double cost_of(ceres::Problem& p) {
  ceres::Problem::EvaluateOptions eo;
  eo.num_threads = 1;
  double c = kNaN;
  if (!p.Evaluate(eo, &c, nullptr, nullptr, nullptr)) return kNaN;
  return c;
}

// The best fit so far: its values, the problem over them and the solver's account of it.
struct Fit {
  std::vector<double> theta;
  std::vector<std::vector<double>> states;
  std::vector<double> packed;               // theta and the states in one buffer, for the covariance (repack)
  std::unique_ptr<ceres::Problem> problem;  // points into theta and states, or into packed
  ceres::Solver::Summary summary;
  double first_initial_cost = 0.0, cost = 0.0, gap = 0.0;
  int iterations = 0, starts = 1, winning_start = 0;
  bool last_restart_improved = false;
  bool rank_deficient = false;
  Eigen::MatrixXd cov;
  double* packed_theta() { return packed.data(); }
};

// The solves of one identification and the statistics that judge a fit (variance factor,
// continuity gap) against their bounds.
struct Fitter {
  const Model& model;
  const MotionData& data;
  const std::vector<ParameterGroup>& parameters;
  const IdentifyOptions& options;
  const Setup& S;
  int np = 0, nr = 0, nseg = 0;
  int nresidual = 0, ntangent = 0, dof = 0;
  double vf_bound = 0.0, gap_bound = 0.0;
  std::unique_ptr<ProgressCallback> callback;
  std::vector<std::string> restart_log;
  // the evaluation callbacks of the problems built (Ceres does not own them; a Fit's problem
  // must not outlive its Fitter)
  mutable std::vector<std::unique_ptr<SegmentEvaluation>> evaluations;

  Fitter(const Model& m, const MotionData& d, const std::vector<ParameterGroup>& p, const IdentifyOptions& o, const Setup& s)
      : model(m), data(d), parameters(p), options(o), S(s) {
    np = S.layout.nparam;
    nr = model.nrod();
    nseg = static_cast<int>(S.segments.size());
    for (const auto& sg : S.segments) nresidual += sg.nresidual;
    ntangent = np + (nseg - (S.layout.fit_initial ? 0 : 1)) * nr * 11;
    dof = nresidual - ntangent;
    if (options.progress) callback = std::make_unique<ProgressCallback>(options.progress);
    vf_bound = options.restart_variance_factor >= 1.0 ? options.restart_variance_factor : variance_factor_bound(dof);
    gap_bound = options.restart_gap_sigmas * options.continuity_sigma_m;
  }

  // The problem of setup Q over the parameter values at `th` and `state(k, j)` (segment k, rod j).
  std::unique_ptr<ceres::Problem> build(const Setup& Q, double* th, const std::function<double*(int, int)>& state) const {
    evaluations.push_back(std::make_unique<SegmentEvaluation>(options.threads));
    SegmentEvaluation& evaluation = *evaluations.back();
    ceres::Problem::Options po;
    po.cost_function_ownership = ceres::TAKE_OWNERSHIP;
    po.manifold_ownership = ceres::TAKE_OWNERSHIP;
    po.evaluation_callback = &evaluation;
    auto problem = std::make_unique<ceres::Problem>(po);
    if (np > 0) {
      problem->AddParameterBlock(th, np);
      for (int i = 0; i < np; ++i) {
        const ParameterKind k = Q.layout.groups[static_cast<std::size_t>(i)].kind;
        // rest lengths and masses stay positive, the others non-negative
        const bool strictly = k == ParameterKind::kRestLength || k == ParameterKind::kMass || k == ParameterKind::kGroundStiffness;
        problem->SetParameterLowerBound(th, i, strictly ? 1e-9 : 0.0);
      }
    }
    for (int k = 0; k < nseg; ++k)
      for (int j = 0; j < nr; ++j) {
        double* b = state(k, j);
        problem->AddParameterBlock(
            b, kStateParams,
            new ceres::ProductManifold<ceres::EuclideanManifold<3>, ceres::SphereManifold<3>, ceres::EuclideanManifold<6>>());
        if (k == 0 && !Q.layout.fit_initial) problem->SetParameterBlockConstant(b);
      }
    for (int k = 0; k < nseg; ++k) {
      const Segment& sg = Q.segments[static_cast<std::size_t>(k)];
      std::vector<double*> blocks;
      if (np > 0) blocks.push_back(th);
      for (int j = 0; j < nr; ++j) blocks.push_back(state(k, j));
      if (!sg.final)
        for (int j = 0; j < nr; ++j) blocks.push_back(state(k + 1, j));
      ceres::CostFunction* cost = make_segment_cost(&Q, k).release();
      problem->AddResidualBlock(cost, nullptr, blocks);
      evaluation.add(cost, blocks);
    }
    return problem;
  }

  // One Levenberg-Marquardt solve of setup Q from (theta, states), updated in place; the problem
  // is returned for the covariance (it points into theta and states).
  std::unique_ptr<ceres::Problem> solve(const Setup& Q, std::vector<double>& theta, std::vector<std::vector<double>>& states,
                                        ceres::Solver::Summary& summary) const {
    auto problem = build(Q, theta.data(), [&](int k, int j) { return states[static_cast<std::size_t>(k)].data() + kStateParams * j; });
    ceres::Solver::Options so = lm_solver_options(options);  // (one thread: the segments are evaluated in
                                                             // parallel by the problem's SegmentEvaluation)
    so.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
    so.sparse_linear_algebra_library_type = ceres::SUITE_SPARSE;
    if (callback) so.callbacks.push_back(callback.get());
    const double cost0 = cost_of(*problem);
    ceres::Solve(so, problem.get(), &summary);
    if (callback && callback->error) std::rethrow_exception(callback->error);
    // the summary's costs from one-thread evaluations: deterministic for any thread count
    summary.initial_cost = cost0;
    if (summary.termination_type != ceres::FAILURE) summary.final_cost = cost_of(*problem);
    if (summary.termination_type == ceres::FAILURE || !std::isfinite(summary.final_cost))
      throw SimulationError("identify: the solver failed: " + summary.message, data.t_s.front());
    return problem;
  }

  // The largest position gap between consecutive segments (end of k simulated vs start of k + 1).
  double continuity_gap(const std::vector<double>& theta, const std::vector<std::vector<double>>& states) const {
    double gap = 0.0;
    for (int k = 0; k + 1 < nseg; ++k) {
      const Segment& sg = S.segments[static_cast<std::size_t>(k)];
      const std::vector<double> ts(data.t_s.begin() + sg.first, data.t_s.begin() + sg.end + 1);
      Eigen::MatrixXd P, Q;
      free_run(model, S.layout, theta.data(), states[static_cast<std::size_t>(k)].data(), ts, options.dt_s, P);
      const std::vector<double> t1{data.t_s[static_cast<std::size_t>(sg.end)]};
      free_run(model, S.layout, theta.data(), states[static_cast<std::size_t>(k + 1)].data(), t1, options.dt_s, Q);
      gap = std::max(gap, (P.row(P.rows() - 1) - Q.row(0)).cwiseAbs().maxCoeff());
    }
    return gap;
  }

  double vf_of(double cost) const { return dof > 0 ? 2.0 * cost / dof : kNaN; }
  bool failed(double cost, double gap) const { return !(vf_of(cost) <= vf_bound) || gap > gap_bound; }
  // the statistics of a fit in words: "variance factor 4.02 (bound 1.1 for 2051 degrees of freedom),
  // largest continuity gap 1.7 mm (bound 0.5 mm)"
  std::string statistics(double cost, double gap) const { return fit_statistics(vf_of(cost), vf_bound, dof, &gap, gap_bound); }
  void say(const std::string& line) {
    restart_log.push_back(line);
    if (options.notice) options.notice(line);
  }

  Fit fit(const Start& st);
  bool restart(const Start& st, int r, Fit& b);
  void repack(Fit& b) const;
  void covariance(Fit& b, IdentifyResult& R) const;
  void fitted_model(const Fit& b, IdentifyResult& R) const;
  void fit_curves(const Start& st, const Fit& b, IdentifyResult& R) const;
  void identifiability(Fit& b, IdentifyResult& R) const;
  void verdict(const Fit& b, IdentifyResult& R) const;
};

// The fit from the start values, then the restarts (docs/IDENTIFY.md "Local minima"): a fit whose
// variance factor is above its statistical bound (the residuals are far above the stated noise),
// or whose segments do not join, may have stopped in a local minimum. Each restart is a
// continuation from the same start: first a fit with continuity_sigma_m times 10^(k+1) (restart
// k = 1, 2, ...: the segments may stay apart while the parameters move, so the parameters are
// fitted to the segments' local data first), then the full fit from its result. The lowest cost
// of the full problem wins; the restarts stop at the first fit that passes, and at the first
// restart that does not lower the best cost by restart_min_improvement (the misfit is then the
// model's: more starts give the same answer). Deterministic (the same fits in the same order for
// any thread count).
Fit Fitter::fit(const Start& st) {
  Fit b;
  b.theta = st.theta;
  b.states = st.states;
  b.problem = solve(S, b.theta, b.states, b.summary);
  b.first_initial_cost = b.summary.initial_cost;
  b.cost = b.summary.final_cost;
  b.iterations = static_cast<int>(b.summary.iterations.size()) - 1;
  b.gap = continuity_gap(b.theta, b.states);
  if (options.restarts > 0 && failed(b.cost, b.gap))
    for (int r = 1; r <= options.restarts; ++r)
      if (!restart(st, r, b)) break;
  return b;
}

// Restart r of the continuation (see fit): b becomes its fit if its cost is lower. Returns whether
// the restarts go on.
bool Fitter::restart(const Start& st, int r, Fit& b) {
  IdentifyOptions lo = options;
  lo.continuity_sigma_m = options.continuity_sigma_m * std::pow(10.0, r + 1);
  say("identify: restart " + std::to_string(r) + " of " + std::to_string(options.restarts) + ": the best fit so far is rejected (" +
      statistics(b.cost, b.gap) + "); fitting with the continuity sigma loosened to " + num(lo.continuity_sigma_m) +
      " m, then the full problem");
  const Setup L = make_setup(model, data, parameters, lo);
  std::vector<double> th = st.theta;
  std::vector<std::vector<double>> xs = st.states;
  ceres::Solver::Summary s1, s2;
  ++b.starts;
  std::unique_ptr<ceres::Problem> p2;
  try {
    solve(L, th, xs, s1);
    p2 = solve(S, th, xs, s2);
  } catch (const SimulationError& e) {
    say("identify: restart " + std::to_string(r) + " failed: " + e.what());
    return true;
  }
  b.iterations += static_cast<int>(s1.iterations.size()) + static_cast<int>(s2.iterations.size()) - 2;
  const double c2 = s2.final_cost, before = b.cost;
  b.last_restart_improved = c2 < (1.0 - options.restart_min_improvement) * before;
  if (c2 < b.cost) {
    // the problem points into theta and states: move the new ones in with it (vectors keep
    // their buffers when moved)
    b.problem.reset();
    b.theta = std::move(th);
    b.states = std::move(xs);
    b.problem = std::move(p2);
    b.summary = s2;
    b.cost = c2;
    b.winning_start = r;
    b.gap = continuity_gap(b.theta, b.states);
  }
  if (!failed(b.cost, b.gap)) {
    say("identify: restart " + std::to_string(r) + " passes: " + statistics(b.cost, b.gap));
    return false;
  }
  if (!b.last_restart_improved) {
    if (r < options.restarts)
      say("identify: restart " + std::to_string(r) + " ended at cost " + num(c2) + ", not " + num(100.0 * options.restart_min_improvement) +
          " % below the best before it, " + num(before) + ": no more restarts (the misfit does not depend on the start)");
    return false;
  }
  return true;
}

// The fit's problem again over one buffer laid out in a fixed order (theta, then the states segment
// by segment). ceres::Covariance orders the Jacobian's columns by the parameter blocks' addresses:
// on this buffer its numbers do not depend on where the heap put the fit's vectors (they did in the
// last bits from run to run).
void Fitter::repack(Fit& b) const {
  const std::size_t nstate_total = static_cast<std::size_t>(nseg) * static_cast<std::size_t>(kStateParams * nr);
  b.packed.assign(static_cast<std::size_t>(std::max(np, 1)) + nstate_total, 0.0);
  for (int i = 0; i < np; ++i) b.packed[static_cast<std::size_t>(i)] = b.theta[static_cast<std::size_t>(i)];
  const std::size_t state0 = static_cast<std::size_t>(std::max(np, 1));
  for (int k = 0; k < nseg; ++k)
    std::copy(b.states[static_cast<std::size_t>(k)].begin(), b.states[static_cast<std::size_t>(k)].end(),
              b.packed.begin() + static_cast<std::ptrdiff_t>(state0 + static_cast<std::size_t>(k * kStateParams * nr)));
  b.problem.reset();
  b.problem = build(S, b.packed_theta(),
                    [&](int k, int j) { return b.packed.data() + state0 + static_cast<std::size_t>((k * nr + j) * kStateParams); });
}

// Covariance of theta (segment states marginalised), on the repacked problem.
void Fitter::covariance(Fit& b, IdentifyResult& R) const {
  double* const ptheta = b.packed_theta();
  if (options.covariance && np > 0) {
    ceres::Covariance::Options co;
    co.algorithm_type = ceres::SPARSE_QR;  // dense SVD: 2 s of 10 at 600 unknowns; same numbers to round-off
    co.num_threads = 1;
    co.null_space_rank = 0;
    ceres::Covariance covariance(co);
    std::vector<std::pair<const double*, const double*>> blocks{{ptheta, ptheta}};
    if (covariance.Compute(blocks, b.problem.get())) {
      b.cov.resize(np, np);
      covariance.GetCovarianceBlock(ptheta, ptheta, b.cov.data());  // row major = col major (symmetric)
      b.cov *= R.variance_factor;
      R.covariance_ok = b.cov.allFinite();
      if (!R.covariance_ok) R.covariance_message = "covariance is not finite";
    } else {
      R.covariance_message =
          "the Jacobian at the optimum is rank-deficient (a parameter or a combination is not identifiable from these data)";
      b.rank_deficient = true;
    }
  } else if (np > 0) {
    R.covariance_message = "not computed (covariance off)";
  }
}

// The fitted model, the fitted parameters with their standard deviations and correlations.
void Fitter::fitted_model(const Fit& b, IdentifyResult& R) const {
  R.model = model;
  apply_theta(S.layout, b.theta.data(), R.model);
  for (int i = 0; i < np; ++i) {
    const ParameterGroup& g = S.layout.groups[static_cast<std::size_t>(i)];
    FittedParameter f;
    f.name = g.name;
    f.kind = g.kind;
    f.elements = g.elements;
    f.nominal = nominal_value(model, g);
    f.fitted = b.theta[static_cast<std::size_t>(i)];
    if (R.covariance_ok) f.std = std::sqrt(std::max(0.0, b.cov(i, i)));
    R.parameters.push_back(f);
  }
  if (R.covariance_ok) {
    R.correlation.resize(np, np);
    for (int a = 0; a < np; ++a)
      for (int c = 0; c < np; ++c) {
        const double den = std::sqrt(b.cov(a, a) * b.cov(c, c));
        R.correlation(a, c) = den > 0.0 ? b.cov(a, c) / den : (a == c ? 1.0 : 0.0);
      }
  }
  // fitted initial state
  const std::vector<double>& s0 = b.states.front();
  if (S.layout.fit_initial) {
    State x0;
    x0.time_s = model.initial_state.time_s;
    x0.x.resize(State::kStride * nr);
    for (int j = 0; j < nr; ++j) state_from_params(s0.data() + kStateParams * j, x0.x.data() + State::kStride * j);
    R.model.initial_state = x0;
  }
  validate(R.model);
}

// The fit (segment by segment) and the free runs of the fitted and nominal models at the markers.
void Fitter::fit_curves(const Start& st, const Fit& b, IdentifyResult& R) const {
  Eigen::MatrixXd P_fit = Eigen::MatrixXd::Constant(data.nsample(), 3 * model.nnode(), kNaN);
  for (int k = 0; k < nseg; ++k) {
    const Segment& sg = S.segments[static_cast<std::size_t>(k)];
    const std::vector<double> ts(data.t_s.begin() + sg.first, data.t_s.begin() + sg.last + 1);
    Eigen::MatrixXd P;
    if (ts.size() >= 1) {
      free_run(model, S.layout, b.theta.data(), b.states[static_cast<std::size_t>(k)].data(), ts, options.dt_s, P);
      P_fit.middleRows(sg.first, static_cast<int>(ts.size())) = P;
    }
  }
  R.p_W_fit_m = marker_columns(data, P_fit);
  R.marker_rms_m = marker_rms(data, P_fit);
  R.max_continuity_gap_m = continuity_gap(b.theta, b.states);
  auto free_rms = [&](const double* th, const double* start, Eigen::MatrixXd& cols) {
    Eigen::MatrixXd P;
    try {
      free_run(model, S.layout, th, start, data.t_s, options.dt_s, P);
    } catch (const SimulationError&) {
      cols = Eigen::MatrixXd::Constant(data.nsample(), 3 * data.nmarker(), kNaN);
      return kNaN;
    }
    cols = marker_columns(data, P);
    return marker_rms(data, P);
  };
  const std::vector<double>& s0 = b.states.front();
  R.marker_rms_free_fitted_m = free_rms(b.theta.data(), s0.data(), R.p_W_free_fitted_m);
  R.marker_rms_free_nominal_m = free_rms(st.theta.data(), s0.data(), R.p_W_free_nominal_m);
}

// Identifiability: parameters the data do not determine, each with why.
void Fitter::identifiability(Fit& b, IdentifyResult& R) const {
  double* const ptheta = b.packed_theta();
  if (np > 0) {
    // (1) no effect on the residuals: a Jacobian column that is zero (relative to the largest
    // sensitivity to a relative change of a parameter)
    std::vector<double> sens(static_cast<std::size_t>(np), 0.0);
    ceres::Problem::EvaluateOptions eo;
    eo.num_threads = 1;
    eo.parameter_blocks = {ptheta};
    ceres::CRSMatrix J;
    if (b.problem->Evaluate(eo, nullptr, nullptr, nullptr, &J)) {
      for (std::size_t k = 0; k < J.values.size(); ++k) {
        const auto c = static_cast<std::size_t>(J.cols[k]);
        sens[c] += J.values[k] * J.values[k];
      }
      flag_no_effect(sens, R);
    }
    if (b.rank_deficient && R.unidentifiable.empty()) {
      // (2) a combination: the parameters whose fixing makes the rest determined
      std::vector<std::string> named;
      if (np >= 2 && np <= 16) {
        ceres::Covariance::Options co;
        co.algorithm_type = ceres::SPARSE_QR;
        co.num_threads = 1;
        std::vector<std::pair<const double*, const double*>> blocks{{ptheta, ptheta}};
        for (int i = 0; i < np; ++i) {
          b.problem->SetManifold(ptheta, new ceres::SubsetManifold(np, {i}));
          ceres::Covariance c1(co);
          if (c1.Compute(blocks, b.problem.get())) named.push_back(R.parameters[static_cast<std::size_t>(i)].name);
        }
        b.problem->SetManifold(ptheta, nullptr);
      }
      for (const auto& n : named)
        R.unidentifiable.push_back(n + ": rank-deficient Jacobian, determined only together with the others named");
      if (named.empty())
        R.unidentifiable.push_back(
            np == 1 ? R.parameters[0].name + ": rank-deficient Jacobian"
                    : "(not named) rank-deficient Jacobian: a combination of parameters or segment states is not determined");
    }
    flag_uncertain(R);
  }
  if (dof < 1)
    R.unidentifiable.push_back("all: more unknowns (" + std::to_string(ntangent) + ") than residuals (" + std::to_string(nresidual) + ")");
}

// Verdict (docs/IDENTIFY.md "Verdict")
void Fitter::verdict(const Fit& b, IdentifyResult& R) const {
  VerdictFacts f;
  f.cost = b.cost;
  f.dof = dof;
  f.vf_bound = vf_bound;
  f.gap = R.max_continuity_gap_m;
  f.gap_bound = gap_bound;
  f.shooting = true;
  f.iteration_limit = b.summary.termination_type == ceres::NO_CONVERGENCE;
  f.last_restart_improved = b.last_restart_improved;
  judge_fit(f, options, R);
}

}  // namespace

}  // namespace identify_detail

using namespace identify_detail;

// ------------------------------------------------------------------------------ solve
IdentifyEvaluation evaluate_identification(const Model& model, const MotionData& data, const std::vector<ParameterGroup>& parameters,
                                           const IdentifyOptions& options, const Eigen::VectorXd* unknowns, bool jacobian) {
  const Setup S = make_setup(model, data, parameters, options);
  const int np = S.layout.nparam, nr = model.nrod(), nseg = static_cast<int>(S.segments.size());
  const int nx = np + nseg * nr * kStateParams;
  IdentifyEvaluation ev;
  ev.nparameter = np;
  if (unknowns) {
    if (unknowns->size() != nx)
      throw Error("evaluate_identification: " + std::to_string(unknowns->size()) + " unknowns given, the problem has " +
                  std::to_string(nx));
    ev.unknowns = *unknowns;
  } else {
    const Start st = start_values(S);
    ev.unknowns.resize(nx);
    for (int i = 0; i < np; ++i) ev.unknowns[i] = st.theta[static_cast<std::size_t>(i)];
    for (int k = 0; k < nseg; ++k)
      for (int i = 0; i < nr * kStateParams; ++i)
        ev.unknowns[np + k * nr * kStateParams + i] = st.states[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
  }
  int nres = 0;
  for (const auto& sg : S.segments) nres += sg.nresidual;
  ev.residuals.resize(nres);
  if (jacobian) ev.jacobian.setZero(nres, nx);
  int r0 = 0;
  for (int k = 0; k < nseg; ++k) {
    const Segment& sg = S.segments[static_cast<std::size_t>(k)];
    const std::unique_ptr<ceres::CostFunction> cost = make_segment_cost(&S, k);
    std::vector<const double*> params;
    std::vector<int> offsets;
    if (np > 0) {
      params.push_back(ev.unknowns.data());
      offsets.push_back(0);
    }
    for (int j = 0; j < nr; ++j) {
      offsets.push_back(np + (k * nr + j) * kStateParams);
      params.push_back(ev.unknowns.data() + offsets.back());
    }
    if (!sg.final)
      for (int j = 0; j < nr; ++j) {
        offsets.push_back(np + ((k + 1) * nr + j) * kStateParams);
        params.push_back(ev.unknowns.data() + offsets.back());
      }
    std::vector<std::vector<double>> jb;
    std::vector<double*> jp;
    for (std::size_t b = 0; b < params.size(); ++b) {
      const int width = (np > 0 && b == 0) ? np : kStateParams;
      jb.emplace_back(static_cast<std::size_t>(sg.nresidual * width), 0.0);
    }
    for (auto& v : jb) jp.push_back(v.data());
    if (!cost->Evaluate(params.data(), ev.residuals.data() + r0, jacobian ? jp.data() : nullptr))
      throw SimulationError("evaluate_identification: segment " + std::to_string(k) + " cannot be simulated",
                            data.t_s[static_cast<std::size_t>(sg.first)]);
    if (jacobian)
      for (std::size_t b = 0; b < params.size(); ++b) {
        const int width = (np > 0 && b == 0) ? np : kStateParams;
        for (int r = 0; r < sg.nresidual; ++r)
          for (int c = 0; c < width; ++c) ev.jacobian(r0 + r, offsets[b] + c) = jb[b][static_cast<std::size_t>(r * width + c)];
      }
    r0 += sg.nresidual;
  }
  return ev;
}

IdentifyResult identify(const Model& model, const MotionData& data, const std::vector<ParameterGroup>& parameters,
                        const IdentifyOptions& options) {
  const auto t_start = std::chrono::steady_clock::now();
  if (needs_general_path(model)) return identify_general(model, data, parameters, options);
  const Setup S = make_setup(model, data, parameters, options);
  const Start st = start_values(S);
  Fitter F(model, data, parameters, options, S);
  Fit b = F.fit(st);

  IdentifyResult R;
  R.solver_report = b.summary.FullReport();
  R.solver_brief = b.summary.BriefReport();  // with the one-thread costs (solve)
  R.termination = ceres::TerminationTypeToString(b.summary.termination_type);
  R.converged = b.summary.termination_type == ceres::CONVERGENCE;
  R.iterations = b.iterations;
  R.starts = b.starts;
  R.winning_start = b.winning_start;
  R.initial_cost = b.first_initial_cost;
  R.final_cost = b.cost;
  R.nsegment = F.nseg;
  R.nresidual = F.nresidual;
  R.nunknown = F.ntangent;
  R.variance_factor = F.vf_of(b.cost);
  R.variance_factor_bound = F.vf_bound;
  R.continuity_gap_bound_m = F.gap_bound;
  R.restart_log = F.restart_log;

  F.repack(b);
  F.covariance(b, R);
  F.fitted_model(b, R);
  F.fit_curves(st, b, R);
  F.identifiability(b, R);
  F.verdict(b, R);
  R.solve_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return R;
}

}  // namespace tendyn::tensegrity
