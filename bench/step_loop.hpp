// The timed loop of the Newton-Euler step benchmarks: one step of size h, then the derivative the
// next step needs (its precondition), restarting from the model's initial state every
// `reset_every` steps so that every measurement sees the same motion. Reports steps/s.
#pragma once
#include <tendyn/tensegrity/dynamics.hpp>

#include <benchmark/benchmark.h>

namespace tendyn::bench {

template <class Step>
void time_newton_euler_steps(benchmark::State& st, const tensegrity::Model& m, double h, int reset_every, Step step) {
  tensegrity::Data d = tensegrity::make_data(m);
  tensegrity::State s = m.initial_state;
  tensegrity::compute_derivative(m, s, d);
  int n = 0;
  for (auto _ : st) {
    step(m, d, s, h);
    tensegrity::compute_derivative(m, s, d);  // precondition of the next step
    if (++n == reset_every) {
      n = 0;
      s = m.initial_state;
      tensegrity::compute_derivative(m, s, d);
    }
    benchmark::DoNotOptimize(s.x.data());
  }
  st.counters["steps/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace tendyn::bench
