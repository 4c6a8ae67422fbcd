// KV cache element types in the attention kernels: the reference kv_store writes Q8_0 rows with
// the reference quantizer, the reference attention reads every type through the reference
// dequantizer, and this machine's fused attention kernel (AVX2 on x86, NEON on ARM) matches it
// for every K/V type pair on shapes with odd key counts, odd head counts, GQA ratios and split
// (token, head) ranges. (On Q8_0 the fast kernels apply each block's scale once to a block sum;
// the reference multiplies every value: a reordering within the same bound.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/cpu_features.h"
#include "kernel_checks.h"
#include "kernels/kernel_table.h"
#include "kernels/ref/ops.h"
#include "quant/quant.h"
#include "testing/metrics.h"

namespace kz {
namespace {

using testing::kReorderedRel;

constexpr DType kCacheTypes[] = {DType::F32, DType::F16, DType::Q8_0};

using testing::rel_rms;

// A cache of n_ctx positions of n_kv heads x d, filled through ref::kv_store.
struct Cache {
  std::vector<uint8_t> k, v;
  KvCacheView view;
  Cache(DType kt, DType vt, int64_t n_ctx, int n_kv, int d, const float* keys, const float* vals)
      : k(n_ctx * row_bytes(kt, int64_t(n_kv) * d)), v(n_ctx * row_bytes(vt, int64_t(n_kv) * d)) {
    view = KvCacheView{kt, vt, k.data(), v.data(), n_ctx, n_kv, d};
    ref::kv_store(view, 0, n_ctx, keys, vals);
  }
};

std::vector<float> dequantized(DType t, const std::vector<uint8_t>& rows, int64_t n) {
  std::vector<float> out(n);
  dequantize_row(t, rows.data(), out.data(), n);
  return out;
}

TEST(KvCacheTypes, StoreQuantizesRowsWithTheReferenceQuantizer) {
  const int n_kv = 3, d = 64;
  const int64_t n_ctx = 9, row = int64_t(n_kv) * d;
  const uint64_t head_row = row_bytes(DType::Q8_0, d);
  const auto keys = testing::random_floats(n_ctx * row, 1),
             vals = testing::random_floats(n_ctx * row, 2, 3.0f);
  Cache c(DType::Q8_0, DType::Q8_0, n_ctx, n_kv, d, keys.data(), vals.data());
  EXPECT_EQ(c.k.size(), n_ctx * n_kv * (d / 32) * 34u);
  // Head-major: head h's row at position j holds that head's d values of token j, quantized.
  std::vector<uint8_t> want(c.k.size());
  for (int h = 0; h < n_kv; ++h)
    for (int64_t j = 0; j < n_ctx; ++j)
      quantize_row(DType::Q8_0, keys.data() + j * row + h * d,
                   want.data() + (h * n_ctx + j) * head_row, d);
  EXPECT_EQ(c.k, want);
  // Positions 4.. written again at pos0 = 4 land where a whole-cache store put them.
  std::vector<uint8_t> again = c.k;
  KvCacheView view = c.view;
  view.k = again.data();
  for (int h = 0; h < n_kv; ++h) std::memset(view.k_row(h, 4), 0, 5 * head_row);
  ref::kv_store(view, 4, 5, keys.data() + 4 * row, vals.data() + 4 * row);
  EXPECT_EQ(again, c.k);
  // 8-bit quants with one scale d = absmax / 127 per 32 values: errors within half a step, plus
  // the fp16 rounding of d (relative 2^-11) times up to 127 steps.
  const auto back = dequantized(DType::Q8_0, c.v, n_ctx * row);
  for (int h = 0; h < n_kv; ++h)
    for (int64_t j = 0; j < n_ctx; ++j)
      for (int b = 0; b < d; b += 32) {
        const float* x = vals.data() + j * row + h * d + b;
        const float* y = back.data() + (h * n_ctx + j) * d + b;
        float amax = 0;
        for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[i]));
        for (int i = 0; i < 32; ++i) ASSERT_NEAR(y[i], x[i], amax * (0.5f / 127 + 1.0f / 2048));
      }
}

TEST(KvCacheTypes, ReferenceAttentionReadsTheDequantizedCache) {
  // A Q8_0 cache and an F32 cache holding its dequantized rows give the same reference result.
  const int n_kv = 2, d = 32, n_head = 4;
  const int64_t n_ctx = 21, row = int64_t(n_kv) * d, n_tok = 5, pos0 = n_ctx - n_tok;
  const auto keys = testing::random_floats(n_ctx * row, 3),
             vals = testing::random_floats(n_ctx * row, 4);
  Cache q8(DType::Q8_0, DType::Q8_0, n_ctx, n_kv, d, keys.data(), vals.data());
  // The cache is head-major; kv_store takes tokens' rows of all heads.
  auto token_major = [&](const std::vector<uint8_t>& cache) {
    const auto heads = dequantized(DType::Q8_0, cache, n_ctx * row);
    std::vector<float> rows(heads.size());
    for (int h = 0; h < n_kv; ++h)
      for (int64_t j = 0; j < n_ctx; ++j)
        std::copy_n(heads.data() + (h * n_ctx + j) * d, d, rows.data() + j * row + h * d);
    return rows;
  };
  const auto kf = token_major(q8.k), vf = token_major(q8.v);
  Cache f32(DType::F32, DType::F32, n_ctx, n_kv, d, kf.data(), vf.data());
  const auto q = testing::random_floats(n_tok * n_head * d, 5, 2.0f);
  std::vector<float> got(q.size()), want(q.size());
  ref::attention(q.data(), q8.view, pos0, n_tok, n_head, 0.2f, got.data());
  ref::attention(q.data(), f32.view, pos0, n_tok, n_head, 0.2f, want.data());
  EXPECT_EQ(got, want);
  // And it stays close to the unquantized cache.
  Cache exact(DType::F32, DType::F32, n_ctx, n_kv, d, keys.data(), vals.data());
  ref::attention(q.data(), exact.view, pos0, n_tok, n_head, 0.2f, want.data());
  EXPECT_LT(rel_rms(got, want), 0.02);
}

struct Shape {
  int head_dim, n_head, n_kv_head;
  int64_t pos0, n_tok;
};
// Head sizes of 1 to 16 blocks of 32 (and, for F32/F16, 8- and 16-lane tails); GQA ratios 1 to
// 8 and odd head counts; 1..300 keys (key blocks of 16, odd counts); prompts and decode.
const Shape kShapes[] = {{32, 1, 1, 0, 1},    {64, 8, 2, 5, 3},    {128, 2, 1, 20, 20},
                         {96, 3, 3, 0, 7},    {128, 16, 8, 33, 1}, {256, 8, 2, 298, 1},
                         {160, 6, 2, 16, 5},  {512, 2, 2, 3, 2},   {32, 8, 1, 47, 1},
                         {128, 14, 2, 100, 3}};

TEST(KvCacheTypes, FastAttentionMatchesReferenceOnEveryTypePair) {
  const KernelTable& table = kernel_table();
  if (!table.ops.attention) GTEST_SKIP() << "no vector attention kernel on this CPU";
  uint32_t seed = 10;
  for (const Shape& sh : kShapes)
    for (DType kt : kCacheTypes)
      for (DType vt : kCacheTypes) {
        const std::string at = "head_dim " + std::to_string(sh.head_dim) + " heads " +
                               std::to_string(sh.n_head) + "/" + std::to_string(sh.n_kv_head) +
                               " pos0 " + std::to_string(sh.pos0) + " n_tok " +
                               std::to_string(sh.n_tok) + " k " + std::string(dtype_name(kt)) +
                               " v " + std::string(dtype_name(vt));
        const int64_t n_ctx = sh.pos0 + sh.n_tok, row = int64_t(sh.n_kv_head) * sh.head_dim;
        const auto keys = testing::random_floats(n_ctx * row, seed++);
        const auto vals = testing::random_floats(n_ctx * row, seed++);
        Cache c(kt, vt, n_ctx, sh.n_kv_head, sh.head_dim, keys.data(), vals.data());
        const auto q = testing::random_floats(sh.n_tok * sh.n_head * sh.head_dim, seed++, 2.0f);
        std::vector<float> got(q.size(), -7.0f), want(q.size());
        const float scale = 1.0f / std::sqrt(float(sh.head_dim));
        // Three ranges of (token, head) pairs, as three threads would split them.
        const int64_t pairs = sh.n_tok * sh.n_head, a = pairs / 3, b = pairs - pairs / 4;
        for (auto [begin, end] : {std::pair{int64_t(0), a}, {a, b}, {b, pairs}})
          table.ops.attention(q.data(), c.view, sh.pos0, sh.n_tok, sh.n_head, scale, got.data(),
                              begin, end);
        ref::attention(q.data(), c.view, sh.pos0, sh.n_tok, sh.n_head, scale, want.data());
        testing::expect_near_rel(got, want, kReorderedRel, at);
      }
}

// The query heads of a GQA group share each converted K/V row (kernels/online_attention.h), but
// each head's arithmetic is its own: one (token, head) pair at a time gives the same bits.
TEST(KvCacheTypes, GroupedHeadsGiveTheBitsOfSingleHeads) {
  const KernelTable& table = kernel_table();
  if (!table.ops.attention) GTEST_SKIP() << "no vector attention kernel on this CPU";
  uint32_t seed = 50;
  for (const Shape& sh : kShapes)
    for (DType type : kCacheTypes) {
      const int64_t n_ctx = sh.pos0 + sh.n_tok, row = int64_t(sh.n_kv_head) * sh.head_dim;
      const auto keys = testing::random_floats(n_ctx * row, seed++);
      const auto vals = testing::random_floats(n_ctx * row, seed++);
      Cache c(type, type, n_ctx, sh.n_kv_head, sh.head_dim, keys.data(), vals.data());
      const auto q = testing::random_floats(sh.n_tok * sh.n_head * sh.head_dim, seed++, 2.0f);
      std::vector<float> grouped(q.size()), single(q.size());
      const float scale = 1.0f / std::sqrt(float(sh.head_dim));
      const int64_t pairs = sh.n_tok * sh.n_head;
      table.ops.attention(q.data(), c.view, sh.pos0, sh.n_tok, sh.n_head, scale, grouped.data(), 0,
                          pairs);
      for (int64_t i = 0; i < pairs; ++i)
        table.ops.attention(q.data(), c.view, sh.pos0, sh.n_tok, sh.n_head, scale, single.data(), i,
                            i + 1);
      EXPECT_EQ(grouped, single) << "head_dim " << sh.head_dim << " heads " << sh.n_head << "/"
                                 << sh.n_kv_head << " " << dtype_name(type);
    }
}

}  // namespace
}  // namespace kz
