// The Ceres cost of one segment of the identification: the residuals of the scalar-templated
// prediction, with exact derivatives by ceres::Jet through the RK4 integrator.
#include "tensegrity/identify_internal.hpp"

#include <tendyn/core/parallel.hpp>

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace tendyn::tensegrity {

namespace identify_detail {

namespace {

constexpr int kStride = 8;  // derivative directions per Jet pass
using Jet = ceres::Jet<double, kStride>;

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
  // evaluated again), and the covariance once more at the optimum; and SegmentEvaluation (below)
  // evaluates every segment in parallel before Ceres asks for them one by one. The last
  // evaluation (residuals, and the Jacobian when it was asked for) is kept and returned while the
  // parameter values are bit-identical. One segment is evaluated by one thread at a time (the
  // segments of one evaluation run in parallel, never one segment twice), so the cache needs no
  // lock; it is a pure function of the inputs, so results do not change.
  bool Evaluate(double const* const* params, double* residuals, double** jacobians) const override {
    if (!Fill(params, jacobians != nullptr)) return false;
    std::copy(cache_res_.begin(), cache_res_.end(), residuals);
    if (jacobians)
      for (std::size_t b = 0; b < cache_jac_.size(); ++b)
        if (jacobians[b]) std::copy(cache_jac_[b].begin(), cache_jac_[b].end(), jacobians[b]);
    return true;
  }

  // Evaluates into the cache unless it already holds this point (with the Jacobian if asked for);
  // false when the segment cannot be simulated at this point (remembered as well).
  bool Fill(double const* const* params, bool jacobian) const {
    const std::vector<int32_t>& sizes = parameter_block_sizes();
    in_.clear();
    for (std::size_t b = 0; b < sizes.size(); ++b) in_.insert(in_.end(), params[b], params[b] + sizes[b]);
    const bool hit =
        cached_ && in_.size() == cache_in_.size() && std::memcmp(in_.data(), cache_in_.data(), in_.size() * sizeof(double)) == 0;
    if (hit && (cached_jac_ || !jacobian || !cached_ok_)) return cached_ok_;
    cached_ = false;
    const int nres = num_residuals();
    cache_res_.resize(static_cast<std::size_t>(nres));
    std::vector<double*> out;
    if (jacobian) {
      cache_jac_.resize(sizes.size());
      out.resize(sizes.size());
      for (std::size_t b = 0; b < sizes.size(); ++b) {
        cache_jac_[b].assign(static_cast<std::size_t>(nres) * static_cast<std::size_t>(sizes[b]), 0.0);
        out[b] = cache_jac_[b].data();
      }
    }
    cached_ok_ = Compute(params, cache_res_.data(), jacobian ? out.data() : nullptr);
    cached_jac_ = jacobian;
    cache_in_ = in_;
    cached_ = true;
    return cached_ok_;
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
  // the last evaluation (see Evaluate)
  mutable std::vector<double> in_, cache_in_, cache_res_;
  mutable std::vector<std::vector<double>> cache_jac_;
  mutable bool cached_ = false, cached_jac_ = false, cached_ok_ = false;
};

}  // namespace

std::unique_ptr<ceres::CostFunction> make_segment_cost(const Setup* s, int seg) { return std::make_unique<SegmentCost>(s, seg); }

void SegmentEvaluation::add(const ceres::CostFunction* cost, std::vector<double*> params) { blocks_.emplace_back(cost, std::move(params)); }

void SegmentEvaluation::PrepareForEvaluation(bool evaluate_jacobians, bool /*new_evaluation_point*/) {
  parallel_for(static_cast<int>(blocks_.size()), threads_, [&](int k) {
    const auto& [cost, params] = blocks_[static_cast<std::size_t>(k)];
    // a failure is kept and reported by Evaluate when Ceres asks for this segment
    static_cast<const SegmentCost*>(cost)->Fill(params.data(), evaluate_jacobians);
  });
}

}  // namespace identify_detail

}  // namespace tendyn::tensegrity
