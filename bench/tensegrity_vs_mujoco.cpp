// tendyn vs MuJoCo on the same rods and cables, at matched accuracy. Built twice from this source:
// tensegrity_vs_mujoco against MuJoCo 2.2.2 (Debian) and tensegrity_vs_mujoco3 against MuJoCo 3.x
// (bench/tensegrity.cmake); the program prints the MuJoCo version it runs against.
//
// For each model (3-prism, 6-bar expanded octahedron with and without (axial) damping, and the
// tower of models/tower.yaml falling freely without its ground):
//   1. every cable must stay taut for the whole 1 s run (MuJoCo's tendon springs also push),
//      checked on tendyn's normal-mode monitor (min strain > 0) and on MuJoCo's tendon lengths;
//      the program aborts otherwise;
//   2. fine-step RK4 references (h = 1e-5 s) of both engines, and their agreement (cross-check);
//   3. for each engine / integrator, the largest step h = 1/N whose node-position error at
//      t = 1 s against that engine's reference is <= the target (Dormand-Prince: the loosest
//      tolerance), then the time of the 1 s run at that step: thread CPU time, best of several
//      repetitions (robust on a shared machine).
// Prints markdown tables. One command reproduces docs/BENCHMARKS.md (tensegrity section):
//   build-bench/bench/tensegrity_vs_mujoco [--targets 1e-4,1e-6,1e-8] [--min-time 0.3]
//       [--models 3-prism,6-bar,tower] [--max-steps 1048576]
// --max-steps caps the step search of the fixed-step methods (MuJoCo's 1st-order integrators
// need 10^5-10^6 steps for 1e-6 m; a method that needs more is reported as "not reached").
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/mjcf.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <time.h>

#include "mujoco_peer.hpp"
#include "support/peer_models.hpp"

namespace tt = tendyn::tensegrity;

namespace {

constexpr double kDuration = 1.0;   // [s] simulated time of every run
constexpr long kRefSteps = 100000;  // reference: RK4 with h = 1e-5 s
constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "tensegrity_vs_mujoco: %s\n", msg.c_str());
  std::exit(1);
}

double max_node_error(const Eigen::Matrix3Xd& a, const Eigen::Matrix3Xd& b) {
  if (!a.allFinite()) return kInf;
  return (a - b).colwise().norm().maxCoeff();
}

// ---------------------------------------------------------------- tendyn runs
struct TendynRun {
  Eigen::Matrix3Xd p_W_node;
  long steps = 0;     // accepted steps
  long rejected = 0;  // dopri5 only
};

// Fixed-step loop calling the step functions directly (integrate.hpp precondition: data.xdot
// holds f(state) before every step, so one compute_derivative after each step).
TendynRun tendyn_fixed(const tt::Model& model, tt::Data& data, tt::Integrator integ, long n) {
  tt::State s = model.initial_state;
  const double h = kDuration / static_cast<double>(n);
  tt::compute_derivative(model, s, data);
  TendynRun r;
  try {
    for (long i = 0; i < n; ++i) {
      if (integ == tt::Integrator::kRK4)
        tt::step_rk4(model, data, s, h);
      else
        tt::step_lie_verlet(model, data, s, h);
      tt::compute_derivative(model, s, data);
    }
    tt::forward_kinematics(model, s, data);
    r.p_W_node = data.p_W_node;
  } catch (const tendyn::Error&) {
    r.p_W_node = Eigen::Matrix3Xd::Constant(3, model.nnode(), kInf);
  }
  r.steps = n;
  return r;
}

// Dormand-Prince 5(4) loop with atol = rtol = tol, landing exactly on t = 1 s.
TendynRun tendyn_dopri(const tt::Model& model, tt::Data& data, double tol) {
  tt::State s = model.initial_state;
  tt::Tolerance t;
  t.rtol = tol;
  t.atol = tol;
  double h = 1e-3;
  tt::compute_derivative(model, s, data);
  TendynRun r;
  try {
    while (s.time_s < kDuration - 1e-12) {
      const double h_try = std::min(h, kDuration - s.time_s);
      const tt::AdaptiveStep st = tt::step_dopri5(model, data, s, h_try, t);
      if (st.accepted) {
        ++r.steps;
        tt::compute_derivative(model, s, data);
        if (!(h_try < h)) h = st.h_next;
      } else {
        ++r.rejected;
        h = st.h_next;
      }
    }
    tt::forward_kinematics(model, s, data);
    r.p_W_node = data.p_W_node;
  } catch (const tendyn::Error&) {
    r.p_W_node = Eigen::Matrix3Xd::Constant(3, model.nnode(), kInf);
  }
  return r;
}

// The same RK4 run through simulate() (monitor, energy and blow-up checks every step, no observer).
TendynRun tendyn_simulate(const tt::Model& model, tt::Data& data, long n) {
  tt::SimulationOptions o;
  o.duration_s = kDuration;
  o.dt_s = kDuration / static_cast<double>(n);
  o.integrator = tt::Integrator::kRK4;
  o.output_interval_s = kDuration;
  TendynRun r;
  try {
    const auto sum = tt::simulate(model, o);
    tt::forward_kinematics(model, sum.final_state, data);
    r.p_W_node = data.p_W_node;
  } catch (const tendyn::Error&) {
    r.p_W_node = Eigen::Matrix3Xd::Constant(3, model.nnode(), kInf);
  }
  r.steps = n;
  return r;
}

// ---------------------------------------------------------------- MuJoCo runs
struct Mujoco {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  std::vector<int> site_of_node;  // (nnode) site id of each tendyn node
  ~Mujoco() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

void load_mujoco(const tt::Model& model, Mujoco& mj) {
  std::string err;
  mj.m = tendyn::bench::load_mujoco_model(model, err);  // energy, constraint and contact off
  if (!mj.m) die("MuJoCo could not load the exported MJCF: " + err);
  mj.d = mj_makeData(mj.m);
  for (int i = 0; i < model.nnode(); ++i) {
    const int id = mj_name2id(mj.m, mjOBJ_SITE, model.node_ids[static_cast<std::size_t>(i)].c_str());
    if (id < 0) die("MuJoCo model has no site for node " + model.node_ids[static_cast<std::size_t>(i)]);
    mj.site_of_node.push_back(id);
  }
  if (mj.m->ntendon != model.ncable()) die("tendon count differs from cable count");
  for (int k = 0; k < model.ncable(); ++k) {
    const auto& c = model.cables[static_cast<std::size_t>(k)];
    if (!(std::abs(tendyn::bench::tendon_spring_length_m(mj.m, k) - c.rest_length_m) <= 1e-12) ||
        std::abs(mj.m->tendon_stiffness[k] - c.stiffness_Npm) > 1e-12 || std::abs(mj.m->tendon_damping[k] - c.damping_Nspm) > 1e-12)
      die("MuJoCo tendon " + std::to_string(k) + " does not carry the cable's rest length/stiffness/damping");
  }
}

struct MujocoRun {
  Eigen::Matrix3Xd p_W_node;
  double min_stretch_m = kInf;  // min over steps and tendons of (length - springlength)
};

MujocoRun mujoco_run(Mujoco& mj, int integrator, long n, bool track_stretch = false, int jacobian = mjJAC_DENSE) {
  mjModel* m = mj.m;
  mjData* d = mj.d;
  m->opt.integrator = integrator;
  m->opt.jacobian = jacobian;  // mjJAC_AUTO would pick dense below 60 DOFs: both are timed
  m->opt.timestep = kDuration / static_cast<double>(n);
  mj_resetData(m, d);
  MujocoRun r;
  for (long i = 0; i < n; ++i) {
    mj_step(m, d);
    if (track_stretch)
      for (int k = 0; k < m->ntendon; ++k)
        r.min_stretch_m = std::min(r.min_stretch_m, d->ten_length[k] - tendyn::bench::tendon_spring_length_m(m, k));
  }
  mj_kinematics(m, d);  // site positions of the final state (mj_step leaves those of the last step's start)
  r.p_W_node.resize(3, static_cast<Eigen::Index>(mj.site_of_node.size()));
  for (std::size_t i = 0; i < mj.site_of_node.size(); ++i)
    for (int c = 0; c < 3; ++c) r.p_W_node(c, static_cast<Eigen::Index>(i)) = d->site_xpos[3 * mj.site_of_node[i] + c];
  // MuJoCo resets the state when it detects a blow-up (and warns): such a run has no accuracy.
  bool bad = d->warning[mjWARN_BADQPOS].number > 0 || d->warning[mjWARN_BADQVEL].number > 0 || d->warning[mjWARN_BADQACC].number > 0;
  for (int i = 0; i < m->nq; ++i) bad = bad || !std::isfinite(d->qpos[i]);
  if (bad) r.p_W_node.setConstant(kInf);
  return r;
}

// ---------------------------------------------------------------- method abstraction
// A method maps a resolution parameter (number of steps N, or for dopri5 an index into the
// tolerance ladder) to a run; larger parameter = finer.
struct Outcome {
  double error_m = kInf;
  long steps = 0;
  long rejected = 0;
};

struct Method {
  std::string engine, name;
  bool adaptive = false;
  std::function<Outcome(long)> run;  // untimed run for the error
  std::function<void(long)> timed;   // the same run, for timing
  std::map<long, Outcome> memo;
  Outcome at(long k) {
    auto it = memo.find(k);
    if (it != memo.end()) return it->second;
    return memo[k] = run(k);
  }
};

double tol_of(long k) { return std::pow(10.0, -0.25 * static_cast<double>(k)); }  // k = 4 -> 1e-1

// Smallest resolution reaching the target at it and at the next finer grid point (guards against
// a lucky error crossing). Doubling bracket, then a geometric refinement (factor ~1.09).
long find_resolution(Method& meth, double target, long max_k) {
  auto ok = [&](long k) { return meth.at(k).error_m <= target; };
  if (meth.adaptive) {
    for (long k = 4; k <= max_k; ++k)
      if (ok(k) && ok(k + 1)) return k;
    return -1;
  }
  long hi = 8;
  while (hi <= max_k && !(ok(hi) && ok(2 * hi))) hi *= 2;
  if (hi > max_k) return -1;
  long best = hi;
  for (int i = 1; i <= 8; ++i) {
    const long k = std::lround(static_cast<double>(hi) * std::pow(0.5, i / 8.0));
    if (k > hi / 2 && ok(k) && ok(std::lround(static_cast<double>(k) * 1.09) + 1))
      best = k;
    else if (k > hi / 2)
      break;
  }
  return best;
}

// CPU time of this thread [s]: unlike wall time, not inflated when other processes share the
// cores (the benchmark is single-threaded, and so is MuJoCo's mj_step).
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double best_time(const std::function<void()>& fn, double min_total_s) {
  double best = kInf, total = 0.0;
  int reps = 0;
  while (reps < 3 || total < min_total_s) {
    const double t0 = thread_cpu_s();
    fn();
    const double dt = thread_cpu_s() - t0;
    best = std::min(best, dt);
    total += dt;
    ++reps;
    if (reps >= 50) break;
  }
  return best;
}

struct Case {
  std::string name;
  bool damped;
  tt::Model model;
};

std::vector<Case> make_cases() {
  std::vector<Case> cases;
  // the two taut-cable models of tests/support/peer_models.hpp, without and with axial damping
  for (bool damped : {false, true}) cases.push_back({"3-prism", damped, tendyn::test::taut_prism(damped ? 1.0 : 0.0)});
  for (bool damped : {false, true}) cases.push_back({"6-bar", damped, tendyn::test::taut_six_bar(damped ? 5.0 : 0.0)});
  // the tower as shipped (its own axial damping), without ground
  cases.push_back({"tower", true, tendyn::bench::tower_free_fall()});
  return cases;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> targets = {1e-4, 1e-6, 1e-8};
  double min_time = 0.3;
  long max_steps = 1L << 20;
  std::string only_models = "3-prism,6-bar,tower";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--targets" && i + 1 < argc) {
      targets.clear();
      std::stringstream ss(argv[++i]);
      std::string item;
      while (std::getline(ss, item, ',')) targets.push_back(std::stod(item));
    } else if (a == "--min-time" && i + 1 < argc) {
      min_time = std::stod(argv[++i]);
    } else if (a == "--models" && i + 1 < argc) {
      only_models = argv[++i];
    } else if (a == "--max-steps" && i + 1 < argc) {
      max_steps = std::stol(argv[++i]);
    } else {
      std::printf("usage: %s [--targets 1e-4,1e-6,1e-8] [--min-time SECONDS] [--models 3-prism,6-bar,tower] [--max-steps N]\n", argv[0]);
      return a == "--help" ? 0 : 2;
    }
  }
  std::vector<Case> cases;
  for (Case& c : make_cases())
    if (("," + only_models + ",").find("," + c.name + ",") != std::string::npos) cases.push_back(std::move(c));
  if (cases.empty()) die("--models " + only_models + ": no such model (valid: 3-prism, 6-bar, tower)");
  if (max_steps < 16) die("--max-steps " + std::to_string(max_steps) + ": must be >= 16");
  // Unstable trial steps are expected during the step search; they are detected from
  // mjData::warning in mujoco_run, so the messages are not printed.
  mju_user_warning = [](const char*) {};
  tendyn::bench::require_mujoco_version("tensegrity_vs_mujoco");
  std::printf("# tendyn vs MuJoCo %s, matched accuracy (node position error after %.0f s)\n\n", mj_versionString(), kDuration);

  struct Row {
    std::string model, engine, method;
    bool damped;
    double target, error, time_s, steps_per_s;
    long steps, rejected;
    double h_s;
  };
  std::vector<Row> rows;

  std::printf("## Cross-check and taut-cable check\n\n");
  std::printf(
      "| model | damping | min strain (tendyn) | min stretch MuJoCo [m] | ref self-convergence tendyn [m] | ref self-convergence MuJoCo [m] | max node distance tendyn vs MuJoCo at 1 s [m] |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  std::string conv;
  for (Case& c : cases) {
    const tt::Model& model = c.model;
    tt::Data data = tt::make_data(model);
    Mujoco mj;
    load_mujoco(model, mj);

    // 1. all cables taut during the run (both engines)
    tt::SimulationOptions o;
    o.duration_s = kDuration;
    o.dt_s = 1e-4;
    o.output_interval_s = kDuration;
    const auto sum = tt::simulate(model, o);
    const double min_strain = sum.monitor.min_strain.minCoeff();
    if (!(min_strain > 0.0) || sum.monitor.first_slack_cable >= 0)
      die(c.name + ": a cable goes slack (min strain " + std::to_string(min_strain) +
          "): MuJoCo's tendon springs would push; choose shorter rest lengths");
    // 2. references
    const Eigen::Matrix3Xd ref_t = tendyn_fixed(model, data, tt::Integrator::kRK4, kRefSteps).p_W_node;
    const Eigen::Matrix3Xd ref_t2 = tendyn_fixed(model, data, tt::Integrator::kRK4, kRefSteps / 2).p_W_node;
    const MujocoRun ref_m = mujoco_run(mj, mjINT_RK4, kRefSteps, true);
    const Eigen::Matrix3Xd ref_m2 = mujoco_run(mj, mjINT_RK4, kRefSteps / 2).p_W_node;
    if (!(ref_m.min_stretch_m > 0.0)) die(c.name + ": a MuJoCo tendon went below its spring length");
    std::printf("| %s | %s | %.4f | %.4g | %.2e | %.2e | %.2e |\n", c.name.c_str(), c.damped ? "yes" : "no", min_strain,
                ref_m.min_stretch_m, max_node_error(ref_t2, ref_t), max_node_error(ref_m2, ref_m.p_W_node),
                max_node_error(ref_t, ref_m.p_W_node));
    std::fflush(stdout);

    // 3. methods
    std::vector<Method> methods;
    auto fixed_t = [&](tt::Integrator integ) {
      Method me{"tendyn", tt::to_string(integ), false, {}, {}, {}};
      me.run = [&, integ](long n) { return Outcome{max_node_error(tendyn_fixed(model, data, integ, n).p_W_node, ref_t), n, 0}; };
      me.timed = [&, integ](long n) { (void)tendyn_fixed(model, data, integ, n); };
      methods.push_back(std::move(me));
    };
    fixed_t(tt::Integrator::kRK4);
    fixed_t(tt::Integrator::kLieVerlet);
    {
      Method me{"tendyn", tt::to_string(tt::Integrator::kDormandPrince45), true, {}, {}, {}};
      me.run = [&](long k) {
        const TendynRun r = tendyn_dopri(model, data, tol_of(k));
        return Outcome{max_node_error(r.p_W_node, ref_t), r.steps, r.rejected};
      };
      me.timed = [&](long k) { (void)tendyn_dopri(model, data, tol_of(k)); };
      methods.push_back(std::move(me));
    }
    {
      Method me{"tendyn", "rk4 via simulate()", false, {}, {}, {}};
      me.run = [&](long n) { return Outcome{max_node_error(tendyn_simulate(model, data, n).p_W_node, ref_t), n, 0}; };
      me.timed = [&](long n) { (void)tendyn_simulate(model, data, n); };
      methods.push_back(std::move(me));
    }
    // MuJoCo at each of its settings that can be best here: RK4 with the dense and the sparse
    // constraint Jacobian, its default semi-implicit Euler and its implicit-in-velocity
    // integrators (1st order; implicitfast, which skips the RNE derivative, exists from 3.0).
    auto fixed_m = [&](const char* name, int integ, int jacobian) {
      Method me{"MuJoCo", name, false, {}, {}, {}};
      me.run = [&, integ, jacobian](long n) {
        return Outcome{max_node_error(mujoco_run(mj, integ, n, false, jacobian).p_W_node, ref_m.p_W_node), n, 0};
      };
      me.timed = [&, integ, jacobian](long n) { (void)mujoco_run(mj, integ, n, false, jacobian); };
      methods.push_back(std::move(me));
    };
    fixed_m("RK4", mjINT_RK4, mjJAC_DENSE);
    fixed_m("RK4 sparse", mjINT_RK4, mjJAC_SPARSE);
    fixed_m("Euler", mjINT_EULER, mjJAC_DENSE);
    fixed_m("Euler sparse", mjINT_EULER, mjJAC_SPARSE);
    fixed_m("implicit", mjINT_IMPLICIT, mjJAC_DENSE);
#ifdef TENDYN_MUJOCO_3
    fixed_m("implicitfast", mjINT_IMPLICITFAST, mjJAC_DENSE);
    fixed_m("implicitfast sparse", mjINT_IMPLICITFAST, mjJAC_SPARSE);
#endif

    // Error against step count (fixed-step methods), for the convergence orders.
    conv += "\n### " + c.name + (c.damped ? ", damped" : ", undamped") + "\n\n| steps N |";
    auto in_conv = [](const Method& me) { return !me.adaptive && me.name != "rk4 via simulate()"; };
    for (const Method& me : methods)
      if (in_conv(me)) conv += " " + me.engine + " " + me.name + " |";
    conv += "\n|---|";
    for (const Method& me : methods)
      if (in_conv(me)) conv += "---|";
    conv += "\n";
    for (long n = 8; n <= 8192; n *= 2) {
      conv += "| " + std::to_string(n) + " |";
      for (Method& me : methods)
        if (in_conv(me)) conv += " " + fmt("%.2e", me.at(n).error_m) + " |";
      conv += "\n";
    }

    for (double target : targets) {
      // resolutions first, then timings interleaved engine by engine
      std::vector<long> res;
      for (Method& me : methods) res.push_back(find_resolution(me, target, me.adaptive ? 60 : max_steps));
      for (std::size_t i = 0; i < methods.size(); ++i) {
        Method& me = methods[i];
        const long k = res[i];
        Row r{c.name, me.engine, me.name, c.damped, target, kInf, kInf, 0.0, 0, 0, 0.0};
        if (k > 0) {
          const Outcome out = me.at(k);
          r.error = out.error_m;
          r.steps = out.steps;
          r.rejected = out.rejected;
          r.time_s = best_time([&] { me.timed(k); }, min_time);
          r.steps_per_s = static_cast<double>(out.steps) / r.time_s;
          r.h_s = me.adaptive ? tol_of(k) : kDuration / static_cast<double>(k);
        }
        rows.push_back(r);
      }
    }
  }

  std::printf("\n## All runs (1 s of simulated time; time = thread CPU time, best of >= 3 repetitions)\n\n");
  std::printf(
      "| model | damping | target [m] | engine | integrator | step h [s] (dopri5: tol) | steps | error [m] | time per simulated s [ms] | steps/s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    if (r.steps == 0) {
      std::printf("| %s | %s | %.0e | %s | %s | not reached | | | | |\n", r.model.c_str(), r.damped ? "yes" : "no", r.target,
                  r.engine.c_str(), r.method.c_str());
      continue;
    }
    std::string steps = std::to_string(r.steps);
    if (r.rejected) steps += " (+" + std::to_string(r.rejected) + " rejected)";
    std::printf("| %s | %s | %.0e | %s | %s | %.3g | %s | %.2e | %.3f | %.3g |\n", r.model.c_str(), r.damped ? "yes" : "no", r.target,
                r.engine.c_str(), r.method.c_str(), r.h_s, steps.c_str(), r.error, 1e3 * r.time_s, r.steps_per_s);
  }

  std::printf("\n## Node position error at 1 s [m] against the number of steps\n%s", conv.c_str());

  // Summary: RK4 against RK4 (steps/s and time), and best method of each engine (time).
  std::printf("\n## Summary\n\n");
  std::printf(
      "| model | damping | target [m] | tendyn rk4 steps/s | MuJoCo RK4 steps/s | steps/s ratio | tendyn rk4 ms per sim s | MuJoCo RK4 ms per sim s | time ratio (RK4 vs RK4) | best tendyn (ms) | best MuJoCo (ms) | time ratio (best vs best) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j < rows.size() && rows[j].model == rows[i].model && rows[j].damped == rows[i].damped && rows[j].target == rows[i].target) ++j;
    const Row *trk = nullptr, *mrk = nullptr, *tb = nullptr, *mb = nullptr;
    for (std::size_t k = i; k < j; ++k) {
      const Row& r = rows[k];
      if (r.steps == 0) continue;
      const bool t = r.engine == "tendyn";
      if (t && r.method == "rk4") trk = &r;
      if (!t && r.method.rfind("RK4", 0) == 0 && (!mrk || r.time_s < mrk->time_s)) mrk = &r;  // its faster RK4 setting
      if (r.method == "rk4 via simulate()") continue;
      const Row*& best = t ? tb : mb;
      if (!best || r.time_s < best->time_s) best = &r;
    }
    auto num = [](const Row* r, double v, const char* f) { return r ? fmt(f, v) : std::string("n/a"); };
    std::printf("| %s | %s | %.0e | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", rows[i].model.c_str(), rows[i].damped ? "yes" : "no",
                rows[i].target, num(trk, trk ? trk->steps_per_s : 0, "%.3g").c_str(), num(mrk, mrk ? mrk->steps_per_s : 0, "%.3g").c_str(),
                trk && mrk ? fmt("%.2f", trk->steps_per_s / mrk->steps_per_s).c_str() : "n/a",
                num(trk, trk ? 1e3 * trk->time_s : 0, "%.3f").c_str(),
                mrk ? (fmt("%.3f", 1e3 * mrk->time_s) + " " + mrk->method).c_str() : "n/a",
                trk && mrk ? fmt("%.2f", mrk->time_s / trk->time_s).c_str() : "n/a",
                tb ? (fmt("%.3f", 1e3 * tb->time_s) + " " + tb->method).c_str() : "n/a",
                mb ? (fmt("%.3f", 1e3 * mb->time_s) + " " + mb->method).c_str() : "n/a",
                tb && mb ? fmt("%.2f", mb->time_s / tb->time_s).c_str() : "n/a");
    i = j;
  }
  std::printf(
      "\nRatios > 1 favour tendyn (steps/s ratio = tendyn / MuJoCo; time ratio = MuJoCo time / tendyn time, for 1 s of simulated time).\n"
      "MuJoCo RK4 = the faster of its dense and sparse Jacobian settings at that target; best = over all settings.\n");
  return 0;
}
