// One persistent pool of worker threads. parallel_for splits [0, n) into chunks of `grain` items
// that the caller and the workers claim dynamically, so the call finishes at the speed of
// whichever threads actually run: on an oversubscribed machine the caller does the work alone
// instead of waiting for a descheduled worker. Workers spin briefly before sleeping, so the many
// small dispatches of a decode step cost no thread creation, no allocation and little latency.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kz {

// The most threads a pool takes: far above any phone's or desktop's cores; asking for more is a
// mistake (e.g. -t 100000), answered with an error instead of thousands of threads.
constexpr int kMaxThreads = 256;

// n unless it is outside [1, kMaxThreads]: then throws kz::Error naming `what` (e.g. "--threads").
int checked_thread_count(int64_t n, const char* what);
// 0: every hardware thread (at most kMaxThreads); else checked_thread_count(n, what).
int resolve_thread_count(int64_t n, const char* what);

class ThreadPool {
 public:
  // fn(begin, end, thread_index) handles items [begin, end); thread_index < size().
  using RangeFn = std::function<void(int64_t, int64_t, int)>;

  // n_threads in [1, kMaxThreads]; the caller is thread 0. Throws kz::Error, with no thread left
  // running, when the system cannot start them all.
  explicit ThreadPool(int n_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return n_threads_; }

  // Runs fn over [0, n) in chunks whose boundaries are multiples of `grain` (except the end).
  void parallel_for(int64_t n, int64_t grain, const RangeFn& fn);

 private:
  void stop_workers();
  void worker_loop(int index);
  // Claims and runs chunks of job `generation` until none is left.
  void run_chunks(uint32_t generation, int thread_index);

  int n_threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<bool> stop_{false};
  // The job word: generation in the high 32 bits, next chunk index in the low 32 bits. A chunk
  // is claimed by a compare-and-swap that also proves the job is still the one published.
  std::atomic<uint64_t> job_{0};
  std::atomic<int> busy_{0};  // workers between announcing interest and finishing their chunks
  // Read by workers only after claiming a chunk of the current job (so after it was published).
  const RangeFn* fn_ = nullptr;
  int64_t n_ = 0, grain_ = 1;
  std::atomic<int64_t> n_chunks_{0};  // read before claiming, hence atomic
};

}  // namespace kz
