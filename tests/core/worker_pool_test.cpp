// core/worker_pool.hpp: every job index once per run, workers kept between runs, thousands of short
// runs in a row with changing thread counts, the lowest exception rethrown, nested and concurrent
// runs, fork(); parallel_for_balanced: every index once, results independent of the thread count,
// every index runs despite exceptions (lowest rethrown), a slowed thread gets fewer indices.
#include <gtest/gtest.h>

#include <tendyn/core/worker_pool.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace tendyn {
namespace {

std::set<std::thread::id> worker_ids(WorkerPool& pool, int nthread) {
  std::mutex mu;
  std::set<std::thread::id> ids;
  pool.run(nthread, [&](int t) {
    std::lock_guard<std::mutex> lock(mu);
    if (t > 0) ids.insert(std::this_thread::get_id());
  });
  return ids;
}

TEST(WorkerPool, EachJobIndexOnceCallerIsZeroWorkersAreKept) {
  WorkerPool pool;
  std::vector<std::atomic<int>> calls(4);
  std::thread::id zero;
  pool.run(4, [&](int t) {
    ++calls[static_cast<std::size_t>(t)];
    if (t == 0) zero = std::this_thread::get_id();
  });
  for (int t = 0; t < 4; ++t) EXPECT_EQ(calls[static_cast<std::size_t>(t)].load(), 1) << t;
  EXPECT_EQ(zero, std::this_thread::get_id());
  const auto first = worker_ids(pool, 4);
  EXPECT_EQ(first.size(), 3u);
  EXPECT_EQ(first.count(std::this_thread::get_id()), 0u);
  EXPECT_EQ(worker_ids(pool, 4), first);  // the same threads again: none started per run
}

TEST(WorkerPool, ThousandsOfShortRunsWithChangingThreadCounts) {
  WorkerPool pool;
  std::atomic<long> sum{0};
  long expected = 0;
  const int counts[] = {2, 3, 1, 4, 2, 2, 3};
  for (int k = 0; k < 5000; ++k) {
    const int n = counts[k % 7];
    pool.run(n, [&](int t) { sum += t + 1; });
    expected += n * (n + 1) / 2;
    if (k % 1000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // workers asleep, not spinning
  }
  EXPECT_EQ(sum.load(), expected);
}

TEST(WorkerPool, LowestThrowingJobIsRethrownAndThePoolStaysUsable) {
  WorkerPool pool;
  std::atomic<int> ran{0};
  try {
    pool.run(4, [&](int t) {
      ++ran;
      if (t >= 2) throw std::runtime_error("job " + std::to_string(t));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "job 2");
  }
  EXPECT_EQ(ran.load(), 4);
  ran = 0;
  pool.run(4, [&](int) { ++ran; });
  EXPECT_EQ(ran.load(), 4);
}

TEST(WorkerPool, NestedAndConcurrentRunsComplete) {
  WorkerPool pool;
  std::atomic<int> inner{0};
  pool.run(2, [&](int) { pool.run(3, [&](int) { ++inner; }); });  // the pool is busy: temporary threads
  EXPECT_EQ(inner.load(), 6);
  std::atomic<long> total{0};
  auto client = [&] {
    for (int k = 0; k < 500; ++k) pool.run(2, [&](int t) { total += t + 1; });
  };
  std::thread a(client), b(client);
  a.join();
  b.join();
  EXPECT_EQ(total.load(), 2 * 500 * 3);
}

TEST(WorkerPool, ChildOfForkGetsItsOwnPool) {
  std::atomic<int> n{0};
  WorkerPool::shared().run(2, [&](int) { ++n; });  // the parent's workers exist
  ASSERT_EQ(n.load(), 2);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::alarm(20);  // a hang (waiting for the parent's workers, absent here) kills the child
    std::atomic<int> m{0};
    WorkerPool::shared().run(2, [&](int) { ++m; });
    ::_exit(m.load() == 2 ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child did not exit normally (signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ParallelForBalanced, EveryIndexOnceAndResultsDoNotDependOnThreads) {
  WorkerPool pool;
  const int n = 997;
  auto work = [](int i) {
    double s = 0.0;
    for (int k = 1; k <= 100; ++k) s += std::sin(i * 0.001 * k) / k;
    return s;
  };
  std::vector<double> one(n);
  parallel_for_balanced(pool, n, 1, [&](int i) { one[static_cast<std::size_t>(i)] = work(i); });
  for (int threads : {2, 3, 7}) {
    std::vector<double> many(n);
    std::vector<std::atomic<int>> calls(n);
    parallel_for_balanced(pool, n, threads, [&](int i) {
      many[static_cast<std::size_t>(i)] = work(i);
      ++calls[static_cast<std::size_t>(i)];
    });
    EXPECT_EQ(one, many) << threads;  // bit-identical
    for (int i = 0; i < n; ++i) ASSERT_EQ(calls[static_cast<std::size_t>(i)].load(), 1) << i;
  }
  parallel_for_balanced(pool, 0, 2, [&](int) { FAIL(); });
  parallel_for_balanced(pool, -3, 2, [&](int) { FAIL(); });
}

TEST(ParallelForBalanced, EveryIndexRunsAndTheLowestExceptionIsRethrown) {
  WorkerPool pool;
  for (int threads : {1, 2, 4}) {
    std::vector<std::atomic<int>> calls(100);
    try {
      parallel_for_balanced(pool, 100, threads, [&](int i) {
        ++calls[static_cast<std::size_t>(i)];
        if (i == 77 || i == 31 || i == 90) throw std::runtime_error("index " + std::to_string(i));
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "index 31") << threads;
    }
    for (int i = 0; i < 100; ++i) ASSERT_EQ(calls[static_cast<std::size_t>(i)].load(), 1) << i;
  }
}

TEST(ParallelForBalanced, ASlowedThreadDoesFewerIndicesAndSharesStayContiguous) {
  WorkerPool pool;
  const auto caller = std::this_thread::get_id();
  std::mutex mu;
  std::vector<int> by_caller, by_worker;
  parallel_for_balanced(pool, 40, 2, [&](int i) {
    const bool on_caller = std::this_thread::get_id() == caller;
    if (on_caller) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the caller's core is "slow"
    std::lock_guard<std::mutex> lock(mu);
    (on_caller ? by_caller : by_worker).push_back(i);
  });
  ASSERT_EQ(by_caller.size() + by_worker.size(), 40u);
  // the caller owns 0..19 and takes them from the front; the worker does its 20..39 in a few
  // microseconds, then takes the caller's indices from the back
  EXPECT_LT(by_caller.size(), 10u);
  for (std::size_t k = 0; k < by_caller.size(); ++k) EXPECT_EQ(by_caller[k], static_cast<int>(k));
  for (std::size_t k = 0; k < 20; ++k) EXPECT_EQ(by_worker[k], static_cast<int>(20 + k));
}

}  // namespace
}  // namespace tendyn
