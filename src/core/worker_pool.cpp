// Persistent worker threads (include/tendyn/core/worker_pool.hpp).
#include <tendyn/core/worker_pool.hpp>

#include <chrono>
#include <system_error>

#include <unistd.h>

namespace tendyn {

namespace {

// How long a waiting thread spins before it sleeps: a step_batch call every control period comes
// back within this time when the caller does little in between, and then no futex wake-up is needed.
constexpr auto kSpin = std::chrono::microseconds(50);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until pred() or kSpin has passed; returns pred(). After the first 32 pauses (~1 us) it
// yields the core at every turn: when the scheduler has put the waiting thread and the one it
// waits for on the same core (it likes to put a woken thread beside its waker), pure spinning
// would hold that core for the whole kSpin.
template <class Pred>
bool spin_until(Pred pred) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int k = 0;; ++k) {
    if (pred()) return true;
    if (k < 32) {
      cpu_relax();
    } else {
      std::this_thread::yield();
      if (std::chrono::steady_clock::now() > until) return pred();
    }
  }
}

}  // namespace

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

WorkerPool& WorkerPool::shared() {
  // One pool per process: a child of fork() has none of its parent's threads, so it gets a new
  // pool (the parent's object is left alone, never destroyed, in the child).
  static std::mutex mu;
  static WorkerPool* pool = nullptr;
  static std::vector<WorkerPool*> inherited;  // the parent's, kept reachable (no leak report)
  static pid_t owner = 0;
  std::lock_guard<std::mutex> lock(mu);
  if (pool == nullptr || owner != ::getpid()) {
    if (pool != nullptr) inherited.push_back(pool);
    pool = new WorkerPool();  // kept for the life of the process (its workers may still be waiting at exit)
    owner = ::getpid();
  }
  return *pool;
}

void WorkerPool::call(int t) {
  try {
    fn_(ctx_, t);
  } catch (...) {
    error_.record(t);
  }
}

void WorkerPool::worker_main(int t, std::uint64_t seen) {
  for (;;) {
    if (!spin_until([&] { return ticket_.load(std::memory_order_acquire) != seen; })) {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_ || ticket_.load(std::memory_order_acquire) != seen; });
      if (stop_) return;
    }
    // one load: the job's thread count comes with its ticket (a worker that is not needed may
    // see a later ticket than the one that woke it, never a mix of two)
    seen = ticket_.load(std::memory_order_acquire);
    if (t >= static_cast<int>(seen & kThreadMask)) continue;  // not needed by this job
    call(t);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mu_);
      done_.notify_one();
    }
  }
}

void WorkerPool::run_on_temporary_threads(int nthread, JobFn fn, void* ctx) {
  detail::LowestException error;
  auto job = [&](int t) {
    try {
      fn(ctx, t);
    } catch (...) {
      error.record(t);
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(nthread - 1));
  try {
    for (int t = 1; t < nthread; ++t) threads.emplace_back(job, t);
  } catch (...) {
    for (auto& th : threads) th.join();
    throw;
  }
  job(0);
  for (auto& th : threads) th.join();
  error.rethrow_if_any();
}

void WorkerPool::run_erased(int nthread, JobFn fn, void* ctx) {
  if (nthread <= 1) {
    fn(ctx, 0);
    return;
  }
  bool idle = false;
  if (static_cast<std::uint64_t>(nthread) > kThreadMask || !busy_.compare_exchange_strong(idle, true, std::memory_order_acquire)) {
    // another run() (another thread, or a job of this pool calling run()) uses the workers
    run_on_temporary_threads(nthread, fn, ctx);
    return;
  }
  struct Release {
    std::atomic<bool>& busy;
    ~Release() { busy.store(false, std::memory_order_release); }
  } release{busy_};
  {
    // no job is running: no worker reads the job fields now
    std::lock_guard<std::mutex> lock(mu_);
    while (static_cast<int>(workers_.size()) < nthread - 1) {
      const int t = static_cast<int>(workers_.size()) + 1;
      const std::uint64_t current = ticket_.load(std::memory_order_relaxed);
      workers_.emplace_back([this, t, current] { worker_main(t, current); });  // std::system_error propagates, nothing ran
    }
    fn_ = fn;
    ctx_ = ctx;
    pending_.store(nthread - 1, std::memory_order_relaxed);
    const std::uint64_t generation = (ticket_.load(std::memory_order_relaxed) >> kThreadBits) + 1;
    ticket_.store((generation << kThreadBits) | static_cast<std::uint64_t>(nthread), std::memory_order_release);
  }
  wake_.notify_all();
  call(0);
  if (!spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; })) {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
  }
  error_.rethrow_if_any();
}

}  // namespace tendyn
