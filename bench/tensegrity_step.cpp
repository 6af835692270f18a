// Raw per-step costs (Google Benchmark): one derivative evaluation, one RK4 / Lie-Verlet step of
// tendyn, and one mj_step of MuJoCo (RK4 / Euler / implicitfast from 3.0, dense and sparse
// Jacobian; energy, constraint and contact off) on the same exported model. Step size 1 ms; the
// state is reset every 1000 steps so that every measurement sees the same motion. Models: the
// 3-prism and 6-bar (undamped, damped) and the tower falling freely (models/tower.yaml without
// ground). Built as tensegrity_step (MuJoCo 2.2.2 when found) and tensegrity_step_mujoco3.
// The accuracy-matched comparison is bench/tensegrity_vs_mujoco.cpp.
//   build-bench/bench/tensegrity_step --benchmark_counters_tabular=true
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/mjcf.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <benchmark/benchmark.h>

#include "step_loop.hpp"
#include <tendyn/tensegrity/model_io.hpp>

#include "support/peer_models.hpp"

#ifdef TENDYN_HAVE_MUJOCO
#include "mujoco_peer.hpp"
#endif

namespace tt = tendyn::tensegrity;

namespace {

constexpr double kStep = 1e-3;
constexpr int kResetEvery = 1000;

tt::Model shipped_model(const char* file) {
  tt::Model m = tt::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/" + file).model;
  m.ground.type = tt::Ground::Type::kNone;  // no contact on either side
  return m;
}

// 0: 3-prism, 1: 6-bar (tests/support/peer_models.hpp, undamped or damped), shipped models with
// their own damping (range(1) = 1 only) and without ground: 2: the tower (falls freely),
// 3: models/prism3.yaml, 4: models/superball.yaml (relative-velocity damping, which the MJCF export
// maps to axial tendon damping; a cable that slackens pushes in MuJoCo: per-step cost only)
tt::Model model_for(int which, bool damped) {
  if (which == 2) return shipped_model("tower.yaml");
  if (which == 3) return shipped_model("prism3.yaml");
  if (which == 4) return shipped_model("superball.yaml");
  return which == 0 ? tendyn::test::taut_prism(damped ? 1.0 : 0.0) : tendyn::test::taut_six_bar(damped ? 5.0 : 0.0);
}

void label(benchmark::State& st) {
  const char* names[] = {"3-prism", "6-bar", "tower", "prism3.yaml", "superball.yaml"};
  st.SetLabel(std::string(names[st.range(0)]) + (st.range(0) >= 2 ? "" : st.range(1) ? " damped" : " undamped"));
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
template <int Integrator, int Jacobian>
void BM_MujocoStep(benchmark::State& st) {
  const tt::Model tm = model_for(static_cast<int>(st.range(0)), st.range(1) != 0);
  std::string err;
  mjModel* m = tendyn::bench::load_mujoco_model(tm, err);  // energy, constraint and contact off
  if (!m) {
    st.SkipWithError(err.c_str());
    return;
  }
  m->opt.integrator = Integrator;
  m->opt.jacobian = Jacobian;
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

#define TENDYN_ARGS ArgsProduct({{0, 1}, {0, 1}})->Args({2, 1})->Args({3, 1})->Args({4, 1})
BENCHMARK(BM_TendynDerivative)->TENDYN_ARGS;
BENCHMARK(BM_TendynStep<tt::Integrator::kRK4>)->TENDYN_ARGS;
BENCHMARK(BM_TendynStep<tt::Integrator::kLieVerlet>)->TENDYN_ARGS;
#ifdef TENDYN_HAVE_MUJOCO
BENCHMARK(BM_MujocoStep<mjINT_RK4, mjJAC_DENSE>)->TENDYN_ARGS;
BENCHMARK(BM_MujocoStep<mjINT_RK4, mjJAC_SPARSE>)->TENDYN_ARGS;
BENCHMARK(BM_MujocoStep<mjINT_EULER, mjJAC_DENSE>)->TENDYN_ARGS;
BENCHMARK(BM_MujocoStep<mjINT_EULER, mjJAC_SPARSE>)->TENDYN_ARGS;
#ifdef TENDYN_MUJOCO_3
BENCHMARK(BM_MujocoStep<mjINT_IMPLICITFAST, mjJAC_DENSE>)->TENDYN_ARGS;
BENCHMARK(BM_MujocoStep<mjINT_IMPLICITFAST, mjJAC_SPARSE>)->TENDYN_ARGS;
#endif
#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef TENDYN_HAVE_MUJOCO
  tendyn::bench::require_mujoco_version("tensegrity_step");
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
