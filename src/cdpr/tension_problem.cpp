// The tension problem of a model at a pose. See include/tendyn/cdpr/tension_problem.hpp.
#include <tendyn/cdpr/tension_problem.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/io/csv.hpp>

#include <array>
#include <cmath>

namespace tendyn::cdpr {
namespace {

struct Column {
  const char* name;
  const char* unit;
};
constexpr std::array<Column, 3> kPlanarPose{{{"x", "_m"}, {"y", "_m"}, {"phi", "_rad"}}};
constexpr std::array<Column, 6> kSpatialPose{{{"x", "_m"}, {"y", "_m"}, {"z", "_m"}, {"roll", "_rad"}, {"pitch", "_rad"}, {"yaw", "_rad"}}};
constexpr std::array<Column, 6> kWrench{{{"fx", "_N"}, {"fy", "_N"}, {"fz", "_N"}, {"mx", "_Nm"}, {"my", "_Nm"}, {"mz", "_Nm"}}};

std::vector<Column> pose_columns(const Model& model) {
  if (model.motion == Motion::kPlanar) return {kPlanarPose.begin(), kPlanarPose.end()};
  return {kSpatialPose.begin(), kSpatialPose.end()};
}

std::string cable_name(const Model& model, int i) {
  const auto k = static_cast<std::size_t>(i);
  return k < model.cable_names.size() ? model.cable_names[k] : "c" + std::to_string(i + 1);
}

std::string place_of(const PoseTrajectory& t, std::size_t k) { return k < t.places.size() ? t.places[k] : "pose " + std::to_string(k); }

}  // namespace

SolverOptions solver_options(const Model& model) {
  SolverOptions o;
  o.f_min_N = model.f_min_N;
  o.f_max_N = model.f_max_N;
  return o;
}

TensionProblem make_tension_problem(const Model& model, const std::string& group, const std::vector<WrenchRow>& rows) {
  TensionProblem p;
  if (group.empty()) {
    for (int i = 0; i < model.ncable(); ++i) p.cables.push_back(i);
  } else {
    p.cables = cables_in_group(model, group);
  }
  p.rows = rows;
  const bool planar = model.motion == Motion::kPlanar;
  if (rows.empty()) {
    for (int r = 0; r < model.wrench_dim(); ++r) p.row_index.push_back(r);
  } else {
    for (WrenchRow row : rows) {
      int r = static_cast<int>(row);
      if (planar) {
        if (row == WrenchRow::kFx)
          r = 0;
        else if (row == WrenchRow::kFy)
          r = 1;
        else if (row == WrenchRow::kMz)
          r = 2;
        else
          throw Error("tension problem: planar model '" + model.name + "' has no wrench row '" + to_string(row) +
                      "' (rows are fx, fy, mz)");
      }
      p.row_index.push_back(r);
    }
  }
  p.options = solver_options(model);
  p.geometry = make_data(model);
  p.J = Eigen::MatrixXd::Zero(p.nrow(), p.ncable());
  p.w = Eigen::VectorXd::Zero(p.nrow());
  p.w_model = Eigen::VectorXd::Zero(model.wrench_dim());
  return p;
}

void update_tension_problem(const Model& model, const Pose& pose, TensionProblem& p) {
  update_geometry(model, pose, p.geometry);
  const Eigen::MatrixXd& J = p.geometry.J;
  for (Eigen::Index c = 0; c < p.J.cols(); ++c)
    for (Eigen::Index r = 0; r < p.J.rows(); ++r)
      p.J(r, c) = J(p.row_index[static_cast<std::size_t>(r)], p.cables[static_cast<std::size_t>(c)]);
  gravity_compensation_wrench(model, pose, p.w_model);
  for (Eigen::Index r = 0; r < p.w.size(); ++r) p.w[r] = p.w_model[p.row_index[static_cast<std::size_t>(r)]];
}

std::string_view method_inapplicable_reason(Method method, const TensionProblem& problem) {
  if ((method == Method::kClosedForm || method == Method::kImprovedClosedForm || method == Method::kCentred ||
       method == Method::kCentroid) &&
      !std::isfinite(problem.options.f_max_N))
    return "needs a finite f_max";
  if (method == Method::kExhaustive && problem.ncable() > 24) return "more than 24 cables";
  if (method == Method::kCentroid && problem.ncable() != problem.nrow() + 2) return "needs exactly 2 more cables than wrench rows";
  return "";
}

TensionJump max_tension_jump(const std::vector<TensionResult>& results) {
  TensionJump j;
  for (std::size_t k = 1; k < results.size(); ++k) {
    const Eigen::VectorXd& a = results[k - 1].f_N;
    const Eigen::VectorXd& b = results[k].f_N;
    if (a.size() != b.size())
      throw Error("max_tension_jump: results " + std::to_string(k - 1) + " and " + std::to_string(k) + " have different cable counts");
    for (Eigen::Index c = 0; c < a.size(); ++c) {
      const double d = std::abs(b[c] - a[c]);
      if (d > j.jump_N || (std::isnan(d) && !std::isnan(j.jump_N))) {
        j.jump_N = d;
        j.row = k;
        j.column = static_cast<int>(c);
      }
    }
  }
  return j;
}

TensionResult solve_tension_problem(Method method, const TensionProblem& problem, const Eigen::VectorXd& w) {
  if (w.size() != 0 && w.size() != problem.nrow())
    throw Error("tension problem: the wrench has " + std::to_string(w.size()) + " entries but the problem has " +
                std::to_string(problem.nrow()) + " rows");
  return solve_tensions(method, problem.J, w.size() != 0 ? w : problem.w, problem.options);
}

bool method_applicable(Method method, const TensionProblem& problem) { return method_inapplicable_reason(method, problem).empty(); }

void scatter_tensions(const Model& model, const TensionProblem& problem, const Eigen::VectorXd& f_N, Eigen::VectorXd& f_model_N) {
  if (f_N.size() != problem.ncable())
    throw Error("scatter_tensions: " + std::to_string(f_N.size()) + " tensions for " + std::to_string(problem.ncable()) + " cables");
  if (f_model_N.size() != model.ncable()) f_model_N.resize(model.ncable());
  f_model_N.setZero();
  for (std::size_t k = 0; k < problem.cables.size(); ++k) f_model_N[problem.cables[k]] = f_N[static_cast<Eigen::Index>(k)];
}

PoseTrajectory read_pose_trajectory(const std::string& path, const Model& model) {
  io::CsvReader in(path);
  const auto pose_cols = pose_columns(model);
  std::vector<int> pidx;
  for (const auto& c : pose_cols) pidx.push_back(in.require_column(c.name, c.unit));
  const int tcol = in.find_column("t", "_s");
  std::vector<int> widx;  // wrench columns present, in the order fx .. mz
  for (const auto& c : kWrench) {
    const int k = in.find_column(c.name, c.unit);
    if (k >= 0) widx.push_back(k);
  }
  std::vector<double> q, t, w;
  PoseTrajectory out;
  while (in.next()) {
    for (int k : pidx) q.push_back(in.number(k));
    if (tcol >= 0) t.push_back(in.number(tcol));
    for (int k : widx) w.push_back(in.number(k));
    out.places.push_back(in.where());
  }
  const auto n = static_cast<Eigen::Index>(out.places.size());
  const auto row_major = [n](const std::vector<double>& v, std::size_t cols) {
    Eigen::MatrixXd m(n, static_cast<Eigen::Index>(cols));
    for (Eigen::Index i = 0; i < n; ++i)
      for (std::size_t j = 0; j < cols; ++j) m(i, static_cast<Eigen::Index>(j)) = v[static_cast<std::size_t>(i) * cols + j];
    return m;
  };
  out.q = row_major(q, pidx.size());
  if (tcol >= 0) out.t_s = Eigen::Map<const Eigen::VectorXd>(t.data(), n);
  out.w = row_major(w, widx.size());
  return out;
}

std::vector<TensionResult> solve_tension_trajectory(const Model& model, TensionProblem& problem, Method method,
                                                    const PoseTrajectory& trajectory, const TensionObserver& observer) {
  const Eigen::Index n = trajectory.q.rows();
  if (trajectory.t_s.size() != 0 && trajectory.t_s.size() != n)
    throw Error("tension trajectory: " + std::to_string(trajectory.t_s.size()) + " times for " + std::to_string(n) + " poses");
  if (trajectory.w.cols() != 0 && trajectory.w.rows() != n)
    throw Error("tension trajectory: " + std::to_string(trajectory.w.rows()) + " wrenches for " + std::to_string(n) + " poses");
  if (n > 0 && trajectory.w.cols() != 0 && trajectory.w.cols() != problem.nrow())
    throw Error(place_of(trajectory, 0) + ": " + std::to_string(trajectory.w.cols()) + " wrench columns but J has " +
                std::to_string(problem.nrow()) + " rows");
  std::vector<TensionResult> results(static_cast<std::size_t>(n));
  Workspace ws(std::max(1, problem.nrow()), std::max(1, problem.ncable()));
  Eigen::VectorXd q, w;
  for (Eigen::Index k = 0; k < n; ++k) {
    const auto row = static_cast<std::size_t>(k);
    q = trajectory.q.row(k).transpose();
    Pose pose;
    try {
      pose = pose_from_vector(model, q);
      update_tension_problem(model, pose, problem);
    } catch (const Error& e) {
      throw Error(place_of(trajectory, row) + ": " + e.what());
    }
    if (trajectory.w.cols() != 0) w = trajectory.w.row(k).transpose();
    solve_tensions(method, problem.J, trajectory.w.cols() != 0 ? w : problem.w, problem.options, ws, results[row]);
    if (observer) observer(row, pose, problem, results[row]);
  }
  return results;
}

std::string tension_trajectory_csv(const Model& model, const TensionProblem& problem, const PoseTrajectory& trajectory,
                                   const std::vector<TensionResult>& results) {
  if (static_cast<Eigen::Index>(results.size()) != trajectory.q.rows())
    throw Error("tension_trajectory_csv: " + std::to_string(results.size()) + " results for " + std::to_string(trajectory.q.rows()) +
                " poses");
  const bool timed = trajectory.t_s.size() != 0;
  io::CsvLine line;
  if (timed) line.text("t_s");
  for (const auto& c : pose_columns(model)) line.text(std::string(c.name) + c.unit);
  line.text("status").text("loaded").text("residual_norm_N").text("tension_norm_N");
  for (int c : problem.cables) line.text(cable_name(model, c) + ".tension_N");
  std::string out = line.str() + "\n";
  for (std::size_t k = 0; k < results.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    const TensionResult& r = results[k];
    line.clear();
    if (timed) line.num(trajectory.t_s[i]);
    line.nums(trajectory.q.row(i));
    line.text(to_string(r.status)).integer(r.loaded_count).num(r.residual_norm).num(r.tension_norm).nums(r.f_N);
    out += line.str();
    out += '\n';
  }
  return out;
}

}  // namespace tendyn::cdpr
