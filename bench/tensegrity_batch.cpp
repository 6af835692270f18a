// Batched rollouts: robot-steps per second of tensegrity::step_batch on 1 and 2 threads, against
// MuJoCo stepping the same exported model on the same number of std::threads, same step h = 1 ms,
// same robot count, same 1 s of simulated time. Built twice from this source:
//  * tensegrity_batch (MuJoCo 2.2.2): one mjData per robot, robots interleaved over the threads;
//  * tensegrity_batch_mujoco3 (MuJoCo 3.x): a pool like `mujoco.rollout`'s: one mjData per thread,
//    robots split into contiguous blocks; per call and robot, mj_setState (mjSTATE_FULLPHYSICS) from
//    the robot's stored state, --per-call mj_step, mj_getState back (rollout also copies the state
//    after every step into its output: not done here, as step_batch keeps only the last state).
// Energy, constraint and contact stages are off in MuJoCo (bench/mujoco_peer.hpp).
//
// Like with like: compiled C++ on both sides, the same rods and cables (tt::to_mjcf of the same
// tendyn model; tests/support/peer_models.hpp: every cable stays taut, so MuJoCo's tendon springs
// are the same force law), the same integrator (RK4) at the same step. MuJoCo is also timed with
// its sparse Jacobian and with its default Euler integrator (cheaper per step, first order: at this
// step its error is far larger, see docs/BENCHMARKS.md's matched-accuracy table), and the ratio is
// taken against MuJoCo's fastest RK4 setting.
//
//   build-bench/bench/tensegrity_batch [--robots 64] [--reps 3] [--mujoco-reps N] [--per-call 100] [--steps 1000]
//   build-bench/bench/tensegrity_batch_mujoco3 --model FILE.xml [--robots 64] [--reps 3] [--per-call 100] [--steps 1000]
// --model: MuJoCo only, on an MJCF file as written (e.g. `tendyn export --mjcf` of a model):
// its timestep, integrator, Jacobian, contact and ground as the file says (energy off), every
// robot starting from the file's first keyframe; the same pool, 1 and 2 threads; one line per
// thread count "mujoco_model threads=T robot_steps_per_s_wall=W robot_steps_per_cpu_s=C" (for
// bench/envs_steps.py, which times tendyn's vector environments against it in the same run).
// --steps steps of 1 ms, handed to step_batch --per-call steps at a time (100 = a 0.1 s control
// period). Wall time and process CPU time (all threads; robot-steps per CPU second do not depend on
// the load of a shared machine, wall time does), each the best of --reps repetitions of the whole
// run; tendyn's speed-up is the median
// over the reps of each rep's 1-thread / 2-thread time (the two run back to back), printed with its
// quartiles. MuJoCo's runs take 20-50x longer: --mujoco-reps (default --reps) sets their count.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/batch.hpp>
#include <tendyn/tensegrity/mjcf.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <time.h>

#include "mujoco_peer.hpp"
#include "support/peer_models.hpp"

namespace tt = tendyn::tensegrity;

namespace {

constexpr double kH = 1e-3;  // [s]
int g_steps = 1000;          // 1 s (--steps)
int g_per_call = 100;        // steps per step_batch call, a 0.1 s control period (--per-call)

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// CPU time of the whole process [s] (every thread, the workers' spinning included): the robot-steps
// per CPU second it gives are not inflated when other processes share the cores, unlike wall time.
double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Wall and process CPU time [s] of a run; keep() keeps the smallest of each over repetitions.
struct Timing {
  double wall_s = 1e300, cpu_s = 1e300;
  void keep(const Timing& o) {
    wall_s = std::min(wall_s, o.wall_s);
    cpu_s = std::min(cpu_s, o.cpu_s);
  }
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "tensegrity_batch: %s\n", msg.c_str());
  std::exit(1);
}

// Wall and CPU time of one whole run (g_steps steps, g_per_call per step_batch call) on `threads` threads.
Timing time_tendyn(const tt::Model& model, int robots, int threads) {
  tt::Batch b = tt::make_batch(model, robots);
  tt::BatchStepOptions o;
  o.h_s = kH;
  o.nstep = g_per_call;
  o.threads = threads;
  const double t0 = now_s(), c0 = process_cpu_s();
  for (int c = 0; c < g_steps / g_per_call; ++c)
    if (tt::step_batch(model, b, o) != 0) die("a tendyn robot failed: " + b.error[0]);
  return {now_s() - t0, process_cpu_s() - c0};
}

mjModel* load_mujoco(const tt::Model& model) {
  std::string err;
  mjModel* m = tendyn::bench::load_mujoco_model(model, err);
  if (!m) die("MuJoCo could not load the exported MJCF: " + err);
  m->opt.timestep = kH;
  return m;
}

#ifdef TENDYN_MUJOCO_3
// The pool of mujoco.rollout: one mjData per thread, each thread a contiguous block of robots,
// g_steps / g_per_call calls, each restoring every robot's state, stepping it g_per_call times and
// saving its state (threads started per call; ~0.1 ms per call against ~70 ms of stepping).
Timing time_mujoco(mjModel* m, int robots, int threads, int reps, int key = -1) {
  const int sig = mjSTATE_FULLPHYSICS;
  const std::size_t n = static_cast<std::size_t>(mj_stateSize(m, sig));
  std::vector<mjData*> d(static_cast<std::size_t>(threads));
  for (auto& x : d) x = mj_makeData(m);
  std::vector<mjtNum> init(n), states(n * static_cast<std::size_t>(robots));
  if (key >= 0) mj_resetDataKeyframe(m, d[0], key);
  mj_getState(m, d[0], init.data(), sig);
  Timing best;
  for (int rep = 0; rep < reps; ++rep) {
    for (int r = 0; r < robots; ++r)
      std::copy(init.begin(), init.end(), states.begin() + static_cast<std::ptrdiff_t>(n * static_cast<std::size_t>(r)));
    const double t0 = now_s(), c0 = process_cpu_s();
    for (int c = 0; c < g_steps / g_per_call; ++c) {
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
          mjData* x = d[static_cast<std::size_t>(t)];
          for (int r = robots * t / threads; r < robots * (t + 1) / threads; ++r) {
            mjtNum* st = states.data() + n * static_cast<std::size_t>(r);
            mj_setState(m, x, st, sig);
            for (int k = 0; k < g_per_call; ++k) mj_step(m, x);
            mj_getState(m, x, st, sig);
          }
        });
      for (auto& th : pool) th.join();
    }
    best.keep({now_s() - t0, process_cpu_s() - c0});
  }
  for (auto* x : d)
    if (x->warning[mjWARN_BADQACC].number > 0) die("MuJoCo reported a blow-up");
  for (auto* x : d) mj_deleteData(x);
  return best;
}
#else
Timing time_mujoco(mjModel* m, int robots, int threads, int reps, int key = -1) {
  std::vector<mjData*> d(static_cast<std::size_t>(robots));
  for (auto& x : d) x = mj_makeData(m);
  Timing best;
  for (int rep = 0; rep < reps; ++rep) {
    for (auto* x : d)
      if (key >= 0)
        mj_resetDataKeyframe(m, x, key);
      else
        mj_resetData(m, x);
    const double t0 = now_s(), c0 = process_cpu_s();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int r = t; r < robots; r += threads)
          for (int k = 0; k < g_steps; ++k) mj_step(m, d[static_cast<std::size_t>(r)]);
      });
    for (auto& th : pool) th.join();
    best.keep({now_s() - t0, process_cpu_s() - c0});
  }
  for (auto* x : d)
    if (x->warning[mjWARN_BADQACC].number > 0) die("MuJoCo reported a blow-up");
  for (auto* x : d) mj_deleteData(x);
  return best;
}
#endif

// --model FILE: MuJoCo alone on an MJCF file as written (contact and ground included), 1 and 2 threads.
int run_model_file(const std::string& path, int robots, int reps) {
  char err[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, err, sizeof err);
  if (!m) die(path + ": MuJoCo refuses the file: " + err);
  m->opt.enableflags &= ~mjENBL_ENERGY;
  std::printf(
      "model %s: %ld bodies, %ld tendons, timestep %g s, integrator %d, jacobian %d, contact %s; %d robots, %d steps, "
      "%d per call, best of %d\n",
      path.c_str(), static_cast<long>(m->nbody) - 1, static_cast<long>(m->ntendon), m->opt.timestep, m->opt.integrator, m->opt.jacobian,
      (m->opt.disableflags & mjDSBL_CONTACT) ? "off" : "on", robots, g_steps, g_per_call, reps);
  const double work = static_cast<double>(robots) * g_steps;
  for (int th : {1, 2}) {
    const Timing t = time_mujoco(m, robots, th, reps, m->nkey > 0 ? 0 : -1);
    std::printf("mujoco_model threads=%d robot_steps_per_s_wall=%.6g robot_steps_per_cpu_s=%.6g\n", th, work / t.wall_s, work / t.cpu_s);
    std::fflush(stdout);
  }
  mj_deleteModel(m);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int robots = 64, reps = 3, mujoco_reps = 0;
  std::string model_file;
  if (argc % 2 == 0) die(std::string("option ") + argv[argc - 1] + " has no value");
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--robots")
      robots = std::atoi(argv[i + 1]);
    else if (a == "--model")
      model_file = argv[i + 1];
    else if (a == "--reps")
      reps = std::atoi(argv[i + 1]);
    else if (a == "--mujoco-reps")
      mujoco_reps = std::atoi(argv[i + 1]);
    else if (a == "--per-call")
      g_per_call = std::atoi(argv[i + 1]);
    else if (a == "--steps")
      g_steps = std::atoi(argv[i + 1]);
    else
      die("unknown option " + a);
  }
  if (mujoco_reps == 0) mujoco_reps = reps;
  tendyn::bench::require_mujoco_version("tensegrity_batch");
  if (robots < 2 || reps < 1 || mujoco_reps < 1) die("--robots >= 2, --reps >= 1, --mujoco-reps >= 1");
  if (g_per_call < 1 || g_steps < g_per_call || g_steps % g_per_call != 0) die("--per-call >= 1 must divide --steps");
  if (!model_file.empty()) return run_model_file(model_file, robots, mujoco_reps);
  std::printf(
      "robots %d, %d steps of %g s each (RK4), %d per step_batch call, best of %d (MuJoCo %d), wall and process CPU time; "
      "%u hardware threads\n\n",
      robots, g_steps, kH, g_per_call, reps, mujoco_reps, std::thread::hardware_concurrency());
  std::printf(
      "| model | engine / setting | threads | robot-steps/s (wall) | robot-steps per CPU-s | speed-up 2 vs 1 thread (wall) | tendyn / MuJoCo best RK4, same threads: wall, CPU |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  struct Case {
    const char* name;
    tt::Model model;
  };
  const Case cases[] = {
      {"3-prism", tendyn::test::taut_prism(0.5)}, {"6-bar", tendyn::test::taut_six_bar(1.0)}, {"tower", tendyn::bench::tower_free_fall()}};
  const double work = static_cast<double>(robots) * g_steps;
  for (const auto& c : cases) {
    Timing tendyn_t[3], mj_best[3];
    // 1 and 2 threads alternate rep by rep; the speed-up is the median of the reps' ratios (the
    // VM's speed drifts by 20-30 % over seconds, which best-of-reps per thread count would mix in).
    std::vector<double> speedups;
    for (int rep = 0; rep < reps; ++rep) {
      const Timing t1 = time_tendyn(c.model, robots, 1), t2 = time_tendyn(c.model, robots, 2);
      tendyn_t[1].keep(t1);
      tendyn_t[2].keep(t2);
      speedups.push_back(t1.wall_s / t2.wall_s);
    }
    std::sort(speedups.begin(), speedups.end());
    const std::size_t nrep = speedups.size();
    char speedup_text[96];
    std::snprintf(speedup_text, sizeof speedup_text, "%.2fx (median of %zu reps; quartiles %.2f-%.2f)", speedups[nrep / 2], nrep,
                  speedups[nrep / 4], speedups[(3 * nrep) / 4]);
    mjModel* m = load_mujoco(c.model);
    struct Setting {
      const char* label;
      int integrator, jacobian;
    };
    const Setting settings[] = {
        {"MuJoCo RK4, dense Jacobian", mjINT_RK4, mjJAC_DENSE},
        {"MuJoCo RK4, sparse Jacobian", mjINT_RK4, mjJAC_SPARSE},
        {"MuJoCo Euler (default), sparse", mjINT_EULER, mjJAC_SPARSE},
#ifdef TENDYN_MUJOCO_3
        {"MuJoCo implicitfast, sparse", mjINT_IMPLICITFAST, mjJAC_SPARSE},
#endif
    };
    std::vector<std::string> lines;
    for (const auto& s : settings) {
      m->opt.integrator = s.integrator;
      m->opt.jacobian = s.jacobian;
      Timing t[3];
      for (int th : {1, 2}) {
        t[th] = time_mujoco(m, robots, th, mujoco_reps);
        if (s.integrator == mjINT_RK4) mj_best[th].keep(t[th]);
      }
      for (int th : {1, 2}) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "| %s | %s | %d | %.3g | %.3g | %s | |\n", c.name, s.label, th, work / t[th].wall_s,
                      work / t[th].cpu_s, th == 2 ? (std::to_string(t[1].wall_s / t[2].wall_s).substr(0, 4) + "x").c_str() : "");
        lines.push_back(buf);
      }
    }
    mj_deleteModel(m);
    for (int th : {1, 2})
      std::printf("| %s | tendyn step_batch | %d | %.3g | %.3g | %s | %.1fx, %.1fx |\n", c.name, th, work / tendyn_t[th].wall_s,
                  work / tendyn_t[th].cpu_s, th == 2 ? speedup_text : "", mj_best[th].wall_s / tendyn_t[th].wall_s,
                  mj_best[th].cpu_s / tendyn_t[th].cpu_s);
    for (const auto& l : lines) std::fputs(l.c_str(), stdout);
  }
  return 0;
}
