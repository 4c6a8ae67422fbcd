// Fused causal attention on ARMv8.0 Advanced SIMD over an F32, F16 or Q8_0 KV cache: the
// arithmetic of kernels/x86/attention_avx2.cpp operation for operation (one pass over keys and
// values in blocks of 16 positions with an online softmax; q·k in 2 x 8 f32 lanes with fused
// multiply-add and the AVX2 horizontal sum; v accumulated as r = fma(p, v, r) from r = acc * c;
// the scores' exponentials by the same vector polynomial), so ARM and x86 give the same bits. That
// matters beyond tidiness: with 8-bit activations a last-bit difference in attention flips
// roundings downstream (fixtures/README.md), and this order is the one that tracks the reference
// implementation's results on the fixtures.
#include <arm_neon.h>

#include <algorithm>
#include <cmath>

#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/exp_neon.h"
#include "kernels/arm/quant_dot.h"
#include "kernels/online_attention.h"
#include "quant/blocks.h"

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
  // block(row, i): where load(block, j) finds lanes i+j .. i+j+7.
  struct KvF32 {
    static const float* block(const uint8_t* row, int i) {
      return reinterpret_cast<const float*>(row) + i;
    }
    static F32x8 load(const float* b, int j) { return load_f32(b + j); }
    static float one(const uint8_t* row, int i) { return reinterpret_cast<const float*>(row)[i]; }
  };
  struct KvF16 {
    static const uint16_t* block(const uint8_t* row, int i) {
      return reinterpret_cast<const uint16_t*>(row) + i;
    }
    static F32x8 load(const uint16_t* b, int j) {
      const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(b + j));
      return {vcvt_f32_f16(vget_low_f16(h)), vcvt_high_f32_f16(h)};
    }
    static float one(const uint8_t* row, int i) {
      return half_to_float(reinterpret_cast<const uint16_t*>(row)[i]);
    }
  };
  // As the AVX2 kernel: int8 quants as f32, d applied once per block.
  struct KvQ8_0 {
    static const BlockQ8_0* block(const uint8_t* row, int i) {
      return reinterpret_cast<const BlockQ8_0*>(row) + unsigned(i) / kQK;
    }
    static F32x8 quants(const BlockQ8_0* b, int j) {
      const int16x8_t q = vmovl_s8(vld1_s8(b->qs + j));
      return {vcvtq_f32_s32(vmovl_s16(vget_low_s16(q))), vcvtq_f32_s32(vmovl_high_s16(q))};
    }
    static float scale(const BlockQ8_0* b) { return half_to_float(b->d); }
  };

  static F32x8 mul8(F32x8 a, F32x8 b) { return {vmulq_f32(a.lo, b.lo), vmulq_f32(a.hi, b.hi)}; }

  static float dot_q8_0(const float* q, const uint8_t* k, int d) {
    F32x8 a0, a1;
    for (int i = 0; i < d; i += kQK) {
      const BlockQ8_0* b = KvQ8_0::block(k, i);
      F32x8 t0 = mul8(load_f32(q + i), KvQ8_0::quants(b, 0));
      F32x8 t1 = mul8(load_f32(q + i + 8), KvQ8_0::quants(b, 8));
      t0 = fma8(t0, load_f32(q + i + 16), KvQ8_0::quants(b, 16));
      t1 = fma8(t1, load_f32(q + i + 24), KvQ8_0::quants(b, 24));
      const float dv = KvQ8_0::scale(b);
      a0 = {vfmaq_n_f32(a0.lo, t0.lo, dv), vfmaq_n_f32(a0.hi, t0.hi, dv)};
      a1 = {vfmaq_n_f32(a1.lo, t1.lo, dv), vfmaq_n_f32(a1.hi, t1.hi, dv)};
    }
    return hsum8({vaddq_f32(a0.lo, a1.lo), vaddq_f32(a0.hi, a1.hi)});
  }

  static F32x8 scaled8(const float* acc, float c) {
    return {vmulq_n_f32(vld1q_f32(acc), c), vmulq_n_f32(vld1q_f32(acc + 4), c)};
  }
  // r + p * x, fused (as _mm256_fmadd_ps(set1(p), x, r)).
  static F32x8 add_scaled8(F32x8 r, float p, F32x8 x) {
    return {vfmaq_n_f32(r.lo, x.lo, p), vfmaq_n_f32(r.hi, x.hi, p)};
  }
  static void store8(float* acc, F32x8 r) {
    vst1q_f32(acc, r.lo);
    vst1q_f32(acc + 4, r.hi);
  }

  static void accumulate_q8_0(float* acc, float c, const float* p, const uint8_t* v, uint64_t v_row,
                              int nb, int d) {
    for (int i = 0; i < d; i += kQK) {
      F32x8 r[4];
      for (int l = 0; l < 4; ++l) r[l] = scaled8(acc + i + 8 * l, c);
      for (int j = 0; j < nb; ++j) {
        const BlockQ8_0* b = KvQ8_0::block(v + j * v_row, i);
        const float pd = p[j] * KvQ8_0::scale(b);
        for (int l = 0; l < 4; ++l) r[l] = add_scaled8(r[l], pd, KvQ8_0::quants(b, 8 * l));
      }
      for (int l = 0; l < 4; ++l) store8(acc + i + 8 * l, r[l]);
    }
  }

  template <class L>
  static float dot_elements(const float* q, const uint8_t* k, int d) {
    F32x8 a0, a1;
    auto step = [&](int i, const auto& b, int j) {  // lanes i+j .. i+j+15
      a0 = fma8(a0, load_f32(q + i + j), L::load(b, j));
      a1 = fma8(a1, load_f32(q + i + j + 8), L::load(b, j + 8));
    };
    int i = 0;
    for (; i + 32 <= d; i += 32) {
      const auto b = L::block(k, i);
      step(i, b, 0);
      step(i, b, 16);
    }
    for (; i + 16 <= d; i += 16) step(i, L::block(k, i), 0);
    for (; i + 8 <= d; i += 8) a0 = fma8(a0, load_f32(q + i), L::load(L::block(k, i), 0));
    float s = hsum8({vaddq_f32(a0.lo, a1.lo), vaddq_f32(a0.hi, a1.hi)});
    for (; i < d; ++i) s += q[i] * L::one(k, i);
    return s;
  }

  template <class L>
  static void accumulate_elements(float* acc, float c, const float* p, const uint8_t* v,
                                  uint64_t v_row, int nb, int d) {
    int i = 0;
    for (; i + 8 <= d; i += 8) {
      F32x8 r = scaled8(acc + i, c);
      for (int j = 0; j < nb; ++j) r = add_scaled8(r, p[j], L::load(L::block(v + j * v_row, i), 0));
      store8(acc + i, r);
    }
    for (; i < d; ++i) {
      float r = acc[i] * c;
      for (int j = 0; j < nb; ++j) r = r + p[j] * L::one(v + j * v_row, i);
      acc[i] = r;
    }
  }

  static void exp_block(float* s, float m) {
    static_assert(online_attention::kKeyBlock == 16);
    for (int j = 0; j < 16; j += 4)
      vst1q_f32(s + j, exp4(vsubq_f32(vld1q_f32(s + j), vdupq_n_f32(m))));
  }
};

}  // namespace

void attention__neon(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                     float scale, float* out, int64_t begin, int64_t end) {
  (void)n_tok;
  online_attention::run<NeonAttention>(q, kv, pos0, n_head, scale, out, begin, end);
}

}  // namespace kz::arm
