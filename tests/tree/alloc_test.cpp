// RNEA, CRBA, ABA and the energies must not allocate after Data construction. This file
// interposes malloc in the test binary (glibc: forwards to __libc_malloc) and counts calls while
// armed; Eigen's heap storage and operator new both end in malloc.
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/model_io.hpp>

#include <gtest/gtest.h>

#include <atomic>
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
  for (BaseMode mode : {BaseMode::Free, BaseMode::Fictitious}) {
    const Model m = load_model(testing::model_path("humanoid35.urdf"), mode);
    Data d(m);
    const Eigen::VectorXd q = m.random_configuration(1), v = testing::random_vector(m.nv, 2),
                          a = testing::random_vector(m.nv, 3);
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

}  // namespace
}  // namespace tendyn::tree
