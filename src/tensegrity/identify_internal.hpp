// Private header of the tensegrity identification (src/tensegrity/identify*.cpp): the parameter
// layout, the multiple-shooting setup, the prediction and the helpers its translation units share.
// identify.cpp: names and options; identify_layout.cpp: the fitted parameters and their layout;
// identify_motion.cpp: the motion data and its CSV files; identify_prediction.cpp: free runs and
// start values; identify_cost.cpp: the Ceres cost of a segment (ceres::Jet); identify_solve.cpp:
// the problem, the solve with restarts, the covariance and the verdict. Private header (src/).
#pragma once
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/identify.hpp>

#include "tensegrity/jet_dynamics.hpp"
#include "tensegrity/law.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <cstddef>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ceres/evaluation_callback.h>
#include <ceres/iteration_callback.h>
#include <ceres/solver.h>

namespace ceres {
class CostFunction;
}

namespace tendyn::tensegrity::identify_detail {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kStateParams = 12;  // per rod and segment: p_WC, unit axis e, v_WC, w_W

using law::value_of;

inline std::string num(double v) { return format_number(v, 6); }

inline std::string id_of(const std::vector<std::string>& ids, int i, const char* what) {
  return i < static_cast<int>(ids.size()) ? ids[static_cast<std::size_t>(i)] : std::string(what) + std::to_string(i);
}

inline int find_id(const std::vector<std::string>& ids, const std::string& id) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == id) return static_cast<int>(i);
  return -1;
}

inline bool is_ground_kind(ParameterKind k) {
  return k == ParameterKind::kFriction || k == ParameterKind::kGroundStiffness || k == ParameterKind::kGroundDamping;
}

// Winch parameter kinds: their slot 0..5 in Layout::winch_idx, -1 for the other kinds.
inline int winch_slot(ParameterKind k) {
  switch (k) {
    case ParameterKind::kWinchCoulombFriction: return 0;
    case ParameterKind::kWinchViscousFriction: return 1;
    case ParameterKind::kWinchNoLoadSpeed: return 2;
    case ParameterKind::kWinchKp: return 3;
    case ParameterKind::kWinchKi: return 4;
    case ParameterKind::kWinchKd: return 5;
    default: return -1;
  }
}
constexpr int kWinchSlots = 6;

// The winch parameter of slot `slot` (winch_slot) of winch w.
inline double& winch_value(Winch& w, int slot);
inline double winch_value(const Winch& w, int slot) {
  Winch c = w;
  return winch_value(c, slot);
}
inline double& winch_value(Winch& w, int slot) {
  switch (slot) {
    case 0: return w.coulomb_friction_Nm;
    case 1: return w.viscous_friction_Nmsprad;
    case 2: return w.no_load_speed_radps;
    case 3: return w.kp_per_m;
    case 4: return w.ki_per_ms;
    default: return w.kd_s_per_m;
  }
}

// The winch on cable k, -1 without.
inline int winch_of(const Model& m, int k) {
  for (int w = 0; w < m.nwinch(); ++w)
    if (m.winches[static_cast<std::size_t>(w)].cable == k) return w;
  return -1;
}

// Whether the model needs the general identification path (identify_general.cpp): winches,
// end-caps, body points or rods of general inertia, which the Jet path does not know.
inline bool needs_general_path(const Model& m) { return m.has_body_geometry() || !m.winches.empty() || !m.force_actuators.empty(); }

// ----------------------------------------------------------------------------- layout
// Where each physical quantity comes from: an index into theta (the fitted parameters), or -1
// for the model's value.
struct Layout {
  int nparam = 0;
  bool fit_initial = false;
  std::vector<int> k_idx, c_idx, l0_idx;  // per cable
  std::vector<int> mass_idx;              // per rod
  int mu_idx = -1, gk_idx = -1, gc_idx = -1;
  std::vector<int> winch_idx;          // kWinchSlots per winch (winch_slot)
  std::vector<ParameterGroup> groups;  // the groups with a theta entry, in theta order
};

// The layout of the selected groups; Error (prefixed "fit:") for an element outside the model, an
// element or a ground parameter fitted twice, a ground parameter without a compliant ground.
Layout make_layout(const Model& m, const std::vector<ParameterGroup>& groups);

// The nominal value of a group: the model's, averaged over the group's elements.
// (Winch kinds: elements are cables with a winch; make_layout refuses others.)
double nominal_value(const Model& m, const ParameterGroup& g);

// The dynamics in scalar T (Phys, Work, derivative, rk4, advance): src/tensegrity/jet_dynamics.hpp.
using jet_dynamics::advance;
using jet_dynamics::cable_force;
using jet_dynamics::kinematics;
using jet_dynamics::Phys;
using jet_dynamics::set_drive_offsets;
using jet_dynamics::Work;

template <class T>
void fill_phys(const Model& m, const Layout& L, const T* theta, Phys<T>& P) {
  const auto nc = static_cast<std::size_t>(m.ncable()), nr = static_cast<std::size_t>(m.nrod());
  P.k.resize(nc);
  P.c.resize(nc);
  P.l0.resize(nc);
  for (std::size_t k = 0; k < nc; ++k) {
    const Cable& cb = m.cables[k];
    P.k[k] = L.k_idx[k] >= 0 ? theta[L.k_idx[k]] : T(cb.stiffness_Npm);
    P.c[k] = L.c_idx[k] >= 0 ? theta[L.c_idx[k]] : T(cb.damping_Nspm);
    P.l0[k] = L.l0_idx[k] >= 0 ? theta[L.l0_idx[k]] : T(cb.rest_length_m);
  }
  P.mass.resize(nr);
  P.It.resize(nr);
  P.Ia.resize(nr);
  for (std::size_t j = 0; j < nr; ++j) {
    const Rod& r = m.rods[j];
    if (L.mass_idx[j] >= 0) {
      const T& mj = theta[L.mass_idx[j]];
      P.mass[j] = mj;
      P.It[j] = (r.inertia_transverse_kgm2 / r.mass_kg) * mj;  // inertia scales with the mass
      P.Ia[j] = (r.inertia_axial_kgm2 / r.mass_kg) * mj;
    } else {
      P.mass[j] = T(r.mass_kg);
      P.It[j] = T(r.inertia_transverse_kgm2);
      P.Ia[j] = T(r.inertia_axial_kgm2);
    }
  }
  P.mu = L.mu_idx >= 0 ? theta[L.mu_idx] : T(m.ground.friction);
  P.gk = L.gk_idx >= 0 ? theta[L.gk_idx] : T(m.ground.stiffness_Npm);
  P.gc = L.gc_idx >= 0 ? theta[L.gc_idx] : T(m.ground.damping_Nspm);
}

// Unit quaternion (w, x, y, z) rotating z onto the unit axis e: the shortest arc from +z when
// e_z >= 0, else the shortest arc from -z composed with a half turn about x (no singularity; the
// spin about the axis is irrelevant to every force and node, see identify.hpp).
template <class T>
void quaternion_of_axis(const T* e, T* q) {
  using std::sqrt;
  if (value_of(e[2]) >= 0.0) {
    q[0] = 1.0 + e[2];
    q[1] = -e[1];
    q[2] = e[0];
    q[3] = T(0.0);
  } else {
    q[0] = -e[1];
    q[1] = 1.0 - e[2];
    q[2] = T(0.0);
    q[3] = e[0];
  }
  const T n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int c = 0; c < 4; ++c) q[c] /= n;
}

// 13-number state of a rod from its 12 shooting numbers (the axis is normalised).
template <class T>
void state_from_params(const T* s, T* x) {
  using std::sqrt;
  for (int c = 0; c < 3; ++c) x[c] = s[c];
  const T n = sqrt(s[3] * s[3] + s[4] * s[4] + s[5] * s[5]);
  const T e[3] = {s[3] / n, s[4] / n, s[5] / n};
  quaternion_of_axis(e, x + 3);
  for (int c = 0; c < 6; ++c) x[7 + c] = s[6 + c];
}

// The 12 shooting numbers of rod `rod` of a state (position, unit axis, velocities).
void params_from_state(const State& st, int rod, double* s);

// Writes the fitted values theta into the model (a mass scales the rod's inertia with it).
void apply_theta(const Layout& L, const double* theta, Model& m);

// ----------------------------------------------------------------------------- the problem
struct Observation {
  int sample = 0;
  enum Type { kMarker, kLength, kTension } type = kMarker;
  int index = 0;  // marker (3 residuals), length or tension column (1 residual)
};

struct Segment {
  int first = 0, last = 0;  // samples [first, last] observed; integration from t[first] to t[end]
  int end = 0;              // sample where the next segment starts (== last for the final one... see build)
  bool final = false;
  std::vector<Observation> obs;
  int nresidual = 0;
};

struct Setup {
  const Model* model = nullptr;
  const MotionData* data = nullptr;
  IdentifyOptions options;
  Layout layout;
  std::vector<Segment> segments;
  std::vector<double> continuity_weight;  // 12 per rod
};

// Refuses a model the identification cannot differentiate (the impulse ground).
void check_model_supported(const Model& m);

// The validated problem: options, data, layout, segments with their observations.
Setup make_setup(const Model& m, const MotionData& d, const std::vector<ParameterGroup>& groups, const IdentifyOptions& o);

// The Ceres cost of segment `seg` of setup `s`, which must outlive it (identify_cost.cpp).
std::unique_ptr<ceres::CostFunction> make_segment_cost(const Setup* s, int seg);

// Levenberg-Marquardt options of both identification paths: the tolerances and iteration limit of
// `options`, one thread, silent (the caller sets the linear solver).
ceres::Solver::Options lm_solver_options(const IdentifyOptions& options);

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

// Evaluates every segment in parallel (`threads`) before each evaluation of the problem it is
// the evaluation callback of; Ceres itself then runs in one thread and only copies the cached
// results, summing the cost and the gradient in residual-block order. Ceres' own parallel
// evaluation summed the cost per thread, so the trust region followed sums that differed in the
// last bits between thread counts (and after 20 iterations a different fit); this way every
// number is the same for any thread count. Must outlive its problem (Ceres does not own it).
class SegmentEvaluation : public ceres::EvaluationCallback {
 public:
  explicit SegmentEvaluation(int threads) : threads_(threads) {}
  // cost: made by make_segment_cost; params: its parameter blocks, as given to AddResidualBlock
  void add(const ceres::CostFunction* cost, std::vector<double*> params);
  // Ceres has written the evaluation point into the parameter blocks when this is called.
  void PrepareForEvaluation(bool evaluate_jacobians, bool new_evaluation_point) override;

 private:
  int threads_;
  std::vector<std::pair<const ceres::CostFunction*, std::vector<double*>>> blocks_;
};

// One free run with the double template from a 12-number-per-rod start state over all samples
// from sample `from`; node positions at each sample into P (nsample x 3 nnode), from `from` on.
void free_run(const Model& m, const Layout& L, const double* theta, const double* start, const std::vector<double>& t, double dt,
              Eigen::MatrixXd& P, Work<double>* states_out = nullptr, std::vector<std::vector<double>>* state_at = nullptr);

// Start values: theta from the model; segment states from one nominal run, replaced rod by rod by
// an estimate from the markers where both end markers are present around the segment start.
struct Start {
  std::vector<double> theta;
  std::vector<std::vector<double>> states;  // per segment: 12 nrod
};

Start start_values(const Setup& S);

// Root mean square of the marker residuals of node positions P_nodes (nsample x 3 nnode), NaN without data.
double marker_rms(const MotionData& d, const Eigen::MatrixXd& P_nodes);

// The marker columns (nsample x 3 nmarker) of node positions P_nodes.
Eigen::MatrixXd marker_columns(const MotionData& d, const Eigen::MatrixXd& P_nodes);

// A weighted residual r through the robust loss (IdentifyOptions::loss, loss_scale in sigmas):
// r' = sign(r) sqrt(rho(r^2)).
template <class T>
T robust(const T& r, RobustLoss loss, double scale) {
  using std::log;
  using std::sqrt;
  const double a = std::abs(value_of(r));
  switch (loss) {
    case RobustLoss::kNone: return r;
    case RobustLoss::kHuber: {
      if (a <= scale) return r;
      // rho(s) = 2 d sqrt(s) - d^2: r' = sign(r) sqrt(2 d |r| - d^2)
      const T ar = value_of(r) < 0.0 ? T(-r) : r;
      const T v = sqrt(2.0 * scale * ar - scale * scale);
      return value_of(r) < 0.0 ? T(-v) : v;
    }
    case RobustLoss::kCauchy: {
      if (a == 0.0) return r;
      const T v = scale * sqrt(log(1.0 + r * r / (scale * scale)));
      return value_of(r) < 0.0 ? T(-v) : v;
    }
  }
  return r;
}

// ----------------------------------------------------------------------------- judging a fit
// "variance factor 4.02 (bound 1.1 for 2051 degrees of freedom), largest continuity gap 1.7 mm
// (bound 0.5 mm)"; without the gap part when `gap` is null (single shooting).
std::string fit_statistics(double variance_factor, double vf_bound, int dof, const double* gap, double gap_bound);

// Appends "<name>: no effect on the data" to R.unidentifiable for each parameter whose squared
// Jacobian column norm sens[i], times its scale max(|fitted|, |nominal|), is below 1e-12 of the largest.
void flag_no_effect(std::vector<double> sens, IdentifyResult& R);

// Appends the parameters whose standard deviation exceeds their value and the pairs correlated
// above 0.999 in magnitude (needs R.covariance_ok, R.parameters and R.correlation).
void flag_uncertain(IdentifyResult& R);

// What the verdict is made from (docs/IDENTIFY.md "Verdict").
struct VerdictFacts {
  double cost = 0.0;  // 1/2 |r|^2 at the optimum
  int dof = 0;
  double vf_bound = 0.0;
  bool shooting = true;  // multiple shooting: judge the continuity gap too
  double gap = 0.0, gap_bound = 0.0;
  bool iteration_limit = false;  // the solver stopped at max_iterations
  bool last_restart_improved = false;
};

// Sets R.verdict and R.verdict_reason from the facts, R.variance_factor, R.starts and R.unidentifiable.
void judge_fit(const VerdictFacts& facts, const IdentifyOptions& options, IdentifyResult& R);

// The identification of a model with winches, end-caps, body points or general inertia
// (needs_general_path): single shooting with the simulator's step in double and numeric
// derivatives (identify_general.cpp).
IdentifyResult identify_general(const Model& m, const MotionData& d, const std::vector<ParameterGroup>& groups, const IdentifyOptions& o);

}  // namespace tendyn::tensegrity::identify_detail
