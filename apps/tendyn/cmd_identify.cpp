// tendyn identify MODEL --data motion.csv --fit PARAMS [-o DIR]: fits model parameters to a recorded
// motion (docs/IDENTIFY.md). The model's kind decides the method (identify_model_kind below):
// tensegrity YAML -> tensegrity::identify (multiple shooting, Ceres); CDPR YAML and tree YAML /
// URDF -> the linear (regressor) identification of those modules (cmd_identify_linear.cpp).
// Outputs in DIR: model.yaml (fitted), report.json, residuals.csv, markers.csv, identify.png.
#include <tendyn/core/format.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/tensegrity/identify.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "cli_util.hpp"
#include "commands.hpp"
#include "identify_linear.hpp"
#include "tensegrity_cli.hpp"

namespace tendyn::cli {

namespace {

namespace ts = tensegrity;

const ts::IdentifyOptions kDefaults;

struct IdentifyArgs {
  std::string model, data, fit, out, loss = "none";
  double dt = kDefaults.dt_s, segment = kDefaults.segment_s, sigma = kDefaults.marker_sigma_m, length_sigma = kDefaults.length_sigma_m,
         tension_sigma = kDefaults.tension_sigma_N, encoder_sigma = kDefaults.encoder_sigma_m, loss_scale = kDefaults.loss_scale;
  int max_iterations = kDefaults.max_iterations, threads = 1, restarts = kDefaults.restarts;
  bool no_covariance = false, no_plot = false, quiet = false, require_good_fit = false;
};

/// What kind of model a file holds: the dispatch point of `tendyn identify`.
enum class IdentifyModelKind { kTensegrity, kCdpr, kTree };

// A URDF is a tree; a YAML file with a top-level `kind: cdpr` is a CDPR, one with a top-level
// `links:` a tree model, anything else a tensegrity (whose reader then names what is wrong).
IdentifyModelKind identify_model_kind(const std::string& path) {
  const std::filesystem::path p(path);
  if (p.extension() == ".urdf") return IdentifyModelKind::kTree;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '-') continue;
    if (line.rfind("kind:", 0) == 0 && line.find("cdpr") != std::string::npos) return IdentifyModelKind::kCdpr;
    if (line.rfind("links:", 0) == 0) return IdentifyModelKind::kTree;
  }
  return IdentifyModelKind::kTensegrity;
}

std::string fmt6(double v) { return format_number(v, 6); }

// null for NaN (JSON has no NaN)
nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

const char* unit_of(ts::ParameterKind k) {
  switch (k) {
    case ts::ParameterKind::kStiffness: return "N/m";
    case ts::ParameterKind::kDamping: return "N s/m";
    case ts::ParameterKind::kRestLength: return "m";
    case ts::ParameterKind::kMass: return "kg";
    case ts::ParameterKind::kFriction: return "";
    case ts::ParameterKind::kGroundStiffness: return "N/m";
    case ts::ParameterKind::kGroundDamping: return "N s/m";
    case ts::ParameterKind::kInitialState: return "";
    case ts::ParameterKind::kWinchCoulombFriction: return "N m";
    case ts::ParameterKind::kWinchViscousFriction: return "N m s/rad";
    case ts::ParameterKind::kWinchNoLoadSpeed: return "rad/s";
    case ts::ParameterKind::kWinchKp: return "1/m";
    case ts::ParameterKind::kWinchKi: return "1/(m s)";
    case ts::ParameterKind::kWinchKd: return "s/m";
  }
  return "";
}

void print_identify_report(const ts::IdentifyResult& r, const std::filesystem::path& dir, bool no_plot, const std::string& verdict);

// The identification's options from the command line (without the progress and notice callbacks).
ts::IdentifyOptions identify_options(const IdentifyArgs& a) {
  ts::IdentifyOptions o;
  o.dt_s = a.dt;
  o.segment_s = a.segment;
  o.marker_sigma_m = a.sigma;
  o.length_sigma_m = a.length_sigma;
  o.tension_sigma_N = a.tension_sigma;
  o.encoder_sigma_m = a.encoder_sigma;
  o.loss = ts::robust_loss_from_string(a.loss);
  o.loss_scale = a.loss_scale;
  o.max_iterations = a.max_iterations;
  o.restarts = a.restarts;
  o.threads = a.threads;
  o.covariance = !a.no_covariance;
  return o;
}

// report.json (without the provenance): parameters, covariance, verdict, solver, fit, data, options.
nlohmann::json identify_report(const IdentifyArgs& a, const ts::Model& m, const ts::MotionData& data,
                               const std::vector<ts::ParameterGroup>& groups, const ts::IdentifyOptions& o, const ts::IdentifyResult& r) {
  nlohmann::json j;
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : r.parameters) {
    nlohmann::json el = nlohmann::json::array();
    for (int e : p.elements)
      el.push_back(p.kind == ts::ParameterKind::kMass ? m.rod_ids[static_cast<std::size_t>(e)] : m.cable_ids[static_cast<std::size_t>(e)]);
    params.push_back(
        {{"name", p.name},
         {"kind", ts::to_string(p.kind)},
         {"elements", el},
         {"unit", unit_of(p.kind)},
         {"nominal", p.nominal},
         {"fitted", p.fitted},
         {"std", number_or_null(p.std)},
         {"change_percent", p.nominal != 0.0 ? nlohmann::json(100.0 * (p.fitted - p.nominal) / p.nominal) : nlohmann::json(nullptr)}});
  }
  j["parameters"] = params;
  j["initial_state_fitted"] =
      std::any_of(groups.begin(), groups.end(), [](const auto& gr) { return gr.kind == ts::ParameterKind::kInitialState; });
  nlohmann::json corr = nlohmann::json::array();
  for (int i = 0; i < r.correlation.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int k = 0; k < r.correlation.cols(); ++k) row.push_back(number_or_null(r.correlation(i, k)));
    corr.push_back(row);
  }
  j["covariance"] = {{"ok", r.covariance_ok},
                     {"message", r.covariance_message},
                     {"variance_factor", number_or_null(r.variance_factor)},
                     {"correlation", corr}};
  nlohmann::json not_determined = nlohmann::json::array();
  for (const auto& u : r.unidentifiable) not_determined.push_back(u);
  j["verdict"] = {{"verdict", ts::to_string(r.verdict)},
                  {"good", r.verdict == ts::FitVerdict::kGood},
                  {"reason", r.verdict_reason},
                  {"not_determined", not_determined},
                  {"variance_factor", number_or_null(r.variance_factor)},
                  {"variance_factor_bound", number_or_null(r.variance_factor_bound)},
                  {"max_continuity_gap_m", number_or_null(r.max_continuity_gap_m)},
                  {"continuity_gap_bound_m", number_or_null(r.continuity_gap_bound_m)}};
  nlohmann::json restart_log = nlohmann::json::array();
  for (const auto& line : r.restart_log) restart_log.push_back(line);
  j["solver"] = {{"method", "Levenberg-Marquardt (Ceres Solver)"},
                 {"restart_log", restart_log},
                 {"termination", r.termination},
                 {"converged", r.converged},
                 {"iterations", r.iterations},
                 {"starts", r.starts},
                 {"winning_start", r.winning_start},
                 {"initial_cost", r.initial_cost},
                 {"final_cost", r.final_cost},
                 {"brief_report", r.solver_brief}};
  j["fit"] = {{"marker_rms_m", number_or_null(r.marker_rms_m)},
              {"marker_rms_free_fitted_m", number_or_null(r.marker_rms_free_fitted_m)},
              {"marker_rms_free_nominal_m", number_or_null(r.marker_rms_free_nominal_m)},
              {"free_error_ratio", number_or_null(r.marker_rms_free_fitted_m / r.marker_rms_free_nominal_m)},
              {"max_continuity_gap_m", number_or_null(r.max_continuity_gap_m)},
              {"segments", r.nsegment},
              {"residuals", r.nresidual},
              {"unknowns", r.nunknown}};
  j["data"] = {{"file", a.data},
               {"samples", data.nsample()},
               {"markers", data.nmarker()},
               {"t_first_s", data.t_s.front()},
               {"t_last_s", data.t_s.back()}};
  j["options"] = {{"dt_s", o.dt_s},
                  {"segment_s", o.segment_s},
                  {"marker_sigma_m", o.marker_sigma_m},
                  {"length_sigma_m", o.length_sigma_m},
                  {"tension_sigma_N", o.tension_sigma_N},
                  {"loss", ts::to_string(o.loss)},
                  {"loss_scale", o.loss_scale},
                  {"max_iterations", o.max_iterations},
                  {"restarts", o.restarts},
                  {"restart_variance_factor", o.restart_variance_factor},
                  {"restart_gap_m", o.restart_gap_sigmas * o.continuity_sigma_m},
                  {"restart_min_improvement", o.restart_min_improvement},
                  {"require_good_fit", a.require_good_fit},
                  {"fit", a.fit}};
  if (!data.encoder_cables.empty() || !data.target_cables.empty()) {
    // models with winches only (the keys are absent otherwise: the reports of the other models stay as they were)
    j["data"]["encoders"] = data.encoder_cables.size();
    j["data"]["targets"] = data.target_cables.size();
    j["options"]["encoder_sigma_m"] = o.encoder_sigma_m;
  }
  return j;
}

// residuals.csv (fit - measured) and markers.csv (measured, fit, free runs of the fitted and nominal models)
void write_marker_files(io::ResultSet& results, const ts::Model& m, const ts::MotionData& data, const ts::IdentifyResult& r) {
  std::string res = "t_s", mk = "t_s";
  for (int n : data.marker_nodes) {
    const std::string& id = m.node_ids[static_cast<std::size_t>(n)];
    for (const char* c : {"x", "y", "z"}) res += "," + id + "_d" + c + "_m";
    for (const char* c : {"x", "y", "z"})
      for (const char* w : {"", "_fit", "_free", "_nominal"}) mk += "," + id + "_" + c + w + "_m";
  }
  res += "\n";
  mk += "\n";
  io::CsvLine line;
  for (int s = 0; s < data.nsample(); ++s) {
    line.clear();
    line.num(data.t_s[static_cast<std::size_t>(s)]);
    for (int i = 0; i < 3 * data.nmarker(); ++i) {
      const double meas = data.p_W_marker_m(s, i);
      if (std::isnan(meas))
        line.text("");
      else
        line.num(r.p_W_fit_m(s, i) - meas);
    }
    res += line.str() + "\n";
    line.clear();
    line.num(data.t_s[static_cast<std::size_t>(s)]);
    for (int i = 0; i < 3 * data.nmarker(); ++i) {
      for (double v : {data.p_W_marker_m(s, i), r.p_W_fit_m(s, i), r.p_W_free_fitted_m(s, i), r.p_W_free_nominal_m(s, i)}) {
        if (std::isnan(v))
          line.text("");
        else
          line.num(v);
      }
    }
    mk += line.str() + "\n";
  }
  io::write_file_atomic(results.file("residuals.csv"), res);
  io::write_file_atomic(results.file("markers.csv"), mk);
}

void run_identify_tensegrity(const IdentifyArgs& a) {
  auto f = ts::load_model_file(a.model);
  const auto prov = model_provenance(a.model, f);
  const ts::Model& m = f.model;
  const ts::MotionData data = ts::load_motion_csv(m, a.data);
  const auto groups = ts::parse_fit_spec(m, a.fit);
  // the work bound, before any work (identify() checks it again)
  if (const double steps = ts::identify_step_count(data.t_s, a.dt); !(steps <= ts::kIdentifyMaxSteps))
    throw Error("identify: --dt " + fmt6(a.dt) + " s gives " + fmt6(steps) + " integration steps per pass over the " +
                fmt6(data.t_s.back() - data.t_s.front()) + " s of data, above the limit " + fmt6(ts::kIdentifyMaxSteps) +
                "; use a larger --dt");
  ts::IdentifyOptions o = identify_options(a);
  const bool show = !a.quiet && stderr_is_terminal();
  // restarts announce themselves (why each runs) on stderr, also when it is not a terminal
  bool progress_line = false;
  if (show) {
    o.progress = [&progress_line](int it, double cost, double grad) {
      std::fprintf(stderr, "\ridentify: iteration %d, cost %.6g, max gradient %.3g   ", it, cost, grad);
      std::fflush(stderr);
      progress_line = true;
    };
  }
  if (!a.quiet)
    o.notice = [&progress_line](const std::string& line) {
      std::fprintf(stderr, "%s%s\n", progress_line ? "\n" : "", line.c_str());
      std::fflush(stderr);
      progress_line = false;
    };
  const ts::IdentifyResult r = ts::identify(m, data, groups, o);
  if (progress_line) std::fprintf(stderr, "\n");

  const std::filesystem::path dir = a.out.empty() ? std::filesystem::path("out") / (m.name + "-identify") : std::filesystem::path(a.out);
  io::ResultSet results(dir);
  const std::string command = "tendyn identify " + a.model + " --data " + a.data + " --fit " + a.fit;
  io::write_file_atomic(results.file("model.yaml"), "# Fitted by: " + command + "\n# marker RMS " + fmt6(r.marker_rms_m) + " m (" +
                                                        r.termination + ", " + std::to_string(r.iterations) + " iterations)\n" +
                                                        ts::to_yaml(r.model, &f.simulation));
  write_summary(results.file("report.json"), identify_report(a, m, data, groups, o, r), prov);
  write_marker_files(results, m, data, r);
  results.commit();
  if (!a.no_plot) render_plot("identify", dir, dir / "identify.png");

  const bool good = r.verdict == ts::FitVerdict::kGood;
  const std::string verdict =
      std::string("verdict: ") + ts::to_string(r.verdict) + (good ? "" : " (WARNING: check the reason before using these values)");
  if (a.quiet) {
    if (!good) std::fprintf(stderr, "tendyn: warning: identify %s: %s\n", verdict.c_str(), r.verdict_reason.c_str());
  } else {
    print_identify_report(r, dir, a.no_plot, verdict);
  }
  if (a.require_good_fit && !good)
    throw SimulationError("identify: the fit's verdict is '" + std::string(ts::to_string(r.verdict)) +
                              "', not good, and --require-good-fit is set (the results are in " + dir.string() + ")",
                          data.t_s.back());
}

void print_identify_report(const ts::IdentifyResult& r, const std::filesystem::path& dir, bool no_plot, const std::string& verdict) {
  std::printf("%s\n", r.solver_brief.c_str());
  std::printf("%-24s %12s %12s %12s %9s\n", "parameter", "nominal", "fitted", "std", "change");
  for (const auto& p : r.parameters)
    std::printf("%-24s %12.6g %12.6g %12.3g %8.2f%%\n", p.name.c_str(), p.nominal, p.fitted, p.std,
                p.nominal != 0.0 ? 100.0 * (p.fitted - p.nominal) / p.nominal : 0.0);
  if (!r.covariance_ok) std::printf("no covariance: %s\n", r.covariance_message.c_str());
  // single shooting (models with winches, end-caps...: identify.hpp) has no continuity gap (NaN)
  const bool single = std::isnan(r.continuity_gap_bound_m);
  if (single)
    std::printf("marker RMS: fit %s m (single shooting, one run of the fitted model), one free run: nominal %s m\n",
                fmt6(r.marker_rms_m).c_str(), fmt6(r.marker_rms_free_nominal_m).c_str());
  else
    std::printf("marker RMS: fit %s m (multiple shooting, %d segments), one free run: fitted %s m, nominal %s m\n",
                fmt6(r.marker_rms_m).c_str(), r.nsegment, fmt6(r.marker_rms_free_fitted_m).c_str(),
                fmt6(r.marker_rms_free_nominal_m).c_str());
  if (r.starts > 1) std::printf("starts: %d fits (restarts), the result from start %d\n", r.starts, r.winning_start);
  if (single)
    std::printf("fit statistics: variance factor %s (99.9 %% bound %s)\n", fmt6(r.variance_factor).c_str(),
                io::format_number(r.variance_factor_bound, 4).c_str());
  else
    std::printf("fit statistics: variance factor %s (99.9 %% bound %s), largest continuity gap %s m (bound %s m)\n",
                fmt6(r.variance_factor).c_str(), io::format_number(r.variance_factor_bound, 4).c_str(),
                fmt6(r.max_continuity_gap_m).c_str(), fmt6(r.continuity_gap_bound_m).c_str());
  std::printf("%s\n  %s\n", verdict.c_str(), r.verdict_reason.c_str());
  std::printf("wrote %s: model.yaml, report.json, residuals.csv, markers.csv%s (%.2f s)\n", dir.string().c_str(),
              no_plot ? "" : ", identify.png", r.solve_time_s);
}

}  // namespace

void register_identify(CLI::App& app) {
  auto a = std::make_shared<IdentifyArgs>();
  auto* cmd = app.add_subcommand(
      "identify", "Fit model parameters (stiffness, damping, rest lengths, masses, ground) to a recorded motion (docs/IDENTIFY.md)");
  cmd->add_option("model", a->model, "model file: tensegrity YAML, CDPR YAML (kind: cdpr) or tree model (YAML with links:, URDF)")
      ->required()
      ->transform(model_file());
  cmd->add_option("--data", a->data,
                  "data CSV; tensegrity: t_s,<node>_x_m,<node>_y_m,<node>_z_m,... (empty cell: missing marker); tree: motion log "
                  "(docs/TREE.md); CDPR: platform log (docs/CDPR_DYNAMICS.md)")
      ->required()
      ->check(existing_file());
  cmd->add_option("--fit", a->fit,
                  "parameters to fit, comma-separated; tensegrity: stiffness|damping|rest_length[:all|:ID|:ID+ID...], mass[:...], "
                  "friction, ground_stiffness, ground_damping, initial_state, winch_coulomb_friction|winch_viscous_friction|"
                  "winch_no_load_speed|winch_kp|winch_ki|winch_kd[:all|:ID|:ID+ID...] (e.g. stiffness:all,damping:c1+c2,friction); tree: "
                  "inertia[,weighting=joint][,smooth=K]; CDPR: stiffness|stiffness-rest-length[,damping][,inertia][,smooth=K][,taut-min=F]")
      ->required();
  cmd->add_option("-o,--out", a->out, "output directory (default: out/<model name>-identify)");
  cmd->add_option("--dt", a->dt, "largest integration step (RK4) [s]")->check(positive());
  cmd->add_option("--segment", a->segment, "multiple-shooting segment length [s]")->check(positive());
  cmd->add_option("--sigma", a->sigma, "marker noise (weight 1/sigma) [m]")->check(positive());
  cmd->add_option("--length-sigma", a->length_sigma, "cable-length noise [m]")->check(positive());
  cmd->add_option("--tension-sigma", a->tension_sigma, "tension noise [N]")->check(positive());
  cmd->add_option("--encoder-sigma", a->encoder_sigma, "winch encoder noise (<cable>_encoder_m columns) [m]")->check(positive());
  cmd->add_option("--loss", a->loss, "robust loss per residual: none, huber, cauchy")->check(CLI::IsMember({"none", "huber", "cauchy"}));
  cmd->add_option("--loss-scale", a->loss_scale, "where the robust loss starts [sigmas]")->check(positive());
  cmd->add_option("--max-iterations", a->max_iterations, "Levenberg-Marquardt iterations")->check(CLI::Range(1, 100000));
  cmd->add_option("--restarts", a->restarts,
                  "restarts after a fit the statistics reject (variance factor above its 99.9 % bound for the residual count, or "
                  "segments > 0.5 mm apart), each a continuation from a looser continuity weight; they stop at a restart that does not "
                  "lower the cost by 5 %; 0: one fit")
      ->check(CLI::Range(0, 6));
  cmd->add_option(
         "-j,--threads", a->threads,
         "residual evaluation threads; the same -j gives byte-identical results (other -j: last digits may differ, docs/IDENTIFY.md)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--no-covariance", a->no_covariance, "skip standard deviations and correlations");
  cmd->add_flag("--require-good-fit", a->require_good_fit,
                "exit 3 (after writing the results) when the verdict is not 'good' (poor fit, local minimum suspected, not converged, "
                "not identifiable); without it such a fit exits 0 with a printed warning");
  cmd->add_flag("--no-plot", a->no_plot, "do not render identify.png");
  cmd->add_flag("-q,--quiet", a->quiet, "no report on stdout");
  cmd->callback([a, cmd] {
    // The model kind decides the identification (the one dispatch point): tensegrity models by
    // multiple shooting with Ceres (tensegrity/identify.hpp), tree and CDPR models by linear
    // least squares (tree/identify.hpp, cdpr/identify.hpp; cmd_identify_linear.cpp).
    const IdentifyModelKind kind = identify_model_kind(a->model);
    if (kind != IdentifyModelKind::kTensegrity) {
      for (const char* name :
           {"--dt", "--segment", "--sigma", "--length-sigma", "--tension-sigma", "--encoder-sigma", "--loss", "--loss-scale",
            "--max-iterations", "--restarts", "--threads", "--no-covariance", "--no-plot", "--require-good-fit"})
        if (cmd->count(name) > 0)
          throw Error(std::string(name) + ": applies to tensegrity models only; " + a->model + " is a " +
                      (kind == IdentifyModelKind::kCdpr ? "CDPR" : "tree") + " model (its options go into --fit)");
    }
    switch (kind) {
      case IdentifyModelKind::kTensegrity: run_identify_tensegrity(*a); break;
      case IdentifyModelKind::kCdpr:
#ifdef TENDYN_WITH_CDPR
        run_identify_cdpr(a->model, a->data, a->fit, a->out, a->quiet);
        break;
#else
        throw Error(a->model + ": a CDPR model, but this tendyn was built without the CDPR module (TENDYN_WITH_CDPR=OFF)");
#endif
      case IdentifyModelKind::kTree:
#ifdef TENDYN_WITH_TREE
        run_identify_tree(a->model, a->data, a->fit, a->out, a->quiet);
        break;
#else
        throw Error(a->model + ": a tree model, but this tendyn was built without the tree module (TENDYN_WITH_TREE=OFF)");
#endif
    }
  });
}

}  // namespace tendyn::cli
