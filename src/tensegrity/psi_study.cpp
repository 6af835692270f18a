#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/core/parallel.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/psi_study.hpp>
#include <tendyn/tensegrity/sweep.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <numbers>

namespace tendyn::tensegrity {

std::string transient_shape(const std::vector<double>& s) {
  if (s.size() < 3) return "flat";
  const double first = s.front(), last = s.back();
  const auto [mn, mx] = std::minmax_element(s.begin(), s.end());
  const double span = std::max(*mx - *mn, 1e-300);
  const double tol = 0.02 * span;  // an interior extreme must stand out by 2 % of the range
  const bool interior_max = *mx > std::max(first, last) + tol;
  const bool interior_min = *mn < std::min(first, last) - tol;
  if (interior_max && !interior_min) return "rises-then-falls";
  if (interior_min && !interior_max) return "falls-then-rises";
  if (interior_max && interior_min) return mx < mn ? "rises-then-falls" : "falls-then-rises";
  return last >= first ? "rises" : "falls";
}

namespace {

class TripleRecorder final : public Observer {
 public:
  void on_output(const Model& m, const State&, const Data& d, const Energy&) override {
    for (int t = 0; t < 3; ++t) {
      double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity(), mean = 0.0;
      const int group_size = m.ncable() / 3;  // the prism's three groups of equal size
      for (int k = t; k < m.ncable(); k += 3) {
        const double e = cable_strain(d, k);
        lo = std::min(lo, e);
        hi = std::max(hi, e);
        mean += e;
      }
      series[t].push_back(mean / group_size);
      spread = std::max(spread, hi - lo);
    }
  }
  std::vector<double> series[3];
  double spread = 0.0;
};

PsiStudyRow run_one(const PsiStudyOptions& o, double psi_deg) {
  PrismParams p = o.prism;
  p.psi_rad = psi_deg * std::numbers::pi / 180.0;
  Model m = make_prism(p);
  m.cable_force_sign = o.cable_force_sign;
  TripleRecorder rec;
  const auto s = simulate(m, o.simulation, &rec);
  PsiStudyRow r;
  r.psi_deg = psi_deg;
  r.normal = s.monitor.normal_mode;
  r.first_slack_time_s = s.monitor.first_slack_time_s;
  if (s.monitor.first_slack_cable >= 0) r.first_slack_cable = m.cable_ids[static_cast<std::size_t>(s.monitor.first_slack_cable)];
  r.first_overstrain_time_s = s.monitor.first_overstrain_time_s;
  if (s.monitor.first_overstrain_cable >= 0)
    r.first_overstrain_cable = m.cable_ids[static_cast<std::size_t>(s.monitor.first_overstrain_cable)];
  for (int t = 0; t < 3; ++t) {
    r.max_strain[t] = -std::numeric_limits<double>::infinity();
    r.min_strain[t] = std::numeric_limits<double>::infinity();
    for (int k = t; k < m.ncable(); k += 3) {
      r.max_strain[t] = std::max(r.max_strain[t], s.monitor.max_strain[k]);
      r.min_strain[t] = std::min(r.min_strain[t], s.monitor.min_strain[k]);
    }
    r.final_strain[t] = rec.series[t].back();
    r.shape[t] = transient_shape(rec.series[t]);
  }
  r.triple_spread = rec.spread;
  r.kinetic_final_J = s.final_energy.kinetic_J;
  return r;
}

// ---- journal (options.journal_path): rows as JSON, exact (doubles round-trip through nlohmann_json)
using nlohmann::json;

// Everything a row depends on besides psi: a journal with another header belongs to another run.
std::string journal_header(const PsiStudyOptions& o) {
  const PrismParams& p = o.prism;
  const SimulationOptions& s = o.simulation;
  const json prism = {{"n", p.n},
                      {"rod_mass_kg", p.rod_mass_kg},
                      {"rod_length_m", p.rod_length_m},
                      {"rod_radius_outer_m", p.rod_radius_outer_m},
                      {"rod_radius_inner_m", p.rod_radius_inner_m},
                      {"stiffness_Npm", {p.stiffness_Npm, p.stiffness_top_Npm, p.stiffness_bottom_Npm, p.stiffness_side_Npm}},
                      {"damping_Nspm", p.damping_Nspm},
                      {"damping_law", to_string(p.damping_law)},
                      {"rest_length_m", {p.rest_length_m, p.rest_top_m, p.rest_bottom_m, p.rest_side_m}},
                      {"layout", to_string(p.layout)},
                      {"radius_m", p.radius_m},
                      {"pivot", p.pivot},
                      {"height_m", p.height_m}};
  const json sim = {{"duration_s", s.duration_s},
                    {"integrator", to_string(s.integrator)},
                    {"dt_s", s.dt_s},
                    {"tolerance", {s.tolerance.rtol, s.tolerance.atol, s.tolerance.h_min_s, s.tolerance.h_max_s}},
                    {"output_interval_s", s.output_interval_s},
                    {"strain_limit", s.strain_limit},
                    {"slack_tolerance", s.slack_tolerance},
                    {"energy_growth_limit", s.energy_growth_limit},
                    {"stop_on_abnormal", s.stop_on_abnormal},
                    {"locate_slack_events", s.locate_slack_events}};
  return json({{"psi_study", {{"prism", prism}, {"simulation", sim}}}}).dump();
}

std::string row_json(const PsiStudyRow& r) {
  json j = {{"psi_deg", r.psi_deg},
            {"normal", r.normal},
            {"first_slack_time_s", r.first_slack_time_s},
            {"first_slack_cable", r.first_slack_cable},
            {"first_overstrain_time_s", r.first_overstrain_time_s},
            {"first_overstrain_cable", r.first_overstrain_cable},
            {"triple_spread", r.triple_spread},
            {"kinetic_final_J", r.kinetic_final_J}};
  for (const char* k : {"max_strain", "min_strain", "final_strain", "shape"}) j[k] = json::array();
  for (int t = 0; t < 3; ++t) {
    j["max_strain"].push_back(r.max_strain[t]);
    j["min_strain"].push_back(r.min_strain[t]);
    j["final_strain"].push_back(r.final_strain[t]);
    j["shape"].push_back(r.shape[t]);
  }
  return j.dump();
}

PsiStudyRow row_from_json(const std::string& text, const std::string& where) {
  try {
    const json j = json::parse(text);
    PsiStudyRow r;
    r.psi_deg = j.at("psi_deg").get<double>();
    r.normal = j.at("normal").get<bool>();
    r.first_slack_time_s = j.at("first_slack_time_s").get<double>();
    r.first_slack_cable = j.at("first_slack_cable").get<std::string>();
    r.first_overstrain_time_s = j.at("first_overstrain_time_s").get<double>();
    r.first_overstrain_cable = j.at("first_overstrain_cable").get<std::string>();
    r.triple_spread = j.at("triple_spread").get<double>();
    r.kinetic_final_J = j.at("kinetic_final_J").get<double>();
    for (int t = 0; t < 3; ++t) {
      const auto u = static_cast<std::size_t>(t);
      r.max_strain[t] = j.at("max_strain").at(u).get<double>();
      r.min_strain[t] = j.at("min_strain").at(u).get<double>();
      r.final_strain[t] = j.at("final_strain").at(u).get<double>();
      r.shape[t] = j.at("shape").at(u).get<std::string>();
    }
    return r;
  } catch (const json::exception&) {
    throw Error(where + ": not a psi-study row (delete the file to start over)");
  }
}

}  // namespace

double psi_grid_count(double psi_min_deg, double psi_max_deg, double step_deg) {
  return std::floor((psi_max_deg - psi_min_deg) / step_deg + 1e-9) + 1.0;
}

PsiStudyResult run_psi_study(const PsiStudyOptions& o, const std::function<void(int, int)>& progress) {
  if (o.prism.n != 3) throw Error("psi study: the document's study is for the 3-prism (n = 3)");
  if (o.psi_deg.empty()) throw Error("psi study: no psi values");
  if (o.psi_deg.size() > static_cast<std::size_t>(kPsiStudyMaxAngles))
    throw Error("psi study: " + std::to_string(o.psi_deg.size()) + " angles, above the limit of " + std::to_string(kPsiStudyMaxAngles));
  for (double v : o.psi_deg)
    if (!std::isfinite(v) || v < -90.0 || v > 90.0)
      throw Error("psi study: psi must be in [-90, 90] deg (got " + format_number(v, 6) + ")");
  validate(o.simulation);
  const int n = static_cast<int>(o.psi_deg.size());
  PsiStudyResult res;
  res.rows.resize(static_cast<std::size_t>(n));
  std::vector<int> todo;
  std::unique_ptr<SweepJournal> journal;
  if (!o.journal_path.empty()) {
    std::vector<std::string> points;
    for (double v : o.psi_deg) points.push_back(json({{"psi_deg", v}}).dump());
    journal = std::make_unique<SweepJournal>(o.journal_path, points, journal_header(o),
                                             "a psi sweep with other options; rerun with the same options, use another output "
                                             "directory, or delete the file to start over");
  }
  for (int i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (journal && journal->done(u))
      res.rows[u] = row_from_json(journal->result_json(u), o.journal_path + ": point " + std::to_string(i));
    else
      todo.push_back(i);
  }
  res.resumed = n - static_cast<int>(todo.size());
  std::atomic<int> done{res.resumed};
  std::mutex mu;
  parallel_for(todo.size(), o.threads, [&](std::size_t k) {
    const auto i = static_cast<std::size_t>(todo[k]);
    res.rows[i] = run_one(o, o.psi_deg[i]);
    if (journal) journal->record(i, row_json(res.rows[i]));
    const int d = ++done;
    if (progress) {
      std::lock_guard<std::mutex> lock(mu);
      progress(d, n);
    }
  });
  // longest run of consecutive normal rows (in the given order)
  int best_len = 0, best_start = -1;
  for (int i = 0; i < n;) {
    if (!res.rows[static_cast<std::size_t>(i)].normal) {
      ++i;
      continue;
    }
    int j = i;
    while (j < n && res.rows[static_cast<std::size_t>(j)].normal) ++j;
    if (j - i > best_len) {
      best_len = j - i;
      best_start = i;
    }
    i = j;
  }
  if (best_len > 0) {
    res.has_range = true;
    res.range_min_deg = res.rows[static_cast<std::size_t>(best_start)].psi_deg;
    res.range_max_deg = res.rows[static_cast<std::size_t>(best_start + best_len - 1)].psi_deg;
  }
  return res;
}

}  // namespace tendyn::tensegrity
