// Steps per second of the two formulations on document 001's 3-bar robot (models/three_bar.yaml:
// gravity, sinusoidal drives on c1..c4), RK4 at the file's step 0.5 ms, with argument 0: no
// ground (free fall), 1: the compliant ground of contact.hpp (default parameters), the contact
// model both formulations share. (The file's impulse ground acts between steps in simulate() and is
// not part of either step function.)
// Both steps do 4 evaluations; the Newton-Euler step also renormalises, the Lagrange step
// projects (s, s'). The state is reset every 1000 steps (0.5 s) so every run sees the same motion.
//   build-lag/bench/tensegrity_lagrange --benchmark_counters_tabular=true
// Acceptance (issue 3): the Lagrange form may be slower, but not more than 5x.
#include <tendyn/tensegrity/lagrange.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <benchmark/benchmark.h>

#include <string>

#include "step_loop.hpp"

namespace tt = tendyn::tensegrity;

namespace {

constexpr double kStep = 5e-4;
constexpr int kResetEvery = 1000;

tt::Model three_bar(const benchmark::State& st) {
  tt::Model m = tt::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml").model;
  m.ground.type = st.range(0) == 0 ? tt::Ground::Type::kNone : tt::Ground::Type::kCompliant;
  return m;
}

void label(benchmark::State& st) { st.SetLabel(st.range(0) == 0 ? "free fall" : "compliant ground"); }

void BM_NewtonEulerDerivative(benchmark::State& st) {
  const tt::Model m = three_bar(st);
  tt::Data d = tt::make_data(m);
  const tt::State s = m.initial_state;
  for (auto _ : st) {
    tt::compute_derivative(m, s, d);
    benchmark::DoNotOptimize(d.xdot.data());
  }
  st.counters["evals/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  label(st);
}

void BM_LagrangeDerivative(benchmark::State& st) {
  const tt::Model m = three_bar(st);
  tt::LagrangeData d = tt::make_lagrange_data(m);
  const tt::LagrangeState s = tt::to_lagrange_state(m, m.initial_state);
  for (auto _ : st) {
    tt::lagrange_derivative(m, s, d);
    benchmark::DoNotOptimize(d.ydot.data());
  }
  st.counters["evals/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  label(st);
}

void BM_NewtonEulerStepRK4(benchmark::State& st) {
  tendyn::bench::time_newton_euler_steps(st, three_bar(st), kStep, kResetEvery,
                                         [](const tt::Model& m, tt::Data& d, tt::State& s, double h) { tt::step_rk4(m, d, s, h); });
  label(st);
}

void BM_LagrangeStepRK4(benchmark::State& st) {
  const tt::Model m = three_bar(st);
  tt::LagrangeData d = tt::make_lagrange_data(m);
  const tt::LagrangeState s0 = tt::to_lagrange_state(m, m.initial_state);
  tt::LagrangeState s = s0;
  int n = 0;
  for (auto _ : st) {
    tt::lagrange_step_rk4(m, d, s, kStep);
    if (++n == kResetEvery) {
      n = 0;
      s = s0;
    }
    benchmark::DoNotOptimize(s.y.data());
  }
  st.counters["steps/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  label(st);
}

void BM_LagrangeLinearize(benchmark::State& st) {
  const tt::Model m = three_bar(st);
  tt::LagrangeData d = tt::make_lagrange_data(m);
  const tt::LagrangeState s = tt::to_lagrange_state(m, m.initial_state);
  Eigen::MatrixXd A, B;
  for (auto _ : st) {
    tt::linearize(m, s, d, A, B);
    benchmark::DoNotOptimize(A.data());
  }
}

BENCHMARK(BM_NewtonEulerDerivative)->Arg(0)->Arg(1);
BENCHMARK(BM_LagrangeDerivative)->Arg(0)->Arg(1);
BENCHMARK(BM_NewtonEulerStepRK4)->Arg(0)->Arg(1);
BENCHMARK(BM_LagrangeStepRK4)->Arg(0)->Arg(1);
BENCHMARK(BM_LagrangeLinearize)->Arg(0);

}  // namespace

BENCHMARK_MAIN();
