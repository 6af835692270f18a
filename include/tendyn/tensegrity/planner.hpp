// Trajectory planning by choosing cable-length increments (document 001, chapter 3).
//
// Every control period dt each drive cable's rest-length offset changes by one of {-u0, 0, +u0}
// (3-2), as a linear ramp over the period (so the executed schedule is a piecewise-linear table,
// directly reusable as TableDrive / `drives: table:` in `tendyn simulate`). A candidate is
// simulated over dt from the current state (a "rollout"); its cost is the path constraint on the
// projection (Cx, Cy) of the centroid of the rod centres. Candidates in which a rest length
// leaves the cable's limits are rejected; candidates in which a cable that was taut at the period
// start goes slack are inadmissible (when every candidate is, the one with the fewest such cables,
// then the lowest cost, is executed and the period is counted as forced).
//
// Path cost (document's (3-3)..(3-5), generalised to polylines P0..Pn): on the current segment
// with unit direction t from P_s, progress tau = (C - P_s) . t and lateral offset
// d = |(C - P_s) x t|, c = 5 d - tau; the next segment starts when tau reaches the segment length.
// Straight line along +x: P = {(0,0), (far,0)} gives c = 5|Cy| - Cx (3-3); the right-angle turn
// P = {(0,0), (0.01,0), (0.01,far)} gives (3-4) then (3-5).
//
// Planners:
// * kExhaustive, the document's combination selection: all 3^m candidates each period. Our reading
//   of Fig. 3.2: a candidate is admissible when c < n; the admissible one with the smallest c is
//   executed and the threshold is tightened to its cost (n <- c), so every period must improve on
//   the last; n starts at 1e-10. When no candidate is admissible the smallest c is executed anyway
//   and n is reset to it (counted as a threshold miss).
// * kCoordinateSearch (ours): start from the previous period's increments, try changing one cable
//   at a time (2m rollouts per round), keep the best improvement, repeat until no improvement or
//   `max_rounds`; same admissibility and rejection rules. O(m) rollouts per period instead of 3^m.
// * kLookahead (ours): two-period lookahead with beam pruning. All 3^m candidates of the period
//   are ranked by the path metric J = w (d + 100 max(0, d - d_tol)) - s (d distance from the
//   path, s arc length of the projection, over the whole polyline; w = lateral_weight, d_tol =
//   lateral_tolerance_m); the `beam_width` best admissible ones are each continued by all 3^m
//   candidates of the next period, and the beam whose best two-period continuation has the lowest
//   J (d = the larger of the two knots' distances) is executed. The executed beam's children are the
//   next period's candidates (same start state, offsets and slack set), so after the first period
//   a period costs beam_width x 3^m rollouts. On the document's two tasks it tracks more tightly and
//   gets further than kExhaustive (docs/BENCHMARKS.md).
// * kScreened (ours, for many drive cables in real time): rounds of re-linearised screening. A
//   round has a base candidate b (the zero candidate in the first round): it rolls out b's 2m
//   single-cable moves (b with one cable's increment changed), predicts every one of the 3^m
//   candidates' centroid by the additive model of those moves, C(i) ~ C(b) + sum_c (C(b with
//   cable c at i's increment) - C(b)) (exact for b and its single-cable moves, first order in the
//   coupling between cables, which is smallest near b), and rolls out the `screen_count` best by
//   the predicted cost (those not rolled out yet). The exhaustive planner's rule (threshold,
//   admissibility, ties to the lowest candidate index) over everything rolled out so far gives the
//   next round's base; the rounds stop when that is b itself (the model around the choice
//   confirms it) or after max(1, `max_rounds`) rounds, and the same rule executes the choice. At
//   most 1 + max_rounds (2m + screen_count) rollouts per period instead of 3^m (about 70-80
//   with 9 drive cables and the defaults); with screen_count + 2m + 1 >= 3^m it is the
//   exhaustive planner, bit for bit. The path and cost are the document's; only the candidates
//   simulated are fewer. On the document's two tasks with 9 drive cables and the defaults it
//   chooses the exhaustive planner's candidate in every period, so it executes the exhaustive
//   plan (docs/BENCHMARKS.md; screen 16 misses one 5 um near-tie of the turn's 74 periods). A
//   single linearisation around the zero candidate (max_rounds = 1) ranks the exhaustive choice
//   as low as 658th of 19,683 in some periods: the choice moves several cables at once, where the
//   coupling the additive model misses is largest; around the best so far it ranks within the screen.
// Increment timing (`increment`, IncrementShape): the document says only that u changes by one of
// {-u0, 0, u0} per period (3-2) and leaves open how within the period (issue 18 item 5). kRamp (the
// default) ramps it linearly over the whole period, or with `ramp_fraction` < 1 over the first part
// of the period and holds it; kStep applies the whole increment at the start of the period.
// Rollouts run on `threads` threads; candidates are indexed and reduced by index, so the executed
// schedule is bit-identical for any thread count.
#pragma once
#include <tendyn/core/enum_names.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <string>
#include <vector>

namespace tendyn::tensegrity {

struct PlanPath {
  std::vector<Eigen::Vector2d> points;                  ///< polyline on the floor [m], >= 2 points
  static PlanPath straight_x();                         ///< (3-3)
  static PlanPath right_angle(double x_turn_m = 0.01);  ///< (3-4)/(3-5)
};

enum class Planner { kExhaustive, kCoordinateSearch, kLookahead, kScreened };
/// The names of Planner (tendyn/core/enum_names.hpp).
constexpr EnumNames<Planner, 4> enum_names(Planner) {
  return {"planner",
          {{{Planner::kExhaustive, "exhaustive"},
            {Planner::kCoordinateSearch, "coordinate"},
            {Planner::kLookahead, "lookahead"},
            {Planner::kScreened, "screened"}}}};
}
/// "exhaustive" | "coordinate" | "lookahead" | "screened" -> Planner (any case, '-' = '_'). Throws
/// tendyn::Error "unknown planner '<name>' (valid: exhaustive, coordinate, lookahead, screened)"
/// for any other text.
inline Planner planner_from_string(const std::string& name) { return enum_from_string<Planner>(name); }
/// "exhaustive", "coordinate", "lookahead", "screened" (the names of `tendyn plan --planner` and plan.json).
inline const char* to_string(Planner planner) { return enum_to_string(planner); }

/// How a drive cable's increment is applied within a control period. Document 001 (3-2) states
/// only the increment per period, {-u0, 0, +u0}; the shape inside the period is left open (ours
/// to choose, issue 18 item 5; docs/VALIDATION.md "Increment shape and friction").
enum class IncrementShape {
  /// Linear from u_start at the period start t0 to u_start + delta at t0 + ramp_fraction x period,
  /// then held (ramp_fraction = 1: over the whole period). The default: the executed schedule is
  /// the continuous piecewise-linear table of the knots.
  kRamp,
  /// The whole increment at the start of the period: the rest length is u_start at t = t0 exactly
  /// and u_start + delta for every t > t0, so every integration step of the period (from the first
  /// one on; only the first stage of the first step, evaluated at t0 itself, sees u_start) runs
  /// with the full increment. As a table drive: the knot (t0, u_start), then (t0 + 1e-9 period,
  /// u_start + delta), so that a replay in `simulate` with the rollouts' fixed step matches.
  /// Requires ramp_fraction = 1 (plan() throws otherwise).
  kStep,
};
/// The names of IncrementShape (tendyn/core/enum_names.hpp).
constexpr EnumNames<IncrementShape, 2> enum_names(IncrementShape) {
  return {"increment shape", {{{IncrementShape::kRamp, "ramp"}, {IncrementShape::kStep, "step"}}}};
}
/// "ramp" | "step" -> IncrementShape (any case, '-' = '_'). Throws tendyn::Error
/// "unknown increment shape '<name>' (valid: ramp, step)" for any other text.
inline IncrementShape increment_shape_from_string(const std::string& name) { return enum_from_string<IncrementShape>(name); }
/// "ramp", "step" (the names of `tendyn plan --increment`).
inline const char* to_string(IncrementShape shape) { return enum_to_string(shape); }

struct PlannerOptions {
  std::vector<int> drive_cables;  ///< cable indices (m of them)
  double u0_m = 0.005;            ///< increment per period
  double period_s = 0.1;          ///< control period dt
  double duration_s = 3.0;        ///< planned time
  PlanPath path = PlanPath::straight_x();
  Planner planner = Planner::kExhaustive;
  int max_rounds = 3;                                ///< coordinate search rounds per period (screened: linearisation rounds)
  int beam_width = 3;                                ///< lookahead: candidates expanded into a second period
  int screen_count = 32;                             ///< screened: candidates rolled out per linearisation round (the best predicted), >= 1
  double lateral_weight = 5.0;                       ///< lookahead: w in the path metric w d - s (5 as in (3-3))
  double lateral_tolerance_m = 0.002;                ///< lookahead: d beyond this is penalised 100 w
  IncrementShape increment = IncrementShape::kRamp;  ///< shape of the increment within a period (document: open)
  double ramp_fraction = 1.0;                        ///< kRamp: the increment ramps over this fraction of the period, then holds; (0, 1]
  double threshold_start_m = 1e-10;                  ///< n_0, the first cost threshold [m]
  SimulationOptions rollout;                         ///< integrator and step of every rollout (duration is set per period)
  int threads = 0;                                   ///< 0 = all cores
};

struct PlanResult {
  std::vector<double> period_start_s;       ///< (nperiod + 1) knot times
  std::vector<Eigen::VectorXd> offset_m;    ///< (nperiod + 1) drive offsets u at the knots
  std::vector<Eigen::Vector2d> centroid_m;  ///< (nperiod + 1) (Cx, Cy) at the knots
  std::vector<Eigen::VectorXd> tension_N;   ///< (nperiod + 1) drive-cable tensions at the knots [N]
  std::vector<double> path_error_m;         ///< (nperiod + 1) distance of centroid_m from the path [m]
  std::vector<double> cost_m;               ///< (nperiod) cost of the executed candidate [m]
  int threshold_misses = 0;
  int forced_periods = 0;  ///< periods in which every candidate let a taut cable go slack (fewest chosen)
  long rollouts = 0;
  long rejected = 0;
  double wall_time_s = 0.0;
  double max_path_error_m = 0.0;                     ///< max lateral distance of the knots from the path
  double progress_m = 0.0;                           ///< arc length along the path at the end
  double speed_mps = 0.0;                            ///< progress / duration
  double ramp_fraction = 1.0;                        ///< copied from the options (as_drives adds the end-of-ramp knots)
  IncrementShape increment = IncrementShape::kRamp;  ///< copied from the options (as_drives adds the step knots)
  State final_state;
  /// The executed schedule as drives (one TableDrive per drive cable) for Model::drives.
  std::vector<CableDrive> as_drives(const std::vector<int>& drive_cables) const;
};

/// Number of control periods of a plan: max(1, round(duration_s / period_s)) (at most INT_MAX).
/// Never throws.
int plan_nperiod(const PlannerOptions& options);

/// Upper bound of the steps a plan simulates: round(duration_s / period_s) periods x rollouts per
/// period (3^m; lookahead 3^m (1 + beam_width); coordinate (2m + 1) max_rounds; screened
/// 1 + max_rounds (2m + screen_count)) x period_s / rollout.dt_s, as a double (never overflows).
/// `rollouts_per_period`, when given, receives the middle factor. Never throws.
double plan_step_bound(const PlannerOptions& options, double* rollouts_per_period = nullptr);

/// The work bounds of plan(), checked before anything runs: throws tendyn::Error when
/// 0 < duration_s < period_s / 2 ("no period would run": a plan runs whole periods) or when
/// plan_step_bound() is above kMaxSteps (naming duration, period, dt, the rollouts and the limit).
/// Options must have positive finite duration_s, period_s and rollout.dt_s.
void check_plan_bounds(const PlannerOptions& options);

/// Plans from model.initial_state. The model's own drives must not act on the drive cables
/// (Error; remove_drives_on() drops them). Throws tendyn::Error on bad options (no drive cables, bad indices, non-positive u0 /
/// period / duration, ramp_fraction outside (0, 1] or != 1 with kStep, the bounds of check_plan_bounds()), SimulationError if a rollout blows up. `progress(done_periods, total)` is
/// called after each period. Cost: nperiod x (3^m, ~2m x rounds, or <= 1 + rounds (2m + screen_count)) rollouts of period/dt steps.
PlanResult plan(const Model& model, const PlannerOptions& options, const std::function<void(int, int)>& progress = {});

/// The executed schedule as CSV text (schedule.csv of `tendyn plan`; io/csv.hpp conventions):
/// header t_s, <id>.u_m per drive cable, cx_m, cy_m, cost_m, path_error_m, <id>.tension_N per
/// drive cable; then one row per knot (cost_m 0 at the first knot), numbers "%.12g", '\n' after
/// every line. `drive_cables` are PlannerOptions::drive_cables of the run. Throws tendyn::Error
/// when they do not match the result (count, or an index outside the model). Cost O(nperiod m).
std::string plan_schedule_csv(const Model& model, const std::vector<int>& drive_cables, const PlanResult& result);

// ---- The planner's centroid and the planning policies shared by `tendyn plan`, the studio's
// inverse mode (viz::studio) and Python, so that the three plan the same problem.

/// The point the planner steers, C = (Cx, Cy) [m]: the mean over the rods of the floor projection
/// (x, y) of each rod's centre of mass p_WC (world frame). This is PlanResult::centroid_m.
/// Throws tendyn::Error when the model has no rods or `state` is not sized for the model.
/// Cost O(nrod).
Eigen::Vector2d plan_centroid_m(const Model& model, const State& state);

/// Indices into model.cables of the cables named `ids`, in the order given. Throws tendyn::Error
/// "<where>: no cable '<id>' in the model" for an unknown id and "<where>: cable '<id>' listed
/// twice" for a repeated one (a cable has one planned schedule). An empty `ids` gives an empty
/// list (plan() refuses it). Cost O(|ids| x ncable).
std::vector<int> cable_indices(const Model& model, const std::vector<std::string>& ids, const std::string& where);

/// Policy "the planner owns its drive cables": removes from model.drives every drive that acts
/// on one of `cables` (indices), keeping the others in their order, and returns how many were
/// removed. plan() refuses a model whose drives act on a planned cable; call this first (the
/// executed schedule is appended as new drives by PlanResult::as_drives). Never throws.
int remove_drives_on(Model& model, const std::vector<int>& cables);

/// Policy "rollouts on an impulse ground use a fixed step": the impulse ground needs a fixed-step
/// integrator (simulate refuses Dormand-Prince with it: impacts are located inside fixed steps),
/// so a model file asking for kDormandPrince45 on an impulse ground is planned with kRK4 at the
/// same dt_s (the first trial step of dopri5). Returns `simulation` with that substitution when
/// model.ground.type is kImpulse and the integrator is kDormandPrince45, otherwise unchanged.
/// Use the result as PlannerOptions::rollout and for the replay of the executed schedule (the
/// planned model on the same ground). Never throws.
SimulationOptions rollout_options(const Model& model, const SimulationOptions& simulation);

/// Path cost and helpers (exposed for tests and studies).
struct PathTracker {
  explicit PathTracker(const PlanPath& path);
  /// Cost c of a centroid position given the current segment (does not advance).
  [[nodiscard]] double cost(const Eigen::Vector2d& C) const;
  /// Advances the segment index past segments whose end C has reached.
  void advance(const Eigen::Vector2d& C);
  /// Distance of C from the polyline [m] and arc length of its projection.
  [[nodiscard]] double distance(const Eigen::Vector2d& C) const;
  [[nodiscard]] double arc_length(const Eigen::Vector2d& C) const;
  PlanPath path;
  int segment = 0;
};

}  // namespace tendyn::tensegrity
