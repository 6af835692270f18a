#include <tendyn/core/error.hpp>
#include <tendyn/core/parallel.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/planner.hpp>

#include <algorithm>
#include <cstdint>
#include <chrono>
#include <cmath>
#include <limits>

namespace tendyn::tensegrity {

Planner planner_from_string(const std::string& name) {
  for (Planner p : {Planner::kExhaustive, Planner::kCoordinateSearch, Planner::kLookahead, Planner::kScreened})
    if (name == to_string(p)) return p;
  throw Error("unknown planner '" + name + "' (valid: exhaustive, coordinate, lookahead, screened)");
}

const char* to_string(Planner planner) {
  switch (planner) {
    case Planner::kExhaustive: return "exhaustive";
    case Planner::kCoordinateSearch: return "coordinate";
    case Planner::kLookahead: return "lookahead";
    case Planner::kScreened: return "screened";
  }
  return "?";
}

IncrementShape increment_shape_from_string(const std::string& name) {
  for (IncrementShape s : {IncrementShape::kRamp, IncrementShape::kStep})
    if (name == to_string(s)) return s;
  throw Error("unknown increment shape '" + name + "' (valid: ramp, step)");
}

const char* to_string(IncrementShape shape) {
  switch (shape) {
    case IncrementShape::kRamp: return "ramp";
    case IncrementShape::kStep: return "step";
  }
  return "?";
}

PlanPath PlanPath::straight_x() { return PlanPath{{Eigen::Vector2d(0, 0), Eigen::Vector2d(1e3, 0)}}; }
PlanPath PlanPath::right_angle(double x_turn) {
  return PlanPath{{Eigen::Vector2d(0, 0), Eigen::Vector2d(x_turn, 0), Eigen::Vector2d(x_turn, 1e3)}};
}

PathTracker::PathTracker(const PlanPath& p) : path(p) {
  if (path.points.size() < 2) throw Error("plan: a path needs at least 2 points");
  for (std::size_t i = 0; i + 1 < path.points.size(); ++i)
    if (!((path.points[i + 1] - path.points[i]).norm() > 0.0)) throw Error("plan: path points " + std::to_string(i) + " and " + std::to_string(i + 1) + " coincide");
}

namespace {
double cross2(const Eigen::Vector2d& a, const Eigen::Vector2d& b) { return a.x() * b.y() - a.y() * b.x(); }
}  // namespace

double PathTracker::cost(const Eigen::Vector2d& C) const {
  const Eigen::Vector2d P = path.points[static_cast<std::size_t>(segment)];
  const Eigen::Vector2d t = (path.points[static_cast<std::size_t>(segment) + 1] - P).normalized();
  const Eigen::Vector2d r = C - P;
  return 5.0 * std::abs(cross2(t, r)) - r.dot(t);
}

void PathTracker::advance(const Eigen::Vector2d& C) {
  while (segment + 2 < static_cast<int>(path.points.size())) {
    const Eigen::Vector2d P = path.points[static_cast<std::size_t>(segment)];
    const Eigen::Vector2d seg = path.points[static_cast<std::size_t>(segment) + 1] - P;
    if ((C - P).dot(seg.normalized()) >= seg.norm()) ++segment;
    else break;
  }
}

double PathTracker::distance(const Eigen::Vector2d& C) const {
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i + 1 < path.points.size(); ++i) {
    const Eigen::Vector2d P = path.points[i], seg = path.points[i + 1] - P;
    const double tau = std::clamp((C - P).dot(seg) / seg.squaredNorm(), 0.0, 1.0);
    best = std::min(best, (C - (P + tau * seg)).norm());
  }
  return best;
}

double PathTracker::arc_length(const Eigen::Vector2d& C) const {
  double best = std::numeric_limits<double>::infinity(), at = 0.0, acc = 0.0;
  for (std::size_t i = 0; i + 1 < path.points.size(); ++i) {
    const Eigen::Vector2d P = path.points[i], seg = path.points[i + 1] - P;
    const double tau = std::clamp((C - P).dot(seg) / seg.squaredNorm(), 0.0, 1.0);
    const double d = (C - (P + tau * seg)).norm();
    if (d < best - 1e-15) {
      best = d;
      at = acc + tau * seg.norm();
    }
    acc += seg.norm();
  }
  return at;
}

std::vector<CableDrive> PlanResult::as_drives(const std::vector<int>& cables) const {
  std::vector<CableDrive> out;
  for (std::size_t c = 0; c < cables.size(); ++c) {
    TableDrive t;
    for (std::size_t k = 0; k < period_start_s.size(); ++k) {
      // step: u_(k-1) at the period start, the full increment 1e-9 period later (IncrementShape::kStep)
      if (k > 0 && increment == IncrementShape::kStep) {
        t.t_s.push_back(period_start_s[k - 1] + 1e-9 * (period_start_s[k] - period_start_s[k - 1]));
        t.u_m.push_back(offset_m[k][static_cast<Eigen::Index>(c)]);
      }
      // ramp over the first ramp_fraction of each period, then hold: one extra knot per period
      if (k > 0 && increment == IncrementShape::kRamp && ramp_fraction < 1.0) {
        t.t_s.push_back(period_start_s[k - 1] + ramp_fraction * (period_start_s[k] - period_start_s[k - 1]));
        t.u_m.push_back(offset_m[k][static_cast<Eigen::Index>(c)]);
      }
      t.t_s.push_back(period_start_s[k]);
      t.u_m.push_back(offset_m[k][static_cast<Eigen::Index>(c)]);
    }
    out.push_back(CableDrive{cables[c], t});
  }
  return out;
}

namespace {

// The planner's C (plan_centroid_m without the checks: the sizes are the planner's own).
Eigen::Vector2d centroid(const Model& m, const State& s) {
  Eigen::Vector2d c = Eigen::Vector2d::Zero();
  for (int j = 0; j < m.nrod(); ++j) c += s.p_WC(j).head<2>();
  return c / m.nrod();
}

}  // namespace

Eigen::Vector2d plan_centroid_m(const Model& model, const State& state) {
  if (model.nrod() == 0) throw Error("plan centroid: the model has no rods");
  if (state.x.size() != static_cast<Eigen::Index>(State::kStride) * model.nrod())
    throw Error("plan centroid: the state has " + std::to_string(state.x.size()) + " numbers, the model's " +
                std::to_string(model.nrod()) + " rods need " + std::to_string(State::kStride * model.nrod()));
  return centroid(model, state);
}

std::vector<int> cable_indices(const Model& model, const std::vector<std::string>& ids, const std::string& where) {
  std::vector<int> out;
  out.reserve(ids.size());
  for (const auto& id : ids) {
    const auto it = std::find(model.cable_ids.begin(), model.cable_ids.end(), id);
    if (it == model.cable_ids.end()) throw Error(where + ": no cable '" + id + "' in the model");
    const int k = static_cast<int>(it - model.cable_ids.begin());
    if (std::find(out.begin(), out.end(), k) != out.end()) throw Error(where + ": cable '" + id + "' listed twice");
    out.push_back(k);
  }
  return out;
}

int remove_drives_on(Model& model, const std::vector<int>& cables) {
  const auto removed = std::erase_if(model.drives, [&](const CableDrive& d) {
    return std::find(cables.begin(), cables.end(), d.cable) != cables.end();
  });
  return static_cast<int>(removed);
}

SimulationOptions rollout_options(const Model& model, const SimulationOptions& simulation) {
  SimulationOptions o = simulation;
  if (o.integrator == Integrator::kDormandPrince45 && model.ground.type == Ground::Type::kImpulse) o.integrator = Integrator::kRK4;
  return o;
}

std::string plan_schedule_csv(const Model& model, const std::vector<int>& drive_cables, const PlanResult& r) {
  const auto m = static_cast<Eigen::Index>(drive_cables.size());
  for (int k : drive_cables)
    if (k < 0 || k >= model.ncable()) throw Error("plan schedule: drive cable index " + std::to_string(k) + " out of range");
  const std::size_t nknot = r.period_start_s.size();
  if (r.offset_m.size() != nknot || r.centroid_m.size() != nknot || r.tension_N.size() != nknot || r.path_error_m.size() != nknot ||
      r.cost_m.size() + 1 != nknot || (nknot > 0 && (r.offset_m[0].size() != m || r.tension_N[0].size() != m)))
    throw Error("plan schedule: the result does not match " + std::to_string(m) + " drive cables (not a result of plan())");
  io::CsvLine line;
  line.text("t_s");
  for (int k : drive_cables) line.text(model.cable_ids[static_cast<std::size_t>(k)] + ".u_m");
  line.text("cx_m").text("cy_m").text("cost_m").text("path_error_m");
  for (int k : drive_cables) line.text(model.cable_ids[static_cast<std::size_t>(k)] + ".tension_N");
  std::string csv = line.str() + "\n";
  for (std::size_t i = 0; i < nknot; ++i) {
    line.clear();
    line.num(r.period_start_s[i]).nums(r.offset_m[i]);
    line.num(r.centroid_m[i].x()).num(r.centroid_m[i].y()).num(i == 0 ? 0.0 : r.cost_m[i - 1]).num(r.path_error_m[i]);
    line.nums(r.tension_N[i]);
    csv += line.str() + "\n";
  }
  return csv;
}

int plan_nperiod(const PlannerOptions& o) { return std::max(1, static_cast<int>(std::lround(o.duration_s / o.period_s))); }

namespace {

struct Rollout {
  bool ok = false;          ///< simulated and within the rest-length limits
  int new_slack = 0;        ///< cables taut at the period start that went slack
  double cost = std::numeric_limits<double>::infinity();
  Eigen::Vector2d C = Eigen::Vector2d::Zero();
  State end;
};

// Simulates one period with the drive offsets going from u_start to u_start + delta: a linear ramp
// over ramp_fraction of the period (kRamp) or a step just after the period start (kStep).
Rollout rollout(const Model& m, const PlannerOptions& o, const State& start, const Eigen::VectorXd& u_start,
                const Eigen::VectorXi& delta, const PathTracker& tracker, const std::vector<std::uint8_t>& slack_at_start) {
  Rollout r;
  const int nd = static_cast<int>(o.drive_cables.size());
  for (int c = 0; c < nd; ++c) {
    const Cable& cab = m.cables[static_cast<std::size_t>(o.drive_cables[static_cast<std::size_t>(c)])];
    const double end = cab.rest_length_m + u_start[c] + o.u0_m * delta[c];
    if (end < cab.rest_length_min_m || end > cab.rest_length_max_m || end <= 0.0) return r;  // rejected
  }
  const double t0 = start.time_s, period = o.period_s, ramp = o.ramp_fraction * o.period_s;
  const bool step = o.increment == IncrementShape::kStep;
  auto controller = [&](double t, const State&, Data& d) {
    const double f = step ? (t > t0 ? 1.0 : 0.0) : std::clamp((t - t0) / ramp, 0.0, 1.0);
    for (int c = 0; c < nd; ++c) {
      const int k = o.drive_cables[static_cast<std::size_t>(c)];
      d.cable_rest_length_m[k] = m.cables[static_cast<std::size_t>(k)].rest_length_m + u_start[c] + f * o.u0_m * delta[c];
    }
  };
  SimulationOptions so = o.rollout;
  so.duration_s = period;
  so.output_interval_s = period;
  const auto s = simulate(m, so, nullptr, {}, &start, controller);
  // rejected when a cable that was taut at the period start goes slack (document: "no slack, no
  // collapse"); cables already slack at the start (e.g. a tower sagging under gravity) do not count
  for (int k = 0; k < m.ncable(); ++k)
    if (!slack_at_start[static_cast<std::size_t>(k)] && s.monitor.slack_first_time_s[static_cast<std::size_t>(k)] >= 0.0) ++r.new_slack;
  r.ok = true;
  r.end = s.final_state;
  r.C = centroid(m, r.end);
  r.cost = tracker.cost(r.C);
  return r;
}

// Order of candidates when none is admissible: fewest cables newly slack, then lowest cost.
bool better(const Rollout& a, const Rollout& b) {
  if (a.new_slack != b.new_slack) return a.new_slack < b.new_slack;
  return a.cost < b.cost;
}

Eigen::VectorXi candidate(int index, int m) {  // base-3 digits -> {-1, 0, +1}
  Eigen::VectorXi d(m);
  for (int c = 0; c < m; ++c) {
    d[c] = index % 3 - 1;
    index /= 3;
  }
  return d;
}

// kScreened's choice of candidates (planner.hpp): rolls out the zero and the 2m single-cable
// candidates (returned in `probes`, their indices in `probe_ids`), predicts every candidate's
// centroid as the sum of its cables' single-cable effects, and returns the indices of the probes
// plus the screen_count best predicted others, sorted. Cost: 2m + 1 rollouts + O(3^m m).
std::vector<int> screen(const Model& model, const PlannerOptions& o, const State& state, const Eigen::VectorXd& u,
                        const PathTracker& tracker, const std::vector<std::uint8_t>& slack0, int n,
                        std::vector<int>& probe_ids, std::vector<Rollout>& probes) {
  const int m = static_cast<int>(o.drive_cables.size());
  std::vector<int> pow3(static_cast<std::size_t>(m));
  int zero = 0;
  for (int c = 0, p = 1; c < m; ++c, p *= 3) {
    pow3[static_cast<std::size_t>(c)] = p;
    zero += p;  // every digit 1: delta 0
  }
  // probes: 0 = the zero candidate, 1 + 2c = -e_c, 2 + 2c = +e_c
  probe_ids.assign(static_cast<std::size_t>(2 * m + 1), 0);
  probe_ids[0] = zero;
  for (int c = 0; c < m; ++c) {
    probe_ids[static_cast<std::size_t>(1 + 2 * c)] = zero - pow3[static_cast<std::size_t>(c)];
    probe_ids[static_cast<std::size_t>(2 + 2 * c)] = zero + pow3[static_cast<std::size_t>(c)];
  }
  probes.assign(probe_ids.size(), Rollout{});
  parallel_for(static_cast<int>(probe_ids.size()), o.threads, [&](int i) {
    probes[static_cast<std::size_t>(i)] = rollout(model, o, state, u, candidate(probe_ids[static_cast<std::size_t>(i)], m), tracker, slack0);
  });
  // a probe that left the rest-length limits predicts nothing: its cable's move is screened out
  const Eigen::Vector2d C0 = probes[0].ok ? probes[0].C : plan_centroid_m(model, state);
  std::vector<Eigen::Vector2d> effect(static_cast<std::size_t>(2 * m), Eigen::Vector2d::Zero());
  std::vector<char> usable(static_cast<std::size_t>(2 * m), 1);
  for (int k = 0; k < 2 * m; ++k) {
    const Rollout& r = probes[static_cast<std::size_t>(1 + k)];
    usable[static_cast<std::size_t>(k)] = r.ok ? 1 : 0;
    if (r.ok) effect[static_cast<std::size_t>(k)] = r.C - C0;
  }
  std::vector<std::pair<double, int>> predicted;
  predicted.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (std::find(probe_ids.begin(), probe_ids.end(), i) != probe_ids.end()) continue;
    Eigen::Vector2d C = C0;
    bool ok = true;
    for (int c = 0, idx = i; c < m; ++c, idx /= 3) {
      const int d = idx % 3 - 1;
      if (d == 0) continue;
      const auto k = static_cast<std::size_t>(2 * c + (d > 0 ? 1 : 0));
      ok = ok && usable[k];
      C += effect[k];
    }
    if (ok) predicted.emplace_back(tracker.cost(C), i);
  }
  const auto keep = std::min(predicted.size(), static_cast<std::size_t>(o.screen_count));
  std::partial_sort(predicted.begin(), predicted.begin() + static_cast<std::ptrdiff_t>(keep), predicted.end());
  std::vector<int> ids(probe_ids.begin(), probe_ids.end());
  for (std::size_t j = 0; j < keep; ++j) ids.push_back(predicted[j].second);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

PlanResult plan(const Model& model, const PlannerOptions& o, const std::function<void(int, int)>& progress) {
  const int m = static_cast<int>(o.drive_cables.size());
  if (m == 0) throw Error("plan: no drive cables");
  if (m > 12) throw Error("plan: at most 12 drive cables (3^m candidates)");
  for (int k : o.drive_cables) {
    if (k < 0 || k >= model.ncable()) throw Error("plan: drive cable index " + std::to_string(k) + " out of range");
    for (const auto& d : model.drives)
      if (d.cable == k) throw Error("plan: cable '" + model.cable_ids[static_cast<std::size_t>(k)] + "' already has a drive in the model");
  }
  if (!(o.u0_m > 0.0) || !(o.period_s > 0.0) || !(o.duration_s > 0.0)) throw Error("plan: u0, period and duration must be > 0");
  if (!(o.ramp_fraction > 0.0 && o.ramp_fraction <= 1.0)) throw Error("plan: ramp_fraction must be in (0, 1]");
  if (o.increment == IncrementShape::kStep && o.ramp_fraction != 1.0)
    throw Error("plan: ramp_fraction applies to the ramp increment only (increment step, ramp_fraction " + std::to_string(o.ramp_fraction) + ")");
  if (o.beam_width < 1) throw Error("plan: beam_width must be >= 1");
  if (o.screen_count < 1) throw Error("plan: screen_count must be >= 1");
  if (!(o.lateral_weight >= 0.0)) throw Error("plan: lateral_weight must be >= 0");
  validate(o.rollout);
  const auto wall0 = std::chrono::steady_clock::now();
  const int nperiod = plan_nperiod(o);
  PathTracker tracker(o.path);
  PlanResult res;
  State state = model.initial_state;
  Eigen::VectorXd u = Eigen::VectorXd::Zero(m);
  Eigen::VectorXi last = Eigen::VectorXi::Zero(m);
  double threshold = o.threshold_start_m;
  res.period_start_s.push_back(state.time_s);
  res.offset_m.push_back(u);
  res.centroid_m.push_back(centroid(model, state));
  res.path_error_m.push_back(tracker.distance(res.centroid_m.back()));
  Data data0 = make_data(model);
  // slack cables of a state under drive offsets uu
  auto slack_at = [&](const State& s, const Eigen::VectorXd& uu) {
    for (int c = 0; c < m; ++c)
      data0.cable_rest_length_m[o.drive_cables[static_cast<std::size_t>(c)]] =
          model.cables[static_cast<std::size_t>(o.drive_cables[static_cast<std::size_t>(c)])].rest_length_m + uu[c];
    forward_kinematics(model, s, data0);
    compute_element_forces(model, s, data0);
    return data0.cable_slack;
  };
  // lookahead planner: path metric w d - s (d distance from the path, s arc length; whole polyline)
  // plus a steep penalty (100 w) on the part of d beyond lateral_tolerance_m
  auto penalised = [&](double d, double s) { return o.lateral_weight * (d + 100.0 * std::max(0.0, d - o.lateral_tolerance_m)) - s; };
  auto metric = [&](const Eigen::Vector2d& C) { return penalised(tracker.distance(C), tracker.arc_length(C)); };
  std::vector<Eigen::VectorXi> all;
  if (o.planner == Planner::kLookahead) {
    int n = 1;
    for (int c = 0; c < m; ++c) n *= 3;
    for (int i = 0; i < n; ++i) all.push_back(candidate(i, m));
  }
  auto record_tension = [&] {  // drive-cable tensions of the knot just evaluated into data0
    Eigen::VectorXd f(m);
    for (int c = 0; c < m; ++c) f[c] = data0.cable_tension_N[o.drive_cables[static_cast<std::size_t>(c)]];
    res.tension_N.push_back(f);
  };
  std::vector<Rollout> cached;  // lookahead: the executed candidate's children = next period's candidates
  std::vector<std::uint8_t> slack0;
  for (int p = 0; p < nperiod; ++p) {
    slack0 = slack_at(state, u);  // slack cables at the period start, with the executed rest lengths
    record_tension();
    Rollout chosen;
    Eigen::VectorXi chosen_delta = Eigen::VectorXi::Zero(m);
    auto consider = [&](const std::vector<Rollout>& rs) {
      // admissible (c < n) with the smallest cost; ties -> lowest index
      int best = -1, best_any = -1;
      for (int i = 0; i < static_cast<int>(rs.size()); ++i) {
        const auto& r = rs[static_cast<std::size_t>(i)];
        if (!r.ok) continue;
        if (best_any < 0 || better(r, rs[static_cast<std::size_t>(best_any)])) best_any = i;
        if (r.new_slack == 0 && r.cost < threshold && (best < 0 || r.cost < rs[static_cast<std::size_t>(best)].cost)) best = i;
      }
      return std::make_pair(best, best_any);
    };
    if (o.planner == Planner::kLookahead) {
      const int n = static_cast<int>(all.size());
      if (cached.empty()) {  // first period, or the last period was forced: evaluate from scratch
        cached.resize(static_cast<std::size_t>(n));
        parallel_for(n, o.threads, [&](int i) {
          cached[static_cast<std::size_t>(i)] = rollout(model, o, state, u, all[static_cast<std::size_t>(i)], tracker, slack0);
        });
        res.rollouts += n;
        for (const auto& r : cached) res.rejected += (r.ok && r.new_slack == 0) ? 0 : 1;
      }
      const std::vector<Rollout>& first = cached;
      // beams: the K admissible candidates with the lowest one-period path metric (ties -> index)
      std::vector<int> order;
      for (int i = 0; i < n; ++i)
        if (first[static_cast<std::size_t>(i)].ok && first[static_cast<std::size_t>(i)].new_slack == 0) order.push_back(i);
      std::vector<double> j1(static_cast<std::size_t>(n), std::numeric_limits<double>::infinity());
      for (int i : order) j1[static_cast<std::size_t>(i)] = metric(first[static_cast<std::size_t>(i)].C);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return j1[static_cast<std::size_t>(a)] < j1[static_cast<std::size_t>(b)]; });
      if (static_cast<int>(order.size()) > o.beam_width) order.resize(static_cast<std::size_t>(o.beam_width));
      if (order.empty()) {  // every candidate inadmissible: execute the least bad one, no lookahead
        int pick = -1;
        for (int i = 0; i < n; ++i)
          if (first[static_cast<std::size_t>(i)].ok && (pick < 0 || better(first[static_cast<std::size_t>(i)], first[static_cast<std::size_t>(pick)]))) pick = i;
        if (pick < 0) throw SimulationError("plan: every candidate leaves a cable's rest-length limits in period " + std::to_string(p), state.time_s);
        chosen = first[static_cast<std::size_t>(pick)];
        chosen_delta = all[static_cast<std::size_t>(pick)];
        cached.clear();
      } else {
        // second period from every beam, all 3^m children (one indexed parallel loop)
        const int nb = static_cast<int>(order.size());
        std::vector<PathTracker> trackers(static_cast<std::size_t>(nb), tracker);
        std::vector<std::vector<std::uint8_t>> slacks(static_cast<std::size_t>(nb));
        std::vector<Eigen::VectorXd> ub(static_cast<std::size_t>(nb));
        for (int b = 0; b < nb; ++b) {
          const Rollout& r = first[static_cast<std::size_t>(order[static_cast<std::size_t>(b)])];
          trackers[static_cast<std::size_t>(b)].advance(r.C);
          ub[static_cast<std::size_t>(b)] = u + o.u0_m * all[static_cast<std::size_t>(order[static_cast<std::size_t>(b)])].cast<double>();
          slacks[static_cast<std::size_t>(b)] = slack_at(r.end, ub[static_cast<std::size_t>(b)]);
        }
        std::vector<Rollout> children(static_cast<std::size_t>(nb * n));
        parallel_for(nb * n, o.threads, [&](int i) {
          const auto b = static_cast<std::size_t>(i / n);
          children[static_cast<std::size_t>(i)] = rollout(model, o, first[static_cast<std::size_t>(order[b])].end, ub[b],
                                                          all[static_cast<std::size_t>(i % n)], trackers[b], slacks[b]);
        });
        res.rollouts += nb * n;
        for (const auto& r : children) res.rejected += (r.ok && r.new_slack == 0) ? 0 : 1;
        // score of a beam: best two-period outcome, lateral term on the worse of the two knots
        int best_b = 0;
        double best_score = std::numeric_limits<double>::infinity();
        for (int b = 0; b < nb; ++b) {
          const double d1 = tracker.distance(first[static_cast<std::size_t>(order[static_cast<std::size_t>(b)])].C);
          double score = std::numeric_limits<double>::infinity();
          for (int j = 0; j < n; ++j) {
            const Rollout& c = children[static_cast<std::size_t>(b * n + j)];
            if (!c.ok || c.new_slack > 0) continue;
            score = std::min(score, penalised(std::max(d1, tracker.distance(c.C)), tracker.arc_length(c.C)));
          }
          if (score < best_score) {
            best_score = score;
            best_b = b;
          }
        }
        const int pick = order[static_cast<std::size_t>(best_b)];
        chosen = first[static_cast<std::size_t>(pick)];
        chosen_delta = all[static_cast<std::size_t>(pick)];
        cached.assign(children.begin() + static_cast<std::ptrdiff_t>(best_b) * n, children.begin() + static_cast<std::ptrdiff_t>(best_b + 1) * n);
      }
      if (!(chosen.cost < threshold)) ++res.threshold_misses;
      if (chosen.new_slack > 0) ++res.forced_periods;
    } else if (o.planner == Planner::kExhaustive || o.planner == Planner::kScreened) {
      int n = 1;
      for (int c = 0; c < m; ++c) n *= 3;
      // the candidates rolled out, by increasing candidate index (the exhaustive tie rule)
      std::vector<int> ids, probe_ids;
      std::vector<Rollout> probes;
      if (o.planner == Planner::kExhaustive || o.screen_count + 2 * m + 1 >= n) {
        for (int i = 0; i < n; ++i) ids.push_back(i);
      } else {
        ids = screen(model, o, state, u, tracker, slack0, n, probe_ids, probes);
      }
      const int nroll = static_cast<int>(ids.size());
      std::vector<Rollout> rs(static_cast<std::size_t>(nroll));
      std::vector<Eigen::VectorXi> deltas(static_cast<std::size_t>(nroll));
      std::vector<int> todo;  // positions in ids not rolled out by the screening
      for (int i = 0; i < nroll; ++i) {
        const int id = ids[static_cast<std::size_t>(i)];
        deltas[static_cast<std::size_t>(i)] = candidate(id, m);
        const auto at = std::find(probe_ids.begin(), probe_ids.end(), id);
        if (at != probe_ids.end()) rs[static_cast<std::size_t>(i)] = probes[static_cast<std::size_t>(at - probe_ids.begin())];
        else todo.push_back(i);
      }
      parallel_for(static_cast<int>(todo.size()), o.threads, [&](int j) {
        const auto i = static_cast<std::size_t>(todo[static_cast<std::size_t>(j)]);
        rs[i] = rollout(model, o, state, u, deltas[i], tracker, slack0);
      });
      // kScreened: up to max_rounds rounds of single-cable moves around the best candidate so far
      // (those not rolled out yet), so that a poorly predicted coupling is corrected locally
      if (o.planner == Planner::kScreened && nroll < n) {
        for (int round = 0; round < o.max_rounds; ++round) {
          const auto [b0, b0_any] = consider(rs);
          const int at = b0 >= 0 ? b0 : b0_any;
          if (at < 0) break;
          std::vector<int> fresh;
          const int base = ids[static_cast<std::size_t>(at)];
          for (int c = 0, pw = 1; c < m; ++c, pw *= 3) {
            const int digit = (base / pw) % 3;
            for (int v = 0; v < 3; ++v) {
              const int id = base + (v - digit) * pw;
              if (v != digit && std::find(ids.begin(), ids.end(), id) == ids.end()) fresh.push_back(id);
            }
          }
          if (fresh.empty()) break;
          std::vector<Rollout> more(fresh.size());
          parallel_for(static_cast<int>(fresh.size()), o.threads, [&](int j) {
            more[static_cast<std::size_t>(j)] = rollout(model, o, state, u, candidate(fresh[static_cast<std::size_t>(j)], m), tracker, slack0);
          });
          for (std::size_t j = 0; j < fresh.size(); ++j) {
            ids.push_back(fresh[j]);
            deltas.push_back(candidate(fresh[j], m));
            rs.push_back(more[j]);
          }
          if (consider(rs) == std::make_pair(b0, b0_any)) break;  // no better candidate found
        }
        // back to increasing candidate index, for the exhaustive tie rule
        std::vector<std::size_t> order(ids.size());
        for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
        std::vector<Rollout> rs2;
        std::vector<Eigen::VectorXi> d2;
        for (std::size_t j : order) {
          rs2.push_back(rs[j]);
          d2.push_back(deltas[j]);
        }
        rs.swap(rs2);
        deltas.swap(d2);
        res.rollouts += static_cast<long>(rs.size()) - nroll;
      }
      res.rollouts += nroll;
      for (const auto& r : rs) res.rejected += (r.ok && r.new_slack == 0) ? 0 : 1;
      const auto [best, best_any] = consider(rs);
      const int pick = best >= 0 ? best : best_any;
      if (pick < 0) throw SimulationError("plan: every candidate leaves a cable's rest-length limits in period " + std::to_string(p), state.time_s);
      if (best < 0) ++res.threshold_misses;
      if (rs[static_cast<std::size_t>(pick)].new_slack > 0) ++res.forced_periods;
      chosen = rs[static_cast<std::size_t>(pick)];
      chosen_delta = deltas[static_cast<std::size_t>(pick)];
    } else {
      // coordinate search from the previous period's increments
      Eigen::VectorXi current = last;
      Rollout cur = rollout(model, o, state, u, current, tracker, slack0);
      ++res.rollouts;
      res.rejected += (cur.ok && cur.new_slack == 0) ? 0 : 1;
      for (int round = 0; round < o.max_rounds; ++round) {
        std::vector<Eigen::VectorXi> deltas;
        for (int c = 0; c < m; ++c)
          for (int v = -1; v <= 1; ++v)
            if (v != current[c]) {
              Eigen::VectorXi d = current;
              d[c] = v;
              deltas.push_back(d);
            }
        std::vector<Rollout> rs(deltas.size());
        parallel_for(static_cast<int>(deltas.size()), o.threads, [&](int i) {
          rs[static_cast<std::size_t>(i)] = rollout(model, o, state, u, deltas[static_cast<std::size_t>(i)], tracker, slack0);
        });
        res.rollouts += static_cast<long>(deltas.size());
        for (const auto& r : rs) res.rejected += (r.ok && r.new_slack == 0) ? 0 : 1;
        int best = -1;
        for (int i = 0; i < static_cast<int>(rs.size()); ++i)
          if (rs[static_cast<std::size_t>(i)].ok && (best < 0 || better(rs[static_cast<std::size_t>(i)], rs[static_cast<std::size_t>(best)]))) best = i;
        if (best >= 0 && (!cur.ok || better(rs[static_cast<std::size_t>(best)], cur))) {
          cur = rs[static_cast<std::size_t>(best)];
          current = deltas[static_cast<std::size_t>(best)];
        } else {
          break;
        }
      }
      if (!cur.ok) throw SimulationError("plan: every candidate tried leaves a cable's rest-length limits in period " + std::to_string(p), state.time_s);
      if (!(cur.cost < threshold)) ++res.threshold_misses;
      if (cur.new_slack > 0) ++res.forced_periods;
      chosen = cur;
      chosen_delta = current;
    }
    threshold = chosen.cost;
    state = chosen.end;
    u += o.u0_m * chosen_delta.cast<double>();
    last = chosen_delta;
    tracker.advance(chosen.C);
    res.cost_m.push_back(chosen.cost);
    res.period_start_s.push_back(state.time_s);
    res.offset_m.push_back(u);
    res.centroid_m.push_back(chosen.C);
    res.path_error_m.push_back(tracker.distance(chosen.C));
    res.max_path_error_m = std::max(res.max_path_error_m, res.path_error_m.back());
    if (progress) progress(p + 1, nperiod);
  }
  res.final_state = state;
  slack_at(state, u);
  record_tension();
  res.ramp_fraction = o.ramp_fraction;
  res.increment = o.increment;
  res.progress_m = tracker.arc_length(res.centroid_m.back()) - tracker.arc_length(res.centroid_m.front());
  res.speed_mps = res.progress_m / (res.period_start_s.back() - res.period_start_s.front());
  res.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return res;
}

}  // namespace tendyn::tensegrity
