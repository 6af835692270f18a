// tendyn tension: cable tension distribution for cable-driven parallel robots (document 002).
// Option parsing and printing only: the problem (cdpr::TensionProblem), trajectories and the
// study are library functions (include/tendyn/cdpr/tension_problem.hpp, study.hpp).
//   tendyn tension solve MODEL.yaml [--pose ...] [--wrench ...] [--group G] [--rows fx,fy,mz]
//   tendyn tension trajectory MODEL.yaml --in poses.csv [-o DIR] [--method exact[,centroid,...]]
//   tendyn tension interference MODEL.yaml --in poses.csv [--clearance M] [--platform hull|box:..|none]
//   tendyn tension study [--count N] [--seed S] [--size 6x12]    (also: tendyn tension --random-study)
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/study.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/cdpr/tension_problem.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/viz/cdpr_scene.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "viewer_cli.hpp"

namespace tendyn::cli {
namespace {

using cdpr::Method;

std::vector<Method> parse_methods(const std::string& s) {
  if (s == "all")
    return {Method::kExhaustive,         Method::kLawsonHanson, Method::kExact,   Method::kClosedForm,
            Method::kImprovedClosedForm, Method::kCentred,      Method::kCentroid};
  std::vector<Method> m;
  for (const auto& p : io::split_fields(s)) m.push_back(cdpr::method_from_string(p));
  if (m.empty()) throw Error("--method: empty list");
  return m;
}

struct CommonArgs {
  std::string model, group, rows, method = "all";
  std::optional<double> fmin, fmax;  ///< unset: the model's tension.min / tension.max
  double iqr = 10.0, precision = 1e-6;
  bool json = false;
};

/// The options' problem: cable group, wrench rows, bounds and tolerances (cdpr::TensionProblem).
cdpr::TensionProblem make_problem(const cdpr::Model& m, const CommonArgs& a) {
  std::vector<cdpr::WrenchRow> rows;
  for (const auto& r : io::split_fields(a.rows)) rows.push_back(cdpr::wrench_row_from_string(r));
  cdpr::TensionProblem p = cdpr::make_tension_problem(m, a.group, rows);
  if (a.fmin) p.options.f_min_N = *a.fmin;
  if (a.fmax) p.options.f_max_N = *a.fmax;
  p.options.iqr_coefficient = a.iqr;
  p.options.residual_precision = a.precision;
  return p;
}

Eigen::VectorXd parse_vector(const std::string& s, const std::string& what) {
  const auto v = io::parse_finite_list(s, what);
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

// ------------------------------------------------------------------------------------ solve
struct SolveArgs : CommonArgs {
  std::string pose, wrench;
};

void run_solve(const SolveArgs& a) {
  const cdpr::ModelFile mf = cdpr::load_model(a.model);
  const auto& model = mf.model;
  cdpr::TensionProblem s = make_problem(model, a);
  Eigen::VectorXd q = a.pose.empty() ? mf.default_pose : parse_vector(a.pose, "--pose");
  if (q.size() == 0) throw Error("--pose: model has no default pose; give --pose");
  const cdpr::Pose pose = cdpr::pose_from_vector(model, q);
  cdpr::update_tension_problem(model, pose, s);
  const Eigen::MatrixXd& J = s.J;
  Eigen::VectorXd w = a.wrench.empty() ? s.w : parse_vector(a.wrench, "--wrench");
  if (w.size() != J.rows())
    throw Error("--wrench: needs " + std::to_string(J.rows()) + " values (rows of J), got " + std::to_string(w.size()));
  const auto methods = parse_methods(a.method);
  cdpr::Workspace ws(static_cast<int>(J.rows()), static_cast<int>(J.cols()));
  nlohmann::json out;
  out["model"] = model.name;
  out["pose"] = std::vector<double>(q.data(), q.data() + q.size());
  out["wrench"] = std::vector<double>(w.data(), w.data() + w.size());
  out["rows"] = J.rows();
  out["f_min"] = s.options.f_min_N;
  out["f_max"] = std::isfinite(s.options.f_max_N) ? nlohmann::json(s.options.f_max_N) : nlohmann::json(nullptr);
  std::vector<std::string> names;
  for (int c : s.cables) names.push_back(model.cable_names[static_cast<std::size_t>(c)]);
  out["cables"] = names;
  std::vector<std::pair<Method, cdpr::TensionResult>> results;
  std::vector<double> times;
  for (Method m : methods) {
    const auto why = cdpr::method_inapplicable_reason(m, s);
    // "all" lists centroid, which exists only for two redundant cables: left out silently otherwise
    if (!why.empty() && a.method == "all" && m == Method::kCentroid && s.ncable() != s.nrow() + 2) continue;
    if (!why.empty()) {
      std::fprintf(stderr, "tendyn tension: skipping %s (%.*s)\n", cdpr::to_string(m), static_cast<int>(why.size()), why.data());
      continue;
    }
    cdpr::TensionResult r;
    const auto t0 = std::chrono::steady_clock::now();
    cdpr::solve_tensions(m, J, w, s.options, ws, r);
    times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    results.emplace_back(m, r);
  }
  const double wn = w.stableNorm();  // |w|^2 may overflow for |w| > 1e154
  if (a.json) {
    nlohmann::json arr = nlohmann::json::array();
    for (std::size_t k = 0; k < results.size(); ++k) {
      const auto& [m, r] = results[k];
      arr.push_back({{"method", cdpr::to_string(m)},
                     {"status", cdpr::to_string(r.status)},
                     {"reason", r.reason},
                     {"tensions_N", std::vector<double>(r.f_N.data(), r.f_N.data() + r.f_N.size())},
                     {"loaded", r.loaded_count},
                     {"tension_norm_N", r.tension_norm},
                     {"residual_norm", r.residual_norm},
                     {"relative_residual", wn > 0 ? r.residual_norm / wn : r.residual_norm},
                     {"iterations", r.iterations},
                     {"time_us", times[k]}});
    }
    out["results"] = arr;
    clean_negative_zeros(out);
    std::printf("%s\n", out.dump(2).c_str());
    return;
  }
  std::printf(
      "model %s (%s, %zu of %d cables), J %ld x %ld, tensions in [%g, %g] N (exact and "
      "closed forms; exhaustive and lawson-hanson solve f >= 0 and say out_of_bounds when they break them)\n",
      model.name.c_str(), cdpr::to_string(model.motion), s.cables.size(), model.ncable(), static_cast<long>(J.rows()),
      static_cast<long>(J.cols()), s.options.f_min_N, s.options.f_max_N);
  // printed values: round-off noise next to the column's scale shows as 0 (--json keeps every digit)
  const auto span = [](const Eigen::VectorXd& v) { return std::span<const double>(v.data(), static_cast<std::size_t>(v.size())); };
  std::printf("wrench w =");
  for (Eigen::Index i = 0; i < w.size(); ++i) std::printf(" %.6g", display_value(w[i], column_scale(span(w))));
  std::printf("\n\n%-22s %-14s %7s %12s %12s %10s %6s %9s\n", "method", "status", "loaded", "|f| [N]", "|Jf-w|", "rel.res", "iters",
              "time[us]");
  for (std::size_t k = 0; k < results.size(); ++k) {
    const auto& [m, r] = results[k];
    const double rel = wn > 0 ? r.residual_norm / wn : r.residual_norm;
    std::printf("%-22s %-14s %4d/%-2ld %12.6g %12.4g %10.3g %6d %9.1f\n", cdpr::to_string(m), cdpr::to_string(r.status), r.loaded_count,
                static_cast<long>(J.cols()), r.tension_norm, display_value(r.residual_norm, std::max(wn, r.tension_norm), 1e-12),
                display_value(rel, 1.0, 1e-12), r.iterations, times[k]);
  }
  for (const auto& [m, r] : results)
    if (r.status != cdpr::Status::kOk) std::printf("%s: %s\n", cdpr::to_string(m), r.reason);
  std::printf("\n%-8s", "cable");
  for (const auto& mr : results) std::printf(" %14.14s", cdpr::to_string(mr.first));
  std::printf("\n");
  for (std::size_t c = 0; c < s.cables.size(); ++c) {
    std::printf("%-8s", names[c].c_str());
    for (const auto& mr : results)
      std::printf(" %14.6g", display_value(mr.second.f_N[static_cast<Eigen::Index>(c)], column_scale(span(mr.second.f_N))));
    std::printf("\n");
  }
}

// ------------------------------------------------------------------------------- trajectory
struct TrajArgs : CommonArgs {
  std::string in, out_dir = "out/tension-trajectory";
  bool html = false;
};

void run_trajectory(TrajArgs a) {
  if (a.method == "all") a.method = "exact";
  const auto methods = parse_methods(a.method);
  const Method meth = methods[0];  // tensions.csv and the viewer; every method gets a jump line
  const cdpr::ModelFile mf = cdpr::load_model(a.model);
  const auto& model = mf.model;
  cdpr::TensionProblem s = make_problem(model, a);
  for (Method m : methods) {
    const auto why = cdpr::method_inapplicable_reason(m, s);
    if (!why.empty()) throw Error(std::string("--method: ") + cdpr::to_string(m) + " is not applicable here (" + std::string(why) + ")");
  }
  const cdpr::PoseTrajectory traj = cdpr::read_pose_trajectory(a.in, model);
  if (a.html) require_viewer();
  viz::Scene scene = viz::make_scene(model);
  Eigen::VectorXd f_all;
  std::vector<double> norm_f, residual;  // per frame, for the viewer's plots
  const auto results = cdpr::solve_tension_trajectory(
      model, s, meth, traj, [&](std::size_t row, const cdpr::Pose& pose, const cdpr::TensionProblem& p, const cdpr::TensionResult& r) {
        // the viewer's frame time: column t, or the row number at 10 frames per second
        const double t = traj.t_s.size() != 0 ? traj.t_s[static_cast<Eigen::Index>(row)] : 0.1 * static_cast<double>(row);
        cdpr::scatter_tensions(model, p, r.f_N, f_all);
        try {
          viz::add_cdpr_frame(scene, model, p.geometry, pose, t,
                              std::span<const double>(f_all.data(), static_cast<std::size_t>(f_all.size())));
        } catch (const Error& e) {
          throw Error(traj.places[row] + ": " + e.what());
        }
        norm_f.push_back(r.tension_norm);
        residual.push_back(r.residual_norm);
      });
  // The largest tension jump between consecutive poses, per method (the first one's results above).
  struct JumpRow {
    Method method;
    long not_ok;
    cdpr::TensionJump jump;
  };
  std::vector<JumpRow> jumps;
  for (std::size_t k = 0; k < methods.size(); ++k) {
    const auto rs = k == 0 ? results : cdpr::solve_tension_trajectory(model, s, methods[k], traj);
    const long not_ok = std::count_if(rs.begin(), rs.end(), [](const cdpr::TensionResult& r) { return r.status != cdpr::Status::kOk; });
    jumps.push_back({methods[k], not_ok, cdpr::max_tension_jump(rs)});
  }
  const auto bad = jumps[0].not_ok;
  scene.plots.push_back({"tension norm |f| (" + std::string(cdpr::to_string(meth)) + ")", "N", {}, {{"|f|", norm_f}}});
  scene.plots.push_back({"wrench residual |J f - w|", "N", {}, {{"residual", residual}}});
  const auto place = [&](std::size_t row) { return row < traj.places.size() ? traj.places[row] : "pose " + std::to_string(row); };
  const auto cable = [&](int col) {
    return col < 0 ? std::string() : model.cable_names[static_cast<std::size_t>(s.cables[static_cast<std::size_t>(col)])];
  };
  std::string jcsv = "method,poses,not_ok,max_jump_N,cable,from_row,to_row\n";
  for (const auto& j : jumps) {
    io::CsvLine line;
    line.text(cdpr::to_string(j.method)).integer(static_cast<long long>(results.size())).integer(j.not_ok).num(j.jump.jump_N);
    if (j.jump.column >= 0)
      line.text(cable(j.jump.column)).integer(static_cast<long long>(j.jump.row) - 1).integer(static_cast<long long>(j.jump.row));
    else
      line.text("").text("").text("");
    jcsv += line.str() + "\n";
  }
  const std::filesystem::path dir(a.out_dir);
  io::ResultSet out(dir);  // tensions.csv, jumps.csv and scene.json appear together (docs/CLI.md "Outputs")
  io::write_file_atomic(out.file("tensions.csv"), cdpr::tension_trajectory_csv(model, s, traj, results));
  io::write_file_atomic(out.file("jumps.csv"), jcsv);
  const bool wrote_html = !write_scene_outputs(out.staging(), scene, a.html).empty();
  out.commit();
  const auto html = wrote_html ? dir / "view.html" : std::filesystem::path();
  std::printf("wrote %s, jumps.csv and scene.json: %ld poses, method %s, %ld not ok\n", (dir / "tensions.csv").string().c_str(),
              static_cast<long>(results.size()), cdpr::to_string(meth), static_cast<long>(bad));
  std::printf("largest tension jump between consecutive poses:\n%-22s %7s %14s %-8s %s\n", "method", "not ok", "max jump [N]", "cable",
              "between");
  for (const auto& j : jumps) {
    std::printf("%-22s %7ld %14.6g %-8s %s\n", cdpr::to_string(j.method), j.not_ok, j.jump.jump_N,
                j.jump.column >= 0 ? cable(j.jump.column).c_str() : "-",
                j.jump.column >= 0 ? (place(j.jump.row - 1) + " -> " + place(j.jump.row)).c_str() : "-");
  }
  if (!html.empty()) std::printf("viewer: %s\n", html.string().c_str());
}

// ------------------------------------------------------------------------------------ study
struct TensionStudyArgs {
  int count = 1000, examples = 4;
  std::uint64_t seed = 1;
  std::string size = "6x12", mode = "feasible";
  double iqr = 10.0, precision = 1e-6;
  bool json = false;
  bool random_flag = false;
};

void run_tension_study(const TensionStudyArgs& a) {
  const auto dims = io::split_fields(a.size, 'x');
  if (dims.size() != 2) throw Error("--size: expected MxN, e.g. 6x12 (got '" + a.size + "')");
  const int m = static_cast<int>(io::parse_finite(dims[0], "--size"));
  const int n = static_cast<int>(io::parse_finite(dims[1], "--size"));
  if (m < 1 || m > 6 || n < 1 || n > 20) throw Error("--size: need 1 <= M <= 6 and 1 <= N <= 20");
  if (a.count < 1) throw Error("--count: must be >= 1");
  cdpr::WrenchMode mode{};
  try {
    mode = cdpr::wrench_mode_from_string(a.mode);
  } catch (const Error& e) {
    throw Error(std::string("--mode: ") + e.what());
  }
  cdpr::SolverOptions o;
  o.iqr_coefficient = a.iqr;
  o.residual_precision = a.precision;
  const std::vector<Method> methods{Method::kExhaustive, Method::kLawsonHanson, Method::kExact};
  // in chunks of consecutive seeds for the progress line (problem k depends on its seed only:
  // the rows are those of one call)
  std::vector<cdpr::StudyRow> rows;
  rows.reserve(static_cast<std::size_t>(a.count));
  Progress progress("tension study", true);
  const int chunk = std::max(1, a.count / 100);
  for (int first = 0; first < a.count; first += chunk) {
    auto part =
        cdpr::run_random_study(m, n, std::min(chunk, a.count - first), a.seed + static_cast<std::uint64_t>(first), methods, o, mode);
    for (auto& row : part) rows.push_back(std::move(row));
    progress.update(static_cast<double>(rows.size()) / a.count);
  }
  progress.finish();
  const auto sum = cdpr::summarize_study(rows, 0, 1);
  const auto sum_exact = cdpr::summarize_study(rows, 2, 1);
  if (a.json) {
    nlohmann::json j;
    j["size"] = a.size;
    j["count"] = a.count;
    j["seed"] = a.seed;
    j["mode"] = a.mode;
    auto summ = [](const cdpr::StudySummary& s) {
      return nlohmann::json{{"problems", s.problems},
                            {"more_loaded", s.a_more_loaded},
                            {"equal_loaded", s.a_equal_loaded},
                            {"fewer_loaded", s.a_fewer_loaded},
                            {"smaller_norm", s.a_smaller_norm},
                            {"equal_norm", s.a_equal_norm},
                            {"median_norm_reduction", s.median_norm_reduction},
                            {"mean_norm_reduction", s.mean_norm_reduction},
                            {"min_norm_reduction", s.min_norm_reduction},
                            {"max_norm_reduction", s.max_norm_reduction},
                            {"p25_norm_reduction", s.p25_norm_reduction},
                            {"p75_norm_reduction", s.p75_norm_reduction},
                            {"mean_loaded", s.mean_loaded_a},
                            {"mean_loaded_lsqnonneg", s.mean_loaded_b},
                            {"max_relative_residual", s.max_rel_residual_a},
                            {"max_relative_residual_lsqnonneg", s.max_rel_residual_b},
                            {"near_singular", s.near_singular_a}};
    };
    j["exhaustive_vs_lawson_hanson"] = summ(sum);
    j["exact_vs_lawson_hanson"] = summ(sum_exact);
    clean_negative_zeros(j);
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::printf(
      "random %s study: %d problems, seeds %llu..%llu, J ~ U[-1,1], w %s; exhaustive "
      "(IQR k = %g, residual precision %g) vs Lawson-Hanson (lsqnonneg) vs exact\n\n",
      a.size.c_str(), a.count, static_cast<unsigned long long>(a.seed), static_cast<unsigned long long>(a.seed + a.count - 1),
      mode == cdpr::WrenchMode::kFeasible ? "= J f0, f0 ~ U[0,1]" : "~ U[-1,1]", a.iqr, a.precision);
  const int ex = std::min(a.examples, a.count);
  std::printf("%-28s", "example (seed)");
  for (int k = 0; k < ex; ++k) std::printf(" | %-8llu %-8s %-8s", static_cast<unsigned long long>(rows[k].seed), "", "");
  std::printf("\n%-28s", "method");
  for (int k = 0; k < ex; ++k) std::printf(" | %-8s %-8s %-8s", "exhaust.", "lsqnonn.", "exact");
  auto line = [&](const char* label, auto getter) {
    std::printf("\n%-28s", label);
    for (int k = 0; k < ex; ++k) {
      std::printf(" |");
      for (std::size_t mm = 0; mm < 3; ++mm) std::printf(" %-8s", getter(rows[k], mm).c_str());
    }
  };
  auto fmt = [](double v, const char* f) {
    char b[32];
    std::snprintf(b, sizeof b, f, v);
    return std::string(b);
  };
  line("loaded cables", [&](const cdpr::StudyRow& r, std::size_t mm) { return std::to_string(r.results[mm].loaded_count); });
  line("norm |f|", [&](const cdpr::StudyRow& r, std::size_t mm) { return fmt(r.results[mm].tension_norm, "%.3f"); });
  line("relative residual",
       [&](const cdpr::StudyRow& r, std::size_t mm) { return fmt(display_value(r.relative_residual[mm], 1.0, 1e-12), "%.1e"); });
  line("status", [&](const cdpr::StudyRow& r, std::size_t mm) { return std::string(cdpr::to_string(r.results[mm].status)).substr(0, 8); });
  auto pct = [&](int k) { return 100.0 * k / sum.problems; };
  std::printf("\n\nsummary over %d problems (exhaustive vs lsqnonneg):\n", sum.problems);
  std::printf("  loads more cables      %6.1f%%   (equal %.1f%%, fewer %.1f%%); mean loaded %.2f vs %.2f\n", pct(sum.a_more_loaded),
              pct(sum.a_equal_loaded), pct(sum.a_fewer_loaded), sum.mean_loaded_a, sum.mean_loaded_b);
  std::printf(
      "  smaller norm           %6.1f%%   (equal %.1f%%); reduction where smaller: median %.1f%%, "
      "mean %.1f%%, quartiles %.1f..%.1f%%, range %.1f..%.1f%% (document: 15-40%%)\n",
      pct(sum.a_smaller_norm), pct(sum.a_equal_norm), 100 * sum.median_norm_reduction, 100 * sum.mean_norm_reduction,
      100 * sum.p25_norm_reduction, 100 * sum.p75_norm_reduction, 100 * sum.min_norm_reduction, 100 * sum.max_norm_reduction);
  std::printf("  max relative residual  %.2g (exhaustive), %.2g (lsqnonneg), %.2g (exact)\n",
              display_value(sum.max_rel_residual_a, 1.0, 1e-12), display_value(sum.max_rel_residual_b, 1.0, 1e-12),
              display_value(sum_exact.max_rel_residual_a, 1.0, 1e-12));
  std::printf("  near-singular flags    %d (exhaustive), %d (lsqnonneg)\n", sum.near_singular_a, sum.near_singular_b);
  std::printf("  exact vs lsqnonneg: smaller norm %.1f%%, median reduction %.1f%%\n", 100.0 * sum_exact.a_smaller_norm / sum.problems,
              100 * sum_exact.median_norm_reduction);
}

void add_common(CLI::App* cmd, CommonArgs& a) {
  cmd->add_option("model", a.model, "CDPR model file (YAML, docs/CDPR.md)")->required()->transform(model_file());
  cmd->add_option("--group", a.group, "use only the cables of this group (e.g. lower; default: all cables)");
  cmd->add_option("--rows", a.rows, "wrench rows to keep, e.g. fx,fy,mz (default: all)");
  cmd->add_option("--fmin", a.fmin, "lower tension bound [N] (default: model's tension.min)");
  cmd->add_option("--fmax", a.fmax, "upper tension bound [N] (default: model's tension.max)");
  cmd->add_option("--iqr", a.iqr, "exhaustive: interquartile-range coefficient")->capture_default_str();
  cmd->add_option("--precision", a.precision, "exhaustive: residual rounding, relative to |w|")->capture_default_str();
}

}  // namespace

void register_tension(CLI::App& app) {
  auto* cmd = app.add_subcommand("tension", "cable tension distribution for cable-driven parallel robots (document 002)");
  auto study = std::make_shared<TensionStudyArgs>();
  cmd->add_flag("--random-study", study->random_flag, "run the random 6x12 study (same as 'tension study' with defaults)");
  cmd->require_subcommand(0, 1);

  auto solve = std::make_shared<SolveArgs>();
  auto* s = cmd->add_subcommand("solve", "tensions for one pose and wrench, every method side by side");
  add_common(s, *solve);
  s->add_option("--pose", solve->pose, "x,y,phi (planar) or x,y,z,roll,pitch,yaw [m, rad]; default: model's pose");
  s->add_option("--wrench", solve->wrench, "wrench the cables must exert, one value per row of J [N, N m]; default: gravity compensation");
  s->add_option("--method", solve->method,
                "all, or a list of exhaustive,lawson-hanson,exact,closed-form,improved-closed-form,centred,centroid")
      ->capture_default_str();
  s->add_flag("--json", solve->json, "print JSON instead of a table");
  s->callback([solve] { run_solve(*solve); });

  auto traj = std::make_shared<TrajArgs>();
  auto* t = cmd->add_subcommand("trajectory", "tensions along a trajectory: CSV of poses in, CSV of tensions out");
  add_common(t, *traj);
  t->add_option(
       "--in", traj->in,
       "CSV with header: [t,] x,y,z,roll,pitch,yaw (planar: x,y,phi) [, fx..mz]; names may carry units (t_s, x_m, roll_rad, fx_N, mx_Nm)")
      ->required()
      ->check(existing_file());
  t->add_option("-o,--out", traj->out_dir, "output directory: tensions.csv, jumps.csv, scene.json (and view.html)");
  traj->method = "exact";
  t->add_option("--method", traj->method,
                "a method or a list (exhaustive, lawson-hanson, exact, closed-form, improved-closed-form, centred, centroid): the "
                "first one's tensions are written, every one's largest tension jump is reported (jumps.csv)");
  t->add_flag("--html", traj->html, "also write view.html: the 3D viewer of the platform and tensions (docs/VIEWER.md)");
  t->callback([traj] { run_trajectory(*traj); });

  register_tension_interference(*cmd);

  auto* st = cmd->add_subcommand("study", "the document's random study: exhaustive vs lsqnonneg vs exact");
  st->add_option("--count", study->count, "number of random problems")->capture_default_str();
  st->add_option("--seed", study->seed, "first seed")->capture_default_str();
  st->add_option("--size", study->size, "MxN, rows x cables")->capture_default_str();
  st->add_option("--examples", study->examples, "problems printed in the table")->capture_default_str();
  st->add_option("--mode", study->mode, "feasible (w = J f0, f0 ~ U[0,1]) or uniform (w ~ U[-1,1])")->capture_default_str();
  st->add_option("--iqr", study->iqr, "interquartile-range coefficient")->capture_default_str();
  st->add_option("--precision", study->precision, "residual rounding, relative to |w|")->capture_default_str();
  st->add_flag("--json", study->json, "print JSON");
  st->callback([study] { run_tension_study(*study); });

  cmd->callback([cmd, study] {
    if (study->random_flag) {
      if (!cmd->get_subcommands().empty()) throw Error("--random-study: do not combine with a subcommand");
      run_tension_study(*study);
    } else if (cmd->get_subcommands().empty()) {
      throw CLI::CallForHelp();
    }
  });
}

}  // namespace tendyn::cli
