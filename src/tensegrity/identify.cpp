// Parameter identification by multiple shooting and Ceres' Levenberg-Marquardt. See identify.hpp
// and docs/IDENTIFY.md. The prediction is one template on the scalar type: double for values,
// ceres::Jet for exact forward-mode derivatives through the RK4 integrator.
#include <tendyn/tensegrity/identify.hpp>

#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/dynamics.hpp>

#include "tensegrity/jet_dynamics.hpp"
#include "tensegrity/law.hpp"

#include <ceres/ceres.h>
#include <ceres/covariance.h>
#include <ceres/manifold.h>
#include <ceres/product_manifold.h>
#include <ceres/sphere_manifold.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kStateParams = 12;  // per rod and segment: p_WC, unit axis e, v_WC, w_W
constexpr int kStride = 8;        // derivative directions per Jet pass
using Jet = ceres::Jet<double, kStride>;

using law::value_of;


std::string id_of(const std::vector<std::string>& ids, int i, const char* what) {
  return i < static_cast<int>(ids.size()) ? ids[static_cast<std::size_t>(i)] : std::string(what) + std::to_string(i);
}

int find_id(const std::vector<std::string>& ids, const std::string& id) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == id) return static_cast<int>(i);
  return -1;
}

bool is_ground_kind(ParameterKind k) {
  return k == ParameterKind::kFriction || k == ParameterKind::kGroundStiffness || k == ParameterKind::kGroundDamping;
}

// ----------------------------------------------------------------------------- layout
// Where each physical quantity comes from: an index into theta (the fitted parameters), or -1
// for the model's value.
struct Layout {
  int nparam = 0;
  bool fit_initial = false;
  std::vector<int> k_idx, c_idx, l0_idx;  // per cable
  std::vector<int> mass_idx;              // per rod
  int mu_idx = -1, gk_idx = -1, gc_idx = -1;
  std::vector<ParameterGroup> groups;     // the groups with a theta entry, in theta order
};

Layout make_layout(const Model& m, const std::vector<ParameterGroup>& groups) {
  Layout L;
  L.k_idx.assign(static_cast<std::size_t>(m.ncable()), -1);
  L.c_idx = L.k_idx;
  L.l0_idx = L.k_idx;
  L.mass_idx.assign(static_cast<std::size_t>(m.nrod()), -1);
  for (const auto& g : groups) {
    if (g.kind == ParameterKind::kInitialState) {
      if (L.fit_initial) throw Error("fit: initial_state is selected twice");
      L.fit_initial = true;
      continue;
    }
    const int idx = L.nparam++;
    L.groups.push_back(g);
    std::vector<int>* target = nullptr;
    int nmax = m.ncable();
    switch (g.kind) {
      case ParameterKind::kStiffness: target = &L.k_idx; break;
      case ParameterKind::kDamping: target = &L.c_idx; break;
      case ParameterKind::kRestLength: target = &L.l0_idx; break;
      case ParameterKind::kMass: target = &L.mass_idx; nmax = m.nrod(); break;
      case ParameterKind::kFriction: L.mu_idx = idx; break;
      case ParameterKind::kGroundStiffness: L.gk_idx = idx; break;
      case ParameterKind::kGroundDamping: L.gc_idx = idx; break;
      case ParameterKind::kInitialState: break;
    }
    if (is_ground_kind(g.kind)) {
      if (m.ground.type != Ground::Type::kCompliant)
        throw Error("fit: '" + g.name + "' needs a compliant ground (the model's ground is " + to_string(m.ground.type) + ")");
      if (!g.elements.empty()) throw Error("fit: '" + g.name + "' takes no elements");
      continue;
    }
    if (g.elements.empty()) throw Error("fit: '" + g.name + "' has no element");
    for (int e : g.elements) {
      if (e < 0 || e >= nmax) throw Error("fit: '" + g.name + "' names element " + std::to_string(e) + " outside the model");
      int& slot = (*target)[static_cast<std::size_t>(e)];
      if (slot >= 0) throw Error("fit: '" + g.name + "' fits an element already fitted by '" + L.groups[static_cast<std::size_t>(slot)].name + "'");
      slot = idx;
    }
  }
  if (L.nparam == 0 && !L.fit_initial) throw Error("fit: no parameter selected");
  // the same ground parameter twice
  int nmu = 0, ngk = 0, ngc = 0;
  for (const auto& g : L.groups) {
    nmu += g.kind == ParameterKind::kFriction;
    ngk += g.kind == ParameterKind::kGroundStiffness;
    ngc += g.kind == ParameterKind::kGroundDamping;
  }
  if (nmu > 1 || ngk > 1 || ngc > 1) throw Error("fit: a ground parameter is selected twice");
  return L;
}

double nominal_value(const Model& m, const ParameterGroup& g) {
  double s = 0.0;
  for (int e : g.elements) {
    const auto i = static_cast<std::size_t>(e);
    switch (g.kind) {
      case ParameterKind::kStiffness: s += m.cables[i].stiffness_Npm; break;
      case ParameterKind::kDamping: s += m.cables[i].damping_Nspm; break;
      case ParameterKind::kRestLength: s += m.cables[i].rest_length_m; break;
      case ParameterKind::kMass: s += m.rods[i].mass_kg; break;
      default: break;
    }
  }
  switch (g.kind) {
    case ParameterKind::kFriction: return m.ground.friction;
    case ParameterKind::kGroundStiffness: return m.ground.stiffness_Npm;
    case ParameterKind::kGroundDamping: return m.ground.damping_Nspm;
    default: return s / static_cast<double>(g.elements.size());
  }
}

// The dynamics in scalar T (Phys, Work, derivative, rk4, advance): src/tensegrity/jet_dynamics.hpp.
using jet_dynamics::Phys;
using jet_dynamics::Work;
using jet_dynamics::kinematics;
using jet_dynamics::advance;
using jet_dynamics::cable_force;
using jet_dynamics::set_drive_offsets;

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

void params_from_state(const State& st, int rod, double* s) {
  const double* x = st.x.data() + State::kStride * rod;
  double e[3];
  Eigen::Vector4d q(x[3], x[4], x[5], x[6]);
  q.normalize();
  law::rod_axis(q.data(), e);
  for (int c = 0; c < 3; ++c) {
    s[c] = x[c];
    s[3 + c] = e[c];
    s[6 + c] = x[7 + c];
    s[9 + c] = x[10 + c];
  }
}

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

// Residuals of segment `seg`: theta (nparam), own start states (12 nrod), next start states
// (12 nrod, final segment: none). Writes nresidual numbers; optionally the end state.
template <class T>
void segment_residuals(const Setup& S, int seg, const T* theta, const T* own, const double* next, T* res) {
  const Model& m = *S.model;
  const MotionData& d = *S.data;
  const Segment& sg = S.segments[static_cast<std::size_t>(seg)];
  Phys<T> P;
  fill_phys(m, S.layout, theta, P);
  Work<T> w;
  w.resize(m);
  for (int j = 0; j < m.nrod(); ++j) state_from_params(own + kStateParams * j, w.x.data() + State::kStride * j);
  const double sm = S.options.marker_sigma_m, sl = S.options.length_sigma_m, st = S.options.tension_sigma_N;
  int r = 0;
  int cur = sg.first;
  std::size_t oi = 0;
  auto observe = [&](int sample) {
    bool kin = false;
    for (; oi < sg.obs.size() && sg.obs[oi].sample == sample; ++oi) {
      const Observation& o = sg.obs[oi];
      if (!kin) {
        set_drive_offsets(m, d.t_s[static_cast<std::size_t>(sample)], w);
        kinematics(m, w.x.data(), w);
        kin = true;
      }
      if (o.type == Observation::kMarker) {
        const auto nd = static_cast<std::size_t>(3 * d.marker_nodes[static_cast<std::size_t>(o.index)]);
        for (int c = 0; c < 3; ++c)
          res[r++] = robust(T((w.p[nd + c] - d.p_W_marker_m(sample, 3 * o.index + c)) / sm), S.options.loss, S.options.loss_scale);
      } else if (o.type == Observation::kLength) {
        using std::sqrt;
        const Cable& cb = m.cables[static_cast<std::size_t>(d.length_cables[static_cast<std::size_t>(o.index)])];
        const auto a = static_cast<std::size_t>(3 * cb.node[0]), b = static_cast<std::size_t>(3 * cb.node[1]);
        const T l = sqrt((w.p[b] - w.p[a]) * (w.p[b] - w.p[a]) + (w.p[b + 1] - w.p[a + 1]) * (w.p[b + 1] - w.p[a + 1]) +
                         (w.p[b + 2] - w.p[a + 2]) * (w.p[b + 2] - w.p[a + 2]));
        res[r++] = robust(T((l - d.cable_length_m(sample, o.index)) / sl), S.options.loss, S.options.loss_scale);
      } else {
        T tension, fa[3];
        cable_force(m, P, w, d.tension_cables[static_cast<std::size_t>(o.index)], d.t_s[static_cast<std::size_t>(sample)], tension, fa);
        res[r++] = robust(T((tension - d.cable_tension_N(sample, o.index)) / st), S.options.loss, S.options.loss_scale);
      }
    }
  };
  observe(cur);
  const int stop = sg.final ? sg.last : sg.end;
  while (cur < stop) {
    advance(m, P, d.t_s[static_cast<std::size_t>(cur)], d.t_s[static_cast<std::size_t>(cur + 1)], S.options.dt_s, w);
    ++cur;
    if (cur <= sg.last) observe(cur);
  }
  if (!sg.final) {
    for (int j = 0; j < m.nrod(); ++j) {
      const T* x = w.x.data() + State::kStride * j;
      T e[3];
      law::rod_axis(x + 3, e);
      const double* nx = next + kStateParams * j;
      using std::sqrt;
      const double ne = std::sqrt(nx[3] * nx[3] + nx[4] * nx[4] + nx[5] * nx[5]);
      const T cur_state[12] = {x[0], x[1], x[2], e[0], e[1], e[2], x[7], x[8], x[9], x[10], x[11], x[12]};
      for (int c = 0; c < 12; ++c) {
        const double target = (c >= 3 && c < 6) ? nx[c] / ne : nx[c];
        res[r++] = S.continuity_weight[static_cast<std::size_t>(c)] * (cur_state[c] - target);
      }
    }
  }
}

// Ceres cost of one segment: exact derivatives in passes of kStride directions over theta and the
// segment's own start states; the continuity residuals' derivatives with respect to the next
// segment's start states in closed form.
class SegmentCost : public ceres::CostFunction {
 public:
  SegmentCost(const Setup* s, int seg) : s_(s), seg_(seg) {
    const Segment& sg = s->segments[static_cast<std::size_t>(seg)];
    set_num_residuals(sg.nresidual);
    if (s->layout.nparam > 0) mutable_parameter_block_sizes()->push_back(s->layout.nparam);
    const int nr = s->model->nrod();
    for (int j = 0; j < nr; ++j) mutable_parameter_block_sizes()->push_back(kStateParams);
    if (!sg.final)
      for (int j = 0; j < nr; ++j) mutable_parameter_block_sizes()->push_back(kStateParams);
  }

  // Ceres evaluates the Jacobian at a trial point twice when the problem has bounds (its projected
  // line search with cubic interpolation evaluates the gradient there, then the accepted step is
  // evaluated again), and the covariance once more at the optimum: the last Jacobian is kept and
  // returned while the parameter values are bit-identical. Ceres evaluates a residual block from
  // one thread at a time (the blocks of one evaluation run in parallel, never one block twice),
  // so the cache needs no lock; it is a pure function of the inputs, so results do not change.
  bool Evaluate(double const* const* params, double* residuals, double** jacobians) const override {
    const std::vector<int32_t>& sizes = parameter_block_sizes();
    in_.clear();
    for (std::size_t b = 0; b < sizes.size(); ++b) in_.insert(in_.end(), params[b], params[b] + sizes[b]);
    const bool hit = cached_ && in_.size() == cache_in_.size() &&
                     std::memcmp(in_.data(), cache_in_.data(), in_.size() * sizeof(double)) == 0;
    if (!hit && !jacobians) return Compute(params, residuals, nullptr);
    const int nres = num_residuals();
    if (!hit) {
      cached_ = false;
      cache_res_.resize(static_cast<std::size_t>(nres));
      cache_jac_.resize(sizes.size());
      std::vector<double*> out(sizes.size());
      for (std::size_t b = 0; b < sizes.size(); ++b) {
        cache_jac_[b].assign(static_cast<std::size_t>(nres) * static_cast<std::size_t>(sizes[b]), 0.0);
        out[b] = cache_jac_[b].data();
      }
      if (!Compute(params, cache_res_.data(), out.data())) return false;
      cache_in_ = in_;
      cached_ = true;
    }
    std::copy(cache_res_.begin(), cache_res_.end(), residuals);
    if (jacobians)
      for (std::size_t b = 0; b < sizes.size(); ++b)
        if (jacobians[b]) std::copy(cache_jac_[b].begin(), cache_jac_[b].end(), jacobians[b]);
    return true;
  }

 private:
  // The evaluation proper (jacobians: null, or one buffer per parameter block, each filled).
  bool Compute(double const* const* params, double* residuals, double** jacobians) const {
    const Setup& S = *s_;
    const int nr = S.model->nrod(), np = S.layout.nparam;
    const Segment& sg = S.segments[static_cast<std::size_t>(seg_)];
    const int b0 = np > 0 ? 1 : 0;
    std::vector<double> theta(static_cast<std::size_t>(std::max(np, 1)), 0.0), own(static_cast<std::size_t>(kStateParams * nr)),
        next(static_cast<std::size_t>(kStateParams * nr), 0.0);
    for (int i = 0; i < np; ++i) theta[static_cast<std::size_t>(i)] = params[0][i];
    for (int j = 0; j < nr; ++j)
      for (int c = 0; c < kStateParams; ++c) {
        own[static_cast<std::size_t>(kStateParams * j + c)] = params[b0 + j][c];
        if (!sg.final) next[static_cast<std::size_t>(kStateParams * j + c)] = params[b0 + nr + j][c];
      }
    try {
      const bool any_jac = jacobians != nullptr;
      if (!any_jac) {
        segment_residuals<double>(S, seg_, theta.data(), own.data(), next.data(), residuals);
        return true;
      }
      const int nin = np + kStateParams * nr;
      const int nres = sg.nresidual;
      std::vector<Jet> jt(theta.size()), jo(own.size()), jr(static_cast<std::size_t>(nres));
      for (int pass = 0; pass * kStride < nin; ++pass) {
        for (std::size_t i = 0; i < jt.size(); ++i) jt[i] = Jet(theta[i]);
        for (std::size_t i = 0; i < jo.size(); ++i) jo[i] = Jet(own[i]);
        for (int q = 0; q < kStride; ++q) {
          const int i = pass * kStride + q;
          if (i >= nin) break;
          if (i < np)
            jt[static_cast<std::size_t>(i)].v[q] = 1.0;
          else
            jo[static_cast<std::size_t>(i - np)].v[q] = 1.0;
        }
        segment_residuals<Jet>(S, seg_, jt.data(), jo.data(), next.data(), jr.data());
        if (pass == 0)
          for (int r = 0; r < nres; ++r) residuals[r] = jr[static_cast<std::size_t>(r)].a;
        for (int q = 0; q < kStride; ++q) {
          const int i = pass * kStride + q;
          if (i >= nin) break;
          double* J = nullptr;
          int col = 0, width = 0;
          if (i < np) {
            J = jacobians[0];
            col = i;
            width = np;
          } else {
            const int j = (i - np) / kStateParams;
            J = jacobians[b0 + j];
            col = (i - np) % kStateParams;
            width = kStateParams;
          }
          if (!J) continue;
          for (int r = 0; r < nres; ++r) J[r * width + col] = jr[static_cast<std::size_t>(r)].v[q];
        }
      }
      if (!sg.final) {
        const int c0 = nres - kStateParams * nr;
        for (int j = 0; j < nr; ++j) {
          double* J = jacobians[b0 + nr + j];
          if (!J) continue;
          std::fill(J, J + static_cast<std::ptrdiff_t>(nres) * kStateParams, 0.0);
          const double* nx = &next[static_cast<std::size_t>(kStateParams * j)];
          const double n = std::sqrt(nx[3] * nx[3] + nx[4] * nx[4] + nx[5] * nx[5]);
          for (int c = 0; c < kStateParams; ++c) {
            const int r = c0 + kStateParams * j + c;
            const double wgt = S.continuity_weight[static_cast<std::size_t>(c)];
            if (c >= 3 && c < 6) {
              // d(-x_c / |x|) / dx_k = -(delta_ck / n - x_c x_k / n^3)
              for (int k = 3; k < 6; ++k) J[r * kStateParams + k] = -wgt * ((c == k ? 1.0 / n : 0.0) - nx[c] * nx[k] / (n * n * n));
            } else {
              J[r * kStateParams + c] = -wgt;
            }
          }
        }
      }
      return true;
    } catch (const SimulationError&) {
      return false;  // Ceres rejects the step (the trial parameters collapse a cable)
    }
  }

  const Setup* s_;
  int seg_;
  // the last Jacobian evaluation (see Evaluate)
  mutable std::vector<double> in_, cache_in_, cache_res_;
  mutable std::vector<std::vector<double>> cache_jac_;
  mutable bool cached_ = false;
};

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

void check_model_supported(const Model& m) {
  if (m.ground.type == Ground::Type::kImpulse)
    throw Error("identify: the impulse ground is not supported (its impacts, located inside steps, are not differentiable); "
                "use a compliant ground (ground: {type: compliant, ...}) or none");
}

Setup make_setup(const Model& m, const MotionData& d, const std::vector<ParameterGroup>& groups, const IdentifyOptions& o) {
  validate(o);
  validate(m, d);
  if (const double steps = identify_step_count(d.t_s, o.dt_s); !(steps <= kIdentifyMaxSteps))
    throw Error("identify option dt_s: " + format_number(steps, 6) + " integration steps per pass over the data (" +
                format_number(d.t_s.back() - d.t_s.front(), 6) + " s of data at dt " + format_number(o.dt_s, 6) + " s), above the limit " + format_number(kIdentifyMaxSteps, 6));
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
      throw Error("identify: the data between t = " + format_number(d.t_s[static_cast<std::size_t>(sg.first)], 6) + " s and " +
                  format_number(d.t_s[static_cast<std::size_t>(sg.last)], 6) + " s have no measured value");
  return S;
}

// One free run with the double template from a 12-number-per-rod start state over all samples
// from sample `from`; node positions at each sample into P (nsample x 3 nnode), from `from` on.
void free_run(const Model& m, const Layout& L, const double* theta, const double* start, const std::vector<double>& t, double dt,
              Eigen::MatrixXd& P, Work<double>* states_out = nullptr, std::vector<std::vector<double>>* state_at = nullptr) {
  Phys<double> ph;
  fill_phys(m, L, theta, ph);
  Work<double> w;
  w.resize(m);
  for (int j = 0; j < m.nrod(); ++j) state_from_params(start + kStateParams * j, w.x.data() + State::kStride * j);
  const int N = static_cast<int>(t.size());
  P.setConstant(N, 3 * m.nnode(), kNaN);
  if (state_at) state_at->assign(static_cast<std::size_t>(N), {});
  for (int s = 0; s < N; ++s) {
    if (s > 0) advance(m, ph, t[static_cast<std::size_t>(s - 1)], t[static_cast<std::size_t>(s)], dt, w);
    kinematics(m, w.x.data(), w);
    for (int i = 0; i < 3 * m.nnode(); ++i) P(s, i) = w.p[static_cast<std::size_t>(i)];
    if (state_at) (*state_at)[static_cast<std::size_t>(s)] = w.x;
  }
  (void)states_out;
}

// Start values: theta from the model; segment states from one nominal run, replaced rod by rod by
// an estimate from the markers where both end markers are present around the segment start.
struct Start {
  std::vector<double> theta;
  std::vector<std::vector<double>> states;  // per segment: 12 nrod
};

Start start_values(const Setup& S) {
  const Model& m = *S.model;
  const MotionData& d = *S.data;
  Start st;
  st.theta.assign(static_cast<std::size_t>(std::max(S.layout.nparam, 1)), 0.0);
  for (int i = 0; i < S.layout.nparam; ++i) st.theta[static_cast<std::size_t>(i)] = nominal_value(m, S.layout.groups[static_cast<std::size_t>(i)]);
  const int nr = m.nrod();
  std::vector<double> s0(static_cast<std::size_t>(kStateParams * nr));
  for (int j = 0; j < nr; ++j) params_from_state(m.initial_state, j, &s0[static_cast<std::size_t>(kStateParams * j)]);
  Eigen::MatrixXd P;
  std::vector<std::vector<double>> xs;
  bool nominal_ok = true;
  try {
    free_run(m, S.layout, st.theta.data(), s0.data(), d.t_s, S.options.dt_s, P, nullptr, &xs);
  } catch (const SimulationError&) {
    nominal_ok = false;
  }
  std::vector<int> marker_of_node(static_cast<std::size_t>(m.nnode()), -1);
  for (int i = 0; i < d.nmarker(); ++i) marker_of_node[static_cast<std::size_t>(d.marker_nodes[static_cast<std::size_t>(i)])] = i;
  auto ends_at = [&](int rod, int s, Eigen::Vector3d& a, Eigen::Vector3d& b) {
    if (s < 0 || s >= d.nsample()) return false;
    const Rod& r = m.rods[static_cast<std::size_t>(rod)];
    const int m0 = marker_of_node[static_cast<std::size_t>(r.node[0])], m1 = marker_of_node[static_cast<std::size_t>(r.node[1])];
    if (m0 < 0 || m1 < 0) return false;
    a = d.p_W_marker_m.block(s, 3 * m0, 1, 3).transpose();
    b = d.p_W_marker_m.block(s, 3 * m1, 1, 3).transpose();
    return a.allFinite() && b.allFinite() && (b - a).norm() > 0.0;
  };
  for (std::size_t k = 0; k < S.segments.size(); ++k) {
    const int s = S.segments[k].first;
    std::vector<double> x(static_cast<std::size_t>(kStateParams * nr));
    if (k == 0) {
      x = s0;
    } else {
      for (int j = 0; j < nr; ++j) {
        double* sj = &x[static_cast<std::size_t>(kStateParams * j)];
        if (nominal_ok) {
          State tmp;
          tmp.x = Eigen::Map<const Eigen::VectorXd>(xs[static_cast<std::size_t>(s)].data(), State::kStride * nr);
          params_from_state(tmp, j, sj);
        } else {
          for (int c = 0; c < kStateParams; ++c) sj[c] = s0[static_cast<std::size_t>(kStateParams * j + c)];
        }
        Eigen::Vector3d a, b;
        if (!ends_at(j, s, a, b)) continue;
        const double ac = m.rods[static_cast<std::size_t>(j)].com_ratio;
        const Eigen::Vector3d e = (b - a).normalized();
        const Eigen::Vector3d p = ac * a + (1.0 - ac) * b;
        for (int c = 0; c < 3; ++c) {
          sj[c] = p[c];
          sj[3 + c] = e[c];
        }
        // velocities: central differences over the nearest complete samples (within 3)
        int lo = -1, hi = -1;
        Eigen::Vector3d al, bl, ah, bh;
        for (int q = 1; q <= 3 && lo < 0; ++q)
          if (ends_at(j, s - q, al, bl)) lo = s - q;
        for (int q = 1; q <= 3 && hi < 0; ++q)
          if (ends_at(j, s + q, ah, bh)) hi = s + q;
        if (lo < 0) { lo = s; al = a; bl = b; }
        if (hi < 0) { hi = s; ah = a; bh = b; }
        if (hi == lo) continue;
        const double dt = d.t_s[static_cast<std::size_t>(hi)] - d.t_s[static_cast<std::size_t>(lo)];
        const Eigen::Vector3d v = ((ac * ah + (1 - ac) * bh) - (ac * al + (1 - ac) * bl)) / dt;
        const Eigen::Vector3d edot = ((bh - ah).normalized() - (bl - al).normalized()) / dt;
        Eigen::Vector3d wv = e.cross(edot);
        const Eigen::Vector3d w_old(sj[9], sj[10], sj[11]);
        wv += w_old.dot(e) * e;  // the spin rate about the axis is not seen by markers: keep the run's
        for (int c = 0; c < 3; ++c) {
          sj[6 + c] = v[c];
          sj[9 + c] = wv[c];
        }
      }
    }
    st.states.push_back(std::move(x));
  }
  return st;
}

void apply_theta(const Layout& L, const double* theta, Model& m) {
  for (int i = 0; i < L.nparam; ++i) {
    const ParameterGroup& g = L.groups[static_cast<std::size_t>(i)];
    const double v = theta[i];
    for (int e : g.elements) {
      const auto u = static_cast<std::size_t>(e);
      switch (g.kind) {
        case ParameterKind::kStiffness: m.cables[u].stiffness_Npm = v; break;
        case ParameterKind::kDamping: m.cables[u].damping_Nspm = v; break;
        case ParameterKind::kRestLength: m.cables[u].rest_length_m = v; break;
        case ParameterKind::kMass: {
          Rod& r = m.rods[u];
          r.inertia_transverse_kgm2 *= v / r.mass_kg;
          r.inertia_axial_kgm2 *= v / r.mass_kg;
          r.mass_kg = v;
          break;
        }
        default: break;
      }
    }
    if (g.kind == ParameterKind::kFriction) m.ground.friction = v;
    if (g.kind == ParameterKind::kGroundStiffness) m.ground.stiffness_Npm = v;
    if (g.kind == ParameterKind::kGroundDamping) m.ground.damping_Nspm = v;
  }
}

double marker_rms(const MotionData& d, const Eigen::MatrixXd& P_nodes) {
  double s = 0.0;
  long n = 0;
  for (int k = 0; k < d.nsample(); ++k)
    for (int i = 0; i < d.nmarker(); ++i)
      for (int c = 0; c < 3; ++c) {
        const double meas = d.p_W_marker_m(k, 3 * i + c);
        if (std::isnan(meas)) continue;
        const double r = P_nodes(k, 3 * d.marker_nodes[static_cast<std::size_t>(i)] + c) - meas;
        s += r * r;
        ++n;
      }
  return n > 0 ? std::sqrt(s / static_cast<double>(n)) : kNaN;
}

Eigen::MatrixXd marker_columns(const MotionData& d, const Eigen::MatrixXd& P_nodes) {
  Eigen::MatrixXd out(d.nsample(), 3 * d.nmarker());
  for (int i = 0; i < d.nmarker(); ++i) out.middleCols(3 * i, 3) = P_nodes.middleCols(3 * d.marker_nodes[static_cast<std::size_t>(i)], 3);
  return out;
}

}  // namespace

double variance_factor_bound(int dof) {
  if (dof < 1) return kNaN;
  // Wilson-Hilferty: (chi^2 / dof)^(1/3) is nearly normal with mean 1 - 2 / (9 dof) and variance 2 / (9 dof)
  constexpr double z = 3.0902323061678132;  // the standard normal 99.9 % quantile
  const double a = 2.0 / (9.0 * static_cast<double>(dof));
  const double c = 1.0 - a + z * std::sqrt(a);
  return c * c * c;
}

// ------------------------------------------------------------------------------ fit spec
std::vector<ParameterGroup> parse_fit_spec(const Model& model, const std::string& spec) {
  const auto items = io::split_fields(spec, ',');
  if (items.empty()) throw Error("--fit: empty list (e.g. stiffness:all,damping:all,friction)");
  std::vector<ParameterGroup> out;
  for (std::size_t n = 0; n < items.size(); ++n) {
    const std::string& item = items[n];
    const std::string where = "--fit: item " + std::to_string(n + 1) + " '" + item + "'";
    if (item.empty()) throw Error("--fit: item " + std::to_string(n + 1) + " is empty");
    const auto colon = item.find(':');
    const std::string kname = item.substr(0, colon);
    ParameterKind kind;
    try {
      kind = parameter_kind_from_string(kname);
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
    const bool has_sel = colon != std::string::npos;
    const std::string sel = has_sel ? item.substr(colon + 1) : std::string();
    if (is_ground_kind(kind) || kind == ParameterKind::kInitialState) {
      if (has_sel) throw Error(where + ": '" + kname + "' takes no selection");
      if (is_ground_kind(kind) && model.ground.type != Ground::Type::kCompliant)
        throw Error(where + ": needs a compliant ground (the model's ground is " + to_string(model.ground.type) + ")");
      out.push_back({kind, {}, kname});
      continue;
    }
    const bool rods = kind == ParameterKind::kMass;
    const auto& ids = rods ? model.rod_ids : model.cable_ids;
    const int count = rods ? model.nrod() : model.ncable();
    if (has_sel && sel.empty()) throw Error(where + ": empty selection after ':' (all, an id, or ids joined by '+')");
    if (!has_sel || sel == "all") {
      for (int e = 0; e < count; ++e) out.push_back({kind, {e}, kname + ":" + id_of(ids, e, rods ? "rod" : "cable")});
      continue;
    }
    ParameterGroup g{kind, {}, item};
    // ids joined by '+', where an id may contain '+' itself (the 6-bar builder's rod_x+): from
    // left to right, the longest id of the model that ends at a '+' or at the end of the selection
    std::size_t pos = 0;
    for (;;) {
      int e = -1;
      std::size_t len = 0;
      for (std::size_t k = 0; k < ids.size(); ++k) {
        const std::string& cand = ids[k];
        if (cand.size() <= len || sel.compare(pos, cand.size(), cand) != 0) continue;
        if (pos + cand.size() != sel.size() && sel[pos + cand.size()] != '+') continue;
        e = static_cast<int>(k);
        len = cand.size();
      }
      if (e < 0) {
        const std::size_t plus = sel.find('+', pos);
        const std::string id = sel.substr(pos, plus == std::string::npos ? std::string::npos : plus - pos);
        if (id.empty()) throw Error(where + ": empty id in '" + sel + "'");
        throw Error(where + ": no " + std::string(rods ? "rod" : "cable") + " '" + id + "' in the model");
      }
      const std::string& id = ids[static_cast<std::size_t>(e)];
      if (std::find(g.elements.begin(), g.elements.end(), e) != g.elements.end()) throw Error(where + ": '" + id + "' is listed twice");
      g.elements.push_back(e);
      pos += len;
      if (pos == sel.size()) break;
      ++pos;  // the '+'
      if (pos == sel.size()) throw Error(where + ": empty id in '" + sel + "'");
    }
    out.push_back(std::move(g));
  }
  // an element or a ground parameter fitted twice: the layout's checks, with the --fit prefix
  try {
    (void)make_layout(model, out);
  } catch (const Error& e) {
    throw Error(std::string("--") + e.what());
  }
  return out;
}

// ------------------------------------------------------------------------------ data
void validate(const Model& model, const MotionData& d) {
  const int N = d.nsample();
  if (N < 2) throw Error("motion data: at least 2 samples are needed (have " + std::to_string(N) + ")");
  for (int s = 0; s < N; ++s) {
    if (!std::isfinite(d.t_s[static_cast<std::size_t>(s)])) throw Error("motion data: time of sample " + std::to_string(s) + " is not finite");
    if (s > 0 && !(d.t_s[static_cast<std::size_t>(s)] > d.t_s[static_cast<std::size_t>(s - 1)]))
      throw Error("motion data: times must increase strictly (sample " + std::to_string(s) + ")");
  }
  if (d.p_W_marker_m.rows() != N || d.p_W_marker_m.cols() != 3 * d.nmarker())
    throw Error("motion data: the marker matrix must be nsample x 3 nmarker");
  std::vector<int> seen(static_cast<std::size_t>(model.nnode()), 0);
  for (int n : d.marker_nodes) {
    if (n < 0 || n >= model.nnode()) throw Error("motion data: marker node index " + std::to_string(n) + " outside the model");
    if (model.nodes[static_cast<std::size_t>(n)].is_anchor()) throw Error("motion data: marker on anchor '" + id_of(model.node_ids, n, "node") + "'");
    if (seen[static_cast<std::size_t>(n)]++) throw Error("motion data: node '" + id_of(model.node_ids, n, "node") + "' has two markers");
  }
  auto check_cols = [&](const std::vector<int>& cables, const Eigen::MatrixXd& M, const char* what) {
    if (M.rows() != (cables.empty() ? M.rows() : N) || M.cols() != static_cast<int>(cables.size()))
      throw Error(std::string("motion data: the ") + what + " matrix must be nsample x n" + what);
    for (int k : cables)
      if (k < 0 || k >= model.ncable()) throw Error(std::string("motion data: ") + what + " cable index " + std::to_string(k) + " outside the model");
  };
  check_cols(d.length_cables, d.cable_length_m, "length");
  check_cols(d.tension_cables, d.cable_tension_N, "tension");
  if (d.nmarker() == 0 && d.length_cables.empty() && d.tension_cables.empty()) throw Error("motion data: no marker, length or tension");
  for (int s = 0; s < N; ++s)
    for (int i = 0; i < d.nmarker(); ++i) {
      const int nn = static_cast<int>(std::isnan(d.p_W_marker_m(s, 3 * i))) + static_cast<int>(std::isnan(d.p_W_marker_m(s, 3 * i + 1))) +
                     static_cast<int>(std::isnan(d.p_W_marker_m(s, 3 * i + 2)));
      if (nn != 0 && nn != 3)
        throw Error("motion data: marker '" + id_of(model.node_ids, d.marker_nodes[static_cast<std::size_t>(i)], "node") + "' at sample " +
                    std::to_string(s) + " is partly missing");
      for (int c = 0; c < 3; ++c) {
        const double v = d.p_W_marker_m(s, 3 * i + c);
        if (std::isnan(v)) continue;
        if (!(std::abs(v) <= kMaxMotionPosition_m))
          throw Error("motion data: marker '" + id_of(model.node_ids, d.marker_nodes[static_cast<std::size_t>(i)], "node") + "' at sample " +
                      std::to_string(s) + ": " + "xyz"[c] + " = " + format_number(v, 6) + " m is " + (std::isinf(v) ? "not finite" : "above the limit " + format_number(kMaxMotionPosition_m, 6) + " m in magnitude"));
      }
    }
  auto check_values = [&](const std::vector<int>& cables, const Eigen::MatrixXd& M, const char* what, double limit, const char* unit) {
    for (int s = 0; s < N; ++s)
      for (int i = 0; i < static_cast<int>(cables.size()); ++i) {
        const double v = M(s, i);
        if (std::isnan(v) || std::abs(v) <= limit) continue;
        throw Error(std::string("motion data: ") + what + " of cable '" + id_of(model.cable_ids, cables[static_cast<std::size_t>(i)], "cable") +
                    "' at sample " + std::to_string(s) + ": " + format_number(v, 6) + " " + unit + " is " +
                    (std::isinf(v) ? std::string("not finite") : "above the limit " + format_number(limit, 6) + " " + unit + " in magnitude"));
      }
  };
  check_values(d.length_cables, d.cable_length_m, "length", kMaxMotionPosition_m, "m");
  check_values(d.tension_cables, d.cable_tension_N, "tension", kMaxMotionTension_N, "N");
}

MotionData load_motion_csv(const Model& model, const std::string& path) {
  io::CsvReader in(path);
  const auto& h = in.header();
  const std::string hdr = path + ":1:";
  // column positions (1-based) for error places: the header's field starts
  auto col_of = [&](int i) {
    int c = 1;
    for (int k = 0; k < i; ++k) c += static_cast<int>(h[static_cast<std::size_t>(k)].size()) + 1;
    return c;
  };
  auto herr = [&](int i, const std::string& why) { return Error(hdr + std::to_string(col_of(i)) + ": column '" + h[static_cast<std::size_t>(i)] + "': " + why); };
  if (h.empty() || h[0] != "t_s") throw Error(hdr + "1: the first column must be 't_s'");
  MotionData d;
  struct Col {
    int type = 0, index = 0, comp = 0;  // type 0 marker, 1 length, 2 tension
  };
  std::vector<Col> cols(h.size());
  std::map<int, std::array<int, 3>> marker_cols;  // node -> column of x, y, z
  std::map<int, int> len_cols, ten_cols;
  std::map<std::string, int> names;
  for (int i = 1; i < static_cast<int>(h.size()); ++i) {
    const std::string& name = h[static_cast<std::size_t>(i)];
    if (!names.emplace(name, i).second) throw herr(i, "repeated column");
    auto ends = [&](const std::string& suf) { return name.size() > suf.size() && name.compare(name.size() - suf.size(), suf.size(), suf) == 0; };
    auto stem = [&](const std::string& suf) { return name.substr(0, name.size() - suf.size()); };
    bool done = false;
    for (int c = 0; c < 3 && !done; ++c) {
      const std::string suf = std::string("_") + "xyz"[c] + "_m";
      if (!ends(suf)) continue;
      const int node = find_id(model.node_ids, stem(suf));
      if (node < 0) throw herr(i, "no node '" + stem(suf) + "' in the model");
      if (model.nodes[static_cast<std::size_t>(node)].is_anchor()) throw herr(i, "node '" + stem(suf) + "' is an anchor (it does not move)");
      auto it = marker_cols.try_emplace(node, std::array<int, 3>{-1, -1, -1}).first;
      it->second[static_cast<std::size_t>(c)] = i;
      done = true;
    }
    if (done) continue;
    if (ends("_length_m") || ends("_tension_N")) {
      const bool len = ends("_length_m");
      const std::string id = stem(len ? "_length_m" : "_tension_N");
      const int k = find_id(model.cable_ids, id);
      if (k < 0) throw herr(i, "no cable '" + id + "' in the model");
      (len ? len_cols : ten_cols)[k] = i;
      continue;
    }
    throw herr(i, "expected <node>_x_m, <node>_y_m, <node>_z_m, <cable>_length_m or <cable>_tension_N");
  }
  std::vector<std::array<int, 3>> mcols;
  for (const auto& [node, c3] : marker_cols) {
    for (int c = 0; c < 3; ++c)
      if (c3[static_cast<std::size_t>(c)] < 0) {
        const int any = c3[0] >= 0 ? c3[0] : (c3[1] >= 0 ? c3[1] : c3[2]);
        throw herr(any, std::string("the marker of node '") + model.node_ids[static_cast<std::size_t>(node)] + "' has no " + "xyz"[c] +
                            " column");
      }
    d.marker_nodes.push_back(node);
    mcols.push_back(c3);
  }
  // marker order: node order of the model (std::map) — deterministic
  std::vector<int> lcols, tcols;
  for (const auto& [k, c] : len_cols) {
    d.length_cables.push_back(k);
    lcols.push_back(c);
  }
  for (const auto& [k, c] : ten_cols) {
    d.tension_cables.push_back(k);
    tcols.push_back(c);
  }
  if (mcols.empty() && lcols.empty() && tcols.empty()) throw Error(hdr + "1: no marker, length or tension column");
  std::vector<std::vector<double>> rows_m, rows_l, rows_t;
  // a measured value, bounded in magnitude (a larger one is a unit or export error, and its
  // squared residual would overflow the solver's cost)
  auto value = [&](int col, double limit, const char* unit) {
    const double v = in.number(col);
    if (!(std::abs(v) <= limit))
      throw Error(in.where(col) + " (" + h[static_cast<std::size_t>(col)] + "): " + format_number(v, 6) + " " + unit + " is above the limit " + format_number(limit, 6) +
                  " " + unit + " in magnitude");
    return v;
  };
  while (in.next()) {
    const double t = in.number(0);
    if (!d.t_s.empty() && !(t > d.t_s.back()))
      throw Error(in.where(0) + " (t_s): times must increase strictly (" + format_number(t, 6) + " s after " + format_number(d.t_s.back(), 6) + " s)");
    d.t_s.push_back(t);
    std::vector<double> rm(3 * mcols.size(), kNaN), rl(lcols.size(), kNaN), rt(tcols.size(), kNaN);
    for (std::size_t i = 0; i < mcols.size(); ++i) {
      int nempty = 0;
      for (int c = 0; c < 3; ++c) nempty += in.empty(mcols[i][static_cast<std::size_t>(c)]) ? 1 : 0;
      if (nempty == 3) continue;
      if (nempty != 0) {
        for (int c = 0; c < 3; ++c)
          if (in.empty(mcols[i][static_cast<std::size_t>(c)]))
            throw Error(in.where(mcols[i][static_cast<std::size_t>(c)]) + " (" + h[static_cast<std::size_t>(mcols[i][static_cast<std::size_t>(c)])] +
                        "): a marker is missing in all three coordinates or none");
      }
      for (int c = 0; c < 3; ++c) rm[3 * i + static_cast<std::size_t>(c)] = value(mcols[i][static_cast<std::size_t>(c)], kMaxMotionPosition_m, "m");
    }
    for (std::size_t i = 0; i < lcols.size(); ++i)
      if (!in.empty(lcols[i])) rl[i] = value(lcols[i], kMaxMotionPosition_m, "m");
    for (std::size_t i = 0; i < tcols.size(); ++i)
      if (!in.empty(tcols[i])) rt[i] = value(tcols[i], kMaxMotionTension_N, "N");
    rows_m.push_back(std::move(rm));
    rows_l.push_back(std::move(rl));
    rows_t.push_back(std::move(rt));
  }
  const int N = static_cast<int>(d.t_s.size());
  if (N < 2) throw Error(path + ": at least 2 samples are needed (have " + std::to_string(N) + ")");
  d.p_W_marker_m.resize(N, static_cast<int>(3 * mcols.size()));
  d.cable_length_m.resize(N, static_cast<int>(lcols.size()));
  d.cable_tension_N.resize(N, static_cast<int>(tcols.size()));
  for (int s = 0; s < N; ++s) {
    for (std::size_t i = 0; i < rows_m[static_cast<std::size_t>(s)].size(); ++i) d.p_W_marker_m(s, static_cast<int>(i)) = rows_m[static_cast<std::size_t>(s)][i];
    for (std::size_t i = 0; i < lcols.size(); ++i) d.cable_length_m(s, static_cast<int>(i)) = rows_l[static_cast<std::size_t>(s)][i];
    for (std::size_t i = 0; i < tcols.size(); ++i) d.cable_tension_N(s, static_cast<int>(i)) = rows_t[static_cast<std::size_t>(s)][i];
  }
  validate(model, d);
  return d;
}

std::string motion_csv(const Model& model, const MotionData& d) {
  validate(model, d);
  std::string out = "t_s";
  for (int n : d.marker_nodes)
    for (const char* c : {"_x_m", "_y_m", "_z_m"}) out += "," + id_of(model.node_ids, n, "n") + c;
  for (int k : d.length_cables) out += "," + id_of(model.cable_ids, k, "c") + "_length_m";
  for (int k : d.tension_cables) out += "," + id_of(model.cable_ids, k, "c") + "_tension_N";
  out += "\n";
  for (int s = 0; s < d.nsample(); ++s) {
    io::CsvLine line;
    line.num(d.t_s[static_cast<std::size_t>(s)]);
    auto cell = [&](double v) {
      if (std::isnan(v))
        line.text("");
      else
        line.num(v);
    };
    for (int i = 0; i < 3 * d.nmarker(); ++i) cell(d.p_W_marker_m(s, i));
    for (int i = 0; i < static_cast<int>(d.length_cables.size()); ++i) cell(d.cable_length_m(s, i));
    for (int i = 0; i < static_cast<int>(d.tension_cables.size()); ++i) cell(d.cable_tension_N(s, i));
    out += line.str();
    out += "\n";
  }
  return out;
}

double identify_step_count(const std::vector<double>& t_s, double dt_s) {
  double n = 0.0;
  for (std::size_t i = 1; i < t_s.size(); ++i) n += std::max(1.0, std::ceil((t_s[i] - t_s[i - 1]) / dt_s - 1e-9));
  return n;
}

void validate(const IdentifyOptions& o) {
  auto pos = [](double v, const char* name) {
    if (!(v > 0.0) || !std::isfinite(v)) throw Error(std::string("identify option ") + name + " must be a positive finite number (got " + format_number(v, 6) + ")");
  };
  pos(o.dt_s, "dt_s");
  pos(o.segment_s, "segment_s");
  pos(o.marker_sigma_m, "marker_sigma_m");
  pos(o.length_sigma_m, "length_sigma_m");
  pos(o.tension_sigma_N, "tension_sigma_N");
  pos(o.continuity_sigma_m, "continuity_sigma_m");
  pos(o.loss_scale, "loss_scale");
  if (o.max_iterations < 1) throw Error("identify option max_iterations must be >= 1");
  if (o.threads < 1) throw Error("identify option threads must be >= 1");
  if (o.restarts < 0 || o.restarts > 6) throw Error("identify option restarts must be in 0..6 (got " + std::to_string(o.restarts) + ")");
  if (!(o.restart_variance_factor == 0.0 || o.restart_variance_factor >= 1.0) || !std::isfinite(o.restart_variance_factor))
    throw Error("identify option restart_variance_factor must be 0 (the statistical bound) or a finite number >= 1 (got " +
                format_number(o.restart_variance_factor, 6) + ")");
  pos(o.restart_gap_sigmas, "restart_gap_sigmas");
  if (!(o.restart_min_improvement >= 0.0 && o.restart_min_improvement < 1.0))
    throw Error("identify option restart_min_improvement must be in [0, 1) (got " + format_number(o.restart_min_improvement, 6) + ")");
  for (double t : {o.function_tolerance, o.parameter_tolerance, o.gradient_tolerance})
    if (!(t >= 0.0) || !std::isfinite(t)) throw Error("identify option tolerances must be finite and >= 0");
}

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
    SegmentCost cost(&S, k);
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
    if (!cost.Evaluate(params.data(), ev.residuals.data() + r0, jacobian ? jp.data() : nullptr))
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
      problem->AddResidualBlock(new SegmentCost(&Q, k), nullptr, blocks);
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
    return "variance factor " + format_number(vf_of(cost), 6) + " (bound " + format_number(vf_bound, 4) + " for " + std::to_string(dof) +
           " degrees of freedom), largest continuity gap " + format_number(gap * 1e3, 3) + " mm (bound " +
           format_number(gap_bound * 1e3, 3) + " mm)";
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
          statistics(best_cost, gap_now) + "); fitting with the continuity sigma loosened to " + format_number(lo.continuity_sigma_m, 6) +
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
          say("identify: restart " + std::to_string(r) + " ended at cost " + format_number(c2, 6) + ", not " + format_number(100.0 * options.restart_min_improvement, 6) +
              " % below the best before it, " + format_number(before, 6) + ": no more restarts (the misfit does not depend on the start)");
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
          R.unidentifiable.push_back(f.name + ": its standard deviation " + format_number(f.std, 6) + " is larger than its value " + format_number(f.fitted, 6));
      for (int a = 0; a < np; ++a)
        for (int b = a + 1; b < np; ++b)
          if (std::abs(R.correlation(a, b)) > 0.999)
            R.unidentifiable.push_back(R.parameters[static_cast<std::size_t>(a)].name + " and " + R.parameters[static_cast<std::size_t>(b)].name +
                                       ": correlation " + format_number(R.correlation(a, b), 6) + " (only a combination is determined)");
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
                                    : ": the residuals are " + format_number(std::sqrt(R.variance_factor), 3) + " times the stated sigmas";
    if (summary.termination_type == ceres::NO_CONVERGENCE) {
      R.verdict = FitVerdict::kNotConverged;
      R.verdict_reason = stats + noise + "; the solver stopped at the iteration limit (" + std::to_string(options.max_iterations) +
                         " per fit): raise --max-iterations";
    } else if (R.starts > 1 && last_restart_improved) {
      R.verdict = FitVerdict::kLocalMinimum;
      R.verdict_reason = stats + noise + "; the last restart still lowered the cost by more than " + format_number(100.0 * options.restart_min_improvement, 6) +
                         " %: another start may find a lower minimum (--restarts)";
    } else if (vf_ok) {
      R.verdict = FitVerdict::kLocalMinimum;
      R.verdict_reason = stats + "; the residuals are at the noise but the segments do not join: a local minimum of the segment states, or a "
                                 "model that fits each segment only with a state of its own";
    } else {
      R.verdict = FitVerdict::kPoorFit;
      R.verdict_reason = stats + noise + "; " +
                         (R.starts > 1 ? std::to_string(R.starts) + " starts ended within " + format_number(100.0 * options.restart_min_improvement, 6) +
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

Eigen::MatrixXd simulate_samples(const Model& model, const std::vector<double>& t_s, double dt_s) {
  check_model_supported(model);
  if (t_s.empty()) throw Error("simulate_samples: no sample time");
  if (!(dt_s > 0.0)) throw Error("simulate_samples: dt_s must be > 0");
  for (std::size_t i = 1; i < t_s.size(); ++i)
    if (!(t_s[i] > t_s[i - 1])) throw Error("simulate_samples: times must increase strictly");
  Layout L = make_layout(model, {{ParameterKind::kInitialState, {}, "initial_state"}});
  std::vector<double> s0(static_cast<std::size_t>(kStateParams * model.nrod()));
  for (int j = 0; j < model.nrod(); ++j) params_from_state(model.initial_state, j, &s0[static_cast<std::size_t>(kStateParams * j)]);
  const double dummy = 0.0;
  Eigen::MatrixXd P;
  free_run(model, L, &dummy, s0.data(), t_s, dt_s, P);
  return P;
}

}  // namespace tendyn::tensegrity
