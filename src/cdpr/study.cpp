#include <tendyn/cdpr/study.hpp>
#include <tendyn/core/error.hpp>

#include <algorithm>

namespace tendyn::cdpr {

namespace {
// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014).
struct SplitMix64 {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};
}  // namespace

RandomProblem random_problem(int m, int n, std::uint64_t seed, WrenchMode mode) {
  if (m < 1 || n < 1) throw Error("random_problem: sizes must be >= 1");
  SplitMix64 rng{seed * 0x2545F4914F6CDD1DULL + 12345};
  RandomProblem p;
  p.J.resize(m, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) p.J(i, j) = 2.0 * rng.unit() - 1.0;
  if (mode == WrenchMode::kFeasible) {
    Eigen::VectorXd f0(n);
    for (int j = 0; j < n; ++j) f0[j] = rng.unit();
    p.w = p.J * f0;
  } else {
    p.w.resize(m);
    for (int i = 0; i < m; ++i) p.w[i] = 2.0 * rng.unit() - 1.0;
  }
  return p;
}

std::vector<StudyRow> run_random_study(int m, int n, int count, std::uint64_t seed, const std::vector<Method>& methods,
                                       const SolverOptions& options, WrenchMode mode) {
  if (count < 0) throw Error("random study: count must be >= 0");
  std::vector<StudyRow> rows;
  rows.reserve(static_cast<std::size_t>(count));
  Workspace ws(m, n);
  for (int k = 0; k < count; ++k) {
    const auto p = random_problem(m, n, seed + static_cast<std::uint64_t>(k), mode);
    StudyRow row;
    row.seed = seed + static_cast<std::uint64_t>(k);
    for (Method meth : methods) {
      TensionResult r;
      solve_tensions(meth, p.J, p.w, options, ws, r);
      row.relative_residual.push_back(r.residual_norm / std::max(p.w.norm(), 1e-300));
      row.results.push_back(std::move(r));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

StudySummary summarize_study(const std::vector<StudyRow>& rows, std::size_t a, std::size_t b) {
  StudySummary s;
  std::vector<double> red;
  for (const auto& row : rows) {
    if (a >= row.results.size() || b >= row.results.size()) throw Error("summarize_study: method index out of range");
    const auto& ra = row.results[a];
    const auto& rb = row.results[b];
    ++s.problems;
    if (ra.loaded_count > rb.loaded_count)
      ++s.a_more_loaded;
    else if (ra.loaded_count == rb.loaded_count)
      ++s.a_equal_loaded;
    else
      ++s.a_fewer_loaded;
    s.mean_loaded_a += ra.loaded_count;
    s.mean_loaded_b += rb.loaded_count;
    if (ra.tension_norm < rb.tension_norm * (1.0 - 1e-9)) {
      ++s.a_smaller_norm;
      red.push_back(1.0 - ra.tension_norm / rb.tension_norm);
    } else if (ra.tension_norm <= rb.tension_norm * (1.0 + 1e-9)) {
      ++s.a_equal_norm;
    }
    s.max_rel_residual_a = std::max(s.max_rel_residual_a, row.relative_residual[a]);
    s.max_rel_residual_b = std::max(s.max_rel_residual_b, row.relative_residual[b]);
    if (ra.status == Status::kNearSingular) ++s.near_singular_a;
    if (rb.status == Status::kNearSingular) ++s.near_singular_b;
  }
  if (s.problems > 0) {
    s.mean_loaded_a /= s.problems;
    s.mean_loaded_b /= s.problems;
  }
  if (!red.empty()) {
    std::sort(red.begin(), red.end());
    double sum = 0.0;
    for (double v : red) sum += v;
    s.mean_norm_reduction = sum / static_cast<double>(red.size());
    const std::size_t h = red.size() / 2;
    s.median_norm_reduction = red.size() % 2 ? red[h] : 0.5 * (red[h - 1] + red[h]);
    s.min_norm_reduction = red.front();
    s.p25_norm_reduction = red[(red.size() - 1) / 4];
    s.p75_norm_reduction = red[(3 * (red.size() - 1)) / 4];
    s.max_norm_reduction = red.back();
  }
  return s;
}

}  // namespace tendyn::cdpr
