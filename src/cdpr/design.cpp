// Anchor design by Nelder-Mead. See include/tendyn/cdpr/design.hpp.
#include <tendyn/cdpr/design.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/cdpr/tension_problem.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace tendyn::cdpr {

DesignScore design_score(const Model& model, const Eigen::MatrixXd& poses) {
  if (poses.rows() == 0) throw Error("design: no poses");
  if (!std::isfinite(model.f_max_N)) throw Error("design: model '" + model.name + "' needs a finite tension.max");
  TensionProblem p = make_tension_problem(model);
  Workspace ws(p.nrow(), p.ncable());
  TensionResult r;
  DesignScore s;
  s.poses = static_cast<int>(poses.rows());
  const double range = model.f_max_N - model.f_min_N;
  double sum = 0.0;
  for (Eigen::Index k = 0; k < poses.rows(); ++k) {
    const Pose pose = pose_from_vector(model, poses.row(k).transpose());
    update_tension_problem(model, pose, p);
    solve_tensions(Method::kCentred, p.J, p.w, p.options, ws, r);
    if (r.status == Status::kOk) {
      ++s.feasible;
      const double lo = (r.f_N.array() - model.f_min_N).minCoeff();
      const double hi = (model.f_max_N - r.f_N.array()).minCoeff();
      sum += std::min(lo, hi) / range;
    } else {
      const double wn = p.w.norm();
      sum += -1.0 - std::min(1.0, wn > 0.0 ? r.residual_norm / wn : 1.0);
    }
  }
  s.score = sum / static_cast<double>(poses.rows());
  return s;
}

DesignScore design_score(const Model& model, const Eigen::MatrixXd& poses, const DesignOptions& options) {
  if (options.objective == DesignObjective::kTensionMargin) return design_score(model, poses);
  if (poses.rows() == 0) throw Error("design: no poses");
  if (options.workspace.kind == WorkspaceKind::kClosure)
    throw Error("design: objective " + std::string(to_string(options.objective)) + " needs workspace kind feasible or static, not closure");
  WorkspaceOptions wo = options.workspace;
  wo.margin = options.objective == DesignObjective::kCapacityMargin;
  wo.threads = 1;
  WorkspaceEvaluator e(model, wo);
  DesignScore s;
  s.poses = static_cast<int>(poses.rows());
  double worst = std::numeric_limits<double>::infinity();
  for (Eigen::Index k = 0; k < poses.rows(); ++k) {
    const Pose pose = pose_from_vector(model, poses.row(k).transpose());
    const PoseVerdict v = e.evaluate(pose);
    if (v.cls == PoseClass::kUndefined) throw Error("design: a cable has zero length at pose " + std::to_string(k));
    s.feasible += v.inside();
    worst = std::min(worst, std::isnan(v.margin) ? -std::numeric_limits<double>::infinity() : v.margin);
  }
  s.score = options.objective == DesignObjective::kVolume ? static_cast<double>(s.feasible) / static_cast<double>(s.poses) : worst;
  return s;
}

namespace {

// "<what> box x: ..." for an empty, inverted or non-finite axis; strict: the box must have width.
void check_box_axes(const Eigen::Vector3d& lo, const Eigen::Vector3d& hi, int dims, const char* what, bool strict) {
  for (int d = 0; d < dims; ++d) {
    const std::string axis = std::string(what) + " box " + "xyz"[d] + ": ";
    if (!std::isfinite(lo[d]) || !std::isfinite(hi[d]))
      throw Error(axis + "lower " + format_number(lo[d], 6) + ", upper " + format_number(hi[d], 6) + ": not finite");
    if (strict && !(hi[d] > lo[d]))
      throw Error(axis + "lower " + format_number(lo[d], 6) + " is not below upper " + format_number(hi[d], 6) + " (no width)");
    if (!strict && hi[d] < lo[d]) throw Error(axis + "lower " + format_number(lo[d], 6) + " is above upper " + format_number(hi[d], 6));
  }
}

// "the <point> of cable c lies outside the <what> box (x = v m)" for the first column of P outside.
void check_points_in_box(const Model& model, const Eigen::Matrix3Xd& P, const Eigen::Vector3d& lo, const Eigen::Vector3d& hi, int dims,
                         const char* point, const char* what) {
  for (int i = 0; i < model.ncable(); ++i)
    for (int d = 0; d < dims; ++d)
      if (P(d, i) < lo[d] || P(d, i) > hi[d])
        throw Error(std::string("the ") + point + " of cable " + model.cable_names[static_cast<std::size_t>(i)] + " lies outside the " +
                    what + " box (" + "xyz"[d] + " = " + format_number(P(d, i), 6) + " m)");
}

int design_dims(const Model& model) { return model.motion == Motion::kPlanar ? 2 : 3; }

}  // namespace

void check_frame_box(const Model& model, const DesignOptions& o) {
  const int dims = design_dims(model);
  check_box_axes(o.frame_min_m, o.frame_max_m, dims, "frame", true);
  check_points_in_box(model, model.p_WA, o.frame_min_m, o.frame_max_m, dims, "anchor", "frame");
}

std::pair<Eigen::Vector3d, Eigen::Vector3d> attachment_box(const Model& model, const DesignOptions& o) {
  const int dims = design_dims(model);
  Eigen::Vector3d lo = o.attachment_min_m, hi = o.attachment_max_m;
  if (lo.head(dims).isZero() && hi.head(dims).isZero()) {
    lo = model.p_PB.rowwise().minCoeff();
    hi = model.p_PB.rowwise().maxCoeff();
  }
  check_box_axes(lo, hi, dims, "attachment", false);
  check_points_in_box(model, model.p_PB, lo, hi, dims, "attachment", "attachment");
  return {lo, hi};
}

namespace {

// One design variable: a coordinate of a cable's anchor (world) or attachment (platform frame),
// with its box.
struct DesignVar {
  bool anchor;
  int cable, axis;
  double lo, hi;
};

// The design variables, after checking the options: anchor coordinates, then the free attachment
// coordinates (move_attachments), with their boxes.
std::vector<DesignVar> design_variables(const Model& model, const DesignOptions& o, int dims) {
  check_frame_box(model, o);
  if (!(o.initial_step_m > 0.0) || !std::isfinite(o.initial_step_m)) throw Error("design: initial_step_m must be > 0");
  if (o.max_evaluations < 1) throw Error("design: max_evaluations must be >= 1");
  const int n = model.ncable();
  std::vector<DesignVar> vars;
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < dims; ++d) vars.push_back({true, i, d, o.frame_min_m[d], o.frame_max_m[d]});
  if (o.move_attachments) {
    const auto [lo, hi] = attachment_box(model, o);
    for (int d = 0; d < dims; ++d)
      if (hi[d] > lo[d])
        for (int i = 0; i < n; ++i) vars.push_back({false, i, d, lo[d], hi[d]});
  }
  return vars;
}

}  // namespace

DesignResult optimise_anchors(const Model& model, const Eigen::MatrixXd& poses, const DesignOptions& o) {
  const bool planar = model.motion == Motion::kPlanar;
  const int dims = planar ? 2 : 3;
  const std::vector<DesignVar> vars = design_variables(model, o, dims);
  const int dim = static_cast<int>(vars.size());
  const auto to_model = [&](const Eigen::VectorXd& x) {
    Model m = model;
    for (int k = 0; k < dim; ++k) {
      const DesignVar& v = vars[static_cast<std::size_t>(k)];
      (v.anchor ? m.p_WA : m.p_PB)(v.axis, v.cable) = std::clamp(x[k], v.lo, v.hi);
    }
    return m;
  };
  DesignResult res;
  res.start = model;
  res.start_score = design_score(model, poses, o);
  res.best = model;
  res.best_score = res.start_score;
  int evals = 1;
  const auto f = [&](const Eigen::VectorXd& x) {
    if (evals >= o.max_evaluations) return std::numeric_limits<double>::infinity();  // budget spent
    Model m = to_model(x);
    DesignScore s;
    ++evals;
    try {
      validate(m);
      s = design_score(m, poses, o);
    } catch (const Error&) {
      return std::numeric_limits<double>::infinity();  // coincident anchors, zero-length cable
    }
    if (s.score > res.best_score.score) {
      res.best_score = s;
      res.best = m;
    }
    return -s.score;  // minimised
  };
  Eigen::VectorXd x0(dim);
  for (int k = 0; k < dim; ++k) {
    const DesignVar& v = vars[static_cast<std::size_t>(k)];
    x0[k] = (v.anchor ? model.p_WA : model.p_PB)(v.axis, v.cable);
  }
  std::vector<Eigen::VectorXd> X(static_cast<std::size_t>(dim + 1), x0);
  std::vector<double> F(static_cast<std::size_t>(dim + 1));
  F[0] = -res.start_score.score;
  for (int k = 0; k < dim && evals < o.max_evaluations; ++k) {
    // step towards the inside of the box
    // (an attachment: at most half its box, which is about the platform's size)
    const DesignVar& v = vars[static_cast<std::size_t>(k)];
    const double room_hi = v.hi - x0[k], room_lo = x0[k] - v.lo;
    const double step = v.anchor ? o.initial_step_m : std::min(o.initial_step_m, 0.5 * (v.hi - v.lo));
    X[static_cast<std::size_t>(k + 1)][k] += room_hi >= room_lo ? std::min(step, room_hi) : -std::min(step, room_lo);
    F[static_cast<std::size_t>(k + 1)] = f(X[static_cast<std::size_t>(k + 1)]);
  }
  std::vector<std::size_t> idx(static_cast<std::size_t>(dim + 1));
  while (evals < o.max_evaluations) {
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return F[a] < F[b]; });
    const std::size_t best = idx.front(), worst = idx.back(), second = idx[idx.size() - 2];
    Eigen::VectorXd c = Eigen::VectorXd::Zero(dim);
    for (std::size_t k = 0; k + 1 < idx.size(); ++k) c += X[idx[k]];
    c /= static_cast<double>(dim);
    const Eigen::VectorXd xr = c + (c - X[worst]);
    const double fr = f(xr);
    if (fr < F[best]) {
      const Eigen::VectorXd xe = c + 2.0 * (c - X[worst]);
      const double fe = f(xe);
      if (fe < fr) {
        X[worst] = xe;
        F[worst] = fe;
      } else {
        X[worst] = xr;
        F[worst] = fr;
      }
    } else if (fr < F[second]) {
      X[worst] = xr;
      F[worst] = fr;
    } else {
      const bool outside = fr < F[worst];
      const Eigen::VectorXd xc = outside ? Eigen::VectorXd(c + 0.5 * (xr - c)) : Eigen::VectorXd(c + 0.5 * (X[worst] - c));
      const double fc = f(xc);
      if (fc < std::min(fr, F[worst])) {
        X[worst] = xc;
        F[worst] = fc;
      } else {  // shrink towards the best
        for (std::size_t k = 0; k < X.size() && evals < o.max_evaluations; ++k) {
          if (k == best) continue;
          X[k] = X[best] + 0.5 * (X[k] - X[best]);
          F[k] = f(X[k]);
        }
      }
    }
    // converged: the simplex has collapsed below a micrometre
    double spread = 0.0;
    for (const auto& x : X) spread = std::max(spread, (x - X[best]).lpNorm<Eigen::Infinity>());
    if (spread < 1e-6) break;
  }
  res.evaluations = evals;
  return res;
}

}  // namespace tendyn::cdpr
