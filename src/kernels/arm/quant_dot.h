// Dot products of one quantized weight row with one activation row, written once for every
// ARM instruction set, in the f32 order of the reference implementation's x86 AVX2 kernels
// (ggml-cpu/arch/x86/quants.c; kernels/x86/gemm_q8_0_tiles.h and gemm_k_quants_tiles.h do the
// same), which the fixtures' ref.json were computed with: per 32-byte chunk, 8 int32 lanes of 4
// consecutive products (lanes 0-3: bytes 0-15, lanes 4-7: bytes 16-31); per block or
// super-block, lanes converted to f32 and accumulated by fused multiply-add into 8 f32 lanes;
// the fixed horizontal sum at the end. So ARM and x86 give the same bits, and a model's logits
// do not drift apart across machines (on the random fixture models a last-bit difference flips
// roundings of later activations and grows).
//
// `Isa::dot4(a, b)` returns those 4 lanes for 16 bytes: lane k = Σ_{j<4} a[4k+j]·b[4k+j]. The
// including file supplies Isa (gemv_neon.cpp: vmull + pairwise adds; gemv_dotprod.cpp: vdotq).
//
// Everything here has internal linkage (an unnamed namespace in a header, on purpose): each
// file that includes it is compiled with different -march flags, and one shared inline copy
// would let the linker keep, say, the dotprod build for the baseline entry point.
#pragma once

#if defined(__aarch64__)

#include <arm_neon.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "quant/blocks.h"

namespace kz::arm {
namespace {

// fp16 bits -> f32 through the FP unit (FCVT, base ARMv8): exact, like base/half.h.
inline float half_to_float(uint16_t bits) {
  __fp16 h;
  std::memcpy(&h, &bits, sizeof(h));
  return static_cast<float>(h);
}

inline int8x16_t low_nibbles(uint8x16_t v) {
  return vreinterpretq_s8_u8(vandq_u8(v, vdupq_n_u8(0x0F)));
}
inline int8x16_t high_nibbles(uint8x16_t v) {
  return vreinterpretq_s8_u8(vshrq_n_u8(v, 4));
}

// The 8 6-bit scales and mins of a Q4_K / Q5_K super-block (§4.1), as scale_min_k4 gives them
// one at a time (ggml-cpu/arch/arm/quants.c does the same with three masks).
inline void q4_K_scales_mins(const uint8_t packed[12], uint8_t sc[8], uint8_t m[8]) {
  constexpr uint32_t kLow6 = 0x3f3f3f3f, kLow4 = 0x0f0f0f0f, kTop2 = 0x03030303;
  uint32_t u[3];
  std::memcpy(u, packed, 12);
  const uint32_t scales[2] = {u[0] & kLow6, (u[2] & kLow4) | (((u[0] >> 6) & kTop2) << 4)};
  const uint32_t mins[2] = {u[1] & kLow6, ((u[2] >> 4) & kLow4) | (((u[1] >> 6) & kTop2) << 4)};
  std::memcpy(sc, scales, 8);
  std::memcpy(m, mins, 8);
}

// The 32 quants of a Q4_0 block minus 8: elements 0..15 in lo, 16..31 in hi.
inline void q4_0_quants(const BlockQ4_0& x, int8x16_t& lo, int8x16_t& hi) {
  const uint8x16_t v = vld1q_u8(x.qs);
  lo = vsubq_s8(low_nibbles(v), vdupq_n_s8(8));
  hi = vsubq_s8(high_nibbles(v), vdupq_n_s8(8));
}

// The 64 quants of Q4_K / Q5_K chunk j (0..3) of a super-block: sub-block 2j in q[0], q[1],
// sub-block 2j+1 in q[2], q[3]. Q5_K adds bit 4 from qh (bits 2j and 2j+1 of qh[e % 32]).
inline void q4_K_chunk(const BlockQ4K& x, int j, int8x16_t q[4]) {
  const uint8x16_t b0 = vld1q_u8(x.qs + 32 * j), b1 = vld1q_u8(x.qs + 32 * j + 16);
  q[0] = low_nibbles(b0);
  q[1] = low_nibbles(b1);
  q[2] = high_nibbles(b0);
  q[3] = high_nibbles(b1);
}
inline void q5_K_chunk(const BlockQ5K& x, int j, int8x16_t q[4]) {
  const uint8x16_t b0 = vld1q_u8(x.qs + 32 * j), b1 = vld1q_u8(x.qs + 32 * j + 16);
  const uint8x16_t h0 = vld1q_u8(x.qh), h1 = vld1q_u8(x.qh + 16);
  const int8x16_t shift = vdupq_n_s8(static_cast<int8_t>(-2 * j));  // right by 2j
  const uint8x16_t s0 = vshlq_u8(h0, shift), s1 = vshlq_u8(h1, shift);
  const uint8x16_t one = vdupq_n_u8(1), two = vdupq_n_u8(2);
  q[0] = vreinterpretq_s8_u8(
      vorrq_u8(vandq_u8(b0, vdupq_n_u8(0x0F)), vshlq_n_u8(vandq_u8(s0, one), 4)));
  q[1] = vreinterpretq_s8_u8(
      vorrq_u8(vandq_u8(b1, vdupq_n_u8(0x0F)), vshlq_n_u8(vandq_u8(s1, one), 4)));
  q[2] = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(b0, 4), vshlq_n_u8(vandq_u8(s0, two), 3)));
  q[3] = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(b1, 4), vshlq_n_u8(vandq_u8(s1, two), 3)));
}

// The 128 quants (minus 32) of Q6_K half h (0, 1) of a super-block, 16 per vector: q[k] holds
// elements 128h + 16k .. +15, whose scale is scales[8h + k].
inline void q6_K_half(const BlockQ6K& x, int h, int8x16_t q[8]) {
  const uint8_t* ql = x.ql + 64 * h;
  const uint8_t* qh = x.qh + 32 * h;
  const uint8x16_t m4 = vdupq_n_u8(0x0F), m2 = vdupq_n_u8(0x03);
  for (int half = 0; half < 2; ++half) {  // elements l in [16 half, 16 half + 16) of each group
    const uint8x16_t l0 = vld1q_u8(ql + 16 * half), l1 = vld1q_u8(ql + 32 + 16 * half);
    const uint8x16_t hb = vld1q_u8(qh + 16 * half);
    const uint8x16_t g[4] = {
        vorrq_u8(vandq_u8(l0, m4), vshlq_n_u8(vandq_u8(hb, m2), 4)),
        vorrq_u8(vandq_u8(l1, m4), vshlq_n_u8(vandq_u8(vshrq_n_u8(hb, 2), m2), 4)),
        vorrq_u8(vshrq_n_u8(l0, 4), vshlq_n_u8(vandq_u8(vshrq_n_u8(hb, 4), m2), 4)),
        vorrq_u8(vshrq_n_u8(l1, 4), vshlq_n_u8(vshrq_n_u8(hb, 6), 4)),
    };
    for (int k = 0; k < 4; ++k)
      q[2 * k + half] = vsubq_s8(vreinterpretq_s8_u8(g[k]), vdupq_n_s8(32));
  }
}

// 8 f32 lanes and the AVX2 horizontal sums (x86/simd_avx2.h: hsum_f32x8, hsum_f32x4):
// ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)).
struct F32x8 {
  float32x4_t lo = vdupq_n_f32(0), hi = vdupq_n_f32(0);
  // lanes += d * float(lo | hi), fused as _mm256_fmadd_ps.
  void fma(float d, int32x4_t ilo, int32x4_t ihi) {
    lo = vfmaq_n_f32(lo, vcvtq_f32_s32(ilo), d);
    hi = vfmaq_n_f32(hi, vcvtq_f32_s32(ihi), d);
  }
};
inline float hsum4(float32x4_t r) {
  return vpadds_f32(vadd_f32(vget_low_f32(r), vget_high_f32(r)));
}
inline float hsum8(const F32x8& x) { return hsum4(vaddq_f32(x.lo, x.hi)); }

// Q4_0 x Q8_0 and Q8_0 x Q8_0: acc = fma(d_w * d_a, lanes, acc) per block.
template <class Isa>
float dot_q4_0_q8_0(const BlockQ4_0* x, const BlockQ8_0* y, int64_t nb) {
  F32x8 acc;
  for (int64_t i = 0; i < nb; ++i) {
    int8x16_t lo, hi;
    q4_0_quants(x[i], lo, hi);
    acc.fma(half_to_float(x[i].d) * half_to_float(y[i].d), Isa::dot4(lo, vld1q_s8(y[i].qs)),
            Isa::dot4(hi, vld1q_s8(y[i].qs + 16)));
  }
  return hsum8(acc);
}

template <class Isa>
float dot_q8_0_q8_0(const BlockQ8_0* x, const BlockQ8_0* y, int64_t nb) {
  F32x8 acc;
  for (int64_t i = 0; i < nb; ++i)
    acc.fma(half_to_float(x[i].d) * half_to_float(y[i].d),
            Isa::dot4(vld1q_s8(x[i].qs), vld1q_s8(y[i].qs)),
            Isa::dot4(vld1q_s8(x[i].qs + 16), vld1q_s8(y[i].qs + 16)));
  return hsum8(acc);
}

// The min products of Q4_K / Q5_K in 4 lanes: lane k = m[2k]·S[2k] + m[2k+1]·S[2k+1], with S[s]
// the activation sum of sub-block s (bsums[2s] + bsums[2s+1]).
inline int32x4_t q8_K_min_products(const BlockQ8K& y, const uint8_t m[8]) {
  const int16x8_t sums = vpaddq_s16(vld1q_s16(y.bsums), vld1q_s16(y.bsums + 8));
  const int16x8_t mins = vreinterpretq_s16_u16(vmovl_u8(vld1_u8(m)));
  return vpaddq_s32(vmull_s16(vget_low_s16(sums), vget_low_s16(mins)),
                    vmull_high_s16(sums, mins));
}

// Q4_K / Q5_K x Q8_K. Integer lanes per super-block: Σ over sub-blocks s of sc_s · (4-product
// lanes of s); acc = fma(d_a * d_w, lanes, acc). The mins: Q4_K keeps 4 f32 lanes
// acc_m = fma(-d_a * dmin_w, min products, acc_m); Q5_K one f32, summs = fma(-d_a * dmin_w,
// Σ min products, summs) (the reference's kernels differ there).
template <class Isa, class Block, void (*Chunk)(const Block&, int, int8x16_t*), bool kMinLanes>
float dot_q45_K_q8_K(const Block* x, const BlockQ8K* y, int64_t nb) {
  F32x8 acc;
  float32x4_t acc_m = vdupq_n_f32(0);
  float summs = 0;
  for (int64_t i = 0; i < nb; ++i) {
    uint8_t sc[8], m[8];
    q4_K_scales_mins(x[i].scales, sc, m);
    int32x4_t lo = vdupq_n_s32(0), hi = vdupq_n_s32(0);
    for (int j = 0; j < 4; ++j) {
      int8x16_t q[4];
      Chunk(x[i], j, q);
      const int8_t* a = y[i].qs + 64 * j;
      lo = vmlaq_n_s32(lo, Isa::dot4(q[0], vld1q_s8(a)), sc[2 * j]);
      hi = vmlaq_n_s32(hi, Isa::dot4(q[1], vld1q_s8(a + 16)), sc[2 * j]);
      lo = vmlaq_n_s32(lo, Isa::dot4(q[2], vld1q_s8(a + 32)), sc[2 * j + 1]);
      hi = vmlaq_n_s32(hi, Isa::dot4(q[3], vld1q_s8(a + 48)), sc[2 * j + 1]);
    }
    acc.fma(y[i].d * half_to_float(x[i].d), lo, hi);
    const float dmin = -y[i].d * half_to_float(x[i].dmin);
    const int32x4_t p = q8_K_min_products(y[i], m);
    if constexpr (kMinLanes) {
      acc_m = vfmaq_n_f32(acc_m, vcvtq_f32_s32(p), dmin);
    } else {
      const int32_t mins = vgetq_lane_s32(p, 0) + vgetq_lane_s32(p, 1) + vgetq_lane_s32(p, 2) +
                           vgetq_lane_s32(p, 3);
      summs = std::fma(dmin, static_cast<float>(mins), summs);
    }
  }
  return hsum8(acc) + (kMinLanes ? hsum4(acc_m) : summs);
}

template <class Isa>
float dot_q4_K_q8_K(const BlockQ4K* x, const BlockQ8K* y, int64_t nb) {
  return dot_q45_K_q8_K<Isa, BlockQ4K, q4_K_chunk, true>(x, y, nb);
}
template <class Isa>
float dot_q5_K_q8_K(const BlockQ5K* x, const BlockQ8K* y, int64_t nb) {
  return dot_q45_K_q8_K<Isa, BlockQ5K, q5_K_chunk, false>(x, y, nb);
}

// Q6_K x Q8_K: chunk c (32 elements) has scales[2c] on bytes 0-15 and scales[2c+1] on 16-31.
template <class Isa>
float dot_q6_K_q8_K(const BlockQ6K* x, const BlockQ8K* y, int64_t nb) {
  F32x8 acc;
  for (int64_t i = 0; i < nb; ++i) {
    int32x4_t lo = vdupq_n_s32(0), hi = vdupq_n_s32(0);
    for (int h = 0; h < 2; ++h) {
      int8x16_t q[8];
      q6_K_half(x[i], h, q);
      const int8_t* a = y[i].qs + 128 * h;
      const int8_t* sc = x[i].scales + 8 * h;
      for (int k = 0; k < 4; ++k) {
        lo = vmlaq_n_s32(lo, Isa::dot4(q[2 * k], vld1q_s8(a + 32 * k)), sc[2 * k]);
        hi = vmlaq_n_s32(hi, Isa::dot4(q[2 * k + 1], vld1q_s8(a + 32 * k + 16)), sc[2 * k + 1]);
      }
    }
    acc.fma(y[i].d * half_to_float(x[i].d), lo, hi);
  }
  return hsum8(acc);
}

// The gemv of a row dot product: rows row_bytes apart, one activation row.
template <class WBlock, class ABlock, int kBlock,
          float (*Dot)(const WBlock*, const ABlock*, int64_t)>
void gemv_rows(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
               float* y) {
  const auto* a = static_cast<const ABlock*>(act);
  for (int64_t r = 0; r < n_rows; ++r)
    y[r] = Dot(reinterpret_cast<const WBlock*>(w + r * row_bytes), a, n / kBlock);
}

template <class Isa>
constexpr auto gemv_q4_0_q8_0 = gemv_rows<BlockQ4_0, BlockQ8_0, kQK, dot_q4_0_q8_0<Isa>>;
template <class Isa>
constexpr auto gemv_q8_0_q8_0 = gemv_rows<BlockQ8_0, BlockQ8_0, kQK, dot_q8_0_q8_0<Isa>>;
template <class Isa>
constexpr auto gemv_q4_K_q8_K = gemv_rows<BlockQ4K, BlockQ8K, kQK_K, dot_q4_K_q8_K<Isa>>;
template <class Isa>
constexpr auto gemv_q5_K_q8_K = gemv_rows<BlockQ5K, BlockQ8K, kQK_K, dot_q5_K_q8_K<Isa>>;
template <class Isa>
constexpr auto gemv_q6_K_q8_K = gemv_rows<BlockQ6K, BlockQ8K, kQK_K, dot_q6_K_q8_K<Isa>>;

}  // namespace
}  // namespace kz::arm

#endif  // __aarch64__
