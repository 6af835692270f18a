// core/parallel.hpp: every index once, results by index independent of the thread count, the
// lowest-index exception rethrown, no work after a failure, empty ranges.
#include <gtest/gtest.h>

#include <tendyn/core/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace tendyn {
namespace {

TEST(Parallel, EveryIndexRunsOnceAndResultsDoNotDependOnThreads) {
  const int n = 1000;
  std::vector<double> one(n), many(n);
  auto work = [](int i) {  // some floating-point work whose result depends on i only
    double s = 0.0;
    for (int k = 1; k <= 200; ++k) s += std::sin(i * 0.001 * k) / k;
    return s;
  };
  std::vector<std::atomic<int>> calls(n);
  parallel_for(n, 1, [&](int i) { one[static_cast<std::size_t>(i)] = work(i); });
  parallel_for(n, 7, [&](int i) {
    many[static_cast<std::size_t>(i)] = work(i);
    ++calls[static_cast<std::size_t>(i)];
  });
  EXPECT_EQ(one, many);  // bit-identical
  for (int i = 0; i < n; ++i) ASSERT_EQ(calls[static_cast<std::size_t>(i)].load(), 1) << i;
}

TEST(Parallel, OneThreadRunsInOrderOnTheCaller) {
  std::vector<std::size_t> order;
  std::set<std::thread::id> ids;
  parallel_for(std::size_t{50}, 1, [&](std::size_t i) {
    order.push_back(i);
    ids.insert(std::this_thread::get_id());
  });
  ASSERT_EQ(order.size(), 50u);
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], i);
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(*ids.begin(), std::this_thread::get_id());
}

TEST(Parallel, NeverMoreThreadsThanIndices) {
  std::mutex mu;
  std::set<std::thread::id> ids;
  parallel_for(3L, 64, [&](long) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_LE(ids.size(), 3u);
  EXPECT_GE(ids.size(), 1u);
  ids.clear();
  parallel_for(100, 0, [&](int) {  // 0: hardware concurrency
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_LE(ids.size(), std::max(1u, std::thread::hardware_concurrency()));
}

TEST(Parallel, RethrowsTheLowestThrowingIndexForAnyThreadCount) {
  for (int threads : {1, 2, 3, 8}) {
    for (int rep = 0; rep < 5; ++rep) {
      std::atomic<int> ran{0};
      try {
        parallel_for(400, threads, [&](int i) {
          ++ran;
          if (i == 37 || i == 38 || i == 200 || i == 399) throw std::runtime_error("index " + std::to_string(i));
        });
        FAIL() << "no exception (threads " << threads << ")";
      } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "index 37") << "threads " << threads;
      }
      // no index is started after a failure has been seen by the starting thread
      if (threads == 1) {
        EXPECT_EQ(ran.load(), 38);
      }
      EXPECT_LT(ran.load(), 400) << "threads " << threads;
    }
  }
}

TEST(Parallel, EmptyRangeDoesNothing) {
  int calls = 0;
  parallel_for(0, 4, [&](int) { ++calls; });
  parallel_for(-5, 4, [&](int) { ++calls; });
  parallel_for(std::size_t{0}, 0, [&](std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace tendyn
