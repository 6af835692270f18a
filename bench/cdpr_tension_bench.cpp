// Tension-distribution solvers on seeded random problems (tendyn::cdpr::random_problem,
// feasible mode: J ~ U[-1,1], w = J f0, f0 ~ U[0,1]). Each benchmark cycles through 64 problems
// of its size so the time is an average over problems, not one lucky instance.
// Peers (scipy's compiled NNLS kernel, scipy.optimize.nnls, Octave lsqnonneg) on the same
// problems: bench/cdpr_compare.py, which also runs BM_LawsonHanson of this program.
#include <benchmark/benchmark.h>

#include <tendyn/cdpr/study.hpp>
#include <tendyn/cdpr/tension.hpp>

#include <vector>

namespace {

using tendyn::cdpr::Method;

std::vector<tendyn::cdpr::RandomProblem> problems(int m, int n, int count) {
  std::vector<tendyn::cdpr::RandomProblem> v;
  for (int k = 0; k < count; ++k) v.push_back(tendyn::cdpr::random_problem(m, n, 1000 + k));
  return v;
}

void run(benchmark::State& state, Method method, int threads = 1, bool reference = false) {
  const int m = static_cast<int>(state.range(0));
  const int n = static_cast<int>(state.range(1));
  const int count = n >= 16 ? 4 : 64;
  const auto ps = problems(m, n, count);
  tendyn::cdpr::Workspace ws(m, n);
  tendyn::cdpr::TensionResult r;
  tendyn::cdpr::SolverOptions o;
  if (method == Method::kClosedForm || method == Method::kImprovedClosedForm) o.f_max_N = 3.0;
  o.threads = threads;
  o.exhaustive_refactor = reference;
  o.lawson_hanson_reference = reference;
  // Warm up: sizes the exhaustive norm buffers once.
  tendyn::cdpr::solve_tensions(method, ps[0].J, ps[0].w, o, ws, r);
  std::size_t k = 0;
  for (auto _ : state) {
    const auto& p = ps[k++ % ps.size()];
    tendyn::cdpr::solve_tensions(method, p.J, p.w, o, ws, r);
    benchmark::DoNotOptimize(r.f_N.data());
  }
  state.SetLabel(std::to_string(m) + "x" + std::to_string(n));
}

// Exhaustive: the updating kernel on 1 and 2 threads, and the issue-5 kernel (every subset
// refactorised from scratch, options.exhaustive_refactor) as the baseline of the same run.
void BM_Exhaustive(benchmark::State& s) { run(s, Method::kExhaustive); }
void BM_Exhaustive2T(benchmark::State& s) { run(s, Method::kExhaustive, 2); }
void BM_ExhaustiveRefactor(benchmark::State& s) { run(s, Method::kExhaustive, 1, true); }
void BM_LawsonHanson(benchmark::State& s) { run(s, Method::kLawsonHanson); }
// The general bounded least-squares kernel (options.lawson_hanson_reference): the pre-issue-19
// path, same active sets, as the baseline of the same run.
void BM_LawsonHansonReference(benchmark::State& s) { run(s, Method::kLawsonHanson, 1, true); }
void BM_Exact(benchmark::State& s) { run(s, Method::kExact); }
void BM_ClosedForm(benchmark::State& s) { run(s, Method::kClosedForm); }
void BM_ImprovedClosedForm(benchmark::State& s) { run(s, Method::kImprovedClosedForm); }

// Wall time (UseRealTime); the two-thread runs report the CPU time of the whole process (both
// threads) in the CPU column, so wall time on two idle cores is about half of it.
BENCHMARK(BM_Exhaustive)->Args({3, 4})->Args({6, 8})->Args({6, 12})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Exhaustive)->Args({6, 16})->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();
BENCHMARK(BM_Exhaustive)->Args({6, 20})->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_Exhaustive2T)->Args({6, 12})->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_Exhaustive2T)->Args({6, 16})->Unit(benchmark::kMillisecond)->Iterations(20)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_Exhaustive2T)->Args({6, 20})->Unit(benchmark::kMillisecond)->Iterations(3)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_ExhaustiveRefactor)->Args({3, 4})->Args({6, 8})->Args({6, 12})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_ExhaustiveRefactor)->Args({6, 16})->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();
BENCHMARK(BM_ExhaustiveRefactor)->Args({6, 20})->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_LawsonHanson)->Args({3, 4})->Args({6, 8})->Args({6, 12})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LawsonHansonReference)->Args({3, 4})->Args({6, 8})->Args({6, 12})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Exact)->Args({3, 4})->Args({6, 8})->Args({6, 12})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ClosedForm)->Args({6, 8})->Args({6, 12})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ImprovedClosedForm)->Args({6, 8})->Args({6, 12})->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
