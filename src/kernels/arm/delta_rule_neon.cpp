// One decode token of the gated delta rule (spec/qwen35.md §8.5) on ARMv8.0 Advanced SIMD, for a
// range of value heads, with the arithmetic of kernels/x86/delta_rule_avx2.cpp operation for
// operation (so the same bits): each row of a head's state is decayed, dotted with k, updated
// and dotted with q, the dots in 8 f32 lanes with fused multiply-add and the AVX2 horizontal
// sum, the d_k % 8 tail in scalar code; rows are interleaved as there.
#include <arm_neon.h>

#include <algorithm>
#include <cmath>

#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/quant_dot.h"
#include "kernels/ref/delta_net.h"

namespace kz::arm {
namespace {

constexpr int kMaxDk = 512;
constexpr int kRowsAtOnce = 4;  // independent rows interleaved to hide the FMA latency

// Rows m[0..R) of one head's state, as update_rows in kernels/x86/delta_rule_avx2.cpp.
template <int R>
void update_rows(float* m, int d_k, const float* k, const float* q, const float* v, float decay,
                 float b, float scale, float* o) {
  F32x8 acc[R];
  int i = 0;
  for (; i + 8 <= d_k; i += 8) {
    const float32x4_t k0 = vld1q_f32(k + i), k1 = vld1q_f32(k + i + 4);
    for (int r = 0; r < R; ++r) {
      const float* mr = m + r * d_k + i;
      acc[r].lo = vfmaq_f32(acc[r].lo, vmulq_n_f32(vld1q_f32(mr), decay), k0);
      acc[r].hi = vfmaq_f32(acc[r].hi, vmulq_n_f32(vld1q_f32(mr + 4), decay), k1);
    }
  }
  const int tail = i;
  float delta[R];
  for (int r = 0; r < R; ++r) {
    const float* mr = m + r * d_k;
    float kdot = hsum8(acc[r]);
    for (i = tail; i < d_k; ++i) kdot += (mr[i] * decay) * k[i];
    delta[r] = (v[r] - kdot) * b;
    acc[r] = F32x8{};
  }
  for (i = 0; i < tail; i += 8) {
    const float32x4_t k0 = vld1q_f32(k + i), k1 = vld1q_f32(k + i + 4);
    const float32x4_t q0 = vld1q_f32(q + i), q1 = vld1q_f32(q + i + 4);
    for (int r = 0; r < R; ++r) {
      float* mr = m + r * d_k + i;
      const float32x4_t m0 = vfmaq_n_f32(vmulq_n_f32(vld1q_f32(mr), decay), k0, delta[r]);
      const float32x4_t m1 = vfmaq_n_f32(vmulq_n_f32(vld1q_f32(mr + 4), decay), k1, delta[r]);
      vst1q_f32(mr, m0);
      vst1q_f32(mr + 4, m1);
      acc[r].lo = vfmaq_f32(acc[r].lo, m0, q0);
      acc[r].hi = vfmaq_f32(acc[r].hi, m1, q1);
    }
  }
  for (int r = 0; r < R; ++r) {
    float* mr = m + r * d_k;
    float qdot = hsum8(acc[r]);
    for (i = tail; i < d_k; ++i) qdot += (mr[i] = mr[i] * decay + k[i] * delta[r]) * q[i];
    o[r] = qdot * scale;
  }
}

}  // namespace

void delta_rule_decode__neon(const DeltaNetDims& dims, const float* qkv, const float* g,
                             const float* beta, float eps, float* state, float* out, int h_begin,
                             int h_end) {
  const int d_k = dims.d_k, d_v = dims.d_v;
  const int64_t key_dim = dims.key_dim();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  float q[kMaxDk], k[kMaxDk];  // d_k <= kMaxDk (checked by the caller)
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
      update_rows<kRowsAtOnce>(m + int64_t(j) * d_k, d_k, k, q, v + j, decay, beta[h], scale,
                               o + j);
    for (; j < d_v; ++j)
      update_rows<1>(m + int64_t(j) * d_k, d_k, k, q, v + j, decay, beta[h], scale, o + j);
  }
}

}  // namespace kz::arm
