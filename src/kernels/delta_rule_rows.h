// One decode token of the gated delta rule (spec/qwen35.md §8.5) for a range of value heads,
// written once over an ISA's 8-lane f32 vector (kernels/x86/vec8_avx2.h, kernels/arm/vec8_neon.h:
// zero, splat, load, store, mul, fma, hsum, lane for lane equal), so x86 and ARM give the same
// bits. The reference makes four passes over a head's state M (decay, M k, rank-1 update, M q);
// each row of M only depends on itself, so here a row is decayed and dotted with k in one pass,
// then updated and dotted with q in a second (the state is read twice and written once), and
// kRowsAtOnce rows are interleaved so that their chains of dependent multiply-adds overlap.
#pragma once

#include <cmath>
#include <cstdint>

#include "backend/backend.h"
#include "kernels/ref/delta_net.h"

namespace kz::delta_rule {

constexpr int kMaxDk = 512;  // the callers route larger heads to the reference kernel
constexpr int kRowsAtOnce = 4;

// Rows m[0..R) (each d_k floats) of one head's state, with values v[0..R) and outputs o[0..R).
// Per row: the k-dot of the decayed row, then the rank-1 update and the q-dot, 8 lanes at a
// time with the d_k % 8 tail in scalar code. The second pass recomputes the decayed row instead
// of storing and reloading it (the same rounded product).
template <class Isa, int R>
void update_rows(float* m, int d_k, const float* k, const float* q, const float* v, float decay,
                 float b, float scale, float* o) {
  using V = typename Isa::V;
  const V dv = Isa::splat(decay);
  V acc[R];
  for (int r = 0; r < R; ++r) acc[r] = Isa::zero();
  int i = 0;
  for (; i + 8 <= d_k; i += 8) {
    const V kv = Isa::load(k + i);
    for (int r = 0; r < R; ++r)
      acc[r] = Isa::fma(acc[r], Isa::mul(Isa::load(m + r * d_k + i), dv), kv);
  }
  const int tail = i;
  float delta[R];
  for (int r = 0; r < R; ++r) {
    const float* mr = m + r * d_k;
    float kdot = Isa::hsum(acc[r]);
    for (i = tail; i < d_k; ++i) kdot += (mr[i] * decay) * k[i];
    delta[r] = (v[r] - kdot) * b;
    acc[r] = Isa::zero();
  }
  for (i = 0; i < tail; i += 8) {
    const V kv = Isa::load(k + i), qv = Isa::load(q + i);
    for (int r = 0; r < R; ++r) {
      float* mr = m + r * d_k + i;
      const V mv = Isa::fma(Isa::mul(Isa::load(mr), dv), kv, Isa::splat(delta[r]));
      Isa::store(mr, mv);
      acc[r] = Isa::fma(acc[r], mv, qv);
    }
  }
  for (int r = 0; r < R; ++r) {
    float* mr = m + r * d_k;
    float qdot = Isa::hsum(acc[r]);
    for (i = tail; i < d_k; ++i) qdot += (mr[i] = mr[i] * decay + k[i] * delta[r]) * q[i];
    o[r] = qdot * scale;
  }
}

// OpKernels::delta_rule_decode (kernels/kernel_table.h); d_k <= kMaxDk.
template <class Isa>
void decode(const DeltaNetDims& dims, const float* qkv, const float* g, const float* beta,
            float eps, float* state, float* out, int h_begin, int h_end) {
  const int d_k = dims.d_k, d_v = dims.d_v;
  const int64_t key_dim = dims.key_dim();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  float q[kMaxDk], k[kMaxDk];
  for (int h = h_begin; h < h_end; ++h) {
    const int kh = h % dims.n_k;  // tiled head mapping (§8.4)
    ref::l2_normalized(qkv + int64_t(kh) * d_k, d_k, eps, q);
    ref::l2_normalized(qkv + key_dim + int64_t(kh) * d_k, d_k, eps, k);
    const float* v = qkv + 2 * key_dim + int64_t(h) * d_v;
    const float decay = std::exp(g[h]);
    float* m = state + int64_t(h) * d_v * d_k;
    float* o = out + int64_t(h) * d_v;
    int j = 0;
    for (; j + kRowsAtOnce <= d_v; j += kRowsAtOnce)
      update_rows<Isa, kRowsAtOnce>(m + int64_t(j) * d_k, d_k, k, q, v + j, decay, beta[h], scale,
                                    o + j);
    for (; j < d_v; ++j)
      update_rows<Isa, 1>(m + int64_t(j) * d_k, d_k, k, q, v + j, decay, beta[h], scale, o + j);
  }
}

}  // namespace kz::delta_rule
