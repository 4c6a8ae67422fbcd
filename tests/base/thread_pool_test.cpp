#include "base/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

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

}  // namespace
}  // namespace kz
