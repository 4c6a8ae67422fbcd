// Prompt attention (more than one query token: kernels/blocked_attention.h through this machine's
// attention kernel, AVX2 on x86, NEON on ARM) against the reference attention: prompt lengths
// around the tiles (16 query rows, 32 with AVX-512; 16 keys), prompts appended to a filled cache
// (pos0 > 0), head sizes 64 and 128 (and 8 to 256 on F32/F16, 32 and 96 on Q8_0), GQA ratios
// 1 to 8, every cache type, peaked and flat softmaxes, and the ranges of (token, head) pairs that
// threads get. A prompt must give the bits of its tokens one at a time (the decode kernel's),
// whatever the tile a row shares, the range split, the prompt's chunking or, on x86, the vector
// width (AVX-512's 16 lanes, AVX2's 8).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "base/cpu_features.h"
#include "kernel_checks.h"
#include "kernels/kernel_table.h"
#include "kernels/ref/ops.h"
#include "quant/quant.h"

namespace kz {
namespace {

using testing::kReorderedRel;

struct Case {
  int head_dim, n_head, n_kv;
  int64_t pos0, n_tok;
  DType k_type, v_type;
  float q_scale;  // 2: a flat softmax; 12: peaked, the running max moves
  std::string name() const {
    return "head_dim " + std::to_string(head_dim) + " heads " + std::to_string(n_head) + "/" +
           std::to_string(n_kv) + " pos0 " + std::to_string(pos0) + " n_tok " +
           std::to_string(n_tok) + " k " + std::string(dtype_name(k_type)) + " v " +
           std::string(dtype_name(v_type)) + " q_scale " + std::to_string(q_scale);
  }
};

// A cache of pos0 + n_tok positions filled through ref::kv_store, and the prompt's queries.
struct Prompt {
  std::vector<uint8_t> k, v;
  KvCacheView kv;
  std::vector<float> q;
  float scale;
  explicit Prompt(const Case& c, uint32_t seed) {
    const int64_t n_ctx = c.pos0 + c.n_tok, row = int64_t(c.n_kv) * c.head_dim;
    k.resize(n_ctx * row_bytes(c.k_type, row));
    v.resize(n_ctx * row_bytes(c.v_type, row));
    kv = KvCacheView{c.k_type, c.v_type, k.data(), v.data(), n_ctx, c.n_kv, c.head_dim};
    ref::kv_store(kv, 0, n_ctx, testing::random_floats(n_ctx * row, seed, 1.0f).data(),
                  testing::random_floats(n_ctx * row, seed + 1, 1.0f).data());
    q = testing::random_floats(c.n_tok * c.n_head * c.head_dim, seed + 2, c.q_scale);
    scale = 1.0f / std::sqrt(float(c.head_dim));
  }
};

std::vector<Case> cases() {
  const struct {
    int64_t pos0, n_tok;
  } prompts[] = {{0, 2}, {0, 17}, {1, 16}, {13, 9}, {40, 33}, {5, 50}, {0, 1}, {31, 1}};
  const struct { int n_head, n_kv; } heads[] = {{2, 2}, {4, 2}, {8, 2}, {8, 1}, {6, 2}};
  const struct {
    DType k, v;
  } types[] = {{DType::F32, DType::F32},
               {DType::F16, DType::F16},
               {DType::Q8_0, DType::Q8_0},
               {DType::F16, DType::Q8_0},
               {DType::Q8_0, DType::F16}};
  std::vector<Case> all;
  for (int d : {64, 128})
    for (auto h : heads)
      for (auto t : types)
        for (auto p : prompts)
          all.push_back({d, h.n_head, h.n_kv, p.pos0, p.n_tok, t.k, t.v, d == 64 ? 12.0f : 2.0f});
  // Head sizes with 8-lane and scalar tails, and a large one, on the types without blocks.
  for (int d : {8, 12, 40, 96, 256})
    for (DType t : {DType::F32, DType::F16}) all.push_back({d, 4, 2, 7, 19, t, t, 2.0f});
  // Q8_0 heads that AVX-512's value chunks of 64 do not divide (a last chunk of 32).
  for (int d : {32, 96}) all.push_back({d, 4, 2, 7, 19, DType::Q8_0, DType::Q8_0, 2.0f});
  // Prompts past a whole key block of the last tile, and long enough for several tiles.
  all.push_back({128, 16, 8, 100, 70, DType::F16, DType::F16, 2.0f});
  all.push_back({256, 8, 2, 3, 40, DType::Q8_0, DType::Q8_0, 12.0f});
  return all;
}

TEST(PromptAttention, MatchesTheReference) {
  const KernelTable& table = kernel_table();
  if (!table.ops.attention) GTEST_SKIP() << "no vector attention kernel on this CPU";
  uint32_t seed = 100;
  for (const Case& c : cases()) {
    Prompt s(c, seed += 3);
    std::vector<float> got(s.q.size(), -7.0f), want(s.q.size());
    // Three uneven ranges of (token, head) pairs, as dynamic claims of three threads could be.
    const int64_t pairs = c.n_tok * c.n_head, a = pairs / 3, b = pairs - pairs / 4;
    for (auto [begin, end] : {std::pair{int64_t(0), a}, {a, b}, {b, pairs}})
      table.ops.attention(s.q.data(), s.kv, c.pos0, c.n_tok, c.n_head, s.scale, got.data(), begin,
                          end);
    ref::attention(s.q.data(), s.kv, c.pos0, c.n_tok, c.n_head, s.scale, want.data());
    testing::expect_near_rel(got, want, kReorderedRel, c.name());
  }
}

TEST(PromptAttention, GivesTheBitsOfOneTokenAtATime) {
  const KernelTable& table = kernel_table();
  if (!table.ops.attention) GTEST_SKIP() << "no vector attention kernel on this CPU";
  uint32_t seed = 900;
  for (const Case& c : cases()) {
    if (c.n_tok < 5) continue;  // two chunks of two or more tokens: both prompts
    Prompt s(c, seed += 3);
    const int64_t pairs = c.n_tok * c.n_head, token = c.n_head * int64_t(c.head_dim);
    std::vector<float> whole(s.q.size()), stepped(s.q.size()), single(s.q.size()),
        chunked(s.q.size());
    table.ops.attention(s.q.data(), s.kv, c.pos0, c.n_tok, c.n_head, s.scale, whole.data(), 0,
                        pairs);
    // One token per call: the decode kernel (kernels/online_attention.h).
    for (int64_t t = 0; t < c.n_tok; ++t)
      table.ops.attention(s.q.data() + t * token, s.kv, c.pos0 + t, 1, c.n_head, s.scale,
                          stepped.data() + t * token, 0, c.n_head);
    EXPECT_EQ(whole, stepped) << c.name();
    // Each row alone: a tile of one row.
    for (int64_t i = 0; i < pairs; ++i)
      table.ops.attention(s.q.data(), s.kv, c.pos0, c.n_tok, c.n_head, s.scale, single.data(), i,
                          i + 1);
    EXPECT_EQ(whole, single) << c.name();
    // The prompt in two chunks, the second appended after the first (prefix reuse).
    const int64_t n1 = c.n_tok / 2 - 1, n2 = c.n_tok - n1;
    table.ops.attention(s.q.data(), s.kv, c.pos0, n1, c.n_head, s.scale, chunked.data(), 0,
                        n1 * c.n_head);
    table.ops.attention(s.q.data() + n1 * token, s.kv, c.pos0 + n1, n2, c.n_head, s.scale,
                        chunked.data() + n1 * token, 0, n2 * c.n_head);
    EXPECT_EQ(whole, chunked) << c.name();
  }
}

// The AVX-512 table's kernel against the AVX2 table's: the same bits on every case.
TEST(PromptAttention, Avx512GivesTheAvx2Bits) {
  const CpuFeatures& f = cpu_features();
  if (!(f.avx2 && f.fma && f.f16c && f.avx512f && f.avx512bw && f.avx512vl && f.avx512vnni))
    GTEST_SKIP() << "no AVX-512 kernels on this CPU";
  CpuFeatures narrow = f;
  narrow.avx512f = narrow.avx512bw = narrow.avx512vl = narrow.avx512vnni = false;
  const KernelTable avx2 = build_kernel_table(narrow), avx512 = build_kernel_table(f);
  ASSERT_NE(avx2.ops.attention, avx512.ops.attention);
  uint32_t seed = 1700;
  for (const Case& c : cases()) {
    Prompt s(c, seed += 3);
    std::vector<float> want(s.q.size()), got(s.q.size());
    const int64_t pairs = c.n_tok * c.n_head;
    avx2.ops.attention(s.q.data(), s.kv, c.pos0, c.n_tok, c.n_head, s.scale, want.data(), 0, pairs);
    avx512.ops.attention(s.q.data(), s.kv, c.pos0, c.n_tok, c.n_head, s.scale, got.data(), 0,
                         pairs);
    EXPECT_EQ(got, want) << c.name();
  }
}

}  // namespace
}  // namespace kz
