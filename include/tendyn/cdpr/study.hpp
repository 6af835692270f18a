// Seeded random tension-distribution problems and the document's random 6 x 12 study
// (document 002, table "Examples of the numerical simulation, n = 12").
//
// Distribution (the document does not state its own; this is ours, docs/CDPR.md):
//   J: entries i.i.d. uniform on [-1, 1];
//   w: WrenchMode::kFeasible   w = J f0, f0 entries i.i.d. uniform on [0, 1] (a non-negative
//                             solution exists, as in the document's examples 1-3);
//      WrenchMode::kUniform    w entries i.i.d. uniform on [-1, 1] (may be infeasible).
// Random numbers: SplitMix64 (Steele, Lea, Flood 2014) seeded with `seed`; a double is
// (x >> 11) 2^-53, so problems are identical on every platform and standard library.
#pragma once
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/core/enum_names.hpp>

#include <Eigen/Core>

#include <cstdint>
#include <string>
#include <vector>

namespace tendyn::cdpr {

enum class WrenchMode { kFeasible, kUniform };
/// The names of WrenchMode (tendyn/core/enum_names.hpp).
constexpr EnumNames<WrenchMode, 2> enum_names(WrenchMode) {
  return {"wrench mode", {{{WrenchMode::kFeasible, "feasible"}, {WrenchMode::kUniform, "uniform"}}}};
}
/// "feasible" or "uniform" (any case, '-' = '_'). Throws tendyn::Error naming the accepted names otherwise.
inline WrenchMode wrench_mode_from_string(const std::string& name) { return enum_from_string<WrenchMode>(name); }
/// "feasible" or "uniform".
inline const char* to_string(WrenchMode mode) { return enum_to_string(mode); }

struct RandomProblem {
  Eigen::MatrixXd J;  ///< (m x n)
  Eigen::VectorXd w;  ///< (m)
};

/// Problem number `seed` of the distribution above. Throws tendyn::Error if m < 1 or n < 1.
RandomProblem random_problem(int m, int n, std::uint64_t seed, WrenchMode mode = WrenchMode::kFeasible);

/// One problem of a study: the results of each requested method, in the order given.
struct StudyRow {
  std::uint64_t seed = 0;
  std::vector<TensionResult> results;
  std::vector<double> relative_residual;  ///< |J f - w| / |w| per method
};

/// Comparison of method A (e.g. exhaustive) against method B (e.g. lawson_hanson) over rows.
struct StudySummary {
  int problems = 0;
  int a_more_loaded = 0, a_equal_loaded = 0, a_fewer_loaded = 0;
  int a_smaller_norm = 0;              ///< |f_A| < |f_B| (1 - 1e-9)
  int a_equal_norm = 0;                ///< within 1e-9 relative
  double mean_norm_reduction = 0.0;    ///< mean of 1 - |f_A|/|f_B| over a_smaller_norm rows
  double median_norm_reduction = 0.0;  ///< median of the same
  double min_norm_reduction = 0.0, max_norm_reduction = 0.0;
  double p25_norm_reduction = 0.0, p75_norm_reduction = 0.0;  ///< quartiles (nearest rank)
  double mean_loaded_a = 0.0, mean_loaded_b = 0.0;
  double max_rel_residual_a = 0.0, max_rel_residual_b = 0.0;
  int near_singular_a = 0, near_singular_b = 0;
};

/// Solves problems seed, seed + 1, ..., seed + count - 1 of size m x n with every method.
std::vector<StudyRow> run_random_study(int m, int n, int count, std::uint64_t seed, const std::vector<Method>& methods,
                                       const SolverOptions& options = {}, WrenchMode mode = WrenchMode::kFeasible);

/// Summary of method index a against index b of each row's results.
StudySummary summarize_study(const std::vector<StudyRow>& rows, std::size_t a, std::size_t b);

}  // namespace tendyn::cdpr
