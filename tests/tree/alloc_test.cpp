// RNEA, CRBA, ABA and the energies must not allocate after Data construction. This file
// interposes malloc in the test binary (glibc: forwards to __libc_malloc) and counts calls while
// armed; Eigen's heap storage and operator new both end in malloc.
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/model_io.hpp>
#include <tendyn/tree/simulate.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>

#include "tree/tree_fixtures.hpp"

namespace {
std::atomic<bool> g_armed{false};
std::atomic<long> g_allocs{0};
}  // namespace

// Sanitizers replace malloc themselves: no interposition there (the test is skipped).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TENDYN_TREE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define TENDYN_TREE_SANITIZED 1
#endif
#endif

#if defined(__GLIBC__) && !defined(TENDYN_TREE_SANITIZED)
#define TENDYN_COUNT_MALLOC 1
extern "C" void* __libc_malloc(std::size_t n);
extern "C" void* malloc(std::size_t n) noexcept {
  if (g_armed.load(std::memory_order_relaxed)) g_allocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
#endif

namespace tendyn::tree {
namespace {

TEST(TreeAllocation, RecursiveAlgorithmsDoNotAllocate) {
#ifndef TENDYN_COUNT_MALLOC
  GTEST_SKIP() << "malloc interposition needs glibc and no address/thread/memory sanitizer";
#endif
  {  // the counter works
    g_allocs = 0;
    g_armed = true;
    Eigen::VectorXd* probe = new Eigen::VectorXd(Eigen::VectorXd::Ones(100));
    g_armed = false;
    EXPECT_GE(g_allocs.load(), 2);
    delete probe;
  }
  for (BaseMode mode : {BaseMode::kFree, BaseMode::kFictitious}) {
    const Model m = load_model(testing::model_path("humanoid35.urdf"), mode);
    Data d(m);
    const Eigen::VectorXd q = m.random_configuration(1), v = testing::random_vector(m.nv, 2), a = testing::random_vector(m.nv, 3);
    std::vector<LinkWrench> fext(m.nlinks());
    g_allocs = 0;
    g_armed = true;
    rnea(m, d, q, v, a);
    rnea(m, d, q, v, a, fext);
    nonlinear_effects(m, d, q, v);
    crba(m, d, q);
    aba(m, d, q, v, a, fext);
    kinetic_energy(m, d, q, v);
    potential_energy(m, d, q);
    jacobian_center_of_mass(m, d, q);
    g_armed = false;
    EXPECT_EQ(g_allocs.load(), 0);
  }
}

TEST(TreeAllocation, SimulateAllocatesOnlyBeforeTheLoop) {
#ifndef TENDYN_COUNT_MALLOC
  GTEST_SKIP() << "malloc interposition needs glibc and no address/thread/memory sanitizer";
#endif
  // The allocation count of a run does not depend on its number of steps or samples.
  const Model m = load_model(testing::model_path("biped.urdf"), BaseMode::kFree);
  const TorqueSchedule sched({0.0, 1.0}, {testing::random_vector(m.nv, 1), testing::random_vector(m.nv, 2)});
  const TorqueFn torque = [&sched](double t, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) { sched.eval(t, tau); };
  struct Nop : Observer {
    void on_step(long, long, double, const Eigen::VectorXd&, const Eigen::VectorXd&) override {}
  } observer;
  const std::function<void(double)> progress = [](double) {};
  const Eigen::VectorXd q0 = m.neutral(), v0 = testing::random_vector(m.nv, 3, 0.1);
  auto count = [&](double duration_s) {
    SimulationOptions o;
    o.duration_s = duration_s;
    o.dt_s = 1e-3;
    g_allocs = 0;
    g_armed = true;
    const SimulationResult r = simulate(m, o, q0, v0, torque, &observer, progress);
    g_armed = false;
    EXPECT_EQ(r.steps, std::lround(duration_s / 1e-3));
    return g_allocs.load();
  };
  const long few = count(0.002), many = count(0.2);
  EXPECT_GT(few, 0);
  EXPECT_EQ(many, few);
}

}  // namespace
}  // namespace tendyn::tree
