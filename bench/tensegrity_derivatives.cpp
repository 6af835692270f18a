// The cost of a step with its exact Jacobians (derivatives.hpp: d x_next / d x, d x_next / d u and
// the stiffness of every cable) relative to a plain RK4 step, on the 3-prism (models/prism3.yaml)
// and the 6-bar (models/superball.yaml). Also the double template's step (step_value) and one
// rollout_grad step (derivatives + reverse accumulation) per step.
//   build-bench/bench/tensegrity_derivatives --benchmark_counters_tabular=true
#include <tendyn/tensegrity/derivatives.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <benchmark/benchmark.h>

#include <string>

namespace tt = tendyn::tensegrity;

namespace {

tt::Model model_for(int which) {
  return tt::load_model_file(std::string(TENDYN_SOURCE_DIR) + (which == 0 ? "/models/prism3.yaml" : "/models/superball.yaml")).model;
}

Eigen::VectorXd rest(const tt::Model& m) {
  Eigen::VectorXd u(m.ncable());
  for (int k = 0; k < m.ncable(); ++k) u[k] = m.cables[static_cast<std::size_t>(k)].rest_length_m;
  return u;
}

void label(benchmark::State& st, const tt::Model& m, const std::string& more = "") {
  st.SetLabel(std::string(st.range(0) == 0 ? "3-prism" : "6-bar") + " nx=" + std::to_string(m.nx()) + " nu=" + std::to_string(m.ncable()) +
              more);
}

void BM_PlainStep(benchmark::State& st) {  // step() as a control loop calls it (rk4, with the derivative for the next step)
  const tt::Model m = model_for(static_cast<int>(st.range(0)));
  tt::Data d = tt::make_data(m);
  tt::State s = m.initial_state;
  tt::compute_derivative(m, s, d);
  const tt::State s0 = s;
  int n = 0;
  for (auto _ : st) {
    tt::step(m, d, s, 1e-3, tt::StepOptions{});
    if (++n == 1000) {
      n = 0;
      s = s0;
      tt::compute_derivative(m, s, d);
    }
    benchmark::DoNotOptimize(s.x.data());
  }
  st.counters["steps/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  label(st, m);
}

void BM_StepValue(benchmark::State& st) {
  const tt::Model m = model_for(static_cast<int>(st.range(0)));
  const Eigen::VectorXd u = rest(m);
  const tt::State s = m.initial_state;
  for (auto _ : st) benchmark::DoNotOptimize(tt::step_value(m, s, u, 1e-3).data());
  st.counters["steps/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  label(st, m);
}

void BM_StepDerivatives(benchmark::State& st) {  // range(1): with the stiffness of every cable as parameters
  const tt::Model m = model_for(static_cast<int>(st.range(0)));
  const Eigen::VectorXd u = rest(m);
  const tt::State s = m.initial_state;
  const auto params = st.range(1) ? tt::parse_fit_spec(m, "stiffness:all") : std::vector<tt::ParameterGroup>{};
  for (auto _ : st) benchmark::DoNotOptimize(tt::step_derivatives(m, s, u, 1e-3, params).A.data());
  st.counters["steps/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  label(st, m, " np=" + std::to_string(params.size()));
}

void BM_RolloutGrad100(benchmark::State& st) {  // 100 steps, final-position loss; reported per step
  const tt::Model m = model_for(static_cast<int>(st.range(0)));
  const Eigen::MatrixXd U = rest(m).transpose().replicate(100, 1);
  tt::RolloutLoss L;
  L.target_weight = 1.0;
  for (auto _ : st) benchmark::DoNotOptimize(tt::rollout_grad(m, m.initial_state, U, 1e-3, L).dL_dcontrols.data());
  st.counters["steps/s"] = benchmark::Counter(100.0 * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  label(st, m);
}

}  // namespace

BENCHMARK(BM_PlainStep)->Arg(0)->Arg(1);
BENCHMARK(BM_StepValue)->Arg(0)->Arg(1);
BENCHMARK(BM_StepDerivatives)->Args({0, 0})->Args({1, 0})->Args({0, 1})->Args({1, 1});
BENCHMARK(BM_RolloutGrad100)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
