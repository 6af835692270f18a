#include <tendyn/core/format.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/integrate.hpp>
#include <tendyn/tensegrity/contact.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>

namespace tendyn::tensegrity {

void validate(const SimulationOptions& o) {
  auto bad = [](const std::string& what) { throw Error("simulation option " + what); };
  if (!(o.duration_s >= 0.0) || !std::isfinite(o.duration_s)) bad("duration must be >= 0 s");
  if (!(o.dt_s > 0.0) || !std::isfinite(o.dt_s)) bad("dt must be > 0 s");
  if (!std::isfinite(o.output_interval_s)) bad("output interval must be finite");
  if (!(o.strain_limit > 0.0)) bad("strain limit must be > 0");
  if (!(o.slack_tolerance >= 0.0)) bad("slack tolerance must be >= 0");
  if (!(o.energy_growth_limit > 0.0)) bad("energy growth limit must be > 0");
  if (!(o.tolerance.rtol > 0.0) || !(o.tolerance.atol > 0.0)) bad("rtol and atol must be > 0");
  if (!(o.control_period_s >= 0.0) || !std::isfinite(o.control_period_s)) bad("control period must be >= 0 s");
  (void)fixed_step_count(o);
}

long fixed_step_count(const SimulationOptions& o) {
  const double ratio = o.duration_s / o.dt_s;
  if (ratio > kMaxSteps)
    throw Error("simulation option duration / dt = " + format_number(o.duration_s, 6) + " / " + format_number(o.dt_s, 6) + " = " +
                format_number(ratio, 6) + " steps is above the limit " + format_number(kMaxSteps, 6));
  const long n = std::lround(ratio);
  if (o.duration_s > 0.0 && n == 0)
    throw Error("simulation option duration (" + format_number(o.duration_s, 6) + " s) is shorter than half a step dt (" +
                format_number(o.dt_s, 6) + " s): no step would run");
  return n;
}

long output_stride(const SimulationOptions& o, long steps) {
  if (!(o.output_interval_s > 0.0)) return 1;
  const double k = o.output_interval_s / o.dt_s;
  // an interval longer than the run: t = 0 and the end only (the end is always written)
  if (k >= static_cast<double>(std::max(steps, 1L))) return std::max(steps, 1L);
  return std::max(1L, std::lround(k));
}

StepOptions step_options(const SimulationOptions& o) {
  StepOptions s;
  s.integrator = o.integrator;
  s.tolerance = o.tolerance;
  s.locate_slack_events = o.locate_slack_events;
  return s;
}

namespace {

void fixed_step(const Model& m, Data& d, State& s, double h, Integrator integ) {
  if (integ == Integrator::kRK4)
    step_rk4(m, d, s, h);
  else
    step_lie_verlet(m, d, s, h);
}

// Smallest fraction of the step at which a tension-only cable changes between slack and taut,
// from the stretches at the start (d.stretch_start_m) and at the end (d, after compute_derivative).
double first_crossing(const Model& m, const Data& d) {
  double theta = 1.0;
  for (int k = 0; k < m.ncable(); ++k) {
    if (!m.cables[static_cast<std::size_t>(k)].tension_only) continue;
    const double s0 = d.stretch_start_m[k], s1 = d.cable_length_m[k] - d.cable_rest_length_m[k];
    if ((s0 > 0.0) != (s1 > 0.0)) theta = std::min(theta, s0 / (s0 - s1));
  }
  return theta;
}

// Redoes the step from the saved state with size f * h (f in (0, 1]) and evaluates at the end.
void redo(const Model& m, Data& d, State& s, double h, Integrator integ) {
  s.x = d.saved.x;
  s.time_s = d.saved.time_s;
  compute_derivative(m, s, d);
  fixed_step(m, d, s, h, integ);
  compute_derivative(m, s, d);
}

// Shortens the step (size h from the saved state) to the impact of the first rod end with the
// ground, so that the deepest end lies in [-tol, 0]. Bisection on the step fraction, <= 40 redos.
// On return s is at the located time, d evaluated there; returns the step actually taken.
double locate_impact(const Model& m, Data& d, State& s, double h, Integrator integ) {
  const double tol = m.ground.max_penetration_m;
  double lo = 0.0, hi = 1.0, f = 1.0;
  for (int it = 0; it < 40; ++it) {
    f = 0.5 * (lo + hi);
    redo(m, d, s, f * h, integ);
    const double z = lowest_end_height(m, d);
    if (z < -tol)
      hi = f;
    else if (z > 0.0)
      lo = f;
    else
      return f * h;
  }
  // Not bracketed closer than 2^-40 h: take the last point above -tol.
  redo(m, d, s, lo * h, integ);
  return lo * h;
}

// Advances a fixed step of size h; on entry d holds f(s); on exit d holds f(s) of the new state.
// Splits the step at slack events (locate_slack) and at ground impacts (impulse ground), applying
// the impulses at the impact. Returns the number of splits.
int advance_fixed(const Model& m, Data& d, State& s, double h, Integrator integ, bool locate_slack) {
  const bool impulse = m.ground.type == Ground::Type::kImpulse;
  const double t_end = s.time_s + h;
  int splits = 0;
  double remaining = h;
  while (remaining > 1e-12 * h) {
    if (impulse && apply_ground_pre_impulses(m, d, s, remaining) > 0) compute_derivative(m, s, d);
    d.saved.x = s.x;
    d.saved.time_s = s.time_s;
    for (int k = 0; k < m.ncable(); ++k) d.stretch_start_m[k] = d.cable_length_m[k] - d.cable_rest_length_m[k];
    const double z0 = impulse ? lowest_end_height(m, d) : 0.0;
    fixed_step(m, d, s, remaining, integ);
    compute_derivative(m, s, d);
    double taken = remaining;
    if (impulse && splits < 8 && z0 >= -m.ground.max_penetration_m && lowest_end_height(m, d) < -m.ground.max_penetration_m) {
      taken = locate_impact(m, d, s, remaining, integ);
      ++splits;
    } else if (locate_slack && splits < 3) {
      const double theta = first_crossing(m, d);
      if (theta < 1.0 && theta * remaining > 1e-6 * h && (1.0 - theta) * remaining > 1e-6 * h) {
        taken = theta * remaining;
        redo(m, d, s, taken, integ);
        ++splits;
      }
    }
    if (impulse && apply_ground_impulses(m, d, s, taken) > 0) compute_derivative(m, s, d);
    remaining -= taken;
    if (splits >= 12) break;
  }
  if (remaining > 1e-12 * h) {  // give up splitting: finish the step plainly
    fixed_step(m, d, s, remaining, integ);
    compute_derivative(m, s, d);
    if (impulse && apply_ground_impulses(m, d, s, remaining) > 0) compute_derivative(m, s, d);
  }
  s.time_s = t_end;
  return splits;
}

// Calls a sampled controller at a step boundary (data holds f(state)), checks what it wrote and
// re-evaluates, so that data holds f(state) with the new inputs (the step's precondition).
void apply_sampled_controller(const Model& m, const std::function<void(double, const State&, Data&)>& controller, const State& s, Data& d,
                              Eigen::VectorXd& rest_before) {
  // a drive sets its cable at every evaluation: a held value there would be silently lost
  rest_before = d.cable_rest_length_m;
  controller(s.time_s, s, d);
  for (const auto& dr : m.drives) {
    if (d.cable_rest_length_m[dr.cable] != rest_before[dr.cable]) {
      throw Error("sampled controller (control period > 0) changed the rest length of cable '" +
                  m.cable_ids[static_cast<std::size_t>(dr.cable)] + "' at t = " + format_number(s.time_s, 6) +
                  " s, but the cable has a drive, which sets it at every evaluation: remove the drive, or use a control period of 0");
    }
  }
  check_rest_length_limits(m, d, s.time_s);
  prepare_step(m, s, d);
}

// Strain (l - l0) / l0 as reported: NaN (undefined) for a rest length l0 <= 0, where
// cable_strain() gives 0.
double reported_strain(const Data& d, int k) {
  return d.cable_rest_length_m[k] > 0.0 ? cable_strain(d, k) : std::numeric_limits<double>::quiet_NaN();
}

class Monitor {
 public:
  // constant_rest: no drive and no controller, so every cable's rest length l0 stays as it is at
  // the first check. Then the strain (l - l0) / l0 is a non-decreasing function of the length l
  // (rounded subtraction and division by a fixed l0 > 0 are monotone), so its extremes over the
  // run are the strains of the extreme lengths, and it needs computing at a step only when l is
  // below l0 (slack test) or near the strain limit: the report is bit-identical to the strain of
  // every step, without a division per cable per step.
  Monitor(const Model& m, const SimulationOptions& o, bool constant_rest) : model_(m), opt_(o), constant_rest_(constant_rest) {
    const int nc = m.ncable();
    rep_.max_strain = Eigen::VectorXd::Constant(nc, -std::numeric_limits<double>::infinity());
    rep_.min_strain = Eigen::VectorXd::Constant(nc, std::numeric_limits<double>::infinity());
    rep_.slack_first_time_s.assign(static_cast<std::size_t>(nc), -1.0);
    if (constant_rest_) {
      l_max_ = Eigen::VectorXd::Constant(nc, -std::numeric_limits<double>::infinity());
      l_min_ = Eigen::VectorXd::Constant(nc, std::numeric_limits<double>::infinity());
      l_over_.resize(nc);
    }
  }
  // Returns true when an abnormal event happened at this step.
  bool check(double t, const Data& d) {
    if (constant_rest_ && !thresholds_set_) {
      // below l_over_ the strain is certainly <= strain_limit (margin far above rounding)
      for (int k = 0; k < model_.ncable(); ++k) {
        const double l0 = d.cable_rest_length_m[k];
        l_over_[k] = l0 > 0.0 ? l0 + opt_.strain_limit * l0 * (1.0 - 1e-9) - 1e-12 * l0 : -std::numeric_limits<double>::infinity();
      }
      thresholds_set_ = true;
    }
    bool event = false;
    for (int k = 0; k < model_.ncable(); ++k) {
      const double l = d.cable_length_m[k], l0 = d.cable_rest_length_m[k];
      bool below = false, over = false;
      if (!(l0 > 0.0)) {
        // Strain undefined (infinite for l > 0): never normal. The extremes are marked undefined.
        over = true;
        rep_.max_strain[k] = rep_.min_strain[k] = std::numeric_limits<double>::quiet_NaN();
      } else if (constant_rest_) {
        l_max_[k] = std::max(l_max_[k], l);
        l_min_[k] = std::min(l_min_[k], l);
        // strain < -tol (tol >= 0) needs l < l0; strain > limit needs l > l_over_
        if (l < l0) below = cable_strain(d, k) < -opt_.slack_tolerance;
        if (l > l_over_[k]) over = cable_strain(d, k) > opt_.strain_limit;
      } else {
        const double eps = cable_strain(d, k);
        if (!std::isnan(rep_.max_strain[k])) {  // once undefined, undefined for the run
          rep_.max_strain[k] = std::max(rep_.max_strain[k], eps);
          rep_.min_strain[k] = std::min(rep_.min_strain[k], eps);
        }
        below = eps < -opt_.slack_tolerance;
        over = eps > opt_.strain_limit;
      }
      // slack: shorter than its rest length, or unloaded by the tension clamp (pushing damping)
      const bool clamped = d.cable_slack[static_cast<std::size_t>(k)] && l > l0;
      if (model_.cables[static_cast<std::size_t>(k)].tension_only && (below || clamped)) {
        auto& ft = rep_.slack_first_time_s[static_cast<std::size_t>(k)];
        if (ft < 0.0) ft = t;
        if (rep_.first_slack_cable < 0) {
          rep_.first_slack_cable = k;
          rep_.first_slack_time_s = t;
        }
        event = true;
      }
      if (over && rep_.first_overstrain_cable < 0) {
        rep_.first_overstrain_cable = k;
        rep_.first_overstrain_time_s = t;
        event = true;
      }
    }
    rep_.normal_mode = rep_.first_slack_cable < 0 && rep_.first_overstrain_cable < 0;
    if (constant_rest_) l0_ = &d.cable_rest_length_m;
    return event;
  }
  MonitorReport& report() {
    if (constant_rest_ && l0_) {
      for (int k = 0; k < model_.ncable(); ++k) {
        const double l0 = (*l0_)[k];
        // cable_strain's formula on the extreme lengths
        if (l_max_[k] >= l_min_[k]) {
          const double undefined = std::numeric_limits<double>::quiet_NaN();
          rep_.max_strain[k] = l0 > 0.0 ? (l_max_[k] - l0) / l0 : undefined;
          rep_.min_strain[k] = l0 > 0.0 ? (l_min_[k] - l0) / l0 : undefined;
        }
      }
    }
    return rep_;
  }

 private:
  const Model& model_;
  const SimulationOptions& opt_;
  const bool constant_rest_;
  bool thresholds_set_ = false;
  const Eigen::VectorXd* l0_ = nullptr;
  Eigen::VectorXd l_max_, l_min_, l_over_;  // (ncable) constant_rest_ only
  MonitorReport rep_;
};

// Bitwise equality of two arrays of doubles (sizes included): a NaN or a signed zero that
// differs counts as a change, which only costs a re-evaluation.
template <class A, class B>
bool same_bits(const A& a, const B& b) {
  // (empty arrays may have null data(), which memcmp must not be given: UBSan's nonnull-attribute)
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0);
}

bool same_bits(const std::vector<Eigen::Vector3d>& a, const std::vector<Eigen::Vector3d>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), sizeof(Eigen::Vector3d) * a.size()) == 0);
}

// Whether every external force is +0 in all its bits (a -0 or a NaN is not).
bool all_bits_zero(const std::vector<Eigen::Vector3d>& f) {
  std::uint64_t bits = 0;
  for (const Eigen::Vector3d& v : f)
    for (int c = 0; c < 3; ++c) {
      std::uint64_t b;
      std::memcpy(&b, &v[c], sizeof b);
      bits |= b;
    }
  return bits == 0;
}

// Whether data.xdot is f(state) for this model and data's current inputs (Data::evaluated). The
// external forces as recorded: all +0 (Evaluated::f_W_ext_zero, no copy kept), or the copy.
bool holds_derivative(const Model& model, const State& state, const Data& data) {
  const Data::Evaluated& e = data.evaluated;
  return e.model == &model && e.time_s == state.time_s && same_bits(e.x, state.x) &&
         same_bits(e.cable_rest_length_m, data.cable_rest_length_m) && same_bits(e.winch_target_m, data.winch_target_m) &&
         same_bits(e.actuator_ctrl, data.actuator_ctrl) &&
         (e.f_W_ext_zero ? data.f_W_ext_node.size() == e.f_W_ext_node.size() && all_bits_zero(data.f_W_ext_node)
                         : same_bits(e.f_W_ext_node, data.f_W_ext_node));
}

// Records that data.xdot is f(state) with data's current inputs (no allocation once sized).
// ext_zero: the caller knows that every external force is still +0 (checked at the step's start,
// and no controller ran that could have changed them), so they need no look.
void record_evaluation(const Model& model, const State& state, Data& data, bool ext_zero = false) {
  Data::Evaluated& e = data.evaluated;
  e.model = &model;
  e.time_s = state.time_s;
  e.x = state.x;
  e.cable_rest_length_m = data.cable_rest_length_m;
  e.winch_target_m = data.winch_target_m;
  e.actuator_ctrl = data.actuator_ctrl;
  e.f_W_ext_zero = ext_zero || all_bits_zero(data.f_W_ext_node);
  if (e.f_W_ext_zero) {
    // the copy is not read while f_W_ext_zero; its size is what holds_derivative compares
    if (e.f_W_ext_node.size() != data.f_W_ext_node.size()) e.f_W_ext_node.resize(data.f_W_ext_node.size());
  } else {
    e.f_W_ext_node = data.f_W_ext_node;
  }
}

const char* const kImpulseNeedsFixedStep =
    "the impulse ground model needs a fixed-step integrator (rk4 or lie-verlet); use the compliant ground with dopri5";

// Fixed steps per control period of a sampled controller (an Error unless a whole number).
long control_step_count(const SimulationOptions& opt) {
  const long control_every = std::lround(opt.control_period_s / opt.dt_s);
  if (control_every < 1 || std::abs(static_cast<double>(control_every) * opt.dt_s - opt.control_period_s) > 1e-9 * opt.control_period_s) {
    throw Error("simulation option control period (" + format_number(opt.control_period_s, 6) + " s) must be a whole number of steps dt (" +
                format_number(opt.dt_s, 6) + " s) with " + to_string(opt.integrator));
  }
  return control_every;
}

// A controller's rest-length changes since prev_t within every cable's rate limit (then prev_rest
// and prev_t move to now).
void check_rest_rates(const Model& model, const Data& data, const State& state, Eigen::VectorXd& prev_rest, double& prev_t) {
  const double h = state.time_s - prev_t;
  for (int k = 0; k < model.ncable(); ++k) {
    const double rate = std::abs(data.cable_rest_length_m[k] - prev_rest[k]) / h;
    if (rate > model.cables[static_cast<std::size_t>(k)].rest_rate_max_mps * (1.0 + 1e-9))
      throw SimulationError("controller changes the rest length of cable '" + model.cable_ids[static_cast<std::size_t>(k)] + "' at " +
                                std::to_string(rate) + " m/s, above its limit " +
                                std::to_string(model.cables[static_cast<std::size_t>(k)].rest_rate_max_mps) + " m/s",
                            state.time_s);
  }
  prev_rest = data.cable_rest_length_m;
  prev_t = state.time_s;
}

// A finite state and energy, the energy drift recorded, no energy growth beyond the limit.
void check_energy(const SimulationOptions& opt, const State& state, const Energy& en, double E0, double E_scale, SimulationSummary& sum) {
  if (!state.x.allFinite() || !std::isfinite(en.total())) {
    throw SimulationError(
        "state became non-finite at t = " + std::to_string(state.time_s) + " s (blow-up: reduce the time step or check stiffness/damping)",
        state.time_s);
  }
  const double drift = std::abs(en.total() - E0);
  sum.max_abs_energy_drift_J = std::max(sum.max_abs_energy_drift_J, drift);
  if (en.total() - E0 > opt.energy_growth_limit * E_scale) {
    throw SimulationError("energy blow-up at t = " + format_number(state.time_s, 6) + " s: total energy " + format_number(en.total(), 6) +
                              " J from " + format_number(E0, 6) + " J (limit " + format_number(opt.energy_growth_limit, 6) + " x " +
                              format_number(E_scale, 6) + " J); reduce the time step",
                          state.time_s);
  }
}

// The summary's final values (data holds f(state)).
void final_summary(const Model& model, const State& state, const Data& data, Monitor& monitor, SimulationSummary& sum) {
  sum.monitor = monitor.report();
  sum.com_final_m = center_of_mass(model, state);
  sum.linear_momentum_final_kgmps = linear_momentum(model, state);
  sum.angular_momentum_final_kgm2ps = angular_momentum(model, state);
  sum.final_length_m = data.cable_length_m;
  sum.final_tension_N = data.cable_tension_N;
  sum.final_strain.resize(model.ncable());
  for (int k = 0; k < model.ncable(); ++k) sum.final_strain[k] = reported_strain(data, k);
  sum.final_state = state;
}

}  // namespace

void prepare_step(const Model& model, const State& state, Data& data) {
  data.evaluated.model = nullptr;  // not valid if the evaluation throws
  compute_derivative(model, state, data);
  record_evaluation(model, state, data);
}

StepResult step(const Model& model, Data& data, State& state, double h_s, const StepOptions& options, double t_end_s) {
  if (!(h_s > 0.0) || !std::isfinite(h_s)) throw Error("step: the step h must be > 0 s and finite (got " + std::to_string(h_s) + ")");
  if (!holds_derivative(model, state, data)) prepare_step(model, state, data);
  // external forces all +0 now, and no controller to change them during the step: still +0 after it
  const bool ext_zero = data.evaluated.f_W_ext_zero && !data.controller;
  data.evaluated.model = nullptr;  // until the step has evaluated the new state
  StepResult r;
  switch (options.integrator) {
    case Integrator::kRK4:
    case Integrator::kLieVerlet:
      r.splits = advance_fixed(model, data, state, h_s, options.integrator, options.locate_slack_events);
      r.h_s = r.h_next_s = h_s;
      if (!std::isnan(t_end_s)) state.time_s = t_end_s;
      break;
    case Integrator::kDormandPrince45: {
      if (!std::isnan(t_end_s))
        throw Error("step: t_end_s is for the fixed-step integrators (dopri5 steps end at the start + the accepted step)");
      if (model.ground.type == Ground::Type::kImpulse) throw Error(kImpulseNeedsFixedStep);
      // retries after rejections (a rejection never suggests a larger step, so h_s bounds every try)
      double h = h_s;
      long rejected = 0;
      const AdaptiveStep a = adaptive_advance(
          h, h_s, [&](double h_try) { return step_dopri5(model, data, state, h_try, options.tolerance); }, rejected);
      r.rejected = static_cast<int>(rejected);
      r.h_s = a.h_used;
      r.h_next_s = h;
      compute_derivative(model, state, data);
      break;
    }
  }
  if (!state.x.allFinite()) {
    throw SimulationError(
        "state became non-finite at t = " + std::to_string(state.time_s) + " s (blow-up: reduce the time step or check stiffness/damping)",
        state.time_s);
  }
  record_evaluation(model, state, data, ext_zero);
  return r;
}

SimulationSummary simulate(const Model& model, const SimulationOptions& opt, Observer* observer,
                           const std::function<void(double)>& progress, const State* initial,
                           const std::function<void(double, const State&, Data&)>& controller) {
  validate(opt);
  if (model.ground.type == Ground::Type::kImpulse && opt.integrator == Integrator::kDormandPrince45) throw Error(kImpulseNeedsFixedStep);
  const bool fixed = opt.integrator != Integrator::kDormandPrince45;
  // a sampled controller (control_period_s > 0) is called here at step boundaries; a continuous
  // one is Data::controller, called at every evaluation
  const bool sampled = controller && opt.control_period_s > 0.0;
  long control_every = 0;  // fixed steps: steps per control period
  if (sampled && fixed) control_every = control_step_count(opt);
  const auto wall0 = std::chrono::steady_clock::now();
  Data data = make_data(model);
  if (!sampled) data.controller = controller;
  State state = initial ? *initial : model.initial_state;
  if (state.x.size() != model.nx())
    throw Error("initial state has the wrong size for the model (13 per rod + 3 per winch + 1 per actuator activation)");
  normalize_quaternions(model, state);
  const double t_end = state.time_s + opt.duration_s;

  SimulationSummary sum;
  Monitor monitor(model, opt, !controller && model.drives.empty());
  prepare_step(model, state, data);
  sum.initial_energy = compute_energy(model, state, data);
  const double E0 = sum.initial_energy.total();
  // the growth guard's scale; none with force actuators (their work is not in the energy)
  const double E_scale = model.force_actuators.empty()
                             ? std::max({std::abs(E0), sum.initial_energy.kinetic_J + sum.initial_energy.elastic_J, 1e-9})
                             : std::numeric_limits<double>::infinity();
  sum.com_initial_m = center_of_mass(model, state);
  sum.linear_momentum_initial_kgmps = linear_momentum(model, state);
  sum.angular_momentum_initial_kgm2ps = angular_momentum(model, state);

  const StepOptions step_opt = step_options(opt);
  long n_fixed = fixed ? fixed_step_count(opt) : 0;
  const long every = output_stride(opt, n_fixed);
  const double out_dt = opt.output_interval_s > 0.0 ? opt.output_interval_s : opt.dt_s;
  const double h_fixed = fixed && n_fixed > 0 ? opt.duration_s / static_cast<double>(n_fixed) : opt.dt_s;
  const bool every_step = opt.output_interval_s <= 0.0;
  double next_out = every_step ? std::numeric_limits<double>::infinity() : state.time_s + out_dt;
  double next_control = sampled ? state.time_s : std::numeric_limits<double>::infinity();  // dopri5: next sampled-controller time
  double h = opt.dt_s;

  double observer_s = 0.0;  // wall time inside the observer (writing outputs)
  auto observe_current = [&](const Energy& en) {
    if (!observer) return;
    const auto t0 = std::chrono::steady_clock::now();
    observer->on_output(model, state, data, en);
    observer_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };

  long step = 0;
  Eigen::VectorXd prev_rest = data.cable_rest_length_m;    // controller rate-limit check
  Eigen::VectorXd rest_before = data.cable_rest_length_m;  // sampled controller: scratch
  Eigen::Vector3d prev_com = sum.com_initial_m;
  double prev_t = state.time_s;
  for (;;) {
    // data holds f(state): monitor, energy check, output.
    if (controller && state.time_s > prev_t) check_rest_rates(model, data, state, prev_rest, prev_t);
    const Energy en = compute_energy(model, state, data);
    check_energy(opt, state, en, E0, E_scale, sum);
    const Eigen::Vector3d com = center_of_mass(model, state);
    sum.max_com_displacement_m = std::max(sum.max_com_displacement_m, (com - sum.com_initial_m).norm());
    sum.com_floor_path_m += (com - prev_com).head<2>().norm();
    prev_com = com;
    const bool event = monitor.check(state.time_s, data);
    const bool done = fixed ? step >= n_fixed : state.time_s >= t_end - 1e-12 * std::max(1.0, std::abs(t_end));
    if (fixed) {
      if (step % every == 0 || done) observe_current(en);
    } else if (step == 0 || done) {
      observe_current(en);
    }
    if (done || (event && opt.stop_on_abnormal)) {
      sum.stopped_early = !done;
      sum.final_energy = en;
      break;
    }
    if (progress) progress((state.time_s - (t_end - opt.duration_s)) / std::max(opt.duration_s, 1e-300));

    if (sampled && (fixed ? step % control_every == 0 : state.time_s >= next_control - 1e-12 * std::max(1.0, std::abs(next_control)))) {
      apply_sampled_controller(model, controller, state, data, rest_before);
      while (!fixed && next_control <= state.time_s + 1e-12 * std::max(1.0, std::abs(state.time_s))) next_control += opt.control_period_s;
    }

    if (fixed) {
      // keep the step grid exact (splits add up to h_fixed up to rounding)
      const StepResult r = tendyn::tensegrity::step(model, data, state, h_fixed, step_opt,
                                                    (t_end - opt.duration_s) + static_cast<double>(step + 1) * h_fixed);
      sum.split_steps += r.splits > 0 ? 1 : 0;
    } else {
      // land exactly on output times, controller times and the end time
      const double h_try = std::min({h, next_out - state.time_s, t_end - state.time_s, next_control - state.time_s});
      const StepResult r = tendyn::tensegrity::step(model, data, state, h_try, step_opt);
      sum.rejected_steps += r.rejected;
      // a step shortened only to land on an output time says nothing new about h
      if (r.rejected > 0 || !(h_try < h)) h = r.h_next_s;
    }
    ++step;
    if (!fixed && (every_step || state.time_s >= next_out - 1e-12 * std::max(1.0, std::abs(next_out))) && state.time_s < t_end - 1e-12) {
      const Energy e2 = compute_energy(model, state, data);
      observe_current(e2);
      next_out += out_dt;
    }
  }
  sum.steps = step;
  final_summary(model, state, data, monitor, sum);
  sum.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  sum.observer_time_s = observer_s;
  if (progress) progress(1.0);
  return sum;
}

}  // namespace tendyn::tensegrity
