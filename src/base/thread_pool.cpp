#include "base/thread_pool.h"

#include <algorithm>
#include <system_error>
#include <thread>

#include "base/error.h"

namespace kz {
namespace {
constexpr int kSpinIterations = 20000;

inline void cpu_relax() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

inline uint32_t generation_of(uint64_t job) {
  return uint32_t(job >> 32);
}
inline int64_t chunk_of(uint64_t job) {
  return int64_t(job & 0xffffffffu);
}
constexpr uint64_t kClosed = 0xffffffffu;  // chunk index of a job being replaced: none to claim
}  // namespace

int checked_thread_count(int64_t n, const char* what) {
  if (n < 1 || n > kMaxThreads)
    fail("invalid ", what, " ", n, " (expected 1 to ", kMaxThreads, ")");
  return int(n);
}

int resolve_thread_count(int64_t n, const char* what) {
  if (n == 0)
    return int(std::clamp(std::thread::hardware_concurrency(), 1u, unsigned(kMaxThreads)));
  return checked_thread_count(n, what);
}

ThreadPool::ThreadPool(int n_threads)
    : n_threads_(checked_thread_count(n_threads, "thread count")) {
  for (int i = 1; i < n_threads_; ++i) {
    try {
      workers_.emplace_back([this, i] { worker_loop(i); });
    } catch (const std::system_error& e) {
      stop_workers();  // the ones already started would otherwise wait forever
      fail("cannot start thread ", i + 1, " of ", n_threads_, ": ", e.what());
    }
  }
}

ThreadPool::~ThreadPool() {
  stop_workers();
}

void ThreadPool::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
}

void ThreadPool::run_chunks(uint32_t generation, int thread_index) {
  uint64_t job = job_.load(std::memory_order_acquire);
  for (;;) {
    if (generation_of(job) != generation ||
        chunk_of(job) >= n_chunks_.load(std::memory_order_relaxed))
      return;
    if (!job_.compare_exchange_weak(job, job + 1, std::memory_order_acq_rel)) continue;
    const int64_t begin = chunk_of(job) * grain_;
    (*fn_)(begin, std::min(n_, begin + grain_), thread_index);
    job = job_.load(std::memory_order_acquire);
  }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain, const RangeFn& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  if (n_threads_ == 1 || n <= grain) {
    fn(0, n, 0);
    return;
  }
  // Close the previous job so a late worker cannot claim from it while the fields change, then
  // write the fields and publish the new job word (release) that makes them visible.
  const uint32_t generation = generation_of(job_.load(std::memory_order_relaxed)) + 1;
  job_.store((uint64_t(generation - 1) << 32) | kClosed, std::memory_order_release);
  fn_ = &fn;
  n_ = n;
  grain_ = grain;
  n_chunks_.store((n + grain - 1) / grain, std::memory_order_relaxed);
  job_.store(uint64_t(generation) << 32, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mutex_);  // pairs with the sleepers' predicate check
  }
  wake_.notify_all();
  run_chunks(generation, 0);
  // Every chunk is claimed; wait for workers still running one (or about to find none left).
  while (busy_.load(std::memory_order_acquire) != 0) cpu_relax();
}

void ThreadPool::worker_loop(int index) {
  uint32_t seen = 0;
  auto fresh = [&] { return generation_of(job_.load(std::memory_order_acquire)) != seen; };
  for (;;) {
    for (int spin = 0; !fresh() && !stop_.load(std::memory_order_relaxed) && spin < kSpinIterations;
         ++spin)
      cpu_relax();
    if (!fresh()) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return fresh() || stop_.load(); });
    }
    if (stop_.load()) return;
    busy_.fetch_add(1, std::memory_order_acq_rel);
    seen = generation_of(job_.load(std::memory_order_acquire));
    run_chunks(seen, index);
    busy_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

}  // namespace kz
