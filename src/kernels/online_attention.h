// The ISA-independent part of the fused causal attention kernels (kernels/x86/attention_avx2.cpp,
// kernels/arm/attention_neon.cpp): per (query token, head), one pass over the keys and values in
// blocks of 16 positions with an online softmax (running max m, running sum l, output
// accumulator rescaled by e^(m_old - m_new) when the max grows), so no score vector of the
// context length is stored; the heads of a token make that pass together (sweep), so K and V
// are read from memory once. Both ISAs share this code, and so the order of
// every f32 operation, which keeps their results identical bit for bit.
//
// Cache rows are bytes of the cache type (F32, F16 or Q8_0; a Q8_0 head is head_dim / 32 whole
// blocks). Isa supplies a loader type per cache type and two vector primitives over head rows:
//   struct KvF32, KvF16, KvQ8_0;
//   template <class L> static float dot_elements(const float* q, const uint8_t* k, int d);
//   static float dot_q8_0(const float* q, const uint8_t* k, int d);
//   template <class L> static void accumulate_elements(float* acc, float c, const float* p,
//                                                      const uint8_t* v, uint64_t v_row, int nb,
//                                                      int d);
//   static void accumulate_q8_0(...);  // the same arguments
//   static void exp_block(float* s, float m);  // s[j] = e^(s[j] - m) for j < kKeyBlock (vector
//   exp)
// accumulate: acc = acc * c + p[0] * v_0 + ... + p[nb-1] * v_(nb-1) (row v_j at v + j * v_row),
// each term fused into the running sum in that order (which stays in registers over the block).
// F32 and F16 values are used as they are; Q8_0 int8 quants are taken as f32 and each block's
// scale d is applied once: q.k as the sum over blocks of d * (q . quants), v with p * d as one
// factor (d * sum q_i k_i, as the reference implementation computes Q8_0 dot products).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backend/backend.h"
#include "quant/types.h"

namespace kz::online_attention {

constexpr int kMaxHeadDim = 512;  // the callers route larger heads to the reference kernel
constexpr int kKeyBlock = 16;
// The heads that sweep the keys together: at most 16 and 2048 accumulator floats (16 x 128).
constexpr int kMaxSweepHeads = 16;
constexpr int kMaxSweepFloats = 2048;
static_assert(kMaxSweepFloats >= kMaxHeadDim);

// The online softmax of one query head: running max m, running sum l, accumulator acc[d].
struct HeadState {
  float m = -INFINITY, l = 0.0f;
  float* acc = nullptr;
};

// q . k over one head row, by the ISA's Q8_0 form for Q8_0 rows and its element form otherwise.
template <class Isa, class L>
float dot(const float* q, const uint8_t* k, int d) {
  if constexpr (std::is_same_v<L, typename Isa::KvQ8_0>)
    return Isa::dot_q8_0(q, k, d);
  else
    return Isa::template dot_elements<L>(q, k, d);
}

// acc = acc * c + p[0] * v_0 + ... + p[nb-1] * v_(nb-1), likewise.
template <class Isa, class L>
void accumulate(float* acc, float c, const float* p, const uint8_t* v, uint64_t v_row, int nb,
                int d) {
  if constexpr (std::is_same_v<L, typename Isa::KvQ8_0>)
    Isa::accumulate_q8_0(acc, c, p, v, v_row, nb, d);
  else
    Isa::template accumulate_elements<L>(acc, c, p, v, v_row, nb, d);
}

// Adds keys and values [j0, j0 + nb) (nb <= kKeyBlock) of one head row to its online softmax.
template <class Isa, class K, class V>
void attend_block(const float* q, const uint8_t* k, const uint8_t* v, uint64_t k_row,
                  uint64_t v_row, int64_t j0, int nb, int d, float scale, HeadState& h) {
  alignas(32) float s[kKeyBlock];
  float bmax = -INFINITY;
  for (int j = 0; j < nb; ++j) {
    s[j] = dot<Isa, K>(q, k + (j0 + j) * k_row, d) * scale;
    bmax = std::max(bmax, s[j]);
  }
  const float m_new = std::max(h.m, bmax);
  const float c = h.m == -INFINITY ? 0.0f : std::exp(h.m - m_new);
  h.l *= c;
  std::fill(s + nb, s + kKeyBlock, m_new);  // a partial block's padding: e^0, never used
  Isa::exp_block(s, m_new);
  for (int j = 0; j < nb; ++j) h.l += s[j];
  accumulate<Isa, V>(h.acc, c, s, v + j0 * v_row, v_row, nb, d);
  h.m = m_new;
}

// Query heads [h0, h1) of token t (at most kMaxSweepHeads, kMaxSweepFloats / d) over keys
// [0, pos0 + t]. The heads sweep the cache together, one key block at a time: each block's
// rows are read from memory once for all of them (the query heads of a GQA group share theirs)
// and the sweep streams through the cache instead of striding over it once per head. Each
// head's own operations are those of a sweep of its own, so the split does not change results.
template <class Isa, class K, class V>
void sweep(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale, float* out,
           int64_t t, int h0, int h1) {
  const int d = kv.head_dim;
  const int group = n_head / kv.n_kv_head;
  const uint64_t k_head = row_bytes(kv.k_type, d), v_head = row_bytes(kv.v_type, d);
  const uint64_t k_row = k_head * kv.n_kv_head, v_row = v_head * kv.n_kv_head;
  const auto* k = static_cast<const uint8_t*>(kv.k);
  const auto* v = static_cast<const uint8_t*>(kv.v);
  alignas(32) float acc[kMaxSweepFloats];
  std::fill(acc, acc + (h1 - h0) * d, 0.0f);
  HeadState heads[kMaxSweepHeads];
  for (int h = h0; h < h1; ++h) heads[h - h0].acc = acc + (h - h0) * d;
  const int64_t n_keys = pos0 + t + 1;
  const float* qt = q + t * n_head * d;
  for (int64_t j0 = 0; j0 < n_keys; j0 += kKeyBlock) {
    const int nb = int(std::min<int64_t>(kKeyBlock, n_keys - j0));
    const int64_t next_end = std::min(n_keys, j0 + 2 * kKeyBlock);
    for (int h = h0; h < h1; ++h) {
      const uint8_t* kh = k + (h / group) * k_head;
      const uint8_t* vh = v + (h / group) * v_head;
      // The sweep visits a block's rows once per head, a pattern hardware prefetchers do not
      // follow: the first head of each KV head fetches that head's rows of the next block.
      if (h == h0 || h % group == 0)
        for (int64_t j = j0 + kKeyBlock; j < next_end; ++j) {
          for (uint64_t b = 0; b < k_head; b += 64) __builtin_prefetch(kh + j * k_row + b);
          for (uint64_t b = 0; b < v_head; b += 64) __builtin_prefetch(vh + j * v_row + b);
        }
      attend_block<Isa, K, V>(qt + h * d, kh, vh, k_row, v_row, j0, nb, d, scale, heads[h - h0]);
    }
  }
  for (int h = h0; h < h1; ++h) {
    const HeadState& st = heads[h - h0];
    const float inv = 1.0f / st.l;
    float* o = out + (t * n_head + h) * d;
    for (int i = 0; i < d; ++i) o[i] = st.acc[i] * inv;
  }
}

// Query rows [begin, end) of q[n_tok * n_head][head_dim], row i = token i / n_head, head i %
// n_head: the rows of each token sweep the cache together, as many at a time as fit.
template <class Isa, class K, class V>
void rows(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale, float* out,
          int64_t begin, int64_t end) {
  const int max_heads = std::clamp(kMaxSweepFloats / kv.head_dim, 1, kMaxSweepHeads);
  for (int64_t i = begin; i < end;) {
    const int64_t t = i / n_head;
    const int h0 = int(i % n_head);
    const int h1 = int(std::min<int64_t>({n_head, h0 + end - i, h0 + max_heads}));
    sweep<Isa, K, V>(q, kv, pos0, n_head, scale, out, t, h0, h1);
    i += h1 - h0;
  }
}

template <class Isa, class K>
void rows_k(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale,
            float* out, int64_t begin, int64_t end) {
  switch (kv.v_type) {
    case DType::F16:
      return rows<Isa, K, typename Isa::KvF16>(q, kv, pos0, n_head, scale, out, begin, end);
    case DType::Q8_0:
      return rows<Isa, K, typename Isa::KvQ8_0>(q, kv, pos0, n_head, scale, out, begin, end);
    default:
      return rows<Isa, K, typename Isa::KvF32>(q, kv, pos0, n_head, scale, out, begin, end);
  }
}

template <class Isa>
void run(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale, float* out,
         int64_t begin, int64_t end) {
  switch (kv.k_type) {
    case DType::F16:
      return rows_k<Isa, typename Isa::KvF16>(q, kv, pos0, n_head, scale, out, begin, end);
    case DType::Q8_0:
      return rows_k<Isa, typename Isa::KvQ8_0>(q, kv, pos0, n_head, scale, out, begin, end);
    default:
      return rows_k<Isa, typename Isa::KvF32>(q, kv, pos0, n_head, scale, out, begin, end);
  }
}

}  // namespace kz::online_attention
