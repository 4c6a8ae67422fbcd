// Dot products of one quantized weight row with one activation row, written once for every
// ARM instruction set: `Isa::dot(acc, a, b)` adds the 16 products a[i] * b[i] (int8) into the
// four int32 lanes of acc, in some lane order; only the lanes' total is used. The including file
// supplies Isa (gemv_neon.cpp: vmull + vpadal; gemv_dotprod.cpp: vdotq_s32).
//
// Everything here has internal linkage (an unnamed namespace in a header, on purpose): each
// file that includes it is compiled with different -march flags, and one shared inline copy
// would let the linker keep, say, the dotprod build for the baseline entry point.
#pragma once

#if defined(__aarch64__)

#include <arm_neon.h>

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

// Σ_s m[s] * (bsums[2s] + bsums[2s+1]): the min term of Q4_K / Q5_K.
inline int32_t q8_K_min_sum(const BlockQ8K& y, const uint8_t m[8]) {
  const int16x8_t pair_sums = vpaddq_s16(vld1q_s16(y.bsums), vld1q_s16(y.bsums + 8));
  const int16x8_t mins = vreinterpretq_s16_u16(vmovl_u8(vld1_u8(m)));
  const int32x4_t prod = vaddq_s32(vmull_s16(vget_low_s16(pair_sums), vget_low_s16(mins)),
                                   vmull_high_s16(pair_sums, mins));
  return vaddvq_s32(prod);
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

template <class Isa>
int32x4_t dot32(int32x4_t acc, int8x16_t w0, int8x16_t w1, const int8_t* a) {
  return Isa::dot(Isa::dot(acc, w0, vld1q_s8(a)), w1, vld1q_s8(a + 16));
}

// Q4_0 x Q8_0 and Q8_0 x Q8_0: the reference's f32 expressions, so bit-identical to it.
template <class Isa>
float dot_q4_0_q8_0(const BlockQ4_0* x, const BlockQ8_0* y, int64_t nb) {
  float sumf = 0;
  for (int64_t i = 0; i < nb; ++i) {
    int8x16_t lo, hi;
    q4_0_quants(x[i], lo, hi);
    const int32_t sumi = vaddvq_s32(dot32<Isa>(vdupq_n_s32(0), lo, hi, y[i].qs));
    sumf += static_cast<float>(sumi) * half_to_float(x[i].d) * half_to_float(y[i].d);
  }
  return sumf;
}

template <class Isa>
float dot_q8_0_q8_0(const BlockQ8_0* x, const BlockQ8_0* y, int64_t nb) {
  float sumf = 0;
  for (int64_t i = 0; i < nb; ++i) {
    const int32x4_t acc =
        dot32<Isa>(vdupq_n_s32(0), vld1q_s8(x[i].qs), vld1q_s8(x[i].qs + 16), y[i].qs);
    sumf += static_cast<float>(vaddvq_s32(acc)) * (half_to_float(x[i].d) * half_to_float(y[i].d));
  }
  return sumf;
}

// Q4_K / Q5_K x Q8_K: per super-block d·Σ_s sc_s·(q·a)_s − dmin·Σ_s m_s·bsum_s.
template <class Isa, class Block, void (*Chunk)(const Block&, int, int8x16_t*)>
float dot_q45_K_q8_K(const Block* x, const BlockQ8K* y, int64_t nb) {
  float sumf = 0;
  for (int64_t i = 0; i < nb; ++i) {
    uint8_t sc[8], m[8];
    q4_K_scales_mins(x[i].scales, sc, m);
    int32x4_t acc = vdupq_n_s32(0);
    for (int j = 0; j < 4; ++j) {
      int8x16_t q[4];
      Chunk(x[i], j, q);
      const int8_t* a = y[i].qs + 64 * j;
      acc = vmlaq_n_s32(acc, dot32<Isa>(vdupq_n_s32(0), q[0], q[1], a), sc[2 * j]);
      acc = vmlaq_n_s32(acc, dot32<Isa>(vdupq_n_s32(0), q[2], q[3], a + 32), sc[2 * j + 1]);
    }
    const float d = half_to_float(x[i].d) * y[i].d;
    const float dmin = half_to_float(x[i].dmin) * y[i].d;
    sumf += d * static_cast<float>(vaddvq_s32(acc));
    sumf -= dmin * static_cast<float>(q8_K_min_sum(y[i], m));
  }
  return sumf;
}

template <class Isa>
float dot_q4_K_q8_K(const BlockQ4K* x, const BlockQ8K* y, int64_t nb) {
  return dot_q45_K_q8_K<Isa, BlockQ4K, q4_K_chunk>(x, y, nb);
}
template <class Isa>
float dot_q5_K_q8_K(const BlockQ5K* x, const BlockQ8K* y, int64_t nb) {
  return dot_q45_K_q8_K<Isa, BlockQ5K, q5_K_chunk>(x, y, nb);
}

// Q6_K x Q8_K: per super-block d·Σ_g scales[g]·(q·a)_g over 16 groups of 16.
template <class Isa>
float dot_q6_K_q8_K(const BlockQ6K* x, const BlockQ8K* y, int64_t nb) {
  float sumf = 0;
  for (int64_t i = 0; i < nb; ++i) {
    int32x4_t acc = vdupq_n_s32(0);
    for (int h = 0; h < 2; ++h) {
      int8x16_t q[8];
      q6_K_half(x[i], h, q);
      for (int k = 0; k < 8; ++k) {
        const int32x4_t p = Isa::dot(vdupq_n_s32(0), q[k], vld1q_s8(y[i].qs + 128 * h + 16 * k));
        acc = vmlaq_n_s32(acc, p, x[i].scales[8 * h + k]);
      }
    }
    sumf += (half_to_float(x[i].d) * y[i].d) * static_cast<float>(vaddvq_s32(acc));
  }
  return sumf;
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
