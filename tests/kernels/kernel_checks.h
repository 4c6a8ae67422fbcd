// Test data and error bounds shared by the kernel tests (fast kernels against the reference).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/half.h"
#include "quant/blocks.h"
#include "quant/quant.h"

namespace kz::testing {

// Relative to the reference's magnitude:
// the same f32 operations as the reference (only a double-precision sum of squares reordered);
constexpr float kSameOpsRel = 1e-6f;
// a vector exp within a few ulp of std::exp, then one or two f32 operations;
constexpr float kExpRel = 2e-6f;
// sums over a head in 8 lanes with FMA instead of one sequential f32 sum.
constexpr float kReorderedRel = 1e-5f;

// A dot product computed exactly (in integers, or in double far below f32 precision), and the
// sum of its terms' magnitudes: the scale of a reordered f32 sum's error.
struct ExactDot {
  double value = 0, magnitude = 0;
};

// Every value within rel x the largest |want| of its reference.
inline void expect_near_rel(const std::vector<float>& got, const std::vector<float>& want,
                            float rel, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  float scale = 0;
  for (float w : want) scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], rel * scale + 1e-30f) << what << " at " << i;
}

// n normal values of standard deviation `scale`.
inline std::vector<float> gaussian(int64_t n, std::mt19937& rng, float scale) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> x(static_cast<size_t>(n));
  for (auto& v : x) v = dist(rng);
  return x;
}

// n normal values from `seed`, with one outlier of 5 x `scale` (rows of more than 5).
inline std::vector<float> random_floats(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::vector<float> x = gaussian(n, rng, scale);
  if (n > 5) x[static_cast<size_t>(n / 5)] = 5 * scale;
  return x;
}

// n_rows rows of n elements of type t (Q4_0 or Q8_0: an fp16 scale first in each block),
// quantized from normal floats, or (raw) random bytes with finite scales: every quant (Q8_0's
// -128, Q4_0's nibbles 0 and 15) and both signs of the scale.
inline std::vector<uint8_t> weight_rows(DType t, int64_t n_rows, int64_t n, bool raw,
                                        std::mt19937& rng) {
  const uint64_t rb = row_bytes(t, n);
  std::vector<uint8_t> w(rb * n_rows);
  if (!raw) {
    for (int64_t r = 0; r < n_rows; ++r)
      quantize_row(t, gaussian(n, rng, 0.05f).data(), w.data() + r * rb, n);
    return w;
  }
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> scale(-0.02f, 0.02f);
  for (auto& b : w) b = static_cast<uint8_t>(byte(rng));
  const int bb = info(t).block_bytes;
  for (uint64_t blk = 0; blk < w.size() / bb; ++blk) {
    const uint16_t h = fp32_to_fp16(scale(rng));
    std::memcpy(&w[blk * bb], &h, sizeof(h));
  }
  return w;
}

}  // namespace kz::testing
