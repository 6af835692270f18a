// The cost of a real robot's elements per step (docs/REAL_ROBOTS.md): document 001's 3-bar robot
// on the compliant ground as the documents model it (ideal rods, point contact, ideal drive), then
// with each element of models/three_bar_motorised.yaml added in turn: end-caps, off-axis cable
// points and a full inertia tensor (the general-body path), and winches. RK4 steps of 0.2 ms with
// the next step's derivative, thread CPU time, the variants alternated in rounds.
//
//   build/bench/tensegrity_real_robot [--rounds 9] [--steps 20000]
//
// Prints ns per step (best round) and the median over rounds of each variant's ratio to the plain
// model measured in the same round.
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace tt = tendyn::tensegrity;

namespace {

constexpr double kH = 2e-4;  // [s]

double cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

volatile double g_sink = 0.0;

double ns_per_step(const tt::Model& m, int nstep) {
  tt::Data d = tt::make_data(m);
  tt::State s = m.initial_state;
  tt::compute_derivative(m, s, d);
  tt::StepOptions o;
  o.locate_slack_events = false;  // the same work every step
  const double t0 = cpu_s();
  for (int k = 0; k < nstep; ++k) {
    if (k % 2000 == 0) {  // restart: the same motion every round
      s = m.initial_state;
      tt::compute_derivative(m, s, d);
    }
    tt::step(m, d, s, kH, o);
  }
  g_sink = g_sink + s.x[0];
  return 1e9 * (cpu_s() - t0) / nstep;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 9, steps = 20000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rounds")
      rounds = std::atoi(argv[i + 1]);
    else if (a == "--steps")
      steps = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "tensegrity_real_robot: unknown option %s (valid: --rounds N, --steps N)\n", a.c_str());
      return 2;
    }
  }
  if (rounds < 1 || steps < 2000) {
    std::fprintf(stderr, "tensegrity_real_robot: --rounds >= 1, --steps >= 2000\n");
    return 2;
  }
  const std::string dir = TENDYN_SOURCE_DIR "/models/";
  tt::Model real = tt::load_model_file(dir + "three_bar_motorised.yaml").model;
  tt::Model geometry = real;  // end-caps, off-axis points, full inertia; ideal drive
  geometry.winches.clear();
  geometry.initial_state.x.conservativeResize(geometry.nx());
  tt::Model plain = tt::load_model_file(dir + "three_bar.yaml").model;
  plain.ground = real.ground;  // the same compliant ground, point contact
  tt::validate(geometry);
  tt::validate(plain);
  struct Variant {
    const char* name;
    const tt::Model* model;
    std::vector<double> ns, ratio;
  };
  std::vector<Variant> v{{"documents' 3-bar (ideal rods, point contact, ideal drive)", &plain, {}, {}},
                         {"+ end-caps, 18 off-axis cable points, full inertia tensors", &geometry, {}, {}},
                         {"+ 4 winches (models/three_bar_motorised.yaml)", &real, {}, {}}};
  for (int r = 0; r < rounds; ++r)
    for (auto& x : v) {
      x.ns.push_back(ns_per_step(*x.model, steps));
      x.ratio.push_back(x.ns.back() / v[0].ns.back());
    }
  std::printf("RK4 step (h = 0.2 ms) incl. the next step's derivative, compliant ground; thread CPU time; %d rounds of %d steps\n\n",
              rounds, steps);
  std::printf("| model | ns/step (best round) | / plain (median of rounds) |\n|---|---|---|\n");
  for (auto& x : v) {
    std::sort(x.ratio.begin(), x.ratio.end());
    std::printf("| %s | %.0f | %.2f |\n", x.name, *std::min_element(x.ns.begin(), x.ns.end()), x.ratio[x.ratio.size() / 2]);
  }
  return 0;
}
