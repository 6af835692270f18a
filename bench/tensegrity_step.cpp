// Raw per-step costs (Google Benchmark): one derivative evaluation, one RK4 / Lie-Verlet step of
// tendyn, and one mj_step of MuJoCo 2.2.2 (RK4 / Euler) on the same exported model. Step size
// 1 ms; the state is reset every 1000 steps so that every measurement sees the same motion.
// The accuracy-matched comparison is bench/tensegrity_vs_mujoco.cpp.
//   build-bench/bench/tensegrity_step --benchmark_counters_tabular=true
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/mjcf.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <benchmark/benchmark.h>

#include "step_loop.hpp"
#include "support/peer_models.hpp"

#ifdef TENDYN_HAVE_MUJOCO
#include <mujoco/mujoco.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>
#endif

namespace tt = tendyn::tensegrity;

namespace {

constexpr double kStep = 1e-3;
constexpr int kResetEvery = 1000;

tt::Model model_for(int which, bool damped) {
  return which == 0 ? tendyn::test::taut_prism(damped ? 1.0 : 0.0) : tendyn::test::taut_six_bar(damped ? 5.0 : 0.0);
}

void label(benchmark::State& st) {
  st.SetLabel(std::string(st.range(0) == 0 ? "3-prism" : "6-bar") + (st.range(1) ? " damped" : " undamped"));
}

void BM_TendynDerivative(benchmark::State& st) {
  const tt::Model m = model_for(static_cast<int>(st.range(0)), st.range(1) != 0);
  tt::Data d = tt::make_data(m);
  const tt::State s = m.initial_state;
  for (auto _ : st) {
    tt::compute_derivative(m, s, d);
    benchmark::DoNotOptimize(d.xdot.data());
  }
  st.counters["evals/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  label(st);
}

template <tt::Integrator I>
void BM_TendynStep(benchmark::State& st) {
  tendyn::bench::time_newton_euler_steps(st, model_for(static_cast<int>(st.range(0)), st.range(1) != 0), kStep, kResetEvery,
                                         [](const tt::Model& m, tt::Data& d, tt::State& s, double h) {
                                           if (I == tt::Integrator::kRK4)
                                             tt::step_rk4(m, d, s, h);
                                           else
                                             tt::step_lie_verlet(m, d, s, h);
                                         });
  label(st);
}

#ifdef TENDYN_HAVE_MUJOCO
template <int Integrator>
void BM_MujocoStep(benchmark::State& st) {
  const tt::Model tm = model_for(static_cast<int>(st.range(0)), st.range(1) != 0);
  const auto path = std::filesystem::temp_directory_path() / ("tendyn_step_" + std::to_string(::getpid()) + ".xml");
  std::ofstream(path) << tt::to_mjcf(tm);
  char err[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, err, sizeof err);
  std::filesystem::remove(path);
  if (!m) {
    st.SkipWithError(err);
    return;
  }
  m->opt.enableflags &= ~mjENBL_ENERGY;
  m->opt.integrator = Integrator;
  m->opt.timestep = kStep;
  mjData* d = mj_makeData(m);
  int n = 0;
  for (auto _ : st) {
    mj_step(m, d);
    if (++n == kResetEvery) {
      n = 0;
      mj_resetData(m, d);
    }
    benchmark::DoNotOptimize(d->qpos);
  }
  st.counters["steps/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  label(st);
  mj_deleteData(d);
  mj_deleteModel(m);
}
#endif

#define TENDYN_ARGS ArgsProduct({{0, 1}, {0, 1}})
BENCHMARK(BM_TendynDerivative)->TENDYN_ARGS;
BENCHMARK(BM_TendynStep<tt::Integrator::kRK4>)->TENDYN_ARGS;
BENCHMARK(BM_TendynStep<tt::Integrator::kLieVerlet>)->TENDYN_ARGS;
#ifdef TENDYN_HAVE_MUJOCO
BENCHMARK(BM_MujocoStep<mjINT_RK4>)->TENDYN_ARGS;
BENCHMARK(BM_MujocoStep<mjINT_EULER>)->TENDYN_ARGS;
#endif

}  // namespace

BENCHMARK_MAIN();
