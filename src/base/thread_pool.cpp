#include "base/thread_pool.h"

#include <algorithm>

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
}  // namespace

ThreadPool::ThreadPool(int n_threads) : n_threads_(std::max(1, n_threads)) {
  for (int i = 1; i < n_threads_; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::run_share(int index) {
  const int64_t blocks = (n_ + grain_ - 1) / grain_;
  const int64_t per = blocks / n_threads_, extra = blocks % n_threads_;
  const int64_t first = index * per + std::min<int64_t>(index, extra);
  const int64_t count = per + (index < extra ? 1 : 0);
  const int64_t begin = first * grain_, end = std::min(n_, (first + count) * grain_);
  if (begin < end) (*fn_)(begin, end, index);
}

void ThreadPool::parallel_for(int64_t n, int64_t grain, const RangeFn& fn) {
  if (n <= 0) return;
  if (n_threads_ == 1 || n <= grain) {
    fn(0, n, 0);
    return;
  }
  fn_ = &fn;
  n_ = n;
  grain_ = std::max<int64_t>(1, grain);
  pending_.store(n_threads_ - 1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  run_share(0);
  while (pending_.load(std::memory_order_acquire) != 0) cpu_relax();
}

void ThreadPool::worker_loop(int index) {
  uint64_t seen = 0;
  for (;;) {
    uint64_t gen = generation_.load(std::memory_order_acquire);
    for (int spin = 0; gen == seen && spin < kSpinIterations; ++spin) {
      cpu_relax();
      gen = generation_.load(std::memory_order_acquire);
    }
    if (gen == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      gen = generation_.load(std::memory_order_acquire);
    }
    seen = gen;
    if (stop_.load(std::memory_order_acquire)) return;
    run_share(index);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

}  // namespace kz
