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
#include <memory>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

namespace identify_detail {

namespace {

// Forwards Ceres' iterations to IdentifyOptions::progress (an exception thrown there is kept and
// rethrown after Solve: Ceres is not exception-safe, so the iteration aborts the solve instead).
class ProgressCallback : public ceres::IterationCallback {
 public:
  explicit ProgressCallback(const std::function<void(int, double, double)>& f) : f_(f) {}
  ceres::CallbackReturnType operator()(const ceres::IterationSummary& s) override {
    try {
      f_(s.iteration, s.cost, s.gradient_max_norm);
    } catch (...) {
      error = std::current_exception();
      return ceres::SOLVER_ABORT;
    }
    return ceres::SOLVER_CONTINUE;
  }
  std::exception_ptr error;

 private:
  const std::function<void(int, double, double)>& f_;
};

}  // namespace

Setup make_setup(const Model& m, const MotionData& d, const std::vector<ParameterGroup>& groups, const IdentifyOptions& o) {
  validate(o);
  validate(m, d);
  if (const double steps = identify_step_count(d.t_s, o.dt_s); !(steps <= kIdentifyMaxSteps))
    throw Error("identify option dt_s: " + num(steps) + " integration steps per pass over the data (" +
                num(d.t_s.back() - d.t_s.front()) + " s of data at dt " + num(o.dt_s) + " s), above the limit " + num(kIdentifyMaxSteps));
  check_model_supported(m);
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
    if (unknowns->size() != nx) throw Error("evaluate_identification: " + std::to_string(unknowns->size()) + " unknowns given, the problem has " + std::to_string(nx));
    ev.unknowns = *unknowns;
  } else {
    const Start st = start_values(S);
    ev.unknowns.resize(nx);
    for (int i = 0; i < np; ++i) ev.unknowns[i] = st.theta[static_cast<std::size_t>(i)];
    for (int k = 0; k < nseg; ++k)
      for (int i = 0; i < nr * kStateParams; ++i) ev.unknowns[np + k * nr * kStateParams + i] = st.states[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
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
      throw SimulationError("evaluate_identification: segment " + std::to_string(k) + " cannot be simulated", data.t_s[static_cast<std::size_t>(sg.first)]);
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
  require_ideal_rods(model, "identify");
  const Setup S = make_setup(model, data, parameters, options);
  const int np = S.layout.nparam, nr = model.nrod(), nseg = static_cast<int>(S.segments.size());
  const Start st = start_values(S);
  int nresidual = 0;
  for (const auto& sg : S.segments) nresidual += sg.nresidual;
  const int ntangent = np + (nseg - (S.layout.fit_initial ? 0 : 1)) * nr * 11;
  const int dof = nresidual - ntangent;

  // The cost at the current values of a problem, summed in residual-block order by one thread
  // (Ceres sums per thread during Solve: its costs differ in the last bits between thread counts).
  auto cost_of = [](ceres::Problem& p) {
    ceres::Problem::EvaluateOptions eo;
    eo.num_threads = 1;
    double c = kNaN;
    if (!p.Evaluate(eo, &c, nullptr, nullptr, nullptr)) return kNaN;
    return c;
  };
  // One Levenberg-Marquardt solve of setup Q from (theta, states), updated in place; the problem
  // is returned for the covariance (it points into theta and states).
  std::unique_ptr<ProgressCallback> callback;
  if (options.progress) callback = std::make_unique<ProgressCallback>(options.progress);
  // The problem of setup Q over the parameter values at `th` and `state(k, j)` (segment k, rod j).
  auto build = [&](const Setup& Q, double* th, const std::function<double*(int, int)>& state) {
    ceres::Problem::Options po;
    po.cost_function_ownership = ceres::TAKE_OWNERSHIP;
    po.manifold_ownership = ceres::TAKE_OWNERSHIP;
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
        problem->AddParameterBlock(b, kStateParams,
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
      problem->AddResidualBlock(make_segment_cost(&Q, k).release(), nullptr, blocks);
    }
    return problem;
  };
  auto solve = [&](const Setup& Q, std::vector<double>& theta, std::vector<std::vector<double>>& states, ceres::Solver::Summary& summary) {
    auto problem = build(Q, theta.data(), [&](int k, int j) { return states[static_cast<std::size_t>(k)].data() + kStateParams * j; });
    ceres::Solver::Options so;
    so.minimizer_type = ceres::TRUST_REGION;
    so.trust_region_strategy_type = ceres::LEVENBERG_MARQUARDT;
    so.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
    so.sparse_linear_algebra_library_type = ceres::SUITE_SPARSE;
    so.max_num_iterations = options.max_iterations;
    so.function_tolerance = options.function_tolerance;
    so.parameter_tolerance = options.parameter_tolerance;
    so.gradient_tolerance = options.gradient_tolerance;
    so.num_threads = options.threads;
    so.logging_type = ceres::SILENT;
    so.minimizer_progress_to_stdout = false;
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
  };
  // The largest position gap between consecutive segments (end of k simulated vs start of k + 1).
  auto continuity_gap = [&](const std::vector<double>& theta, const std::vector<std::vector<double>>& states) {
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
  };

  const double vf_bound = options.restart_variance_factor >= 1.0 ? options.restart_variance_factor : variance_factor_bound(dof);
  const double gap_bound = options.restart_gap_sigmas * options.continuity_sigma_m;
  auto vf_of = [&](double cost) { return dof > 0 ? 2.0 * cost / dof : kNaN; };
  auto failed = [&](double cost, double gap) { return !(vf_of(cost) <= vf_bound) || gap > gap_bound; };
  // the statistics of a fit in words: "variance factor 4.02 (bound 1.1 for 2051 degrees of freedom),
  // largest continuity gap 1.7 mm (bound 0.5 mm)"
  auto statistics = [&](double cost, double gap) {
    return "variance factor " + num(vf_of(cost)) + " (bound " + io::format_number(vf_bound, 4) + " for " + std::to_string(dof) +
           " degrees of freedom), largest continuity gap " + io::format_number(gap * 1e3, 3) + " mm (bound " +
           io::format_number(gap_bound * 1e3, 3) + " mm)";
  };
  std::vector<std::string> restart_log;
  auto say = [&](const std::string& line) {
    restart_log.push_back(line);
    if (options.notice) options.notice(line);
  };

  std::vector<double> theta = st.theta;
  std::vector<std::vector<double>> states = st.states;
  ceres::Solver::Summary summary;
  std::unique_ptr<ceres::Problem> problem = solve(S, theta, states, summary);
  const double first_initial_cost = summary.initial_cost;
  double best_cost = summary.final_cost;
  int total_iterations = static_cast<int>(summary.iterations.size()) - 1;
  int starts_tried = 1, winning_start = 0;
  bool last_restart_improved = false;
  // Restarts (docs/IDENTIFY.md "Local minima"): a fit whose variance factor is above its
  // statistical bound (the residuals are far above the stated noise), or whose segments do not
  // join, may have stopped in a local minimum. Each restart is a continuation from the same start:
  // first a fit with continuity_sigma_m times 10^(k+1) (restart k = 1, 2, ...: the segments may
  // stay apart while the parameters move, so the parameters are fitted to the segments' local
  // data first), then the full fit from its result. The lowest cost of the full problem wins; the
  // restarts stop at the first fit that passes, and at the first restart that does not lower the
  // best cost by restart_min_improvement (the misfit is then the model's: more starts give the
  // same answer). Deterministic (the same fits in the same order for any thread count).
  double gap_now = continuity_gap(theta, states);
  if (options.restarts > 0 && failed(best_cost, gap_now)) {
    for (int r = 1; r <= options.restarts; ++r) {
      IdentifyOptions lo = options;
      lo.continuity_sigma_m = options.continuity_sigma_m * std::pow(10.0, r + 1);
      say("identify: restart " + std::to_string(r) + " of " + std::to_string(options.restarts) + ": the best fit so far is rejected (" +
          statistics(best_cost, gap_now) + "); fitting with the continuity sigma loosened to " + num(lo.continuity_sigma_m) +
          " m, then the full problem");
      const Setup L = make_setup(model, data, parameters, lo);
      std::vector<double> th = st.theta;
      std::vector<std::vector<double>> xs = st.states;
      ceres::Solver::Summary s1, s2;
      ++starts_tried;
      std::unique_ptr<ceres::Problem> p2;
      try {
        solve(L, th, xs, s1);
        p2 = solve(S, th, xs, s2);
      } catch (const SimulationError& e) {
        say("identify: restart " + std::to_string(r) + " failed: " + e.what());
        continue;
      }
      total_iterations += static_cast<int>(s1.iterations.size()) + static_cast<int>(s2.iterations.size()) - 2;
      const double c2 = s2.final_cost, before = best_cost;
      last_restart_improved = c2 < (1.0 - options.restart_min_improvement) * before;
      if (c2 < best_cost) {
        // the problem points into theta and states: move the new ones in with it (vectors keep
        // their buffers when moved)
        problem.reset();
        theta = std::move(th);
        states = std::move(xs);
        problem = std::move(p2);
        summary = s2;
        best_cost = c2;
        winning_start = r;
        gap_now = continuity_gap(theta, states);
      }
      if (!failed(best_cost, gap_now)) {
        say("identify: restart " + std::to_string(r) + " passes: " + statistics(best_cost, gap_now));
        break;
      }
      if (!last_restart_improved) {
        if (r < options.restarts)
          say("identify: restart " + std::to_string(r) + " ended at cost " + num(c2) + ", not " + num(100.0 * options.restart_min_improvement) +
              " % below the best before it, " + num(before) + ": no more restarts (the misfit does not depend on the start)");
        break;
      }
    }
  }

  IdentifyResult R;
  R.solver_report = summary.FullReport();
  R.solver_brief = summary.BriefReport();  // with the one-thread costs (solve)
  R.termination = ceres::TerminationTypeToString(summary.termination_type);
  R.converged = summary.termination_type == ceres::CONVERGENCE;
  R.iterations = total_iterations;
  R.starts = starts_tried;
  R.winning_start = winning_start;
  R.initial_cost = first_initial_cost;
  R.final_cost = best_cost;
  R.nsegment = nseg;
  R.nresidual = nresidual;
  R.nunknown = ntangent;
  R.variance_factor = vf_of(best_cost);
  R.variance_factor_bound = vf_bound;
  R.continuity_gap_bound_m = gap_bound;
  R.restart_log = restart_log;

  // covariance of theta (segment states marginalised). ceres::Covariance orders the Jacobian's
  // columns by the parameter blocks' addresses: on a problem over one buffer laid out in a fixed
  // order (theta, then the states segment by segment), its numbers do not depend on where the heap
  // put the fit's vectors (they did in the last bits from run to run).
  const std::size_t nstate_total = static_cast<std::size_t>(nseg) * static_cast<std::size_t>(kStateParams * nr);
  std::vector<double> packed(static_cast<std::size_t>(std::max(np, 1)) + nstate_total, 0.0);
  for (int i = 0; i < np; ++i) packed[static_cast<std::size_t>(i)] = theta[static_cast<std::size_t>(i)];
  const std::size_t state0 = static_cast<std::size_t>(std::max(np, 1));
  for (int k = 0; k < nseg; ++k)
    std::copy(states[static_cast<std::size_t>(k)].begin(), states[static_cast<std::size_t>(k)].end(),
              packed.begin() + static_cast<std::ptrdiff_t>(state0 + static_cast<std::size_t>(k * kStateParams * nr)));
  double* const ptheta = packed.data();
  problem.reset();
  problem = build(S, ptheta, [&](int k, int j) { return packed.data() + state0 + static_cast<std::size_t>((k * nr + j) * kStateParams); });
  Eigen::MatrixXd cov;
  bool rank_deficient = false;
  if (options.covariance && np > 0) {
    ceres::Covariance::Options co;
    co.algorithm_type = ceres::SPARSE_QR;  // dense SVD: 2 s of 10 at 600 unknowns; same numbers to round-off
    co.num_threads = 1;
    co.null_space_rank = 0;
    ceres::Covariance covariance(co);
    std::vector<std::pair<const double*, const double*>> blocks{{ptheta, ptheta}};
    if (covariance.Compute(blocks, problem.get())) {
      cov.resize(np, np);
      covariance.GetCovarianceBlock(ptheta, ptheta, cov.data());  // row major = col major (symmetric)
      cov *= R.variance_factor;
      R.covariance_ok = cov.allFinite();
      if (!R.covariance_ok) R.covariance_message = "covariance is not finite";
    } else {
      R.covariance_message = "the Jacobian at the optimum is rank-deficient (a parameter or a combination is not identifiable from these data)";
      rank_deficient = true;
    }
  } else if (np > 0) {
    R.covariance_message = "not computed (covariance off)";
  }
  R.model = model;
  apply_theta(S.layout, theta.data(), R.model);
  for (int i = 0; i < np; ++i) {
    const ParameterGroup& g = S.layout.groups[static_cast<std::size_t>(i)];
    FittedParameter f;
    f.name = g.name;
    f.kind = g.kind;
    f.elements = g.elements;
    f.nominal = nominal_value(model, g);
    f.fitted = theta[static_cast<std::size_t>(i)];
    if (R.covariance_ok) f.std = std::sqrt(std::max(0.0, cov(i, i)));
    R.parameters.push_back(f);
  }
  if (R.covariance_ok) {
    R.correlation.resize(np, np);
    for (int a = 0; a < np; ++a)
      for (int b = 0; b < np; ++b) {
        const double den = std::sqrt(cov(a, a) * cov(b, b));
        R.correlation(a, b) = den > 0.0 ? cov(a, b) / den : (a == b ? 1.0 : 0.0);
      }
  }
  // fitted initial state
  const std::vector<double>& s0 = states.front();
  if (S.layout.fit_initial) {
    State x0;
    x0.time_s = model.initial_state.time_s;
    x0.x.resize(State::kStride * nr);
    for (int j = 0; j < nr; ++j) state_from_params(s0.data() + kStateParams * j, x0.x.data() + State::kStride * j);
    R.model.initial_state = x0;
  }
  validate(R.model);

  // fit (segment by segment), free runs of the fitted and nominal models
  Eigen::MatrixXd P_fit = Eigen::MatrixXd::Constant(data.nsample(), 3 * model.nnode(), kNaN);
  for (int k = 0; k < nseg; ++k) {
    const Segment& sg = S.segments[static_cast<std::size_t>(k)];
    const std::vector<double> ts(data.t_s.begin() + sg.first, data.t_s.begin() + sg.last + 1);
    Eigen::MatrixXd P;
    if (ts.size() >= 1) {
      free_run(model, S.layout, theta.data(), states[static_cast<std::size_t>(k)].data(), ts, options.dt_s, P);
      P_fit.middleRows(sg.first, static_cast<int>(ts.size())) = P;
    }
  }
  R.p_W_fit_m = marker_columns(data, P_fit);
  R.marker_rms_m = marker_rms(data, P_fit);
  R.max_continuity_gap_m = continuity_gap(theta, states);
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
  R.marker_rms_free_fitted_m = free_rms(theta.data(), s0.data(), R.p_W_free_fitted_m);
  R.marker_rms_free_nominal_m = free_rms(st.theta.data(), s0.data(), R.p_W_free_nominal_m);

  // Identifiability: parameters the data do not determine, each with why.
  if (np > 0) {
    // (1) no effect on the residuals: a Jacobian column that is zero (relative to the largest
    // sensitivity to a relative change of a parameter)
    std::vector<double> sens(static_cast<std::size_t>(np), 0.0);
    ceres::Problem::EvaluateOptions eo;
    eo.num_threads = 1;
    eo.parameter_blocks = {ptheta};
    ceres::CRSMatrix J;
    if (problem->Evaluate(eo, nullptr, nullptr, nullptr, &J)) {
      for (std::size_t k = 0; k < J.values.size(); ++k) {
        const auto c = static_cast<std::size_t>(J.cols[k]);
        sens[c] += J.values[k] * J.values[k];
      }
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
    if (rank_deficient && R.unidentifiable.empty()) {
      // (2) a combination: the parameters whose fixing makes the rest determined
      std::vector<std::string> named;
      if (np >= 2 && np <= 16) {
        ceres::Covariance::Options co;
        co.algorithm_type = ceres::SPARSE_QR;
        co.num_threads = 1;
        std::vector<std::pair<const double*, const double*>> blocks{{ptheta, ptheta}};
        for (int i = 0; i < np; ++i) {
          problem->SetManifold(ptheta, new ceres::SubsetManifold(np, {i}));
          ceres::Covariance c1(co);
          if (c1.Compute(blocks, problem.get())) named.push_back(R.parameters[static_cast<std::size_t>(i)].name);
        }
        problem->SetManifold(ptheta, nullptr);
      }
      for (const auto& n : named) R.unidentifiable.push_back(n + ": rank-deficient Jacobian, determined only together with the others named");
      if (named.empty())
        R.unidentifiable.push_back(np == 1 ? R.parameters[0].name + ": rank-deficient Jacobian"
                                           : "(not named) rank-deficient Jacobian: a combination of parameters or segment states is not determined");
    }
    if (R.covariance_ok) {
      // (3) a standard deviation larger than the value, a correlation of magnitude above 0.999
      for (const auto& f : R.parameters)
        if (f.std > std::abs(f.fitted))
          R.unidentifiable.push_back(f.name + ": its standard deviation " + num(f.std) + " is larger than its value " + num(f.fitted));
      for (int a = 0; a < np; ++a)
        for (int b = a + 1; b < np; ++b)
          if (std::abs(R.correlation(a, b)) > 0.999)
            R.unidentifiable.push_back(R.parameters[static_cast<std::size_t>(a)].name + " and " + R.parameters[static_cast<std::size_t>(b)].name +
                                       ": correlation " + io::format_number(R.correlation(a, b), 6) + " (only a combination is determined)");
    }
  }
  if (dof < 1) R.unidentifiable.push_back("all: more unknowns (" + std::to_string(ntangent) + ") than residuals (" + std::to_string(nresidual) + ")");

  // Verdict (docs/IDENTIFY.md "Verdict")
  const bool vf_ok = R.variance_factor <= vf_bound, gap_ok = R.max_continuity_gap_m <= gap_bound;
  const std::string stats = statistics(best_cost, R.max_continuity_gap_m);
  std::string not_determined;
  for (const auto& u : R.unidentifiable) not_determined += (not_determined.empty() ? "" : "; ") + u;
  if (!vf_ok || !gap_ok) {
    const std::string noise = vf_ok ? std::string()
                                    : ": the residuals are " + io::format_number(std::sqrt(R.variance_factor), 3) + " times the stated sigmas";
    if (summary.termination_type == ceres::NO_CONVERGENCE) {
      R.verdict = FitVerdict::kNotConverged;
      R.verdict_reason = stats + noise + "; the solver stopped at the iteration limit (" + std::to_string(options.max_iterations) +
                         " per fit): raise --max-iterations";
    } else if (R.starts > 1 && last_restart_improved) {
      R.verdict = FitVerdict::kLocalMinimum;
      R.verdict_reason = stats + noise + "; the last restart still lowered the cost by more than " + num(100.0 * options.restart_min_improvement) +
                         " %: another start may find a lower minimum (--restarts)";
    } else if (vf_ok) {
      R.verdict = FitVerdict::kLocalMinimum;
      R.verdict_reason = stats + "; the residuals are at the noise but the segments do not join: a local minimum of the segment states, or a "
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
  R.solve_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return R;
}


}  // namespace tendyn::tensegrity
