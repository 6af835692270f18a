// Index-ordered parallel loop shared by the planner, the psi study and the sweeps.
#pragma once
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace tendyn {

/// The number of threads parallel_for(count, threads, fn) uses: `threads`, or
/// std::thread::hardware_concurrency() (at least 1) when threads <= 0, and never more than
/// count (count >= 1). For callers that split their work into per-thread blocks.
inline int parallel_thread_count(long count, int threads) {
  const long hw = static_cast<long>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(std::max(1L, std::min(threads > 0 ? static_cast<long>(threads) : hw, count)));
}

/// Runs fn(i) for every i in [0, count) on up to `threads` threads (the calling thread is one of
/// them; threads <= 0 means std::thread::hardware_concurrency(); never more threads than indices)
/// and returns when all have finished. Indices are handed out in increasing order by an atomic
/// counter; fn must write its result by index (into storage sized beforehand), so that results do
/// not depend on the thread count. fn runs concurrently with itself: anything it shares must be
/// read-only or locked.
///
/// Errors: when fn throws, no further index is started (those already running finish), and after
/// all threads have stopped the exception of the LOWEST throwing index is rethrown. As indices
/// start in increasing order, every index below a thrown one was started, so for a deterministic
/// fn the exception is the same for any thread count. A failure to start a thread
/// (std::system_error) is rethrown after the started ones are joined.
///
/// Cost: count calls of fn plus the creation of min(threads, count) - 1 threads. count <= 0 does
/// nothing. There is no shared pool: a nested call starts its own threads.
template <class Index, class Fn>
void parallel_for(Index count, int threads, Fn&& fn) {
  static_assert(std::is_integral_v<Index>, "parallel_for: the count must be an integer");
  if (count <= 0) return;
  const auto nt = static_cast<Index>(parallel_thread_count(static_cast<long>(count), threads));
  std::atomic<Index> next{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  Index error_index = count;
  std::exception_ptr error;
  auto work = [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      const Index i = next.fetch_add(1);
      if (i >= count) return;
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error || i < error_index) {
          error = std::current_exception();
          error_index = i;
        }
        stop.store(true, std::memory_order_relaxed);
      }
    }
  };
  std::vector<std::thread> pool;
  try {
    pool.reserve(static_cast<std::size_t>(nt - 1));
    for (Index t = 1; t < nt; ++t) pool.emplace_back(work);
  } catch (...) {
    stop.store(true);
    for (auto& t : pool) t.join();
    throw;
  }
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace tendyn
