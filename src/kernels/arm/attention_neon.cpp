// Fused causal attention on ARMv8.0 Advanced SIMD over an F32 or F16 KV cache: the arithmetic of
// kernels/x86/attention_avx2.cpp operation for operation (one pass over keys and values in
// blocks of 16 positions with an online softmax; q·k in 2 x 8 f32 lanes with fused multiply-add
// and the AVX2 horizontal sum; v accumulated as fma(p, v, acc * c); scalar std::exp), so ARM
// and x86 give the same bits. That matters beyond tidiness: with 8-bit activations a last-bit
// difference in attention flips roundings downstream (fixtures/README.md), and this order is the
// one that tracks the reference implementation's results on the fixtures.
#include <arm_neon.h>

#include <algorithm>
#include <cmath>

#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/quant_dot.h"
#include "kernels/online_attention.h"

namespace kz::arm {
namespace {

inline F32x8 load_f32(const float* p) {
  return {vld1q_f32(p), vld1q_f32(p + 4)};
}
// a + b * c, fused (as _mm256_fmadd_ps(b, c, a)).
inline F32x8 fma8(F32x8 a, F32x8 b, F32x8 c) {
  return {vfmaq_f32(a.lo, b.lo, c.lo), vfmaq_f32(a.hi, b.hi, c.hi)};
}
// The vector primitives of online_attention (kernels/online_attention.h).
struct NeonAttention {
  struct KvF32 {
    using T = float;
    static F32x8 load(const T* p) { return {vld1q_f32(p), vld1q_f32(p + 4)}; }
    static float one(T v) { return v; }
  };
  struct KvF16 {
    using T = uint16_t;
    static F32x8 load(const T* p) {
      const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(p));
      return {vcvt_f32_f16(vget_low_f16(h)), vcvt_high_f32_f16(h)};
    }
    static float one(T v) { return half_to_float(v); }
  };

  template <class L>
  static float dot(const float* q, const typename L::T* k, int d) {
    F32x8 a0, a1;
    int i = 0;
    for (; i + 16 <= d; i += 16) {
      a0 = fma8(a0, load_f32(q + i), L::load(k + i));
      a1 = fma8(a1, load_f32(q + i + 8), L::load(k + i + 8));
    }
    for (; i + 8 <= d; i += 8) a0 = fma8(a0, load_f32(q + i), L::load(k + i));
    float s = hsum8({vaddq_f32(a0.lo, a1.lo), vaddq_f32(a0.hi, a1.hi)});
    for (; i < d; ++i) s += q[i] * L::one(k[i]);
    return s;
  }

  // acc[0..d) = acc * c + p * v
  template <class L>
  static void scale_add(float* acc, float c, float p, const typename L::T* v, int d) {
    int i = 0;
    for (; i + 8 <= d; i += 8) {
      const F32x8 x = L::load(v + i);
      vst1q_f32(acc + i, vfmaq_n_f32(vmulq_n_f32(vld1q_f32(acc + i), c), x.lo, p));
      vst1q_f32(acc + i + 4, vfmaq_n_f32(vmulq_n_f32(vld1q_f32(acc + i + 4), c), x.hi, p));
    }
    for (; i < d; ++i) acc[i] = acc[i] * c + p * L::one(v[i]);
  }
};

}  // namespace

void attention_f32_f16_kv__neon(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                                int n_head, float scale, float* out, int64_t begin, int64_t end) {
  (void)n_tok;
  online_attention::run<NeonAttention>(q, kv, pos0, n_head, scale, out, begin, end);
}

}  // namespace kz::arm
