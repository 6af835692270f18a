// The tensegrity kernel of issue 19 item 2 against the kernel it replaced, in the same run: RK4
// steps (4 evaluations + the derivative the next step needs) of the new kernel
// (tensegrity::step_rk4 + compute_derivative) and of the old one (tests/support/legacy_dynamics.hpp,
// verbatim), alternating in rounds, thread CPU time. Also one simulate() step (the new kernel with
// simulate's monitor, energy and COM bookkeeping, no observer) and the per-rod cost of n-prisms up
// to 1,000 rods (linear scaling).
//
//   build/bench/tensegrity_step_kernel [--rounds 15] [--steps 20000]
//
// Prints, per model: ns per step (best round) of each side, and the median over rounds of the
// per-round ratio old / new (each round times both sides back to back, so a load change between
// rounds cancels out of the ratio).
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/integrate.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "support/legacy_dynamics.hpp"
#include "support/peer_models.hpp"

namespace tt = tendyn::tensegrity;
namespace legacy = tendyn::test::legacy;

namespace {

constexpr double kH = 1e-3;        // [s]
constexpr int kResetEvery = 1000;  // steps: restart from the initial state (same motion every round)

double cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

volatile double g_sink = 0.0;

// ns per RK4 step of `nstep` steps (step + derivative, as simulate's fixed-step loop runs them).
template <class Step, class Deriv>
double time_steps(const tt::Model& m, int nstep, Step step, Deriv deriv) {
  tt::Data d = tt::make_data(m);
  tt::State s = m.initial_state;
  deriv(m, s, d);
  const double t0 = cpu_s();
  for (int k = 0, n = 0; k < nstep; ++k) {
    step(m, d, s, kH);
    deriv(m, s, d);
    if (++n == kResetEvery) {
      n = 0;
      s = m.initial_state;
      deriv(m, s, d);
    }
  }
  const double t = cpu_s() - t0;
  g_sink = g_sink + s.x[0];
  return 1e9 * t / nstep;
}

double time_new(const tt::Model& m, int nstep) {
  return time_steps(
      m, nstep, [](const tt::Model& mo, tt::Data& d, tt::State& s, double h) { tt::step_rk4(mo, d, s, h); },
      [](const tt::Model& mo, const tt::State& s, tt::Data& d) { tt::compute_derivative(mo, s, d); });
}

double time_old(const tt::Model& m, int nstep) {
  return time_steps(
      m, nstep, [](const tt::Model& mo, tt::Data& d, tt::State& s, double h) { legacy::step_rk4(mo, d, s, h); },
      [](const tt::Model& mo, const tt::State& s, tt::Data& d) { legacy::compute_derivative(mo, s, d); });
}

// ns per step of simulate() (RK4, outputs never written: no observer), nstep steps of kH.
double time_simulate(const tt::Model& m, int nstep) {
  tt::SimulationOptions o;
  o.duration_s = nstep * kH;
  o.dt_s = kH;
  o.integrator = tt::Integrator::kRK4;
  o.locate_slack_events = false;
  const double t0 = cpu_s();
  const auto sum = tt::simulate(m, o);
  const double t = cpu_s() - t0;
  g_sink = g_sink + sum.final_state.x[0];
  return 1e9 * t / nstep;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

tt::Model n_prism(int n) {
  tt::PrismParams p;
  p.n = n;
  p.damping_Nspm = 0.5;
  tt::Model m = tt::make_prism(p);
  m.gravity_W.setZero();
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 15, steps = 20000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rounds")
      rounds = std::atoi(argv[i + 1]);
    else if (a == "--steps")
      steps = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "tensegrity_step_kernel: unknown option %s (valid: --rounds N, --steps N)\n", a.c_str());
      return 1;
    }
  }
  if (rounds < 1 || steps < kResetEvery) {
    std::fprintf(stderr, "tensegrity_step_kernel: --rounds >= 1, --steps >= %d\n", kResetEvery);
    return 1;
  }
  std::printf("RK4 step (h = 1 ms) incl. the next step's derivative; thread CPU time; %d rounds of %d steps per side\n\n", rounds, steps);
  std::printf(
      "| model | rods | cables | old kernel ns/step | new kernel ns/step | old / new (median of rounds) | simulate() ns/step (new) | old step / new simulate() |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  struct Case {
    std::string name;
    tt::Model model;
  };
  std::vector<Case> cases = {{"3-prism undamped", tendyn::test::taut_prism(0.0)},
                             {"3-prism damped", tendyn::test::taut_prism(1.0)},
                             {"6-bar undamped", tendyn::test::taut_six_bar(0.0)},
                             {"6-bar damped", tendyn::test::taut_six_bar(5.0)}};
  for (int n : {10, 100, 1000}) cases.push_back({std::to_string(n) + "-prism damped", n_prism(n)});
  for (const auto& c : cases) {
    // keep the work per round similar: steps scaled by the rod count
    const int ns = std::max(kResetEvery, steps * 3 / std::max(3, c.model.nrod()));
    double best_old = 1e300, best_new = 1e300, best_sim = 1e300;
    std::vector<double> ratio, ratio_sim;
    time_new(c.model, ns / 4);  // warm-up
    for (int r = 0; r < rounds; ++r) {
      const double o = time_old(c.model, ns), n = time_new(c.model, ns), s = time_simulate(c.model, ns);
      best_old = std::min(best_old, o);
      best_new = std::min(best_new, n);
      best_sim = std::min(best_sim, s);
      ratio.push_back(o / n);
      ratio_sim.push_back(o / s);
    }
    std::printf("| %s | %d | %d | %.0f | %.0f | %.2fx | %.0f | %.2fx |\n", c.name.c_str(), c.model.nrod(), c.model.ncable(), best_old,
                best_new, median(ratio), best_sim, median(ratio_sim));
  }
  return 0;
}
