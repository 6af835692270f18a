#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/core/parallel.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/planner.hpp>

#include <algorithm>
#include <cstdint>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tendyn::tensegrity {

PlanPath PlanPath::straight_x() { return PlanPath{{Eigen::Vector2d(0, 0), Eigen::Vector2d(1e3, 0)}}; }
PlanPath PlanPath::right_angle(double x_turn) {
  return PlanPath{{Eigen::Vector2d(0, 0), Eigen::Vector2d(x_turn, 0), Eigen::Vector2d(x_turn, 1e3)}};
}

PathTracker::PathTracker(const PlanPath& p) : path(p) {
  if (path.points.size() < 2) throw Error("plan: a path needs at least 2 points");
  for (std::size_t i = 0; i + 1 < path.points.size(); ++i)
    if (!((path.points[i + 1] - path.points[i]).norm() > 0.0))
      throw Error("plan: path points " + std::to_string(i) + " and " + std::to_string(i + 1) + " coincide");
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
    if ((C - P).dot(seg.normalized()) >= seg.norm())
      ++segment;
    else
      break;
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
  if (state.x.size() != static_cast<Eigen::Index>(model.nx()))
    throw Error("plan centroid: the state has " + std::to_string(state.x.size()) + " numbers, the model's " + std::to_string(model.nrod()) +
                " rods and " + std::to_string(model.nwinch()) + " winches need " + std::to_string(model.nx()));
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
  const auto removed =
      std::erase_if(model.drives, [&](const CableDrive& d) { return std::find(cables.begin(), cables.end(), d.cable) != cables.end(); });
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

int plan_nperiod(const PlannerOptions& o) {
  const double n = std::round(o.duration_s / o.period_s);
  if (!(n < static_cast<double>(std::numeric_limits<int>::max()))) return n > 0.0 ? std::numeric_limits<int>::max() : 1;
  return std::max(1, static_cast<int>(n));
}

double plan_step_bound(const PlannerOptions& o, double* rollouts_per_period) {
  const double m = static_cast<double>(o.drive_cables.size());
  const double all = std::pow(3.0, m), rounds = std::max(o.max_rounds, 1);
  double rollouts = all;
  if (o.planner == Planner::kLookahead)
    rollouts = all * (1.0 + std::max(o.beam_width, 1));
  else if (o.planner == Planner::kCoordinateSearch)
    rollouts = (2.0 * m + 1.0) * rounds;
  else if (o.planner == Planner::kScreened)
    rollouts = 1.0 + rounds * (2.0 * m + std::max(o.screen_count, 1));
  if (rollouts_per_period) *rollouts_per_period = rollouts;
  const double periods = std::max(1.0, std::round(o.duration_s / o.period_s));
  return periods * rollouts * (o.period_s / o.rollout.dt_s);
}

void check_plan_bounds(const PlannerOptions& o) {
  if (o.duration_s > 0.0 && o.duration_s < 0.5 * o.period_s) {
    throw Error("plan: duration (" + format_number(o.duration_s, 6) + " s) is shorter than half a period (" + format_number(o.period_s, 6) +
                " s): no period would run");
  }
  double rollouts = 0.0;
  const double steps = plan_step_bound(o, &rollouts);
  if (!(steps <= kMaxSteps)) {
    const auto g = [](double v, int digits = 6) { return format_number(v, digits); };
    throw Error("plan: " + g(std::max(1.0, std::round(o.duration_s / o.period_s)), 3) + " periods (duration / period = " + g(o.duration_s) +
                " / " + g(o.period_s) + " s) x " + g(rollouts, 3) + " rollouts x " + g(o.period_s / o.rollout.dt_s, 3) +
                " steps (period / dt = " + g(o.period_s) + " / " + g(o.rollout.dt_s) + " s) = " + g(steps, 3) +
                " simulated steps is above the limit " + g(kMaxSteps));
  }
}

namespace {

struct Rollout {
  bool ok = false;    ///< simulated and within the rest-length limits
  int new_slack = 0;  ///< cables taut at the period start that went slack
  double cost = std::numeric_limits<double>::infinity();
  Eigen::Vector2d C = Eigen::Vector2d::Zero();
  State end;
};

// Simulates one period with the drive offsets going from u_start to u_start + delta: a linear ramp
// over ramp_fraction of the period (kRamp) or a step just after the period start (kStep).
Rollout rollout(const Model& m, const PlannerOptions& o, const State& start, const Eigen::VectorXd& u_start, const Eigen::VectorXi& delta,
                const PathTracker& tracker, const std::vector<std::uint8_t>& slack_at_start) {
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
      command_rest_length(d, k, m.cables[static_cast<std::size_t>(k)].rest_length_m + u_start[c] + f * o.u0_m * delta[c]);
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

// The exhaustive planner's choice among rollouts (Fig. 3.2, planner.hpp): the admissible one
// (simulated, no taut cable gone slack, cost below the threshold) with the smallest cost, and the
// least bad one (fewest cables gone slack, then the lowest cost) for when none is admissible; ties go to
// the first. `at(i)` is the i-th of `count` rollouts. Returns their positions (-1 when there is none).
template <class At>
std::pair<int, int> choose(int count, const At& at, double threshold) {
  int best = -1, best_any = -1;
  for (int i = 0; i < count; ++i) {
    const Rollout& r = at(i);
    if (!r.ok) continue;
    if (best_any < 0 || better(r, at(best_any))) best_any = i;
    if (r.new_slack == 0 && r.cost < threshold && (best < 0 || r.cost < at(best).cost)) best = i;
  }
  return {best, best_any};
}

// kScreened (planner.hpp): the candidates it rolls out in one period, by increasing candidate
// index in `ids` with their rollouts in `rs`. Rounds of re-linearised screening: around the base b
// (the zero candidate first, then the exhaustive rule's choice among everything rolled out so
// far) roll out the 2m single-cable moves b +- e_c, predict every candidate's centroid by the
// additive model of those moves, C(i) ~ C(b) + sum_c (C(b with cable c at i's value) - C(b))
// (exact for b and its single-cable moves; the coupling between cables is what it misses, and it
// is smallest near b), and roll out the screen_count best predicted (those not rolled out yet).
// Stops when the choice is b itself (the model around the choice confirms it) or after
// max(1, max_rounds) rounds. Cost per round: <= 2m + screen_count rollouts (in two parallel
// batches) and O(3^m m) for the prediction; the result does not depend on `threads`.
void screened_rollouts(const Model& model, const PlannerOptions& o, const State& state, const Eigen::VectorXd& u,
                       const PathTracker& tracker, const std::vector<std::uint8_t>& slack0, int n, double threshold, std::vector<int>& ids,
                       std::vector<Rollout>& rs) {
  const int m = static_cast<int>(o.drive_cables.size());
  std::vector<int> pow3(static_cast<std::size_t>(m) + 1, 1);
  int zero = 0;
  for (int c = 0; c < m; ++c) {
    pow3[static_cast<std::size_t>(c) + 1] = 3 * pow3[static_cast<std::size_t>(c)];
    zero += pow3[static_cast<std::size_t>(c)];  // every digit 1: delta 0
  }
  std::vector<Rollout> all(static_cast<std::size_t>(n));  // by candidate index; `done` marks the rolled out
  std::vector<std::uint8_t> done(static_cast<std::size_t>(n), 0);
  auto roll = [&](const std::vector<int>& batch) {  // one parallel batch, each candidate into its own slot
    parallel_for(static_cast<int>(batch.size()), o.threads, [&](int j) {
      const int id = batch[static_cast<std::size_t>(j)];
      all[static_cast<std::size_t>(id)] = rollout(model, o, state, u, candidate(id, m), tracker, slack0);
    });
    for (int id : batch) done[static_cast<std::size_t>(id)] = 1;
  };
  auto digit = [&](int id, int c) { return (id / pow3[static_cast<std::size_t>(c)]) % 3; };  // 0, 1, 2 = -1, 0, +1
  std::vector<std::pair<double, int>> predicted;
  predicted.reserve(static_cast<std::size_t>(n));
  std::vector<Eigen::Vector2d> Cpred(static_cast<std::size_t>(n));  // predicted centroids by candidate index
  std::vector<std::uint8_t> okpred(static_cast<std::size_t>(n));    // every move of the candidate usable
  int base = zero;
  const int rounds = std::max(1, o.max_rounds);
  for (int round = 0; round < rounds; ++round) {
    // the base and its single-cable moves
    std::vector<int> batch;
    if (!done[static_cast<std::size_t>(base)]) batch.push_back(base);
    for (int c = 0; c < m; ++c)
      for (int v = 0; v < 3; ++v) {
        const int id = base + (v - digit(base, c)) * pow3[static_cast<std::size_t>(c)];
        if (v != digit(base, c) && !done[static_cast<std::size_t>(id)]) batch.push_back(id);
      }
    roll(batch);
    // the additive model around the base: effect[3c + v] = C(base with cable c at v) - C(base). A
    // move that left the rest-length limits predicts nothing (candidates with it are screened out);
    // a base outside the limits (only the zero candidate can be) is replaced by the current centroid
    const Rollout& B = all[static_cast<std::size_t>(base)];
    const Eigen::Vector2d Cb = B.ok ? B.C : centroid(model, state);
    std::vector<Eigen::Vector2d> effect(static_cast<std::size_t>(3 * m), Eigen::Vector2d::Zero());
    std::vector<std::uint8_t> usable(static_cast<std::size_t>(3 * m), 1);
    for (int c = 0; c < m; ++c)
      for (int v = 0; v < 3; ++v) {
        if (v == digit(base, c)) continue;
        const Rollout& r = all[static_cast<std::size_t>(base + (v - digit(base, c)) * pow3[static_cast<std::size_t>(c)])];
        usable[static_cast<std::size_t>(3 * c + v)] = r.ok ? 1 : 0;
        if (r.ok) effect[static_cast<std::size_t>(3 * c + v)] = r.C - Cb;
      }
    // every candidate's prediction by digits, cable 0 (the lowest) first: after cable c the first
    // 3^(c+1) entries hold Cb + effect of cables 0..c (the same sums in the same order as adding
    // them one by one), so the 3^m predictions cost 1.5 x 3^m additions
    Cpred[0] = Cb;
    okpred[0] = 1;
    for (int c = 0, size = 1; c < m; ++c, size *= 3)
      for (int v = 2; v >= 0; --v)  // v = 0 last: it overwrites the prefix in place
        for (int j = 0; j < size; ++j) {
          const auto k = static_cast<std::size_t>(3 * c + v);
          Cpred[static_cast<std::size_t>(v * size + j)] = Cpred[static_cast<std::size_t>(j)] + effect[k];
          okpred[static_cast<std::size_t>(v * size + j)] = okpred[static_cast<std::size_t>(j)] & usable[k];
        }
    predicted.clear();
    for (int i = 0; i < n; ++i)
      if (okpred[static_cast<std::size_t>(i)]) predicted.emplace_back(tracker.cost(Cpred[static_cast<std::size_t>(i)]), i);
    // the screen_count best predicted (ties -> lowest index), those not rolled out yet
    const auto keep = std::min(predicted.size(), static_cast<std::size_t>(o.screen_count));
    std::partial_sort(predicted.begin(), predicted.begin() + static_cast<std::ptrdiff_t>(keep), predicted.end());
    batch.clear();
    for (std::size_t j = 0; j < keep; ++j)
      if (!done[static_cast<std::size_t>(predicted[j].second)]) batch.push_back(predicted[j].second);
    roll(batch);
    // the exhaustive rule over everything rolled out (by increasing index) is the next base
    ids.clear();
    for (int i = 0; i < n; ++i)
      if (done[static_cast<std::size_t>(i)]) ids.push_back(i);
    const auto [best, best_any] = choose(
        static_cast<int>(ids.size()),
        [&](int j) -> const Rollout& { return all[static_cast<std::size_t>(ids[static_cast<std::size_t>(j)])]; }, threshold);
    const int pick = best >= 0 ? best : best_any;
    if (pick < 0 || ids[static_cast<std::size_t>(pick)] == base) break;
    base = ids[static_cast<std::size_t>(pick)];
  }
  rs.clear();
  for (int id : ids) rs.push_back(std::move(all[static_cast<std::size_t>(id)]));
}

// The argument checks of plan (an Error naming the option).
void check_plan_options(const Model& model, const PlannerOptions& o) {
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
    throw Error("plan: ramp_fraction applies to the ramp increment only (increment step, ramp_fraction " +
                format_number(o.ramp_fraction, 6) + ")");
  if (o.beam_width < 1) throw Error("plan: beam_width must be >= 1");
  if (o.screen_count < 1) throw Error("plan: screen_count must be >= 1");
  if (!(o.lateral_weight >= 0.0)) throw Error("plan: lateral_weight must be >= 0");
  validate(o.rollout);
  check_plan_bounds(o);
}

// One plan (plan), period by period: the executed state and rest-length offsets, the path tracker,
// the lookahead's candidates and cached children, and the result.
struct Planning {
  const Model& model;
  const PlannerOptions& o;
  const int m;
  PathTracker tracker;
  PlanResult res;
  State state;
  Eigen::VectorXd u;
  Eigen::VectorXi last;
  double threshold = 0.0;
  Data data0;
  std::vector<Eigen::VectorXi> all;
  std::vector<Rollout> cached;  // lookahead: the executed candidate's children = next period's candidates
  std::vector<std::uint8_t> slack0;

  Planning(const Model& mo, const PlannerOptions& opt);
  std::vector<std::uint8_t> slack_at(const State& s, const Eigen::VectorXd& uu);
  double penalised(double d, double s) const;
  double metric(const Eigen::Vector2d& C) const;
  void record_tension();
  void period(int p);
  void lookahead_period(int p, Rollout& chosen, Eigen::VectorXi& chosen_delta);
  void exhaustive_period(int p, Rollout& chosen, Eigen::VectorXi& chosen_delta);
  void coordinate_period(int p, Rollout& chosen, Eigen::VectorXi& chosen_delta);
};

Planning::Planning(const Model& mo, const PlannerOptions& opt)
    : model(mo), o(opt), m(static_cast<int>(opt.drive_cables.size())), tracker(opt.path) {
  state = model.initial_state;
  u = Eigen::VectorXd::Zero(m);
  last = Eigen::VectorXi::Zero(m);
  threshold = o.threshold_start_m;
  res.period_start_s.push_back(state.time_s);
  res.offset_m.push_back(u);
  res.centroid_m.push_back(centroid(model, state));
  res.path_error_m.push_back(tracker.distance(res.centroid_m.back()));
  data0 = make_data(model);
  if (o.planner == Planner::kLookahead) {
    int n = 1;
    for (int c = 0; c < m; ++c) n *= 3;
    for (int i = 0; i < n; ++i) all.push_back(candidate(i, m));
  }
}

// slack cables of a state under drive offsets uu
std::vector<std::uint8_t> Planning::slack_at(const State& s, const Eigen::VectorXd& uu) {
  for (int c = 0; c < m; ++c)
    data0.cable_rest_length_m[o.drive_cables[static_cast<std::size_t>(c)]] =
        model.cables[static_cast<std::size_t>(o.drive_cables[static_cast<std::size_t>(c)])].rest_length_m + uu[c];
  forward_kinematics(model, s, data0);
  compute_element_forces(model, s, data0);
  return data0.cable_slack;
}

// lookahead planner: path metric w d - s (d distance from the path, s arc length; whole polyline)
// plus a steep penalty (100 w) on the part of d beyond lateral_tolerance_m
double Planning::penalised(double d, double s) const {
  return o.lateral_weight * (d + 100.0 * std::max(0.0, d - o.lateral_tolerance_m)) - s;
}
double Planning::metric(const Eigen::Vector2d& C) const { return penalised(tracker.distance(C), tracker.arc_length(C)); }

// drive-cable tensions of the knot just evaluated into data0
void Planning::record_tension() {
  Eigen::VectorXd f(m);
  for (int c = 0; c < m; ++c) f[c] = data0.cable_tension_N[o.drive_cables[static_cast<std::size_t>(c)]];
  res.tension_N.push_back(f);
}

// One period: the planner's choice, executed.
void Planning::period(int p) {
  slack0 = slack_at(state, u);  // slack cables at the period start, with the executed rest lengths
  record_tension();
  Rollout chosen;
  Eigen::VectorXi chosen_delta = Eigen::VectorXi::Zero(m);
  if (o.planner == Planner::kLookahead)
    lookahead_period(p, chosen, chosen_delta);
  else if (o.planner == Planner::kExhaustive || o.planner == Planner::kScreened)
    exhaustive_period(p, chosen, chosen_delta);
  else
    coordinate_period(p, chosen, chosen_delta);

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
}

// The lookahead planner: beams of the best one-period candidates, each scored by its best child.
void Planning::lookahead_period(int p, Rollout& chosen, Eigen::VectorXi& chosen_delta) {
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
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return j1[static_cast<std::size_t>(a)] < j1[static_cast<std::size_t>(b)]; });
  if (static_cast<int>(order.size()) > o.beam_width) order.resize(static_cast<std::size_t>(o.beam_width));
  if (order.empty()) {  // every candidate inadmissible: execute the least bad one, no lookahead
    int pick = -1;
    for (int i = 0; i < n; ++i)
      if (first[static_cast<std::size_t>(i)].ok &&
          (pick < 0 || better(first[static_cast<std::size_t>(i)], first[static_cast<std::size_t>(pick)])))
        pick = i;
    if (pick < 0)
      throw SimulationError("plan: every candidate leaves a cable's rest-length limits in period " + std::to_string(p), state.time_s);
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
    cached.assign(children.begin() + static_cast<std::ptrdiff_t>(best_b) * n,
                  children.begin() + static_cast<std::ptrdiff_t>(best_b + 1) * n);
  }
  if (!(chosen.cost < threshold)) ++res.threshold_misses;
  if (chosen.new_slack > 0) ++res.forced_periods;
}

// The exhaustive and screened planners: the best of all 3^m candidates (or of the screened ones).
void Planning::exhaustive_period(int p, Rollout& chosen, Eigen::VectorXi& chosen_delta) {
  int n = 1;
  for (int c = 0; c < m; ++c) n *= 3;
  // the candidates rolled out, by increasing candidate index (the exhaustive tie rule)
  std::vector<int> ids;
  std::vector<Rollout> rs;
  if (o.planner == Planner::kExhaustive || o.screen_count + 2 * m + 1 >= n) {
    rs.resize(static_cast<std::size_t>(n));
    parallel_for(n, o.threads,
                 [&](int i) { rs[static_cast<std::size_t>(i)] = rollout(model, o, state, u, candidate(i, m), tracker, slack0); });
    for (int i = 0; i < n; ++i) ids.push_back(i);
  } else {
    screened_rollouts(model, o, state, u, tracker, slack0, n, threshold, ids, rs);
  }
  const int nroll = static_cast<int>(ids.size());
  res.rollouts += nroll;
  for (const auto& r : rs) res.rejected += (r.ok && r.new_slack == 0) ? 0 : 1;
  const auto [best, best_any] = choose(
      nroll, [&](int i) -> const Rollout& { return rs[static_cast<std::size_t>(i)]; }, threshold);
  const int pick = best >= 0 ? best : best_any;
  if (pick < 0)
    throw SimulationError("plan: every candidate leaves a cable's rest-length limits in period " + std::to_string(p), state.time_s);
  if (best < 0) ++res.threshold_misses;
  if (rs[static_cast<std::size_t>(pick)].new_slack > 0) ++res.forced_periods;
  chosen = rs[static_cast<std::size_t>(pick)];
  chosen_delta = candidate(ids[static_cast<std::size_t>(pick)], m);
}

// The coordinate search from the previous period's increments.
void Planning::coordinate_period(int p, Rollout& chosen, Eigen::VectorXi& chosen_delta) {
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
      if (rs[static_cast<std::size_t>(i)].ok && (best < 0 || better(rs[static_cast<std::size_t>(i)], rs[static_cast<std::size_t>(best)])))
        best = i;
    if (best >= 0 && (!cur.ok || better(rs[static_cast<std::size_t>(best)], cur))) {
      cur = rs[static_cast<std::size_t>(best)];
      current = deltas[static_cast<std::size_t>(best)];
    } else {
      break;
    }
  }
  if (!cur.ok)
    throw SimulationError("plan: every candidate tried leaves a cable's rest-length limits in period " + std::to_string(p), state.time_s);
  if (!(cur.cost < threshold)) ++res.threshold_misses;
  if (cur.new_slack > 0) ++res.forced_periods;
  chosen = cur;
  chosen_delta = current;
}

}  // namespace

PlanResult plan(const Model& model, const PlannerOptions& o, const std::function<void(int, int)>& progress) {
  check_plan_options(model, o);
  const auto wall0 = std::chrono::steady_clock::now();
  const int nperiod = plan_nperiod(o);
  Planning P(model, o);
  for (int p = 0; p < nperiod; ++p) {
    P.period(p);
    if (progress) progress(p + 1, nperiod);
  }
  PlanResult& res = P.res;
  const PathTracker& tracker = P.tracker;
  res.final_state = P.state;
  P.slack_at(P.state, P.u);
  P.record_tension();
  res.ramp_fraction = o.ramp_fraction;
  res.increment = o.increment;
  res.progress_m = tracker.arc_length(res.centroid_m.back()) - tracker.arc_length(res.centroid_m.front());
  res.speed_mps = res.progress_m / (res.period_start_s.back() - res.period_start_s.front());
  res.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return res;
}

}  // namespace tendyn::tensegrity
