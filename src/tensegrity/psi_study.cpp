#include <tendyn/core/error.hpp>
#include <tendyn/core/parallel.hpp>
#include <tendyn/tensegrity/psi_study.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
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
      double lo = HUGE_VAL, hi = -HUGE_VAL, mean = 0.0;
      for (int k = t; k < m.ncable(); k += 3) {
        const double e = cable_strain(d, k);
        lo = std::min(lo, e);
        hi = std::max(hi, e);
        mean += e;
      }
      series[t].push_back(mean / (m.ncable() / 3));
      spread = std::max(spread, hi - lo);
    }
  }
  std::vector<double> series[3];
  double spread = 0.0;
};

PsiStudyRow run_one(const PsiStudyOptions& o, double psi_deg) {
  PrismParams p = o.prism;
  p.psi_rad = psi_deg * std::numbers::pi / 180.0;
  const Model m = make_prism(p);
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
    r.max_strain[t] = -HUGE_VAL;
    r.min_strain[t] = HUGE_VAL;
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

}  // namespace

PsiStudyResult run_psi_study(const PsiStudyOptions& o, const std::function<void(int, int)>& progress) {
  if (o.prism.n != 3) throw Error("psi study: the document's study is for the 3-prism (n = 3)");
  if (o.psi_deg.empty()) throw Error("psi study: no psi values");
  for (double v : o.psi_deg)
    if (!std::isfinite(v) || v < -90.0 || v > 90.0) throw Error("psi study: psi must be in [-90, 90] deg (got " + std::to_string(v) + ")");
  validate(o.simulation);
  const int n = static_cast<int>(o.psi_deg.size());
  PsiStudyResult res;
  res.rows.resize(static_cast<std::size_t>(n));
  std::atomic<int> done{0};
  std::mutex mu;
  parallel_for(n, o.threads, [&](int i) {
    res.rows[static_cast<std::size_t>(i)] = run_one(o, o.psi_deg[static_cast<std::size_t>(i)]);
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
