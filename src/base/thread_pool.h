// One persistent pool of worker threads. parallel_for splits [0, n) into contiguous ranges, one
// per thread, and returns when all are done. Workers spin briefly before sleeping, so the many
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

class ThreadPool {
 public:
  // fn(begin, end, thread_index) handles items [begin, end).
  using RangeFn = std::function<void(int64_t, int64_t, int)>;

  explicit ThreadPool(int n_threads);  // n_threads >= 1; the caller is thread 0
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return n_threads_; }

  // Splits [0, n) into size() ranges whose boundaries are multiples of `grain` (except the end).
  void parallel_for(int64_t n, int64_t grain, const RangeFn& fn);

 private:
  void worker_loop(int index);
  void run_share(int index);

  int n_threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  // The job being run (valid while pending_ > 0).
  const RangeFn* fn_ = nullptr;
  int64_t n_ = 0, grain_ = 1;
};

}  // namespace kz
