// tendyn sweep: document 000's tilt-angle (psi) study of the 3-prism.
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/output_lock.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/tensegrity/output.hpp>
#include <tendyn/tensegrity/psi_study.hpp>
#include <tendyn/tensegrity/sweep.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>

#include "cli_util.hpp"
#include "commands.hpp"

namespace tendyn::cli {

namespace {
struct SweepArgs {
  double psi_min = 20, psi_max = 80, psi_step = 1;
  std::string layout = "centred";  // the psi study's default (tensegrity::PsiStudyOptions): the authors' construction
  double radius = -1.0;            // < 0: the layout's default (L/8 centred, 0.12 m pivot)
  double pivot = tensegrity::PrismParams{}.pivot, damping = 5.0, stiffness = 10.0, rest_length = 0.2, mass = 1.0, length = 0.3;
  std::string damping_law = "relative_velocity";
  double duration = 15.0, dt = 1e-3, strain_limit = 1.0;
  int threads = 0;
  std::string out_dir = "out/sweep";
  std::string spec;
  bool quiet = false;
};

// `sweep --spec`: the library runs the grid (tensegrity/sweep.hpp); here, options and messages.
void run_spec(const SweepArgs& a, bool out_given) {
  namespace ts = tensegrity;
  const ts::SweepSpec spec = ts::load_sweep_spec(a.spec);
  ts::SweepRunOptions o;
  // -o DIR: DIR/results.jsonl instead of the spec's `out`
  if (out_given) o.out = (std::filesystem::path(a.out_dir) / "results.jsonl").string();
  o.threads = a.threads;
  const std::string out = o.out.empty() ? spec.out : o.out;
  Progress progress("sweep", !a.quiet);
  o.on_start = [&](std::size_t npoint, std::size_t nresumed, int threads) {
    if (!a.quiet)
      std::printf("sweep %s: %zu points (%zu already in %s), %d threads\n", a.spec.c_str(), npoint, nresumed, out.c_str(), threads);
  };
  o.progress = [&](std::size_t done, std::size_t total) { progress.update(static_cast<double>(done) / static_cast<double>(total)); };
  ts::SweepRunReport report;
  try {
    report = ts::run_sweep(spec, o);
  } catch (...) {
    progress.finish();
    throw;
  }
  progress.finish();
  if (!a.quiet) std::printf("ran %zu points; results in %s (one JSON line per point, resumable)\n", report.nrun, out.c_str());
}

// The study's options from the command line: the prism, the count angles from --psi-min, the simulation.
tensegrity::PsiStudyOptions psi_study_options(const SweepArgs& a, double count) {
  namespace ts = tensegrity;
  ts::PsiStudyOptions o;
  o.prism.rod_mass_kg = a.mass;
  o.prism.rod_length_m = a.length;
  o.prism.stiffness_Npm = a.stiffness;
  o.prism.rest_length_m = a.rest_length;
  o.prism.damping_Nspm = a.damping;
  try {
    o.prism.damping_law = ts::damping_law_from_string(a.damping_law);
  } catch (const Error& e) {
    throw Error(std::string("sweep: --damping-law: ") + e.what());
  }
  try {
    o.prism.layout = ts::prism_layout_from_string(a.layout);
  } catch (const Error& e) {
    throw Error(std::string("sweep: --layout: ") + e.what());
  }
  o.prism.radius_m = a.radius;
  o.prism.pivot = a.pivot;
  const int n = static_cast<int>(count);
  o.psi_deg.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) o.psi_deg.push_back(a.psi_min + i * a.psi_step);
  o.simulation.duration_s = a.duration;
  o.simulation.dt_s = a.dt;
  o.simulation.strain_limit = a.strain_limit;
  o.simulation.output_interval_s = 0.01;
  o.threads = a.threads;
  return o;
}

// sweep.csv's text and the JSON rows of the study's results.
void sweep_table(const tensegrity::PsiStudyResult& res, std::string& csv, nlohmann::json& rows) {
  namespace ts = tensegrity;
  io::CsvLine line;
  for (const char* h :
       {"psi_deg", "normal", "first_slack_cable", "first_slack_time_s", "first_overstrain_cable", "first_overstrain_time_s"})
    line.text(h);
  for (const char* t : ts::kTripleName)
    for (const char* q : {"max_strain", "min_strain", "final_strain", "shape"}) line.text(std::string(t) + "_" + q);
  line.text("triple_spread");
  csv = line.str() + "\n";
  rows = nlohmann::json::array();
  for (const auto& r : res.rows) {
    line.clear();
    line.num(r.psi_deg).flag(r.normal);
    // "never": an empty cell (the library's -1 never reaches a file)
    line.text(r.first_slack_cable);
    if (r.first_slack_cable.empty())
      line.text("");
    else
      line.num(r.first_slack_time_s);
    line.text(r.first_overstrain_cable);
    if (r.first_overstrain_cable.empty())
      line.text("");
    else
      line.num(r.first_overstrain_time_s);
    for (int t = 0; t < 3; ++t) line.num(r.max_strain[t]).num(r.min_strain[t]).num(r.final_strain[t]).text(r.shape[t]);
    line.num(r.triple_spread);
    csv += line.str() + "\n";
    nlohmann::json j = {{"psi_deg", r.psi_deg}, {"normal", r.normal}, {"triple_spread", r.triple_spread}};
    j["first_slack"] = r.first_slack_cable.empty() ? nlohmann::json(nullptr)
                                                   : nlohmann::json({{"cable", r.first_slack_cable}, {"time_s", r.first_slack_time_s}});
    j["first_overstrain"] = r.first_overstrain_cable.empty()
                                ? nlohmann::json(nullptr)
                                : nlohmann::json({{"cable", r.first_overstrain_cable}, {"time_s", r.first_overstrain_time_s}});
    for (int t = 0; t < 3; ++t)
      j[ts::kTripleName[t]] = {
          {"max_strain", r.max_strain[t]}, {"min_strain", r.min_strain[t]}, {"final_strain", r.final_strain[t]}, {"shape", r.shape[t]}};
    rows.push_back(j);
  }
}

// The terminal report: the options, one line per angle, the normal-mode range, the files.
void print_sweep_report(const SweepArgs& a, const tensegrity::PsiStudyOptions& o, const tensegrity::PsiStudyResult& res, double radius_m,
                        int n, bool plotted) {
  namespace ts = tensegrity;
  if (res.resumed > 0)
    std::printf("resumed: %d of %d angles read from the journal of an interrupted run (not run again)\n", res.resumed, n);
  if (o.prism.layout == ts::PrismLayout::kPivot)
    std::printf("psi study: layout pivot, radius %.4g m, pivot %.3g, damping %.3g N s/m (%s), %d angles, %.3g s each\n", radius_m,
                o.prism.pivot, a.damping, a.damping_law.c_str(), n, a.duration);
  else
    std::printf("psi study: layout centred, radius of the rod centres %.4g m, damping %.3g N s/m (%s), %d angles, %.3g s each\n", radius_m,
                a.damping, a.damping_law.c_str(), n, a.duration);
  std::printf("%6s %-7s %-22s %-22s %23s %23s %23s  %s\n", "psi", "normal", "first slack", "first over-strain", "top max/min/final [%]",
              "bottom max/min/final", "side max/min/final", "shapes (top, bottom, side)");
  for (const auto& r : res.rows) {
    char slack[64] = "-", over[64] = "-";
    if (!r.first_slack_cable.empty()) std::snprintf(slack, sizeof slack, "%s @ %.3f s", r.first_slack_cable.c_str(), r.first_slack_time_s);
    if (!r.first_overstrain_cable.empty())
      std::snprintf(over, sizeof over, "%s @ %.3f s", r.first_overstrain_cable.c_str(), r.first_overstrain_time_s);
    std::printf("%6.1f %-7s %-22s %-22s", r.psi_deg, r.normal ? "yes" : "no", slack, over);
    const auto pct = [](double x) { return display_value(100 * x, 1.0, 0.05); };  // never "-0.0"
    for (int t = 0; t < 3; ++t) std::printf(" %7.1f/%6.1f/%6.1f ", pct(r.max_strain[t]), pct(r.min_strain[t]), pct(r.final_strain[t]));
    std::printf(" %s, %s, %s\n", r.shape[0].c_str(), r.shape[1].c_str(), r.shape[2].c_str());
  }
  if (res.has_range)
    std::printf("normal-mode range: psi in [%g deg, %g deg] (document 000: [36 deg, 68 deg])\n", res.range_min_deg, res.range_max_deg);
  else
    std::printf("normal-mode range: none of the angles run is normal\n");
  std::printf("wrote %s/sweep.csv and %s/sweep.json%s\n", a.out_dir.c_str(), a.out_dir.c_str(), plotted ? " and sweep.png" : "");
}

void run_sweep(const SweepArgs& a) {
  namespace ts = tensegrity;
  if (!(a.psi_step > 0)) throw Error("sweep: --psi-step must be > 0");
  if (a.psi_max < a.psi_min) throw Error("sweep: --psi-max must be >= --psi-min");
  if (a.psi_min < -90.0 || a.psi_max > 90.0)
    throw Error("sweep: --psi-min and --psi-max must be in [-90, 90] deg (got " + io::format_number(a.psi_min, 6) + " and " +
                io::format_number(a.psi_max, 6) + ")");
  // counted as a double before anything is allocated: a tiny step must not overflow an int
  const double count = ts::psi_grid_count(a.psi_min, a.psi_max, a.psi_step);
  if (!(count <= ts::kPsiStudyMaxAngles)) {
    char buf[300];
    std::snprintf(buf, sizeof buf,
                  "sweep: --psi-min %g to --psi-max %g by --psi-step %g gives %.3g angles, above the limit of %d angles "
                  "(each angle is a simulation); use a larger --psi-step",
                  a.psi_min, a.psi_max, a.psi_step, count, ts::kPsiStudyMaxAngles);
    throw Error(buf);
  }
  ts::PsiStudyOptions o = psi_study_options(a, count);
  const double radius_m = ts::prism_radius_m(o.prism);
  const int n = static_cast<int>(count);
  ensure_directory(a.out_dir);
  const io::OutputLock lock(a.out_dir);  // the journal and the result set: one run at a time (docs/CLI.md "Outputs")
  // finished angles are journaled; a rerun after an interruption runs only the others
  const auto journal = std::filesystem::path(a.out_dir) / "sweep.journal.jsonl";
  o.journal_path = journal.string();
  Progress progress("sweep", !a.quiet);
  ts::PsiStudyResult res;
  try {
    res = ts::run_psi_study(o, [&](int done, int total) { progress.update(static_cast<double>(done) / total); });
  } catch (...) {
    progress.finish();
    throw;
  }
  progress.finish();

  std::string csv;
  nlohmann::json rows;
  sweep_table(res, csv, rows);
  nlohmann::json summary = {
      {"study", "document 000 psi study (3-prism, zero gravity)"},
      {"prism",
       {{"rod_mass_kg", a.mass},
        {"rod_length_m", a.length},
        {"stiffness_Npm", a.stiffness},
        {"rest_length_m", a.rest_length},
        {"damping_Nspm", a.damping},
        {"damping_law", ts::to_string(o.prism.damping_law)},
        {"layout", ts::to_string(o.prism.layout)},
        {"radius_m", radius_m}}},
      {"simulation",
       {{"duration_s", a.duration},
        {"dt_s", a.dt},
        {"integrator", ts::to_string(o.simulation.integrator)},
        {"strain_limit", a.strain_limit}}},
      {"normal_range_deg", res.has_range ? nlohmann::json::array({res.range_min_deg, res.range_max_deg}) : nlohmann::json(nullptr)},
      {"paper_normal_range_deg", nlohmann::json::array({36, 68})},
      {"rows", rows}};
  if (o.prism.layout == ts::PrismLayout::kPivot) summary["prism"]["pivot"] = o.prism.pivot;
  {
    io::ResultSet results(a.out_dir);  // sweep.csv and sweep.json appear together (docs/CLI.md "Outputs")
    io::write_file_atomic(results.file("sweep.csv"), csv);
    // one model per angle, all described by "prism": the provenance hash is of that block's text
    write_summary(results.file("sweep.json"), summary, provenance(summary["prism"].dump(), ""));
    results.commit();
  }
  std::filesystem::remove(journal);  // the set is complete: the journal has served
  const bool plotted = render_plot("sweep", std::filesystem::path(a.out_dir) / "sweep.csv", std::filesystem::path(a.out_dir) / "sweep.png");

  if (a.quiet) return;
  print_sweep_report(a, o, res, radius_m, n, plotted);
}
}  // namespace

void register_sweep(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  auto* cmd = app.add_subcommand("sweep", "Document 000's psi study: normal-mode range of the 3-prism's initial tilt");
  cmd->add_option("--psi-min", a->psi_min, "first tilt angle [deg]");
  cmd->add_option("--psi-max", a->psi_max, "last tilt angle [deg]");
  cmd->add_option("--psi-step", a->psi_step, "tilt step [deg]");
  cmd->add_option(
      "--layout", a->layout,
      "initial geometry: centred (the authors' n_prism.py: rod centres on a circle) or pivot (ours: rods turned about a point on a circle)");
  cmd->add_option(
         "--radius", a->radius,
         "radius of the circle [m]: of the rod centres (centred) or of the pivot points (pivot); default: the layout's, rod length / 8 or 0.12 m")
      ->check(positive())
      ->default_str("");
  cmd->add_option("--pivot", a->pivot, "layout pivot: fraction of the rod, from its bottom end, on that circle")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--damping", a->damping, "cable damping gamma [N s/m]");
  cmd->add_option("--damping-law", a->damping_law, "relative_velocity (document eq. 3) or axial");
  cmd->add_option("--stiffness", a->stiffness, "cable stiffness [N/m]");
  cmd->add_option("--rest-length", a->rest_length, "cable rest length [m]");
  cmd->add_option("--rod-mass", a->mass, "rod mass [kg]");
  cmd->add_option("--rod-length", a->length, "rod length [m]");
  cmd->add_option("--duration", a->duration, "simulated time per angle [s]");
  cmd->add_option("--dt", a->dt, "RK4 step [s]");
  cmd->add_option("--strain-limit", a->strain_limit, "over-strain threshold (1.0 = 100 %)");
  cmd->add_option("-j,--threads", a->threads, "worker threads (0 = all cores); results do not depend on it");
  auto* out = cmd->add_option("-o,--out", a->out_dir, "output directory (with --spec: DIR/results.jsonl instead of the spec's 'out')");
  cmd->add_option(
         "--spec", a->spec,
         "run a parameter grid from a sweep spec (YAML/JSON, same keys as tendyn.sweep in Python) instead of the psi study (default: none)")
      ->check(existing_file());
  cmd->add_flag("-q,--quiet", a->quiet, "no table or progress");
  cmd->callback([a, out] {
    if (!a->spec.empty())
      run_spec(*a, out->count() > 0);
    else
      run_sweep(*a);
  });
}

}  // namespace tendyn::cli
