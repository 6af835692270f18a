// Persistent worker threads for short parallel sections that run many times (step_batch: one call
// per control period, often well under a millisecond of work), and a balanced index loop on them.
//
// parallel_for (core/parallel.hpp) starts its threads at every call, which costs tens of
// microseconds; a WorkerPool starts them once and wakes them per call (a short spin, then a
// condition variable). parallel_for_balanced hands each thread a contiguous share of the indices
// and lets a thread that finishes early take indices from the far end of another's share, so a
// thread whose core is slowed (another process, a busy hypervisor) does fewer indices, and
// neighbouring indices (neighbouring heap memory) stay on one thread.
#pragma once
#include <tendyn/core/parallel.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace tendyn {

namespace detail {
/// The exception of the lowest index among those recorded (thread-safe), rethrown at the end.
class LowestException {
 public:
  /// Call inside a catch block: keeps std::current_exception() if `index` is the lowest so far.
  void record(int index) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_ || index < index_) {
      index_ = index;
      error_ = std::current_exception();
    }
  }
  /// Rethrows the kept exception, if any, and forgets it.
  void rethrow_if_any() {
    std::exception_ptr e;
    {
      std::lock_guard<std::mutex> lock(mu_);
      e = std::exchange(error_, nullptr);
    }
    if (e) std::rethrow_exception(e);
  }

 private:
  std::mutex mu_;
  int index_ = 0;
  std::exception_ptr error_;
};
}  // namespace detail

/// Worker threads kept between calls. run() is safe to call from several threads at once and
/// from inside a job: a call that finds the pool busy runs on temporary threads instead (as
/// parallel_for does), with the same results.
class WorkerPool {
 public:
  WorkerPool() = default;
  /// Stops and joins the workers. Must not run while a run() of this pool is in progress.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Calls job(t) once for every t in [0, nthread): t = 0 on the calling thread, the others on
  /// workers (started on first need, nthread - 1 of them, and kept), and returns when all calls
  /// have returned. nthread <= 1 calls job(0) on the caller. An exception thrown by job(t) is
  /// rethrown after all calls have returned (the lowest t's when several throw). A failure to
  /// start a worker (std::system_error) is rethrown before any job runs.
  /// Cost: waking nthread - 1 workers (a few microseconds when they spin, i.e. when the previous
  /// call ended less than ~50 us ago; a futex wake-up otherwise) plus the jobs.
  template <class Job>
  void run(int nthread, Job&& job) {
    using J = std::remove_reference_t<Job>;
    run_erased(
        nthread, [](void* j, int t) { (*static_cast<J*>(j))(t); }, const_cast<void*>(static_cast<const void*>(&job)));
  }

  /// The process-wide pool (created on first use; a child process after fork() gets a new one).
  static WorkerPool& shared();

 private:
  using JobFn = void (*)(void*, int);
  void run_erased(int nthread, JobFn fn, void* ctx);
  void run_on_temporary_threads(int nthread, JobFn fn, void* ctx);
  void worker_main(int t, std::uint64_t seen);
  void call(int t);  // runs job t, records its exception

  std::atomic<bool> busy_{false};  // set by the run() using the workers
  std::mutex mu_;                  // guards the wake-ups below
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;  // worker t is workers_[t - 1]
  // (job number << kThreadBits) | its thread count: a new value per job, which workers wait for
  static constexpr int kThreadBits = 16;
  static constexpr std::uint64_t kThreadMask = (std::uint64_t{1} << kThreadBits) - 1;
  std::atomic<std::uint64_t> ticket_{0};
  std::atomic<int> pending_{0};  // workers still in the current job
  bool stop_ = false;            // guarded by mu_
  // the current job (written before its ticket is stored, read by its workers after they see it)
  JobFn fn_ = nullptr;
  void* ctx_ = nullptr;
  detail::LowestException error_;  // of the current job, by thread index
};

/// Runs fn(i) for every i in [0, count) on min(threads, count) threads of `pool` (threads <= 0:
/// std::thread::hardware_concurrency()). Thread t owns the contiguous share
/// [t count / T, (t + 1) count / T) and takes its indices from the front, one at a time; a thread
/// whose share is empty takes indices from the back of the share with the most left. fn must
/// write its results by index, so results do not depend on the thread count or on which thread
/// ran an index.
///
/// Errors: every index runs even when some throw; afterwards the exception of the lowest throwing
/// index is rethrown, so for a deterministic fn it is the same for any thread count.
/// Cost: count calls of fn, one compare-and-swap per index, pool.run().
template <class Fn>
void parallel_for_balanced(WorkerPool& pool, int count, int threads, Fn&& fn) {
  if (count <= 0) return;
  const int nt = parallel_thread_count(count, threads);
  // one share per thread, [front, back) packed into one 64-bit word (front in the low half)
  struct alignas(64) Share {
    std::atomic<std::uint64_t> range;
  };
  auto pack = [](std::uint64_t front, std::uint64_t back) { return front | (back << 32); };
  std::unique_ptr<Share[]> shares(new Share[static_cast<std::size_t>(nt)]);
  for (int t = 0; t < nt; ++t) {
    const auto first = static_cast<std::uint64_t>(static_cast<long>(t) * count / nt);
    const auto last = static_cast<std::uint64_t>(static_cast<long>(t + 1) * count / nt);
    shares[static_cast<std::size_t>(t)].range.store(pack(first, last), std::memory_order_relaxed);
  }
  // takes one index of share s from its front (owner) or back (helper); -1 when it is empty
  auto take = [&](int s, bool front) -> int {
    std::atomic<std::uint64_t>& r = shares[static_cast<std::size_t>(s)].range;
    std::uint64_t cur = r.load(std::memory_order_relaxed);
    for (;;) {
      const std::uint64_t f = cur & 0xffffffffu, b = cur >> 32;
      if (f >= b) return -1;
      const std::uint64_t next = front ? pack(f + 1, b) : pack(f, b - 1);
      if (r.compare_exchange_weak(cur, next, std::memory_order_acq_rel, std::memory_order_relaxed))
        return static_cast<int>(front ? f : b - 1);
    }
  };
  detail::LowestException error;
  auto run_index = [&](int i) {
    try {
      fn(i);
    } catch (...) {
      error.record(i);
    }
  };
  pool.run(nt, [&](int t) {
    for (int i; (i = take(t, true)) >= 0;) run_index(i);
    for (;;) {  // help: the share with the most indices left
      int best = -1;
      std::uint64_t most = 0;
      for (int s = 0; s < nt; ++s) {
        const std::uint64_t cur = shares[static_cast<std::size_t>(s)].range.load(std::memory_order_relaxed);
        const std::uint64_t f = cur & 0xffffffffu, b = cur >> 32;
        if (b > f && b - f > most) {
          most = b - f;
          best = s;
        }
      }
      if (best < 0) return;
      const int i = take(best, false);
      if (i >= 0) run_index(i);
    }
  });
  error.rethrow_if_any();
}

}  // namespace tendyn
