// Planning throughput: candidate rollouts per second of the combination-selection planner on the
// 3-bar robot (one control period of 0.1 s, RK4 at 0.5 ms, impulse ground), for 4 and 9 drive
// cables (81 and 19,683 candidates), on 1 thread and on all cores.
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/planner.hpp>

#include <benchmark/benchmark.h>

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

BENCHMARK_MAIN();
