// Planning throughput: candidate rollouts per second of the combination-selection planner on the
// 3-bar robot (one control period of 0.1 s, RK4 at 0.5 ms, impulse ground), for 4 and 9 drive
// cables (81 and 19,683 candidates), on 1 thread and on all cores.
//
// Whole tasks with 9 drive cables (issue 19 item 4, "planning at real time"): BM_PlanTask9 plans
// the document's straight line (3 s, 30 periods of 0.1 s, u0 5 mm) or right-angle turn (1.48 s,
// 74 periods of 0.02 s, u0 1 mm, turn at x = 10 mm), the settings of `tendyn plan --drive
// c1,...,c9 [--path turn --period 0.02 --u0 0.001 --duration 1.48]`, with the screened planner
// (defaults: screen 32, 3 rounds) on 1 and 2 threads. Counters: wall time per control period
// [ms] and of the slowest period, real-time factor (period / wall time per period; >= 1 is real
// time), rollouts per period, max path error and progress along the path [mm]. The exhaustive planner's runs of the same tasks
// (minutes each: 3^9 rollouts per period) are registered only with --with-exhaustive, e.g.
//   build/bench/tendyn_bench_planning --benchmark_filter=PlanTask9 --with-exhaustive
// and report the same counters, so the path errors are compared within one run.
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/planner.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace ts = tendyn::tensegrity;

static void BM_PlanOnePeriod(benchmark::State& st) {
  auto f = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml");
  f.model.drives.clear();
  ts::PlannerOptions o;
  for (int c = 0; c < st.range(0); ++c) o.drive_cables.push_back(c);
  o.duration_s = 0.1;
  o.rollout = f.simulation;
  o.threads = static_cast<int>(st.range(1));
  long rollouts = 0;
  for (auto _ : st) {
    const auto r = ts::plan(f.model, o);
    rollouts += r.rollouts;
    benchmark::DoNotOptimize(r.final_state.x.data());
  }
  st.counters["rollouts_per_s"] = benchmark::Counter(static_cast<double>(rollouts), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PlanOnePeriod)->Args({4, 1})->Args({4, 0})->Args({9, 1})->Args({9, 0})->Unit(benchmark::kMillisecond)->UseRealTime();

// args: task (0 straight line, 1 right-angle turn), planner (0 screened, 1 exhaustive), threads
static void BM_PlanTask9(benchmark::State& st) {
  auto f = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml");
  ts::PlannerOptions o;
  o.drive_cables = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  ts::remove_drives_on(f.model, o.drive_cables);  // as `tendyn plan`
  o.rollout = ts::rollout_options(f.model, f.simulation);
  if (st.range(0) == 1) {
    o.path = ts::PlanPath::right_angle(0.01);
    o.period_s = 0.02;
    o.u0_m = 0.001;
    o.duration_s = 1.48;
  }
  o.planner = st.range(1) == 0 ? ts::Planner::kScreened : ts::Planner::kExhaustive;
  o.threads = static_cast<int>(st.range(2));
  const int nperiod = ts::plan_nperiod(o);
  ts::PlanResult r;
  double wall_s = 0.0, worst_period_s = 0.0;  // plan()'s own wall time summed over the iterations; the slowest period
  for (auto _ : st) {
    auto last = std::chrono::steady_clock::now();
    r = ts::plan(f.model, o, [&](int, int) {  // called after each period
      const auto now = std::chrono::steady_clock::now();
      worst_period_s = std::max(worst_period_s, std::chrono::duration<double>(now - last).count());
      last = now;
    });
    wall_s += r.wall_time_s;
    benchmark::DoNotOptimize(r.final_state.x.data());
  }
  st.SetLabel(std::string(st.range(0) == 0 ? "straight" : "turn") + ", " + ts::to_string(o.planner));
  const double per_period_s = wall_s / (static_cast<double>(st.iterations()) * nperiod);
  st.counters["ms_per_period"] = 1e3 * per_period_s;
  st.counters["realtime_factor"] = o.period_s / per_period_s;
  st.counters["worst_period_ms"] = 1e3 * worst_period_s;
  st.counters["rollouts_per_period"] = static_cast<double>(r.rollouts) / nperiod;
  st.counters["max_path_error_mm"] = 1e3 * r.max_path_error_m;
  st.counters["progress_mm"] = 1e3 * r.progress_m;
}
BENCHMARK(BM_PlanTask9)->Args({0, 0, 1})->Args({0, 0, 2})->Args({1, 0, 1})->Args({1, 0, 2})->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  std::vector<char*> args;
  bool exhaustive = false;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--with-exhaustive") == 0)
      exhaustive = true;
    else
      args.push_back(argv[i]);
  }
  if (exhaustive)
    for (const long task : {0L, 1L})
      benchmark::RegisterBenchmark("BM_PlanTask9", BM_PlanTask9)
          ->Args({task, 1, 2})
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
