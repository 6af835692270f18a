// The studio's CDPR models (docs/VIEWER.md, "CDPR models"): MODEL JSON, edits, the model file
// written back, and the run: the tension distribution of `tendyn tension trajectory`
// (cdpr::solve_tension_trajectory with the gravity-compensation wrench, document 002 eqs. (1)-(3))
// at poses along a platform path travelled at constant speed, one frame per output interval.
// Built only with TENDYN_WITH_CDPR; without it the entry points say so.
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/viz/studio.hpp>

#include "studio_internal.hpp"

#ifdef TENDYN_WITH_CDPR
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/cdpr/tension_problem.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/viz/cdpr_scene.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#endif

namespace tendyn::viz::studio {

#ifdef TENDYN_WITH_CDPR

struct CdprRun {
  cdpr::ModelFile file;
  std::vector<Eigen::Vector3d> path_m;  ///< platform reference point P along the path (planar: z = 0)
  double speed_mps = 0.2;
  double output_interval_s = 0.01;
  cdpr::Method method = cdpr::Method::kExact;
};

namespace detail {
namespace {

int dim(const cdpr::Model& m) { return m.motion == cdpr::Motion::kSpatial ? 3 : 2; }

/// The default pose of the file, or zero.
Eigen::VectorXd pose_vector(const cdpr::ModelFile& f) {
  if (f.default_pose.size() > 0) return f.default_pose;
  return Eigen::VectorXd::Zero(f.model.motion == cdpr::Motion::kSpatial ? 6 : 3);
}

std::vector<std::string> pose_fields(const cdpr::Model& m) {
  if (m.motion == cdpr::Motion::kSpatial) return {"x_m", "y_m", "z_m", "roll_rad", "pitch_rad", "yaw_rad"};
  return {"x_m", "y_m", "phi_rad"};
}

/// The studio's default path: from the default pose's position, 10 % of the anchors' x extent
/// along x, then as much along y.
std::vector<Eigen::Vector3d> default_path(const cdpr::ModelFile& f) {
  const Eigen::VectorXd q = pose_vector(f);
  Eigen::Vector3d p0 = Eigen::Vector3d::Zero();
  p0.head(dim(f.model)) = q.head(dim(f.model));
  const double span = f.model.p_WA.row(0).maxCoeff() - f.model.p_WA.row(0).minCoeff();
  const double d = span > 0.0 ? 0.1 * span : 0.1;
  return {p0, p0 + Eigen::Vector3d(d, 0.0, 0.0), p0 + Eigen::Vector3d(d, d, 0.0)};
}

json vec(const Eigen::Vector3d& v, int n) {
  json a = json::array();
  for (int i = 0; i < n; ++i) a.push_back(v[i]);
  return a;
}

std::string model_json(const cdpr::ModelFile& f) {
  const auto& m = f.model;
  const int n = dim(m);
  json cables = json::array();
  for (int i = 0; i < m.ncable(); ++i)
    cables.push_back({{"id", m.cable_names[static_cast<std::size_t>(i)]},
                      {"group", m.cable_groups[static_cast<std::size_t>(i)]},
                      {"anchor_m", vec(m.p_WA.col(i), n)},
                      {"attachment_m", vec(m.p_PB.col(i), n)}});
  const Eigen::VectorXd q = pose_vector(f);
  json path = json::array();
  for (const auto& p : default_path(f)) path.push_back(vec(p, n));
  return json{{"kind", "cdpr"},
              {"name", m.name},
              {"motion", cdpr::to_string(m.motion)},
              {"source", f.source},
              {"tension", {{"min_N", m.f_min_N}, {"max_N", std::isfinite(m.f_max_N) ? json(m.f_max_N) : json(nullptr)}}},
              {"platform", {{"mass_kg", m.platform_mass_kg}, {"com_m", vec(m.p_PC, n)}}},
              {"gravity_mps2", vec(m.gravity_W, n)},
              {"pose", std::vector<double>(q.data(), q.data() + q.size())},
              {"pose_fields", pose_fields(m)},
              {"cables", cables},
              {"default_path_m", path}}
      .dump();
}

/// Shortest text that reads back as the same double.
/// Axis of a field "<prefix>_{x,y,z}_m" (-1: not this prefix); z refused for planar models.
int axis_of(const std::string& field, const std::string& prefix, const cdpr::Model& m, const std::string& where) {
  for (int a = 0; a < 3; ++a)
    if (field == prefix + "_" + "xyz"[a] + "_m") {
      if (a >= dim(m)) throw Error(where + ".field: '" + field + "': a planar model has no z");
      return a;
    }
  return -1;
}

void apply_edit(cdpr::ModelFile& f, const json& e, const std::string& where) {
  auto& m = f.model;
  const std::string op = text(e, "op", where);
  if (op != "set") throw Error(where + ".op: '" + op + "' (valid for a CDPR model: set)");
  const std::string element = text(e, "element", where), field = text(e, "field", where);
  const double v = number(e, "value", where);
  if (element == "cable") {
    const int i = index_of(m.cable_names, text(e, "id", where), "cable", where);
    if (const int a = axis_of(field, "anchor", m, where); a >= 0) {
      m.p_WA(a, i) = v;
    } else if (const int b = axis_of(field, "attachment", m, where); b >= 0) {
      m.p_PB(b, i) = v;
    } else {
      throw Error(where + ".field: '" + field + "' is not a CDPR cable field (anchor_x_m, ..., attachment_z_m)");
    }
  } else if (element == "platform") {
    if (field == "mass_kg") {
      if (!(v >= 0.0)) throw Error(where + ": platform mass must be >= 0 kg");
      m.platform_mass_kg = v;
    } else if (const int a = axis_of(field, "com", m, where); a >= 0) {
      m.p_PC[a] = v;
    } else {
      throw Error(where + ".field: '" + field + "' is not a platform field (mass_kg, com_x_m, com_y_m, com_z_m)");
    }
  } else if (element == "tension") {
    if (field == "min_N")
      m.f_min_N = v;
    else if (field == "max_N")
      m.f_max_N = v;
    else
      throw Error(where + ".field: '" + field + "' is not a tension field (min_N, max_N)");
    if (!(m.f_min_N >= 0.0) || !(m.f_max_N > m.f_min_N)) throw Error(where + ": tension bounds need 0 <= min_N < max_N");
  } else if (element == "pose") {
    const auto names = pose_fields(m);
    const auto it = std::find(names.begin(), names.end(), field);
    if (it == names.end()) throw Error(where + ".field: '" + field + "' is not a pose field of this model");
    if (f.default_pose.size() == 0) f.default_pose = pose_vector(f);
    f.default_pose[it - names.begin()] = v;
  } else {
    throw Error(where + ".element: must be \"cable\", \"platform\", \"tension\" or \"pose\" for a CDPR model");
  }
}

cdpr::ModelFile load(std::string_view yaml) { return cdpr::parse_model(std::string(yaml), "model.yaml"); }

}  // namespace

EditResult edit_cdpr_model(std::string_view yaml, const json& edits, const Limits&) {
  cdpr::ModelFile f = load(yaml);
  for (std::size_t i = 0; i < edits.size(); ++i) apply_edit(f, edits[i], "edits[" + std::to_string(i) + "]");
  try {
    cdpr::validate(f.model);
  } catch (const Error& e) {
    throw Error(std::string("after the edits: ") + e.what());
  }
  EditResult r{cdpr::to_yaml(f), model_json(f), "cdpr"};
  // the file written back must read back as this model (a name the YAML writer cannot quote, ...)
  try {
    (void)load(r.yaml);
  } catch (const Error& e) {
    throw Error(std::string("after the edits, the model file does not read back: ") + e.what());
  }
  return r;
}

std::shared_ptr<const CdprRun> parse_cdpr_run(const json& j, const Limits& limits) {
  auto run = std::make_shared<CdprRun>();
  const std::string yaml = text(j, "yaml", "request");
  if (yaml.size() > limits.max_yaml_bytes)
    throw Error("model.yaml: " + std::to_string(yaml.size()) + " bytes, more than the studio's limit of " +
                std::to_string(limits.max_yaml_bytes));
  run->file = load(yaml);
  const auto& m = run->file.model;
  const json c = object_or(j, "cdpr", "request");
  run->speed_mps = number(c, "speed_mps", "request.cdpr", &run->speed_mps);
  if (!(run->speed_mps > 0.0)) throw Error("request.cdpr.speed_mps: must be > 0 m/s");
  const double default_interval = 0.01;
  run->output_interval_s = number(j, "output_interval_s", "request", &default_interval);
  if (!(run->output_interval_s > 0.0)) throw Error("request.output_interval_s: must be > 0");
  const std::string method = text_or(c, "method", "request.cdpr", "exact");
  try {
    run->method = cdpr::method_from_string(method);
  } catch (const Error& e) {
    throw Error(std::string("request.cdpr.method: ") + e.what());
  }
  const cdpr::TensionProblem problem = cdpr::make_tension_problem(m);
  if (const auto why = cdpr::method_inapplicable_reason(run->method, problem); !why.empty())
    throw Error("request.cdpr.method: " + method + " cannot solve this model (" + std::string(why) + ")");
  const int n = dim(m);
  if (c.contains("path")) {
    const json path = array_or(c, "path", "request.cdpr", json::array());
    if (path.size() < 2 || path.size() > 100)
      throw Error("request.cdpr.path: 2 to 100 points [[x, y" + std::string(n == 3 ? ", z" : "") + "], ...]");
    for (std::size_t i = 0; i < path.size(); ++i) {
      const auto& p = path[i];
      const std::string where = "request.cdpr.path[" + std::to_string(i) + "]";
      if (!p.is_array() || static_cast<int>(p.size()) != n)
        throw BadRequest(where + ": must be " + (n == 3 ? "[x, y, z]" : "[x, y]") + " in metres (a " + cdpr::to_string(m.motion) +
                         " model)");
      Eigen::Vector3d v = Eigen::Vector3d::Zero();
      for (int a = 0; a < n; ++a) {
        if (!p[static_cast<std::size_t>(a)].is_number() || !std::isfinite(p[static_cast<std::size_t>(a)].get<double>()))
          throw BadRequest(where + "[" + std::to_string(a) + "]: must be a finite number");
        v[a] = p[static_cast<std::size_t>(a)].get<double>();
      }
      run->path_m.push_back(v);
    }
  } else {
    run->path_m = default_path(run->file);
  }
  double length = 0.0;
  for (std::size_t i = 1; i < run->path_m.size(); ++i) length += (run->path_m[i] - run->path_m[i - 1]).norm();
  if (!(length > 0.0)) throw Error("request.cdpr.path: the points do not move the platform (length 0)");
  const double duration = length / run->speed_mps;
  if (duration > limits.max_duration_s)
    throw Error("request.cdpr: path length / speed = " + format_number(duration, 6) + " s, more than the limit of " +
                format_number(limits.max_duration_s, 6) + " s");
  if (duration / run->output_interval_s > limits.max_frames)
    throw Error("request: duration / output_interval_s = " + std::to_string(static_cast<long>(duration / run->output_interval_s)) +
                " frames, more than the limit of " + std::to_string(limits.max_frames));
  return run;
}

void run_cdpr_job(const CdprRun& run, Job& job, const std::function<void()>& check) {
  const auto& m = run.file.model;
  const int n = dim(m);
  // poses along the path at constant speed: one per output interval, and the end point
  std::vector<double> seg(run.path_m.size(), 0.0);  // distance at each point
  for (std::size_t i = 1; i < run.path_m.size(); ++i) seg[i] = seg[i - 1] + (run.path_m[i] - run.path_m[i - 1]).norm();
  const double duration = seg.back() / run.speed_mps;
  std::vector<double> times;
  for (long k = 0;; ++k) {
    const double t = static_cast<double>(k) * run.output_interval_s;
    if (t >= duration - 1e-9 * run.output_interval_s) break;
    times.push_back(t);
  }
  times.push_back(duration);
  const Eigen::VectorXd q0 = pose_vector(run.file);
  cdpr::PoseTrajectory traj;
  traj.q.resize(static_cast<Eigen::Index>(times.size()), q0.size());
  traj.t_s.resize(static_cast<Eigen::Index>(times.size()));
  std::size_t s = 1;
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double d = std::min(times[k] * run.speed_mps, seg.back());
    while (s + 1 < seg.size() && seg[s] < d) ++s;
    const double len = seg[s] - seg[s - 1];
    const double u = len > 0.0 ? std::clamp((d - seg[s - 1]) / len, 0.0, 1.0) : 1.0;
    const Eigen::Vector3d p = run.path_m[s - 1] + u * (run.path_m[s] - run.path_m[s - 1]);
    Eigen::VectorXd q = q0;
    q.head(n) = p.head(n);
    traj.q.row(static_cast<Eigen::Index>(k)) = q.transpose();
    traj.t_s[static_cast<Eigen::Index>(k)] = times[k];
    traj.places.push_back("request.cdpr.path at t = " + format_number(times[k], 6) + " s");
  }
  {
    std::lock_guard lock(job.mutex);
    job.scene = make_scene(m);
    job.scene.title = m.name + " (tension along the path)";
  }
  cdpr::TensionProblem problem = cdpr::make_tension_problem(m);
  Eigen::VectorXd f_all;
  const auto nc = static_cast<std::size_t>(m.ncable());
  std::vector<double> norm_N, residual;
  int not_ok = 0;
  json first_not_ok = nullptr;
  const double at_min = m.f_min_N + 1e-9 * std::max(1.0, m.f_min_N);
  json first_at_min = nullptr;
  const auto results = cdpr::solve_tension_trajectory(
      m, problem, run.method, traj,
      [&](std::size_t row, const cdpr::Pose& pose, const cdpr::TensionProblem& p, const cdpr::TensionResult& r) {
        cdpr::scatter_tensions(m, p, r.f_N, f_all);
        const double t = times[row];
        if (r.status != cdpr::Status::kOk && ++not_ok == 1)
          first_not_ok = {{"t_s", t}, {"status", cdpr::to_string(r.status)}, {"reason", r.reason}};
        for (std::size_t k = 0; k < nc && first_at_min.is_null(); ++k)
          if (f_all[static_cast<Eigen::Index>(k)] <= at_min) first_at_min = {{"cable", m.cable_names[k]}, {"t_s", t}};
        norm_N.push_back(r.tension_norm);
        residual.push_back(r.residual_norm);
        {
          std::lock_guard lock(job.mutex);
          add_cdpr_frame(job.scene, m, p.geometry, pose, t, std::span<const double>(f_all.data(), nc));
          job.progress = static_cast<double>(row + 1) / static_cast<double>(times.size());
        }
        check();
      });
  json summary = {{"mode", "cdpr"},
                  {"method", cdpr::to_string(run.method)},
                  {"duration_s", duration},
                  {"path_length_m", seg.back()},
                  {"speed_mps", run.speed_mps},
                  {"platform_mass_kg", m.platform_mass_kg},
                  {"poses", results.size()},
                  {"not_ok_poses", not_ok},
                  {"first_not_ok", first_not_ok},
                  {"tension_bounds_N", {{"min", m.f_min_N}, {"max", std::isfinite(m.f_max_N) ? json(m.f_max_N) : json(nullptr)}}},
                  {"first_at_min", first_at_min}};
  std::lock_guard lock(job.mutex);
  const Scene& sc = job.scene;
  // tension extremes over the run: which cable, when, how much
  const auto nf = static_cast<std::size_t>(sc.nframe());
  std::size_t lo = 0, hi = 0;
  for (std::size_t i = 0; i < nf * nc; ++i) {
    if (sc.tension_N[i] < sc.tension_N[lo]) lo = i;
    if (sc.tension_N[i] > sc.tension_N[hi]) hi = i;
  }
  if (nf * nc > 0) {
    const auto at = [&](std::size_t i) {
      return json{{"cable", m.cable_names[i % nc]}, {"t_s", sc.t_s[i / nc]}, {"value_N", sc.tension_N[i]}};
    };
    summary["tension_N"] = {{"min", at(lo)}, {"max", at(hi)}};
  }
  // a CDPR cable is slack when its tension is 0 (a solver that allows it: f_min = 0)
  add_frame_summary(sc, summary, std::vector<double>(nc, 0.0));
  summary["frames"] = sc.nframe();
  job.scene.plots.push_back({"tension norm |f| (" + std::string(cdpr::to_string(run.method)) + ")", "N", {}, {{"|f|", norm_N}}});
  job.scene.plots.push_back({"wrench residual |J f - w|", "N", {}, {{"residual", residual}}});
  job.summary_json = summary.dump();
}

}  // namespace detail

#else  // no CDPR module

struct CdprRun {};

namespace detail {
namespace {
[[noreturn]] void no_cdpr() { throw Error("model.yaml: a CDPR model (kind: cdpr), but this tendyn was built without the CDPR module"); }
}  // namespace
EditResult edit_cdpr_model(std::string_view, const json&, const Limits&) { no_cdpr(); }
std::shared_ptr<const CdprRun> parse_cdpr_run(const json&, const Limits&) { no_cdpr(); }
void run_cdpr_job(const CdprRun&, Job&, const std::function<void()>&) { no_cdpr(); }
}  // namespace detail

#endif

}  // namespace tendyn::viz::studio
