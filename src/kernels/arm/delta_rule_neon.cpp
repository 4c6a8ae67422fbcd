// One decode token of the gated delta rule (spec/qwen35.md §8.5) on ARMv8.0 Advanced SIMD, for a
// range of value heads, with the arithmetic of kernels/x86/delta_rule_avx2.cpp operation for
// operation (so the same bits): each row of a head's state is decayed, dotted with k, updated
// and dotted with q while it is in registers, the dots in 8 f32 lanes with fused multiply-add
// and the AVX2 horizontal sum, the d_k % 8 tail in scalar code.
#include <arm_neon.h>

#include <algorithm>
#include <cmath>

#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/quant_dot.h"
#include "kernels/ref/delta_net.h"

namespace kz::arm {
namespace {

constexpr int kMaxDk = 512;

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
    const float b = beta[h];
    const float decay = std::exp(g[h]);
    float* o = out + int64_t(h) * d_v;
    for (int j = 0; j < d_v; ++j) {
      float* m = state + (int64_t(h) * d_v + j) * d_k;
      F32x8 kd;
      int i = 0;
      for (; i + 8 <= d_k; i += 8) {
        const float32x4_t m0 = vmulq_n_f32(vld1q_f32(m + i), decay);
        const float32x4_t m1 = vmulq_n_f32(vld1q_f32(m + i + 4), decay);
        vst1q_f32(m + i, m0);
        vst1q_f32(m + i + 4, m1);
        kd.lo = vfmaq_f32(kd.lo, m0, vld1q_f32(k + i));
        kd.hi = vfmaq_f32(kd.hi, m1, vld1q_f32(k + i + 4));
      }
      float kdot = hsum8(kd);
      for (; i < d_k; ++i) kdot += (m[i] *= decay) * k[i];
      const float delta = (v[j] - kdot) * b;
      F32x8 qd;
      for (i = 0; i + 8 <= d_k; i += 8) {
        const float32x4_t m0 = vfmaq_n_f32(vld1q_f32(m + i), vld1q_f32(k + i), delta);
        const float32x4_t m1 = vfmaq_n_f32(vld1q_f32(m + i + 4), vld1q_f32(k + i + 4), delta);
        vst1q_f32(m + i, m0);
        vst1q_f32(m + i + 4, m1);
        qd.lo = vfmaq_f32(qd.lo, m0, vld1q_f32(q + i));
        qd.hi = vfmaq_f32(qd.hi, m1, vld1q_f32(q + i + 4));
      }
      float qdot = hsum8(qd);
      for (; i < d_k; ++i) qdot += (m[i] += k[i] * delta) * q[i];
      o[j] = qdot * scale;
    }
  }
}

}  // namespace kz::arm
