#include "base/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "base/error.h"

namespace kz {
namespace {

TEST(ThreadPool, CoversEveryItemOnceWithGrainAlignedRanges) {
  for (int threads : {1, 2, 3, 5}) {
    ThreadPool pool(threads);
    for (int64_t n : {1, 7, 64, 1000}) {
      for (int64_t grain : {1, 4, 32}) {
        std::vector<std::atomic<int>> hits(n);
        pool.parallel_for(n, grain, [&](int64_t b, int64_t e, int) {
          EXPECT_EQ(b % grain, 0);
          for (int64_t i = b; i < e; ++i) hits[i]++;
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << threads << " " << n;
      }
    }
  }
}

TEST(ThreadPool, ManySmallDispatches) {
  ThreadPool pool(2);
  std::atomic<int64_t> sum{0};
  for (int round = 0; round < 20000; ++round)
    pool.parallel_for(2, 1, [&](int64_t b, int64_t e, int) { sum += e - b; });
  EXPECT_EQ(sum.load(), 40000);
}

TEST(ThreadPool, AbsurdThreadCountsAreOneLineErrors) {
  for (int64_t n : {int64_t(0), int64_t(-1), int64_t(kMaxThreads) + 1, int64_t(1000000000)}) {
    try {
      checked_thread_count(n, "--threads");
      FAIL() << n << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("invalid --threads " + std::to_string(n)),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(checked_thread_count(kMaxThreads, "--threads"), kMaxThreads);
  EXPECT_THROW(ThreadPool(100000), Error);  // before: thousands of threads, then an abort
}

}  // namespace
}  // namespace kz
