// DerivedWeights makes each kind's bytes once and returns them on every later request.
#include "ops/derived_weights.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace kz {
namespace {

TEST(DerivedWeights, MakesEachKindOnceAndKeepsIt) {
  DerivedWeights d;
  int made = 0;
  const int kind_a = 0, kind_b = 0;
  auto fill = [&](uint8_t value) {
    return [&made, value](uint8_t* dst) {
      ++made;
      dst[0] = value;
    };
  };
  const uint8_t* a = d.get(&kind_a, 1, fill(7));
  EXPECT_EQ(a[0], 7);
  EXPECT_EQ(d.get(&kind_a, 1, fill(9)), a);  // cached: not made again
  const uint8_t* b = d.get(&kind_b, 1, fill(9));
  EXPECT_NE(b, a);
  EXPECT_EQ(b[0], 9);
  EXPECT_EQ(made, 2);
}

TEST(DerivedWeights, ConcurrentFirstRequestsMakeOnce) {
  DerivedWeights d;
  std::atomic<int> made = 0;
  const int kind = 0;
  std::vector<const uint8_t*> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      got[t] = d.get(&kind, 64, [&](uint8_t* dst) {
        ++made;
        dst[63] = 5;
      });
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(made.load(), 1);
  for (const uint8_t* p : got) EXPECT_EQ(p, got[0]);
  EXPECT_EQ(got[0][63], 5);
}

}  // namespace
}  // namespace kz
