// The solvers do not allocate after a warm-up call of the same size (the real-time use of
// document 002: a 3 x 4 solve per control step). Counts calls to malloc by interposing it
// (glibc only; skipped under AddressSanitizer, which owns malloc).
#include <gtest/gtest.h>

#include <tendyn/cdpr/study.hpp>
#include <tendyn/cdpr/tension.hpp>

#include <cstddef>

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define TENDYN_COUNT_MALLOC 1
extern "C" void* __libc_malloc(std::size_t);
namespace {
long g_mallocs = 0;
bool g_counting = false;
}  // namespace
extern "C" void* malloc(std::size_t n) {
  if (g_counting) ++g_mallocs;
  return __libc_malloc(n);
}
#endif

namespace tendyn::cdpr {
namespace {

TEST(NoAllocation, SolversAreAllocationFreeAfterWarmUp) {
#ifndef TENDYN_COUNT_MALLOC
  GTEST_SKIP() << "malloc interposition needs glibc without AddressSanitizer";
#else
  for (Method m : {Method::exhaustive, Method::lawson_hanson, Method::exact, Method::closed_form,
                   Method::improved_closed_form}) {
    for (auto [rows, cols] : {std::pair{3, 4}, std::pair{6, 12}}) {
      std::vector<RandomProblem> ps;
      for (int k = 0; k < 20; ++k)
        ps.push_back(random_problem(rows, cols, 100 + k, k % 2 ? WrenchMode::feasible : WrenchMode::uniform));
      Workspace ws(rows, cols);
      TensionResult r;
      SolverOptions o;
      o.f_min_N = 0.01;
      o.f_max_N = 3.0;
      solve_tensions(m, ps[0].J, ps[0].w, o, ws, r);
      g_mallocs = 0;
      g_counting = true;
      for (const auto& p : ps) solve_tensions(m, p.J, p.w, o, ws, r);
      g_counting = false;
      EXPECT_EQ(g_mallocs, 0) << method_name(m) << " " << rows << "x" << cols;
    }
  }
#endif
}

}  // namespace
}  // namespace tendyn::cdpr
