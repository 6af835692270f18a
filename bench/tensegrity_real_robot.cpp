// The cost of a real robot's elements per step (docs/REAL_ROBOTS.md): document 001's 3-bar robot
// on the compliant ground as the documents model it (ideal rods, point contact, ideal drive), then
// with each element of models/three_bar_motorised.yaml added in turn: end-caps, off-axis cable
// points and a full inertia tensor (the general-body path), and winches. RK4 steps of 0.2 ms with
// the next step's derivative, thread CPU time, the variants alternated in rounds. A second row runs
// the documents' 3-bar itself through the general-body path (rods declared of general inertia):
// the same nodes, cables and motion as the first, so that its ratio is the general path's own cost.
//
//   build/bench/tensegrity_real_robot [--rounds 9] [--steps 20000] [--only ROW]
//
// --only ROW (0..3) times that row alone (for perf record) and prints its best round.
//
// Prints ns per step (best round) and the median over rounds of each variant's ratio to the plain
// model and to the plain model through the general path (row 2), measured in the same round.
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
  int rounds = 9, steps = 20000, only = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rounds")
      rounds = std::atoi(argv[i + 1]);
    else if (a == "--steps")
      steps = std::atoi(argv[i + 1]);
    else if (a == "--only")
      only = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "tensegrity_real_robot: unknown option %s (valid: --rounds N, --steps N, --only ROW)\n", a.c_str());
      return 2;
    }
  }
  if (rounds < 1 || steps < 2000 || only < -1 || only > 3) {
    std::fprintf(stderr, "tensegrity_real_robot: --rounds >= 1, --steps >= 2000, --only 0..3 (a row of the table)\n");
    return 2;
  }
  const std::string dir = TENDYN_SOURCE_DIR "/models/";
  tt::Model real = tt::load_model_file(dir + "three_bar_motorised.yaml").model;
  tt::Model geometry = real;  // end-caps, off-axis points, full inertia; ideal drive
  geometry.winches.clear();
  geometry.initial_state.x.conservativeResize(geometry.nx());
  tt::Model plain = tt::load_model_file(dir + "three_bar.yaml").model;
  plain.ground = real.ground;  // the same compliant ground, point contact
  // Like for like: the documents' 3-bar itself (the same 6 nodes, 9 cables, masses and motion) with
  // its rods declared as bodies of a general inertia, diag(I_t, I_t, I_a) and the ends at their
  // axial offsets: it runs the general-body path instead of the kernel, so its ratio to the plain
  // row is the cost of that path alone, without the motorised robot's extra nodes and end-caps.
  tt::Model plain_general = plain;
  for (tt::Rod& r : plain_general.rods) {
    for (int e = 0; e < 2; ++e) plain_general.nodes[static_cast<std::size_t>(r.node[e])].p_B_m = plain.p_BN(r.node[e]);
    r.inertia_B_kgm2 = Eigen::Vector3d(r.inertia_transverse_kgm2, r.inertia_transverse_kgm2, r.inertia_axial_kgm2).asDiagonal();
    r.general_inertia = true;
  }
  tt::validate(geometry);
  tt::validate(plain);
  tt::validate(plain_general);
  if (!plain_general.has_body_geometry()) {
    std::fprintf(stderr, "tensegrity_real_robot: the like-for-like model does not take the general-body path\n");
    return 1;
  }
  struct Variant {
    const char* name;
    const tt::Model* model;
    std::vector<double> ns, ratio, ratio_general;
  };
  std::vector<Variant> v{
      {"documents' 3-bar (ideal rods, point contact, ideal drive)", &plain, {}, {}, {}},
      {"the same 3-bar through the general-body path (6 nodes, 9 cables, diagonal inertia tensors)", &plain_general, {}, {}, {}},
      {"+ end-caps, 18 off-axis cable points, full inertia tensors", &geometry, {}, {}, {}},
      {nullptr, &real, {}, {}, {}}};
  const std::string winches_row = "+ " + std::to_string(real.nwinch()) + " winches (models/three_bar_motorised.yaml)";
  v.back().name = winches_row.c_str();
  if (only >= 0) {  // one row alone, for a profiler (perf record)
    double best = 1e300;
    for (int r = 0; r < rounds; ++r) best = std::min(best, ns_per_step(*v[static_cast<std::size_t>(only)].model, steps));
    std::printf("%s: %.0f ns/step (best of %d rounds)\n", v[static_cast<std::size_t>(only)].name, best, rounds);
    return 0;
  }
  for (int r = 0; r < rounds; ++r)
    for (auto& x : v) {
      x.ns.push_back(ns_per_step(*x.model, steps));
      x.ratio.push_back(x.ns.back() / v[0].ns.back());
    }
  for (int r = 0; r < rounds; ++r)
    for (auto& x : v) x.ratio_general.push_back(x.ns[static_cast<std::size_t>(r)] / v[1].ns[static_cast<std::size_t>(r)]);
  std::printf("RK4 step (h = 0.2 ms) incl. the next step's derivative, compliant ground; thread CPU time; %d rounds of %d steps\n\n",
              rounds, steps);
  std::printf(
      "| model | ns/step (best round) | / plain (median of rounds) | / plain through the general path (median) |\n|---|---|---|---|\n");
  for (auto& x : v) {
    std::sort(x.ratio.begin(), x.ratio.end());
    std::sort(x.ratio_general.begin(), x.ratio_general.end());
    std::printf("| %s | %.0f | %.2f | %.2f |\n", x.name, *std::min_element(x.ns.begin(), x.ns.end()), x.ratio[x.ratio.size() / 2],
                x.ratio_general[x.ratio_general.size() / 2]);
  }
  return 0;
}
