// mjcf_vs_mujoco3: steps per second of an imported MJCF model, tendyn against MuJoCo 3.x on the
// same XML file (tendyn imports it with load_mjcf_file, MuJoCo loads it with mj_loadXML).
//
//   build/bench/mjcf_vs_mujoco3 [--steps 20000] [--rounds 7] [FILE.xml ...]
//
// Default files: the cross-engine test robots of tests/data/mjcf/ (three_bar_local.xml, six_bar.xml,
// defaults_include.xml; three_bar_global.xml is tendyn only: MuJoCo 3 refuses coordinate="global").
// Both engines start from the file's first keyframe (or its pose at rest) and take --steps RK4 steps
// of 0.1 ms (2 s by default; the files say RK4 at 0.1 ms, zero gravity, contacts disabled, and both
// engines are set to exactly that whatever the file says). tendyn: step_rk4 on the imported model
// (its general-body path: full inertia tensors, off-axis points). MuJoCo: the file as loaded, energy
// off, at each of its dense and sparse Jacobian (the faster is its best), with and without the
// constraint stage (the files have no constraint: disabling it is MuJoCo's fastest setting).
// Time: CPU time of this thread (CLOCK_THREAD_CPUTIME_ID), per round each engine once, interleaved;
// the ratio is the median over the rounds of each round's MuJoCo-best / tendyn time.
// Before timing, the two engines' site positions after the run are compared (largest distance
// printed): they must simulate the same motion (the test suite checks 1 mm over 2 s).
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/integrate.hpp>
#include <tendyn/tensegrity/mjcf_import.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <time.h>

#include "mujoco_peer.hpp"

namespace ts = tendyn::tensegrity;

namespace {

constexpr double kH = 1e-4;  // [s]

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "mjcf_vs_mujoco3: %s\n", msg.c_str());
  std::exit(1);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Tendyn {
  ts::Model model;
  ts::Data data;
  explicit Tendyn(const std::string& path) : model(ts::load_mjcf_file(path).model), data(ts::make_data(model)) {
    model.gravity_W.setZero();
    model.ground.type = ts::Ground::Type::kNone;
  }
  /// CPU seconds of `steps` RK4 steps from the initial state; `out` receives the final state.
  double run(int steps, ts::State& out) {
    out = model.initial_state;
    const double c0 = thread_cpu_s();
    for (int k = 0; k < steps; ++k) ts::step_rk4(model, data, out, kH);
    return thread_cpu_s() - c0;
  }
};

struct Mujoco {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  explicit Mujoco(const std::string& path) {
    char err[1000] = "";
    m = mj_loadXML(path.c_str(), nullptr, err, sizeof err);
    if (!m) die(path + ": MuJoCo refuses the file: " + err);
    m->opt.timestep = kH;
    m->opt.integrator = mjINT_RK4;
    m->opt.gravity[0] = m->opt.gravity[1] = m->opt.gravity[2] = 0.0;
    m->opt.disableflags |= mjDSBL_CONTACT;
    m->opt.enableflags &= ~mjENBL_ENERGY;
    d = mj_makeData(m);
  }
  ~Mujoco() {
    mj_deleteData(d);
    mj_deleteModel(m);
  }
  Mujoco(const Mujoco&) = delete;
  Mujoco& operator=(const Mujoco&) = delete;
  void reset() {
    if (m->nkey > 0)
      mj_resetDataKeyframe(m, d, 0);
    else
      mj_resetData(m, d);
    d->time = 0.0;
  }
  double run(int steps, int jacobian, bool constraint) {
    m->opt.jacobian = jacobian;
    if (constraint)
      m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
    else
      m->opt.disableflags |= mjDSBL_CONSTRAINT;
    reset();
    const double c0 = thread_cpu_s();
    for (int k = 0; k < steps; ++k) mj_step(m, d);
    const double t = thread_cpu_s() - c0;
    if (d->warning[mjWARN_BADQACC].number > 0) die("MuJoCo reported a blow-up");
    return t;
  }
};

void compare(const std::string& tendyn_file, const std::string& mujoco_file, int steps, int rounds) {
  Tendyn td(tendyn_file);
  Mujoco mj(mujoco_file);
  // same motion? sites after the run
  ts::State s;
  td.run(steps, s);
  mj.run(steps, mjJAC_DENSE, true);
  mj_kinematics(mj.m, mj.d);
  const Eigen::MatrixX3d P = ts::node_positions(td.model, s);
  double worst = 0.0;
  for (int i = 0; i < mj.m->nsite; ++i) {
    const char* name = mj_id2name(mj.m, mjOBJ_SITE, i);
    const auto it = std::find(td.model.node_ids.begin(), td.model.node_ids.end(), std::string(name ? name : ""));
    if (it == td.model.node_ids.end()) die(mujoco_file + ": site " + (name ? name : "?") + " has no tendyn node");
    const auto row = static_cast<Eigen::Index>(it - td.model.node_ids.begin());
    double d2 = 0.0;
    for (int c = 0; c < 3; ++c) d2 += std::pow(P(row, c) - mj.d->site_xpos[3 * i + c], 2);
    worst = std::max(worst, std::sqrt(d2));
  }
  struct Setting {
    const char* label;
    int jacobian;
    bool constraint;
  };
  const Setting settings[] = {{"dense", mjJAC_DENSE, true},
                              {"sparse", mjJAC_SPARSE, true},
                              {"dense, no constraint stage", mjJAC_DENSE, false},
                              {"sparse, no constraint stage", mjJAC_SPARSE, false}};
  constexpr int kSettings = 4;
  std::vector<double> t_td, t_mj[kSettings], ratio;
  for (int r = 0; r < rounds; ++r) {
    t_td.push_back(td.run(steps, s));
    double best = 1e300;
    for (int k = 0; k < kSettings; ++k) {
      t_mj[k].push_back(mj.run(steps, settings[k].jacobian, settings[k].constraint));
      best = std::min(best, t_mj[k].back());
    }
    ratio.push_back(best / t_td.back());
  }
  std::vector<double> rs = ratio;
  std::sort(rs.begin(), rs.end());
  const double n = steps;
  int best_k = 0;
  for (int k = 1; k < kSettings; ++k)
    if (median(t_mj[k]) < median(t_mj[best_k])) best_k = k;
  const std::string same = tendyn_file == mujoco_file ? "" : " (MuJoCo: " + mujoco_file.substr(mujoco_file.rfind('/') + 1) + ")";
  std::printf("| %s%s | %d / %d / %d | %.3g | %.3g us | %.3g (%s) | %.3g us | **%.1fx** (%.1f-%.1f) | %.2g m |\n",
              tendyn_file.substr(tendyn_file.rfind('/') + 1).c_str(), same.c_str(), td.model.nrod(), td.model.ncable(), td.model.nnode(),
              n / median(t_td), 1e6 * median(t_td) / n, n / median(t_mj[best_k]), settings[best_k].label, 1e6 * median(t_mj[best_k]) / n,
              rs[rs.size() / 2], rs.front(), rs.back(), worst);
  for (int k = 0; k < kSettings; ++k)
    std::fprintf(stderr, "  %s: MuJoCo %s: %.3f us/step (median of %d)\n", tendyn_file.c_str(), settings[k].label,
                 1e6 * median(t_mj[k]) / n, rounds);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 20000, rounds = 7;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--steps" || a == "--rounds") && i + 1 < argc) {
      const int v = std::atoi(argv[++i]);
      if (v < 1) die(a + ": expected an integer >= 1, got '" + argv[i] + "'");
      (a == "--steps" ? steps : rounds) = v;
    } else if (a.rfind("--", 0) == 0) {
      die("unknown option " + a + " (valid: --steps N, --rounds N, then XML files)");
    } else {
      files.push_back(a);
    }
  }
  tendyn::bench::require_mujoco_version("mjcf_vs_mujoco3");
  const std::string dir = std::string(TENDYN_SOURCE_DIR) + "/tests/data/mjcf/";
  std::vector<std::pair<std::string, std::string>> pairs;  // tendyn file, MuJoCo file
  if (files.empty()) {
    pairs = {{dir + "three_bar_global.xml", dir + "three_bar_local.xml"},
             {dir + "three_bar_local.xml", dir + "three_bar_local.xml"},
             {dir + "six_bar.xml", dir + "six_bar.xml"},
             {dir + "defaults_include.xml", dir + "defaults_include.xml"}};
  } else {
    for (const auto& f : files) pairs.emplace_back(f, f);
  }
  std::printf("%d RK4 steps of %g s per run, %d rounds (engines interleaved), thread CPU time, medians\n\n", steps, kH, rounds);
  std::printf(
      "| file | rods / cables / points | tendyn steps/s | tendyn per step | MuJoCo steps/s (best setting) | MuJoCo per step | "
      "MuJoCo / tendyn time (range over rounds) | sites apart after the run |\n|---|---|---|---|---|---|---|---|\n");
  for (const auto& [t, m] : pairs) {
    try {
      compare(t, m, steps, rounds);
    } catch (const std::exception& e) {
      die(t + ": " + e.what());
    }
  }
  return 0;
}
