// The ISA-independent part of the fused causal attention kernels (kernels/x86/attention_avx2.cpp,
// kernels/arm/attention_neon.cpp): per (query token, head), one pass over the keys and values in
// blocks of 16 positions with an online softmax (running max m, running sum l, output
// accumulator rescaled by e^(m_old - m_new) when the max grows), so K and V are read once and no
// score vector of the context length is stored. Both ISAs share this code, and so the order of
// every f32 operation, which keeps their results identical bit for bit.
//
// Isa supplies the cache element loaders and two vector primitives:
//   struct KvF32, KvF16 { using T = <element>; ... };
//   template <class L> static float dot(const float* q, const typename L::T* k, int d);
//   template <class L> static void scale_add(float* acc, float c, float p,
//                                            const typename L::T* v, int d);  // acc*c + p*v
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "backend/backend.h"

namespace kz::online_attention {

constexpr int kMaxHeadDim = 512;
constexpr int kKeyBlock = 16;

template <class Isa, class K, class V>
void attend(const float* q, const typename K::T* k, const typename V::T* v, int64_t row,
            int64_t n_keys, int d, float scale, float* out) {
  alignas(32) float acc[kMaxHeadDim] = {};
  float m = -INFINITY, l = 0.0f;
  float s[kKeyBlock];
  for (int64_t j0 = 0; j0 < n_keys; j0 += kKeyBlock) {
    const int nb = int(std::min<int64_t>(kKeyBlock, n_keys - j0));
    float bmax = -INFINITY;
    for (int j = 0; j < nb; ++j) {
      s[j] = Isa::template dot<K>(q, k + (j0 + j) * row, d) * scale;
      bmax = std::max(bmax, s[j]);
    }
    const float m_new = std::max(m, bmax);
    float c = m == -INFINITY ? 0.0f : std::exp(m - m_new);
    l *= c;
    for (int j = 0; j < nb; ++j) {
      const float p = std::exp(s[j] - m_new);
      l += p;
      Isa::template scale_add<V>(acc, c, p, v + (j0 + j) * row, d);
      c = 1.0f;
    }
    m = m_new;
  }
  const float inv = 1.0f / l;
  for (int i = 0; i < d; ++i) out[i] = acc[i] * inv;
}

// Query rows [begin, end) of q[n_tok * n_head][head_dim], row i = token i / n_head, head i %
// n_head.
template <class Isa, class K, class V>
void rows(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale, float* out,
          int64_t begin, int64_t end) {
  const int d = kv.head_dim;
  const int group = n_head / kv.n_kv_head;
  const int64_t row = int64_t(kv.n_kv_head) * d;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t t = i / n_head;
    const int h = int(i % n_head);
    const int64_t off = int64_t(h / group) * d;
    attend<Isa, K, V>(q + i * d, static_cast<const typename K::T*>(kv.k) + off,
                      static_cast<const typename V::T*>(kv.v) + off, row, pos0 + t + 1, d, scale,
                      out + i * d);
  }
}

template <class Isa>
void run(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale, float* out,
         int64_t begin, int64_t end) {
  using F32 = typename Isa::KvF32;
  using F16 = typename Isa::KvF16;
  const bool k16 = kv.k_type == DType::F16, v16 = kv.v_type == DType::F16;
  if (k16 && v16)
    rows<Isa, F16, F16>(q, kv, pos0, n_head, scale, out, begin, end);
  else if (k16)
    rows<Isa, F16, F32>(q, kv, pos0, n_head, scale, out, begin, end);
  else if (v16)
    rows<Isa, F32, F16>(q, kv, pos0, n_head, scale, out, begin, end);
  else
    rows<Isa, F32, F32>(q, kv, pos0, n_head, scale, out, begin, end);
}

}  // namespace kz::online_attention
