// The identification of models the Jet path does not know (winches, end-caps, body points, rods
// of general inertia): single shooting with the simulator's step() in double over the whole
// record, derivatives by central differences, the same verdict as the multiple-shooting path.
// See identify.hpp ("Models with winches...") and docs/IDENTIFY.md.
#include "tensegrity/identify_internal.hpp"

#include <tendyn/tensegrity/simulate.hpp>

#include <ceres/ceres.h>
#include <ceres/dynamic_numeric_diff_cost_function.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

namespace identify_detail {

namespace {

// The simulated record: node positions (nsample x 3 nnode), and per cable its length, tension and
// current rest length (nsample x ncable).
struct GeneralRun {
  Eigen::MatrixXd p_nodes, length, tension, rest;
};

// The model as the data drive it: the drives of the cables with a target column replaced by
// table drives through the recorded targets (target = rest length + u).
Model driven_model(const Model& m, const MotionData& d) {
  Model out = m;
  if (d.target_cables.empty()) return out;
  std::vector<CableDrive> drives;
  for (const CableDrive& dr : m.drives)
    if (std::find(d.target_cables.begin(), d.target_cables.end(), dr.cable) == d.target_cables.end()) drives.push_back(dr);
  for (std::size_t i = 0; i < d.target_cables.size(); ++i) {
    const int k = d.target_cables[i];
    TableDrive table;
    table.t_s = d.t_s;
    table.u_m.resize(d.t_s.size());
    for (int s = 0; s < d.nsample(); ++s)
      table.u_m[static_cast<std::size_t>(s)] =
          d.winch_target_m(s, static_cast<int>(i)) - m.cables[static_cast<std::size_t>(k)].rest_length_m;
    drives.push_back({k, table});
  }
  out.drives = std::move(drives);
  return out;
}

// One run of `m` (already driven: driven_model) over the sample times from m.initial_state at
// t_s[0]: RK4 steps of at most dt between samples, no slack-event splitting (a split at a
// crossing time that moves with the parameters would make the central differences rough).
GeneralRun run_general(const Model& m, const std::vector<double>& t, double dt) {
  const int N = static_cast<int>(t.size()), nn = m.nnode(), nc = m.ncable();
  GeneralRun r;
  r.p_nodes.resize(N, 3 * nn);
  r.length.resize(N, nc);
  r.tension.resize(N, nc);
  r.rest.resize(N, nc);
  Data data = make_data(m);
  State st = m.initial_state;
  st.time_s = t.front();
  StepOptions so;
  so.integrator = Integrator::kRK4;
  so.locate_slack_events = false;
  auto record = [&](int s) {
    for (int n = 0; n < nn; ++n)
      for (int c = 0; c < 3; ++c) r.p_nodes(s, 3 * n + c) = data.p_W_node(c, n);
    r.length.row(s) = data.cable_length_m.transpose();
    r.tension.row(s) = data.cable_tension_N.transpose();
    r.rest.row(s) = data.cable_rest_length_m.transpose();
  };
  prepare_step(m, st, data);
  record(0);
  for (int s = 1; s < N; ++s) {
    const double t0 = t[static_cast<std::size_t>(s - 1)], t1 = t[static_cast<std::size_t>(s)];
    const int n = std::max(1, static_cast<int>(std::ceil((t1 - t0) / dt - 1e-9)));
    const double h = (t1 - t0) / n;
    for (int i = 0; i < n; ++i) step(m, data, st, h, so, i + 1 == n ? t1 : t0 + (i + 1) * h);
    record(s);
  }
  return r;
}

// The weighted residuals of a run against the data: per sample the present markers (3 each), then
// lengths, tensions and encoders; the robust loss applied to each.
struct Residuals {
  const MotionData& d;
  const IdentifyOptions& o;
  int count() const {
    int n = 0;
    for (int s = 0; s < d.nsample(); ++s) {
      for (int i = 0; i < d.nmarker(); ++i) n += std::isnan(d.p_W_marker_m(s, 3 * i)) ? 0 : 3;
      for (int i = 0; i < static_cast<int>(d.length_cables.size()); ++i) n += std::isnan(d.cable_length_m(s, i)) ? 0 : 1;
      for (int i = 0; i < static_cast<int>(d.tension_cables.size()); ++i) n += std::isnan(d.cable_tension_N(s, i)) ? 0 : 1;
      for (int i = 0; i < static_cast<int>(d.encoder_cables.size()); ++i) n += std::isnan(d.winch_encoder_m(s, i)) ? 0 : 1;
    }
    return n;
  }
  void fill(const GeneralRun& r, double* out) const {
    int k = 0;
    auto put = [&](double v) { out[k++] = robust(v, o.loss, o.loss_scale); };
    for (int s = 0; s < d.nsample(); ++s) {
      for (int i = 0; i < d.nmarker(); ++i) {
        if (std::isnan(d.p_W_marker_m(s, 3 * i))) continue;
        const int n = d.marker_nodes[static_cast<std::size_t>(i)];
        for (int c = 0; c < 3; ++c) put((r.p_nodes(s, 3 * n + c) - d.p_W_marker_m(s, 3 * i + c)) / o.marker_sigma_m);
      }
      for (int i = 0; i < static_cast<int>(d.length_cables.size()); ++i)
        if (!std::isnan(d.cable_length_m(s, i)))
          put((r.length(s, d.length_cables[static_cast<std::size_t>(i)]) - d.cable_length_m(s, i)) / o.length_sigma_m);
      for (int i = 0; i < static_cast<int>(d.tension_cables.size()); ++i)
        if (!std::isnan(d.cable_tension_N(s, i)))
          put((r.tension(s, d.tension_cables[static_cast<std::size_t>(i)]) - d.cable_tension_N(s, i)) / o.tension_sigma_N);
      for (int i = 0; i < static_cast<int>(d.encoder_cables.size()); ++i)
        if (!std::isnan(d.winch_encoder_m(s, i)))
          put((r.rest(s, d.encoder_cables[static_cast<std::size_t>(i)]) - d.winch_encoder_m(s, i)) / o.encoder_sigma_m);
    }
  }
};

// The residual functor of Ceres' numeric differentiation: theta -> the model with theta -> a run.
// (The targets are applied after theta: a fitted rest length does not move a recorded target.)
struct GeneralCost {
  const Model* model;  // the nominal model
  const Layout* layout;
  const MotionData* data;
  const IdentifyOptions* options;
  bool operator()(double const* const* params, double* residuals) const {
    Model m = *model;
    apply_theta(*layout, params[0], m);
    try {
      const GeneralRun r = run_general(driven_model(m, *data), data->t_s, options->dt_s);
      Residuals{*data, *options}.fill(r, residuals);
    } catch (const SimulationError&) {
      return false;  // Ceres rejects the trial point
    }
    return true;
  }
};

// The compliant ground's friction is regularised, f_t = -mu F_n v_t / sqrt(|v_t|^2 + v_s^2): an
// end-cap in stick sees a tangential damping mu F_n / v_s, about mu |g| / v_s per unit mass (F_n of
// the order of the end's share of the weight, the end's share of the mass). RK4 steps above about
// v_s / (mu |g|) make it chatter: the run is then rough in the ground's parameters at the 1 % level
// and their fit stalls far from the truth (motorised 3-bar, v_s 1 mm/s, mu 0.92: rolling, mu 0.6
// fitted from 0.92 stalled at 0.89 with 0.5 ms steps and at 0.71 with 0.2 ms, came within 1 % with
// 0.1 ms; settling, the ground stiffness x1.5 stalled at 0.79 of the truth with 0.5 ms and came to
// 1 % with 0.1 ms). Fitting a ground parameter with a larger step is refused.
void check_ground_step(const Model& model, const std::vector<ParameterGroup>& groups, double dt_s) {
  const auto ground_item = std::find_if(groups.begin(), groups.end(), [](const ParameterGroup& g) {
    return g.kind == ParameterKind::kFriction || g.kind == ParameterKind::kGroundStiffness || g.kind == ParameterKind::kGroundDamping;
  });
  const double g = model.gravity_W.norm();
  if (ground_item == groups.end() || model.ground.type != Ground::Type::kCompliant || !(model.ground.friction > 0.0) || !(g > 0.0)) return;
  const double bound = model.ground.slip_velocity_mps / (model.ground.friction * g);
  if (dt_s > bound)
    throw Error("identify option dt_s: " + num(dt_s) + " s is above slip_velocity / (friction |g|) = " + num(bound) +
                " s (the ground's slip_velocity " + num(model.ground.slip_velocity_mps) + " m/s, friction " + num(model.ground.friction) +
                ", |g| " + num(g) + " m/s^2) and '" + ground_item->name +
                "' is fitted: with a larger step the regularised friction of end-caps in stick chatters, the run is rough in the "
                "ground's parameters and their fit stalls; use --dt " +
                num(bound) + " or less");
}

// The inputs of identify_general: options, model and data, the step count, the groups this path
// fits, and the step the ground's regularised friction needs.
void check_general_inputs(const Model& model, const MotionData& data, const std::vector<ParameterGroup>& groups,
                          const IdentifyOptions& options) {
  validate(options);
  validate(model, data);
  check_model_supported(model);
  if (const double steps = identify_step_count(data.t_s, options.dt_s); !(steps <= kIdentifyMaxSteps))
    throw Error("identify option dt_s: " + num(steps) + " integration steps per pass over the data (" +
                num(data.t_s.back() - data.t_s.front()) + " s of data at dt " + num(options.dt_s) + " s), above the limit " +
                num(kIdentifyMaxSteps));
  for (const auto& g : groups)
    if (g.kind == ParameterKind::kInitialState || g.kind == ParameterKind::kMass)
      throw Error("identify: '" + g.name + "' is not fitted for model '" + model.name +
                  "' (winches, end-caps, body points or rods of general inertia: single shooting from the model's initial state; "
                  "fitted there: stiffness, damping, rest_length, the compliant ground's friction, stiffness and damping, and the "
                  "winch parameters)");
  check_ground_step(model, groups, options.dt_s);
}

// The Jacobian of the problem's residuals (nres x np) at its current parameters.
Eigen::MatrixXd jacobian_at(ceres::Problem& problem, int nres, int np, double t0_s) {
  Eigen::MatrixXd J(nres, np);
  ceres::Problem::EvaluateOptions eo;
  eo.num_threads = 1;
  ceres::CRSMatrix crs;
  double c = 0.0;
  if (!problem.Evaluate(eo, &c, nullptr, nullptr, &crs))
    throw SimulationError("identify: the fitted model cannot be simulated over the data", t0_s);
  J.setZero();
  for (int r = 0; r < crs.num_rows; ++r)
    for (int k = crs.rows[static_cast<std::size_t>(r)]; k < crs.rows[static_cast<std::size_t>(r) + 1]; ++k)
      J(r, crs.cols[static_cast<std::size_t>(k)]) = crs.values[static_cast<std::size_t>(k)];
  return J;
}

// The parameters' covariance s^2 (J^T J)^-1 into R (standard deviations, correlations), with the
// columns scaled by the parameters' magnitudes for the rank test. Returns whether J is
// rank-deficient.
bool general_covariance(const Eigen::MatrixXd& J, const std::vector<double>& theta, const std::vector<double>& theta0,
                        const IdentifyOptions& options, IdentifyResult& R) {
  const int np = static_cast<int>(J.cols());
  bool rank_deficient = false;
  if (options.covariance && np > 0) {
    Eigen::VectorXd scale(np);
    for (int i = 0; i < np; ++i) {
      const double v = std::max(std::abs(theta[static_cast<std::size_t>(i)]), std::abs(theta0[static_cast<std::size_t>(i)]));
      scale[i] = v > 0.0 ? v : 1.0;
    }
    const Eigen::MatrixXd Js = J * scale.asDiagonal();
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(Js);
    const Eigen::VectorXd sv = svd.singularValues();
    if (sv.size() < np || !(sv[np - 1] > 1e-10 * sv[0])) {
      rank_deficient = true;
      R.covariance_message =
          "the Jacobian at the optimum is rank-deficient (a parameter or a combination is not identifiable from these data)";
    } else {
      const Eigen::MatrixXd Cs = (Js.transpose() * Js).inverse();
      const Eigen::MatrixXd C = scale.asDiagonal() * Cs * scale.asDiagonal() * R.variance_factor;
      R.covariance_ok = C.allFinite();
      if (!R.covariance_ok) R.covariance_message = "covariance is not finite";
      if (R.covariance_ok) {
        R.correlation.resize(np, np);
        for (int a = 0; a < np; ++a) {
          R.parameters[static_cast<std::size_t>(a)].std = std::sqrt(std::max(0.0, C(a, a)));
          for (int c = 0; c < np; ++c) {
            const double den = std::sqrt(C(a, a) * C(c, c));
            R.correlation(a, c) = den > 0.0 ? C(a, c) / den : (a == c ? 1.0 : 0.0);
          }
        }
      }
    }
  } else if (np > 0) {
    R.covariance_message = "not computed (covariance off)";
  }

  return rank_deficient;
}

// The solver's facts of a single-shooting fit in a fresh result: reports, termination, costs, sizes
// and the variance factor with its bound (no segments: no continuity gap).
IdentifyResult general_result_of(const ceres::Solver::Summary& summary, int nres, int np, const IdentifyOptions& options) {
  IdentifyResult R;
  R.solver_report = summary.FullReport();
  R.solver_brief = summary.BriefReport();
  R.termination = ceres::TerminationTypeToString(summary.termination_type);
  R.converged = summary.termination_type == ceres::CONVERGENCE;
  R.iterations = static_cast<int>(summary.iterations.size()) - 1;
  R.starts = 1;
  R.winning_start = 0;
  R.initial_cost = summary.initial_cost;
  R.final_cost = summary.final_cost;
  R.nsegment = 1;
  R.nresidual = nres;
  R.nunknown = np;
  const int dof = nres - np;
  R.variance_factor = dof > 0 ? 2.0 * summary.final_cost / dof : kNaN;
  R.variance_factor_bound = options.restart_variance_factor >= 1.0 ? options.restart_variance_factor : variance_factor_bound(dof);
  R.continuity_gap_bound_m = kNaN;  // single shooting: no segments to join
  R.max_continuity_gap_m = kNaN;
  return R;
}

}  // namespace

IdentifyResult identify_general(const Model& model, const MotionData& data, const std::vector<ParameterGroup>& groups,
                                const IdentifyOptions& options) {
  const auto t_start = std::chrono::steady_clock::now();
  check_general_inputs(model, data, groups, options);
  const Layout L = make_layout(model, groups);
  const int np = L.nparam;
  const Residuals res{data, options};
  const int nres = res.count();
  if (nres == 0) throw Error("identify: the data have no measured value");
  const Model driven = driven_model(model, data);

  std::vector<double> theta(static_cast<std::size_t>(np));
  for (int i = 0; i < np; ++i) theta[static_cast<std::size_t>(i)] = nominal_value(model, L.groups[static_cast<std::size_t>(i)]);
  const std::vector<double> theta0 = theta;

  // the nominal run first: a model that cannot run over the data is an input error, not a fit
  GeneralRun nominal;
  try {
    nominal = run_general(driven, data.t_s, options.dt_s);
  } catch (const SimulationError& e) {
    throw SimulationError(std::string("identify: the nominal model cannot be simulated over the data: ") + e.what(), data.t_s.front());
  }

  ceres::Problem::Options po;
  po.cost_function_ownership = ceres::TAKE_OWNERSHIP;
  ceres::Problem problem(po);
  ceres::NumericDiffOptions nd;
  // 1e-3: with 1e-6 the differences on the motorised 3-bar robot were dominated by the run's
  // roughness in the parameters (gradients jumping by 10^4 between iterations) and the fit stalled
  nd.relative_step_size = 1e-3;
  auto* cost = new ceres::DynamicNumericDiffCostFunction<GeneralCost, ceres::CENTRAL>(new GeneralCost{&model, &L, &data, &options},
                                                                                      ceres::TAKE_OWNERSHIP, nd);
  cost->AddParameterBlock(np);
  cost->SetNumResiduals(nres);
  problem.AddResidualBlock(cost, nullptr, theta.data());
  for (int i = 0; i < np; ++i) {
    const ParameterKind k = L.groups[static_cast<std::size_t>(i)].kind;
    const bool strictly = k == ParameterKind::kRestLength || k == ParameterKind::kGroundStiffness || k == ParameterKind::kWinchNoLoadSpeed;
    problem.SetParameterLowerBound(theta.data(), i, strictly ? 1e-9 : 0.0);
  }
  ceres::Solver::Options so = lm_solver_options(options);
  so.linear_solver_type = ceres::DENSE_QR;
  std::unique_ptr<ProgressCallback> progress;
  if (options.progress) {
    progress = std::make_unique<ProgressCallback>(options.progress);
    so.callbacks.push_back(progress.get());
  }
  ceres::Solver::Summary summary;
  ceres::Solve(so, &problem, &summary);
  if (progress && progress->error) std::rethrow_exception(progress->error);
  if (summary.termination_type == ceres::FAILURE || !std::isfinite(summary.final_cost))
    throw SimulationError("identify: the solver failed: " + summary.message, data.t_s.front());

  IdentifyResult R = general_result_of(summary, nres, np, options);
  const int dof = nres - np;

  // the Jacobian at the optimum (central differences, as in the solve)
  const Eigen::MatrixXd J = jacobian_at(problem, nres, np, data.t_s.front());

  R.model = model;
  apply_theta(L, theta.data(), R.model);
  for (int i = 0; i < np; ++i) {
    const ParameterGroup& g = L.groups[static_cast<std::size_t>(i)];
    FittedParameter f;
    f.name = g.name;
    f.kind = g.kind;
    f.elements = g.elements;
    f.nominal = theta0[static_cast<std::size_t>(i)];
    f.fitted = theta[static_cast<std::size_t>(i)];
    R.parameters.push_back(f);
  }
  const bool rank_deficient = general_covariance(J, theta, theta0, options, R);

  // fit curves: single shooting, so the fit is the free run of the fitted model
  GeneralRun fitted;
  try {
    Model m = model;
    apply_theta(L, theta.data(), m);
    fitted = run_general(driven_model(m, data), data.t_s, options.dt_s);
  } catch (const SimulationError& e) {
    throw SimulationError(std::string("identify: the fitted model cannot be simulated over the data: ") + e.what(), data.t_s.front());
  }
  R.p_W_fit_m = marker_columns(data, fitted.p_nodes);
  R.p_W_free_fitted_m = R.p_W_fit_m;
  R.p_W_free_nominal_m = marker_columns(data, nominal.p_nodes);
  R.marker_rms_m = marker_rms(data, fitted.p_nodes);
  R.marker_rms_free_fitted_m = R.marker_rms_m;
  R.marker_rms_free_nominal_m = marker_rms(data, nominal.p_nodes);

  // identifiability
  if (np > 0) {
    std::vector<double> sens(static_cast<std::size_t>(np));
    for (int i = 0; i < np; ++i) sens[static_cast<std::size_t>(i)] = J.col(i).squaredNorm();
    flag_no_effect(sens, R);
    if (rank_deficient && R.unidentifiable.empty())
      R.unidentifiable.push_back(np == 1 ? R.parameters[0].name + ": rank-deficient Jacobian"
                                         : "(not named) rank-deficient Jacobian: a combination of parameters is not determined");
    flag_uncertain(R);
  }
  if (dof < 1) R.unidentifiable.push_back("all: more unknowns (" + std::to_string(np) + ") than residuals (" + std::to_string(nres) + ")");

  VerdictFacts f;
  f.cost = summary.final_cost;
  f.dof = dof;
  f.vf_bound = R.variance_factor_bound;
  f.shooting = false;
  f.iteration_limit = summary.termination_type == ceres::NO_CONVERGENCE;
  judge_fit(f, options, R);
  // The standard deviations come from central differences of one long simulation through contact,
  // stick-slip and motor limits: its cost is rough at small scales, and on noisy synthetic data of
  // the motorised 3-bar the fitted values lay 4-20 standard deviations (1-5 %) from the truth
  // (IdentifyGeneral.RecoversParametersWithNoise...). Said with every result of this path.
  R.verdict_reason +=
      "; the standard deviations of this path (single shooting, numeric derivatives through contact and "
      "motor limits) are lower bounds: the fitted values can lie several of them from the truth";
  validate(R.model);
  R.solve_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return R;
}

}  // namespace identify_detail

MotionData simulate_motion(const Model& model, const MotionData& data, double dt_s) {
  validate(model, data);
  if (!(dt_s > 0.0) || !std::isfinite(dt_s))
    throw Error("simulate_motion: dt_s must be a positive finite number (got " + identify_detail::num(dt_s) + ")");
  const identify_detail::GeneralRun r = identify_detail::run_general(identify_detail::driven_model(model, data), data.t_s, dt_s);
  MotionData out = data;
  for (int s = 0; s < data.nsample(); ++s) {
    for (int i = 0; i < data.nmarker(); ++i)
      for (int c = 0; c < 3; ++c) out.p_W_marker_m(s, 3 * i + c) = r.p_nodes(s, 3 * data.marker_nodes[static_cast<std::size_t>(i)] + c);
    for (int i = 0; i < static_cast<int>(data.length_cables.size()); ++i)
      out.cable_length_m(s, i) = r.length(s, data.length_cables[static_cast<std::size_t>(i)]);
    for (int i = 0; i < static_cast<int>(data.tension_cables.size()); ++i)
      out.cable_tension_N(s, i) = r.tension(s, data.tension_cables[static_cast<std::size_t>(i)]);
    for (int i = 0; i < static_cast<int>(data.encoder_cables.size()); ++i)
      out.winch_encoder_m(s, i) = r.rest(s, data.encoder_cables[static_cast<std::size_t>(i)]);
  }
  return out;
}

}  // namespace tendyn::tensegrity
