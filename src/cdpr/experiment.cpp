// Document 002's two-stage printer experiment. See include/tendyn/cdpr/experiment.hpp.
#include <tendyn/cdpr/experiment.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/core/rotation.hpp>
#include <tendyn/io/csv.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace tendyn::cdpr {

StageStart stage_start_from_string(const std::string& text) {
  std::string s;
  for (char c : text) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto bad = [&text](const char* why) {
    return Error("cdpr-experiment: bad start state '" + text + "' (" + why +
                 "; valid: optimal, x<factor> e.g. x1.8, <tension>N e.g. 900N)");
  };
  if (s == "optimal") return StageStart{};
  StageStart st;
  std::string num;
  if (s.size() >= 2 && s.front() == 'x') {
    st.kind = StageStart::Kind::kFactor;
    num = s.substr(1);
  } else if (s.size() >= 2 && s.back() == 'n') {
    st.kind = StageStart::Kind::kTension;
    num = s.substr(0, s.size() - 1);
  } else {
    throw bad("unknown form");
  }
  char* end = nullptr;
  st.value = std::strtod(num.c_str(), &end);
  if (num.empty() || end != num.c_str() + num.size() || std::isspace(static_cast<unsigned char>(num.front()))) throw bad("not a number");
  if (!std::isfinite(st.value) || st.value < 0.0) throw bad("must be finite and >= 0");
  return st;
}

std::string to_string(const StageStart& start) {
  return start.kind == StageStart::Kind::kFactor ? "x" + format_number(start.value, 6) : format_number(start.value, 6) + "N";
}

std::vector<Eigen::Vector2d> default_layer_path() {
  std::vector<Eigen::Vector2d> p;
  // Outline of a 6 x 8 m building wall, a zigzag infill (90 and 180 degree turns) and a diagonal,
  // at least 2 m inside printer8's wrench-feasible workspace at z = 3 m (|x|, |y| <~ 6 m with a
  // 500 N horizontal load in any direction; docs/CDPR_DYNAMICS.md).
  const double X = 3.0, Y = 4.0;
  for (const auto& q : {Eigen::Vector2d(-X, -Y), Eigen::Vector2d(X, -Y), Eigen::Vector2d(X, Y), Eigen::Vector2d(-X, Y),
                        Eigen::Vector2d(-X, -Y / 2), Eigen::Vector2d(X, -Y / 2), Eigen::Vector2d(X, 0.0), Eigen::Vector2d(-X, 0.0),
                        Eigen::Vector2d(-X, Y / 2), Eigen::Vector2d(X, Y / 2), Eigen::Vector2d(0.0, -Y)})
    p.push_back(q);
  return p;
}

namespace {

const std::vector<Eigen::Vector2d>& path_of(const ExperimentConfig& cfg, std::vector<Eigen::Vector2d>& tmp) {
  if (!cfg.path.empty()) return cfg.path;
  tmp = default_layer_path();
  return tmp;
}

// Trapezoidal (or triangular) profile over length L: duration and s, ds, dds at time t.
double segment_time(double L, double v, double a) {
  if (L <= v * v / a) return 2.0 * std::sqrt(L / a);
  return L / v + v / a;
}
void segment_eval(double L, double v, double a, double t, double& s, double& ds, double& dds) {
  double vp = v, ta = v / a;
  if (L <= v * v / a) {
    ta = std::sqrt(L / a);
    vp = a * ta;
  }
  const double T = segment_time(L, v, a);
  t = std::max(t, 0.0);
  if (t >= T) {  // at rest at the end (no deceleration feed-forward left over)
    s = L;
    ds = 0.0;
    dds = 0.0;
  } else if (t < ta) {
    s = 0.5 * a * t * t;
    ds = a * t;
    dds = a;
  } else if (t > T - ta) {
    const double r = T - t;
    s = L - 0.5 * a * r * r;
    ds = a * r;
    dds = -a;
  } else {
    s = 0.5 * a * ta * ta + vp * (t - ta);
    ds = vp;
    dds = 0.0;
  }
}

void check_config(const ExperimentConfig& c) {
  if (!(c.speed_m_s > 0.0) || !(c.accel_m_s2 > 0.0) || !(c.dt_s > 0.0) || !(c.control_dt_s >= c.dt_s) || !(c.sample_dt_s > 0.0) ||
      !(c.settle_s >= 0.0) || !std::isfinite(c.layer_z_m) || !std::isfinite(c.speed_m_s) || !std::isfinite(c.accel_m_s2) ||
      !std::isfinite(c.dt_s) || !std::isfinite(c.control_dt_s) || !std::isfinite(c.sample_dt_s) || !std::isfinite(c.settle_s))
    throw Error("cdpr-experiment: speed, accel, dt, sample period must be finite and > 0 and control period >= dt");
  if (c.control_dt_s / c.dt_s > 1e9 || c.sample_dt_s / c.dt_s > 1e9)
    throw Error("cdpr-experiment: control and sample periods must be at most 1e9 steps dt");
  if (!c.path.empty() && c.path.size() < 2) throw Error("cdpr-experiment: the path needs at least 2 points");
  if (!(c.transient_s >= 0.0) || !std::isfinite(c.transient_s))
    throw Error("cdpr-experiment: the start-up transient must be finite and >= 0 s");
  for (const StageStart* st : {&c.start_without, &c.start_with})
    if (!(st->value >= 0.0) || !std::isfinite(st->value))
      throw Error("cdpr-experiment: a start state's factor or tension must be finite and >= 0 (got " + to_string(*st) + ")");
}

bool is_optimal_start(const StageStart& st) { return st.kind == StageStart::Kind::kFactor && st.value == 1.0; }

// Running sums of a stage's samples (run_stage).
struct StageSums {
  double p2 = 0.0, r2 = 0.0, d2 = 0.0, after = 0.0;
  long count = 0, count_after = 0;
};

// A sample's figures into the stage's result (norms of the lower group's tensions, actual and optimal,
// peaks and errors, after transient_s too) and its running sums; then the sample itself.
void add_sample(Sample s, const std::vector<int>& lower, double transient_s, StageResult& res, StageSums& sums) {
  double a = 0.0, b = 0.0, dev = 0.0;
  for (int i : lower) {
    dev += (s.f_N[i] - s.f_opt_N[i]) * (s.f_N[i] - s.f_opt_N[i]);
    a += s.f_N[i] * s.f_N[i];
    b += s.f_opt_N[i] * s.f_opt_N[i];
    res.peak_lower_tension_N = std::max(res.peak_lower_tension_N, s.f_N[i]);
    res.peak_opt_lower_tension_N = std::max(res.peak_opt_lower_tension_N, s.f_opt_N[i]);
  }
  s.lower_norm_N = std::sqrt(a);
  s.opt_lower_norm_N = std::sqrt(b);
  res.worst_lower_norm_N = std::max(res.worst_lower_norm_N, s.lower_norm_N);
  res.max_dev_opt_N = std::max(res.max_dev_opt_N, std::sqrt(dev));
  sums.d2 += dev;
  res.mean_lower_norm_N += s.lower_norm_N;
  res.mean_opt_lower_norm_N += s.opt_lower_norm_N;
  res.worst_opt_lower_norm_N = std::max(res.worst_opt_lower_norm_N, s.opt_lower_norm_N);
  if (s.t_s >= transient_s) {
    res.worst_lower_norm_after_N = std::max(res.worst_lower_norm_after_N, s.lower_norm_N);
    res.worst_opt_lower_norm_after_N = std::max(res.worst_opt_lower_norm_after_N, s.opt_lower_norm_N);
    for (int i : lower) {
      res.peak_lower_tension_after_N = std::max(res.peak_lower_tension_after_N, s.f_N[i]);
      res.peak_opt_lower_tension_after_N = std::max(res.peak_opt_lower_tension_after_N, s.f_opt_N[i]);
    }
    sums.after += s.lower_norm_N;
    ++sums.count_after;
  }
  res.max_pos_err_m = std::max(res.max_pos_err_m, s.pos_err_m);
  res.max_rot_err_rad = std::max(res.max_rot_err_rad, s.rot_err_rad);
  sums.p2 += s.pos_err_m * s.pos_err_m;
  sums.r2 += s.rot_err_rad * s.rot_err_rad;
  ++sums.count;
  res.samples.push_back(std::move(s));
}

// The tensions at the start: the optimal ones, or (a start other than the optimum) the lower cables' at
// the start state with the upper ones re-solved to balance the desired wrench.
Eigen::VectorXd start_tensions(const Controller& ctrl, const ControllerConfig& cc, const StageStart& start, const DynamicData& data) {
  Eigen::VectorXd f0 = ctrl.optimal_tensions();
  if (!is_optimal_start(start)) {
    // lower cables at the start state; the upper ones re-solved to balance the desired wrench
    const auto& low = ctrl.lower();
    const auto& up = ctrl.upper();
    for (int i : low) f0[i] = start.kind == StageStart::Kind::kFactor ? start.value * f0[i] : start.value;
    Eigen::VectorXd wu = ctrl.desired_wrench();
    for (int i : low) wu -= data.geo.J.col(i) * f0[i];
    Eigen::MatrixXd Ju(6, static_cast<Eigen::Index>(up.size()));
    for (std::size_t j = 0; j < up.size(); ++j) Ju.col(static_cast<Eigen::Index>(j)) = data.geo.J.col(up[j]);
    SolverOptions so;
    so.f_min_N = ctrl.f_min_N();
    so.f_max_N = ctrl.f_max_N();
    const TensionResult ru = solve_tensions(cc.method, Ju, wu, so);
    for (std::size_t j = 0; j < up.size(); ++j) f0[up[j]] = ru.f_N[static_cast<Eigen::Index>(j)];
  }
  return f0;
}

}  // namespace

double layer_duration(const ExperimentConfig& cfg) {
  std::vector<Eigen::Vector2d> tmp;
  const auto& P = path_of(cfg, tmp);
  double T = cfg.settle_s;
  for (std::size_t k = 1; k < P.size(); ++k) T += segment_time((P[k] - P[k - 1]).norm(), cfg.speed_m_s, cfg.accel_m_s2);
  return T + 1.0;  // one second of hold at the end
}

Reference layer_reference(const ExperimentConfig& cfg, double t_s) {
  std::vector<Eigen::Vector2d> tmp;
  const auto& P = path_of(cfg, tmp);
  Reference r;
  r.p_W = Eigen::Vector3d(P[0].x(), P[0].y(), cfg.layer_z_m);
  double t = t_s - cfg.settle_s;
  if (t <= 0.0) return r;
  for (std::size_t k = 1; k < P.size(); ++k) {
    const Eigen::Vector2d d = P[k] - P[k - 1];
    const double L = d.norm();
    if (L <= 0.0) continue;
    const double T = segment_time(L, cfg.speed_m_s, cfg.accel_m_s2);
    if (t <= T || k + 1 == P.size()) {
      double s, ds, dds;
      segment_eval(L, cfg.speed_m_s, cfg.accel_m_s2, t, s, ds, dds);
      const Eigen::Vector2d e = d / L;
      r.p_W.head<2>() = P[k - 1] + s * e;
      r.v_W.head<2>() = ds * e;
      r.a_W.head<2>() = dds * e;
      return r;
    }
    t -= T;
  }
  return r;
}

StageResult run_stage(const DynamicModel& model, const ExperimentConfig& config, bool tension_control) {
  check_config(config);
  ExperimentConfig cfg = config;
  if (cfg.path.empty()) cfg.path = default_layer_path();  // no allocation in the reference per step
  const auto t0 = std::chrono::steady_clock::now();
  ControllerConfig cc = cfg.controller;
  cc.tension_control = tension_control;
  cc.period_s = cfg.control_dt_s;
  Controller ctrl(model, cc);
  Sensors sensors(model, cfg.sensors, cc.lower_group);
  Measurement meas = make_measurement(model, cc.lower_group);
  Inputs in = make_inputs(model);
  for (int i = 0; i < model.ncable(); ++i)
    if (model.on_carriage[i] != 0) in.carriage_z_m[i] = cfg.carriage_offset_m;
  in.force_ext_W = cfg.wind_N;
  DynamicData data = make_dynamic_data(model);

  // Start at rest at the first reference point with the optimal tensions.
  const Reference r0 = layer_reference(cfg, 0.0);
  Pose pose0;
  pose0.p_WP = r0.p_W;
  StateVector x = make_state(model, pose0, Eigen::VectorXd::Ones(model.ncable()));
  compute_derivative(model, in, x, data);  // geometry only (rest lengths are dummies)
  sensors.measure(model, x, data, meas);
  meas.pose = pose0;
  ctrl.update(r0, meas, in);
  const StageStart& start = tension_control ? cfg.start_with : cfg.start_without;
  const Eigen::VectorXd f0 = start_tensions(ctrl, cc, start, data);
  x.tail(model.ncable()) = rest_lengths_for_tensions(model, in, pose0, f0);
  in.winch_rate_m_s.setZero();
  ctrl.reset();  // stage 1's kinematic offsets are taken at the first real cycle

  StageResult res;
  res.tension_control = tension_control;
  res.start = start;
  res.transient_s = cfg.transient_s;
  StageSums sums;
  const double T = layer_duration(cfg);
  if (!(T / cfg.dt_s <= 1e9))
    throw Error("cdpr-experiment: the layer takes " + format_number(T, 6) + " s = " + format_number(T / cfg.dt_s, 6) +
                " steps dt, above the limit 1e9");
  const auto steps = static_cast<long>(std::ceil(T / cfg.dt_s));
  const auto ctrl_every = std::max(1L, std::lround(cfg.control_dt_s / cfg.dt_s));
  const auto sample_every = std::max(1L, std::lround(cfg.sample_dt_s / cfg.dt_s));
  const auto& lower = ctrl.lower();
  for (long k = 0; k <= steps; ++k) {
    const double t = static_cast<double>(k) * cfg.dt_s;
    const Reference ref = layer_reference(cfg, t);
    if (k % ctrl_every == 0 || k % sample_every == 0) compute_derivative(model, in, x, data);
    if (k % ctrl_every == 0) {
      sensors.measure(model, x, data, meas);
      ctrl.update(ref, meas, in);
      res.max_winch_rate_m_s = std::max(res.max_winch_rate_m_s, in.winch_rate_m_s.cwiseAbs().maxCoeff());
    }
    if (k % sample_every == 0) {
      Sample s;
      s.t_s = t;
      s.p_ref = ref.p_W;
      s.p = x.segment<3>(0);
      s.q_WP = Eigen::Quaterniond(x[3], x[4], x[5], x[6]);
      s.p_WA = data.anchors_W;
      s.pos_err_m = (ref.p_W - s.p).norm();
      s.rot_err_rad = rotation_angle_between(ref.q_WP, s.q_WP);
      s.f_N = data.tension_N;
      s.f_opt_N = ctrl.optimal_tensions();
      add_sample(std::move(s), lower, cfg.transient_s, res, sums);
    }
    if (k == steps) break;
    step_rk4(model, in, x, cfg.dt_s, data, t);
  }
  res.rms_pos_err_m = std::sqrt(sums.p2 / static_cast<double>(std::max(1L, sums.count)));
  res.rms_rot_err_rad = std::sqrt(sums.r2 / static_cast<double>(std::max(1L, sums.count)));
  res.rms_dev_opt_N = std::sqrt(sums.d2 / static_cast<double>(std::max(1L, sums.count)));
  res.mean_lower_norm_N /= static_cast<double>(std::max(1L, sums.count));
  res.mean_opt_lower_norm_N /= static_cast<double>(std::max(1L, sums.count));
  res.mean_lower_norm_after_N = sums.after / static_cast<double>(std::max(1L, sums.count_after));
  res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

StageComparison compare_stages(const StageResult& a, const StageResult& b) {
  if (a.samples.size() != b.samples.size() || a.samples.empty())
    throw Error("compare_stages: the stages need the same, non-zero number of samples (got " + std::to_string(a.samples.size()) + " and " +
                std::to_string(b.samples.size()) + ")");
  StageComparison c;
  c.transient_s = a.transient_s;
  std::size_t iw = 0, iwa = a.samples.size();
  for (std::size_t i = 0; i < a.samples.size(); ++i) {
    const double na = a.samples[i].lower_norm_N;
    if (na > a.samples[iw].lower_norm_N) iw = i;
    if (a.samples[i].t_s >= a.transient_s && (iwa == a.samples.size() || na > a.samples[iwa].lower_norm_N)) iwa = i;
  }
  if (iwa == a.samples.size())
    throw Error("compare_stages: no sample at or after the start-up transient (" + std::to_string(a.transient_s) + " s)");
  const auto ratio = [](double x, double y) { return y > 0.0 ? x / y : std::numeric_limits<double>::quiet_NaN(); };
  c.ratio_worst_norm = ratio(b.worst_lower_norm_N, a.worst_lower_norm_N);
  c.ratio_worst_norm_after = ratio(b.worst_lower_norm_after_N, a.worst_lower_norm_after_N);
  c.ratio_mean_norm_after = ratio(b.mean_lower_norm_after_N, a.mean_lower_norm_after_N);
  c.without_at_worst_N = a.samples[iw].lower_norm_N;
  c.with_at_worst_N = b.samples[iw].lower_norm_N;
  c.without_at_worst_after_N = a.samples[iwa].lower_norm_N;
  c.with_at_worst_after_N = b.samples[iwa].lower_norm_N;
  c.t_worst_s = a.samples[iw].t_s;
  c.ratio_at_worst = ratio(b.samples[iw].lower_norm_N, a.samples[iw].lower_norm_N);
  c.t_worst_after_s = a.samples[iwa].t_s;
  c.ratio_at_worst_after = ratio(b.samples[iwa].lower_norm_N, a.samples[iwa].lower_norm_N);
  c.peak_over_opt_without = ratio(a.peak_lower_tension_N, a.peak_opt_lower_tension_N);
  c.peak_over_opt_without_after = ratio(a.peak_lower_tension_after_N, a.peak_opt_lower_tension_after_N);
  return c;
}

std::vector<PretensionRow> pretension_sweep(const DynamicModel& model, const ExperimentConfig& cfg, const std::vector<double>& factors) {
  if (factors.empty()) throw Error("pretension_sweep: give at least one pretension factor");
  for (double f : factors)
    if (!(f >= 0.0) || !std::isfinite(f))
      throw Error("pretension_sweep: pretension factors must be finite and >= 0 (got " + std::to_string(f) + ")");
  const StageResult with = run_stage(model, cfg, true);
  std::vector<PretensionRow> rows;
  for (double f : factors) {
    ExperimentConfig c = cfg;
    c.start_without = StageStart{StageStart::Kind::kFactor, f};
    const StageResult without = run_stage(model, c, false);
    PretensionRow r;
    r.factor = f;
    r.cmp = compare_stages(without, with);
    r.worst_without_N = without.worst_lower_norm_N;
    r.worst_with_N = with.worst_lower_norm_N;
    r.worst_without_after_N = without.worst_lower_norm_after_N;
    r.worst_with_after_N = with.worst_lower_norm_after_N;
    r.peak_without_N = without.peak_lower_tension_N;
    r.peak_opt_N = without.peak_opt_lower_tension_N;
    rows.push_back(r);
  }
  return rows;
}

std::string pretension_sweep_csv(const std::vector<PretensionRow>& rows) {
  io::CsvLine line;
  for (const char* h : {"pretension_factor", "worst_without_N", "worst_with_N", "ratio_worst_norm", "worst_without_after_N",
                        "worst_with_after_N", "ratio_worst_norm_after", "ratio_mean_norm_after", "t_worst_s", "ratio_at_worst",
                        "t_worst_after_s", "ratio_at_worst_after", "peak_without_N", "peak_opt_N", "peak_over_opt_without", "transient_s"})
    line.text(h);
  std::string out = line.str() + "\n";
  for (const auto& r : rows) {
    line.clear();
    line.num(r.factor).num(r.worst_without_N).num(r.worst_with_N).num(r.cmp.ratio_worst_norm);
    line.num(r.worst_without_after_N).num(r.worst_with_after_N).num(r.cmp.ratio_worst_norm_after);
    line.num(r.cmp.ratio_mean_norm_after).num(r.cmp.t_worst_s).num(r.cmp.ratio_at_worst);
    line.num(r.cmp.t_worst_after_s).num(r.cmp.ratio_at_worst_after).num(r.peak_without_N).num(r.peak_opt_N);
    line.num(r.cmp.peak_over_opt_without).num(r.cmp.transient_s);
    out += line.str();
    out += '\n';
  }
  return out;
}

std::string stage_csv(const DynamicModel& model, const StageResult& stage) {
  io::CsvLine line;  // %.12g, -0 written as 0, as every tendyn file
  line.text("t_s").text("p_ref_x_m").text("p_ref_y_m").text("p_ref_z_m").text("p_x_m").text("p_y_m").text("p_z_m");
  line.text("pos_err_m").text("rot_err_rad");
  for (const auto& n : model.geometry.cable_names) line.text(n + ".tension_N");
  for (const auto& n : model.geometry.cable_names) line.text(n + ".tension_opt_N");
  line.text("lower_norm_N").text("opt_lower_norm_N");
  std::string out = line.str() + "\n";
  for (const auto& s : stage.samples) {
    line.clear();
    line.num(s.t_s).nums(s.p_ref).nums(s.p).num(s.pos_err_m).num(s.rot_err_rad).nums(s.f_N).nums(s.f_opt_N);
    line.num(s.lower_norm_N).num(s.opt_lower_norm_N);
    out += line.str();
    out += '\n';
  }
  return out;
}

std::vector<std::size_t> frame_samples(const StageResult& stage, double period_s) {
  if (!(period_s >= 0.0) || !std::isfinite(period_s))
    throw Error("frame_samples: the period must be finite and >= 0 (got " + std::to_string(period_s) + ")");
  std::vector<std::size_t> out;
  const auto& smp = stage.samples;
  for (std::size_t i = 0; i < smp.size(); ++i)
    if (out.empty() || smp[i].t_s >= smp[out.back()].t_s + period_s - 1e-9 || i + 1 == smp.size()) out.push_back(i);
  return out;
}

Pose sample_pose(const Sample& sample) {
  Pose pose;
  pose.p_WP = sample.p;
  pose.R_WP = sample.q_WP.toRotationMatrix();
  return pose;
}

std::string experiment_summary(const StageResult& a, const StageResult& b) {
  char buf[2048];
  std::snprintf(buf, sizeof buf,
                "quantity                          without      with   ratio(with/without)\n"
                "worst |f_lower| [N]            %10.1f %10.1f   %.3f\n"
                "worst |f*_lower| optimal [N]   %10.1f %10.1f\n"
                "mean |f_lower| [N]             %10.1f %10.1f   %.3f\n"
                "mean |f*_lower| optimal [N]    %10.1f %10.1f\n"
                "peak lower tension [N]         %10.1f %10.1f   %.3f\n"
                "peak optimal lower tension [N] %10.1f %10.1f\n"
                "max |f_lower - f*_lower| [N]   %10.1f %10.1f   %.3f\n"
                "rms |f_lower - f*_lower| [N]   %10.1f %10.1f   %.3f\n"
                "max position error [mm]        %10.3f %10.3f   %.3f\n"
                "rms position error [mm]        %10.3f %10.3f   %.3f\n"
                "max orientation error [mrad]   %10.3f %10.3f   %.3f\n"
                "rms orientation error [mrad]   %10.3f %10.3f   %.3f\n"
                "max winch rate command [m/s]   %10.3f %10.3f\n"
                "wall time [s]                  %10.2f %10.2f\n",
                a.worst_lower_norm_N, b.worst_lower_norm_N, b.worst_lower_norm_N / a.worst_lower_norm_N, a.worst_opt_lower_norm_N,
                b.worst_opt_lower_norm_N, a.mean_lower_norm_N, b.mean_lower_norm_N, b.mean_lower_norm_N / a.mean_lower_norm_N,
                a.mean_opt_lower_norm_N, b.mean_opt_lower_norm_N, a.peak_lower_tension_N, b.peak_lower_tension_N,
                b.peak_lower_tension_N / a.peak_lower_tension_N, a.peak_opt_lower_tension_N, b.peak_opt_lower_tension_N, a.max_dev_opt_N,
                b.max_dev_opt_N, b.max_dev_opt_N / a.max_dev_opt_N, a.rms_dev_opt_N, b.rms_dev_opt_N, b.rms_dev_opt_N / a.rms_dev_opt_N,
                1e3 * a.max_pos_err_m, 1e3 * b.max_pos_err_m, b.max_pos_err_m / a.max_pos_err_m, 1e3 * a.rms_pos_err_m,
                1e3 * b.rms_pos_err_m, b.rms_pos_err_m / a.rms_pos_err_m, 1e3 * a.max_rot_err_rad, 1e3 * b.max_rot_err_rad,
                b.max_rot_err_rad / a.max_rot_err_rad, 1e3 * a.rms_rot_err_rad, 1e3 * b.rms_rot_err_rad,
                b.rms_rot_err_rad / a.rms_rot_err_rad, a.max_winch_rate_m_s, b.max_winch_rate_m_s, a.wall_s, b.wall_s);
  return buf;
}

std::string comparison_summary(const StageResult& a, const StageResult& b, const StageComparison& c) {
  char buf[2048];
  std::snprintf(buf, sizeof buf,
                "start state of the lower cables %10s %10s\n"
                "after the start-up transient (t >= %g s):\n"
                "worst |f_lower| [N]            %10.1f %10.1f   %.3f\n"
                "worst |f*_lower| optimal [N]   %10.1f %10.1f\n"
                "mean |f_lower| [N]             %10.1f %10.1f   %.3f\n"
                "peak lower tension [N]         %10.1f %10.1f\n"
                "peak optimal lower tension [N] %10.1f %10.1f\n"
                "at the worst configuration (the uncontrolled stage's peak |f_lower|, same instant in both stages):\n"
                "whole stage     t = %8.2f s   %10.1f %10.1f   %.3f\n"
                "after transient t = %8.2f s   %10.1f %10.1f   %.3f\n"
                "uncontrolled peak lower tension / its optimal peak: %.3f (whole stage), %.3f (after transient)\n",
                to_string(a.start).c_str(), to_string(b.start).c_str(), c.transient_s, a.worst_lower_norm_after_N,
                b.worst_lower_norm_after_N, c.ratio_worst_norm_after, a.worst_opt_lower_norm_after_N, b.worst_opt_lower_norm_after_N,
                a.mean_lower_norm_after_N, b.mean_lower_norm_after_N, c.ratio_mean_norm_after, a.peak_lower_tension_after_N,
                b.peak_lower_tension_after_N, a.peak_opt_lower_tension_after_N, b.peak_opt_lower_tension_after_N, c.t_worst_s,
                c.without_at_worst_N, c.with_at_worst_N, c.ratio_at_worst, c.t_worst_after_s, c.without_at_worst_after_N,
                c.with_at_worst_after_N, c.ratio_at_worst_after, c.peak_over_opt_without, c.peak_over_opt_without_after);
  return buf;
}

}  // namespace tendyn::cdpr
