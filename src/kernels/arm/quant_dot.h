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
// gemm (several activation rows) unpacks each weight block once for up to 4 activation rows;
// per output it does gemv's arithmetic, so it gives gemv's bits.
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
#include <type_traits>

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

// 8 f32 lanes and the AVX2 horizontal sums (x86/simd_avx2.h: hsum_f32x8, hsum_f32x4):
// ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)).
struct F32x8 {
  float32x4_t lo = vdupq_n_f32(0), hi = vdupq_n_f32(0);
  // lanes += d * float(lanes ilo | ihi), fused like _mm256_fmadd_ps.
  void fma(float d, int32x4_t ilo, int32x4_t ihi) {
    lo = vfmaq_n_f32(lo, vcvtq_f32_s32(ilo), d);
    hi = vfmaq_n_f32(hi, vcvtq_f32_s32(ihi), d);
  }
};
inline float hsum4(float32x4_t r) {
  return vpadds_f32(vadd_f32(vget_low_f32(r), vget_high_f32(r)));
}
inline float hsum8(const F32x8& x) {
  return hsum4(vaddq_f32(x.lo, x.hi));
}

// Weight formats. Each unpacks one block (load) and adds its product with one activation block
// to an accumulator (add); a block is unpacked once however many activation rows use it.

// Q4_0 / Q8_0 x Q8_0: acc = fma(d_w * d_a, lanes, acc) per block.
struct Q8_0Acc {
  F32x8 acc;
  float sum() const { return hsum8(acc); }
};
struct WeightsQ4_0 {
  using Block = BlockQ4_0;
  using ABlock = BlockQ8_0;
  using Acc = Q8_0Acc;
  static constexpr int kBlock = kQK;
  int8x16_t lo, hi;  // elements 0..15, 16..31
  float d;
  void load(const Block& b) {
    const uint8x16_t v = vld1q_u8(b.qs);
    lo = vsubq_s8(low_nibbles(v), vdupq_n_s8(8));
    hi = vsubq_s8(high_nibbles(v), vdupq_n_s8(8));
    d = half_to_float(b.d);
  }
  template <class Isa>
  void add(Acc& a, const ABlock& y) const {
    a.acc.fma(d * half_to_float(y.d), Isa::dot4(lo, vld1q_s8(y.qs)),
              Isa::dot4(hi, vld1q_s8(y.qs + 16)));
  }
};
struct WeightsQ8_0 : WeightsQ4_0 {
  using Block = BlockQ8_0;
  void load(const Block& b) {
    lo = vld1q_s8(b.qs);
    hi = vld1q_s8(b.qs + 16);
    d = half_to_float(b.d);
  }
};

// Q4_K / Q5_K / Q6_K x Q8_K. Integer lanes per super-block: Σ over 16-element groups g of
// scale_g · (4-product lanes of g), groups at bytes 0-15 of a 32-element chunk going to lanes
// 0-3 and bytes 16-31 to lanes 4-7; acc = fma(d_a * d_w, lanes, acc).
struct UnpackedK {
  int8x16_t q[16];    // elements 16g .. 16g+15
  int32_t scale[16];  // of group g
  float d;
  template <class Isa>
  void lanes(const BlockQ8K& y, int32x4_t& lo, int32x4_t& hi) const {
    lo = hi = vdupq_n_s32(0);
    for (int c = 0; c < 8; ++c) {
      lo = vmlaq_n_s32(lo, Isa::dot4(q[2 * c], vld1q_s8(y.qs + 32 * c)), scale[2 * c]);
      hi = vmlaq_n_s32(hi, Isa::dot4(q[2 * c + 1], vld1q_s8(y.qs + 32 * c + 16)), scale[2 * c + 1]);
    }
  }
};

// The min products of Q4_K / Q5_K in 4 lanes: lane k = m[2k]·S[2k] + m[2k+1]·S[2k+1], with S[s]
// the activation sum of sub-block s (bsums[2s] + bsums[2s+1]).
inline int32x4_t q8_K_min_products(const BlockQ8K& y, int16x8_t mins) {
  const int16x8_t sums = vpaddq_s16(vld1q_s16(y.bsums), vld1q_s16(y.bsums + 8));
  return vpaddq_s32(vmull_s16(vget_low_s16(sums), vget_low_s16(mins)), vmull_high_s16(sums, mins));
}

// Q4_K keeps the mins in 4 f32 lanes, acc_m = fma(-d_a * dmin_w, min products, acc_m); Q5_K in
// one f32, summs = fma(-d_a * dmin_w, Σ min products, summs): the reference's kernels differ.
struct Q4KAcc {
  F32x8 acc;
  float32x4_t acc_m = vdupq_n_f32(0);
  float sum() const { return hsum8(acc) + hsum4(acc_m); }
};
struct Q5KAcc {
  F32x8 acc;
  float summs = 0;
  float sum() const { return hsum8(acc) + summs; }
};

template <class BlockT, class AccT>
struct WeightsQ45K {
  using Block = BlockT;
  using ABlock = BlockQ8K;
  using Acc = AccT;
  static constexpr int kBlock = kQK_K;
  UnpackedK u;
  int16x8_t mins;
  float dmin;
  void load(const Block& b) {
    uint8_t sc[8], m[8];
    q4_K_scales_mins(b.scales, sc, m);
    for (int g = 0; g < 16; ++g) u.scale[g] = sc[g / 2];
    mins = vreinterpretq_s16_u16(vmovl_u8(vld1_u8(m)));
    u.d = half_to_float(b.d);
    dmin = half_to_float(b.dmin);
    uint8x16_t h0 = vdupq_n_u8(0), h1 = vdupq_n_u8(0);
    if constexpr (std::is_same_v<Block, BlockQ5K>) h0 = vld1q_u8(b.qh), h1 = vld1q_u8(b.qh + 16);
    for (int j = 0; j < 4; ++j) {  // sub-blocks 2j (low nibbles) and 2j+1 (high nibbles)
      const uint8x16_t b0 = vld1q_u8(b.qs + 32 * j), b1 = vld1q_u8(b.qs + 32 * j + 16);
      uint8x16_t q[4] = {vandq_u8(b0, vdupq_n_u8(0x0F)), vandq_u8(b1, vdupq_n_u8(0x0F)),
                         vshrq_n_u8(b0, 4), vshrq_n_u8(b1, 4)};
      if constexpr (std::is_same_v<Block, BlockQ5K>) {
        // Bit 4 of element e is bit e / 32 of qh[e % 32]: bits 2j and 2j+1 here.
        const uint8x16_t one = vdupq_n_u8(1);
        q[0] = vorrq_u8(q[0], vshlq_n_u8(vandq_u8(h0, one), 4));
        q[1] = vorrq_u8(q[1], vshlq_n_u8(vandq_u8(h1, one), 4));
        q[2] = vorrq_u8(q[2], vshlq_n_u8(vandq_u8(vshrq_n_u8(h0, 1), one), 4));
        q[3] = vorrq_u8(q[3], vshlq_n_u8(vandq_u8(vshrq_n_u8(h1, 1), one), 4));
        h0 = vshrq_n_u8(h0, 2);
        h1 = vshrq_n_u8(h1, 2);
      }
      for (int k = 0; k < 4; ++k) u.q[4 * j + k] = vreinterpretq_s8_u8(q[k]);
    }
  }
  template <class Isa>
  void add(Acc& a, const ABlock& y) const {
    int32x4_t lo, hi;
    u.lanes<Isa>(y, lo, hi);
    a.acc.fma(y.d * u.d, lo, hi);
    const float dm = -y.d * dmin;
    const int32x4_t p = q8_K_min_products(y, mins);
    if constexpr (std::is_same_v<Acc, Q4KAcc>) {
      a.acc_m = vfmaq_n_f32(a.acc_m, vcvtq_f32_s32(p), dm);
    } else {
      const int32_t sum =
          vgetq_lane_s32(p, 0) + vgetq_lane_s32(p, 1) + vgetq_lane_s32(p, 2) + vgetq_lane_s32(p, 3);
      a.summs = std::fma(dm, static_cast<float>(sum), a.summs);
    }
  }
};
using WeightsQ4K = WeightsQ45K<BlockQ4K, Q4KAcc>;
using WeightsQ5K = WeightsQ45K<BlockQ5K, Q5KAcc>;

struct WeightsQ6K {
  using Block = BlockQ6K;
  using ABlock = BlockQ8K;
  using Acc = Q8_0Acc;
  static constexpr int kBlock = kQK_K;
  UnpackedK u;
  // Element e = 128h + 32g + l: low 4 bits from ql[64h + 32(g % 2) + l] (low nibble for g < 2),
  // high 2 bits from qh[32h + l] >> 2g; stored + 32. Group 16e of scales[e / 16].
  void load(const Block& b) {
    const uint8x16_t m4 = vdupq_n_u8(0x0F), m2 = vdupq_n_u8(0x03);
    for (int h = 0; h < 2; ++h)
      for (int half = 0; half < 2; ++half) {  // l in [16 half, 16 half + 16)
        const uint8x16_t l0 = vld1q_u8(b.ql + 64 * h + 16 * half);
        const uint8x16_t l1 = vld1q_u8(b.ql + 64 * h + 32 + 16 * half);
        const uint8x16_t hb = vld1q_u8(b.qh + 32 * h + 16 * half);
        const uint8x16_t g[4] = {
            vorrq_u8(vandq_u8(l0, m4), vshlq_n_u8(vandq_u8(hb, m2), 4)),
            vorrq_u8(vandq_u8(l1, m4), vshlq_n_u8(vandq_u8(vshrq_n_u8(hb, 2), m2), 4)),
            vorrq_u8(vshrq_n_u8(l0, 4), vshlq_n_u8(vandq_u8(vshrq_n_u8(hb, 4), m2), 4)),
            vorrq_u8(vshrq_n_u8(l1, 4), vshlq_n_u8(vshrq_n_u8(hb, 6), 4)),
        };
        for (int k = 0; k < 4; ++k)
          u.q[8 * h + 2 * k + half] = vsubq_s8(vreinterpretq_s8_u8(g[k]), vdupq_n_s8(32));
      }
    for (int g = 0; g < 16; ++g) u.scale[g] = b.scales[g];
    u.d = half_to_float(b.d);
  }
  template <class Isa>
  void add(Acc& a, const ABlock& y) const {
    int32x4_t lo, hi;
    u.lanes<Isa>(y, lo, hi);
    a.acc.fma(y.d * u.d, lo, hi);
  }
};

// One weight row times NT activation rows (act_stride bytes apart): y[t * y_stride].
template <class Isa, class W, int NT>
void tile(const uint8_t* w_row, const uint8_t* act, uint64_t act_stride, int64_t nb, float* y,
          int64_t y_stride) {
  typename W::Acc acc[NT];
  const auto* x = reinterpret_cast<const typename W::Block*>(w_row);
  W unpacked;
  for (int64_t i = 0; i < nb; ++i) {
    unpacked.load(x[i]);
    for (int t = 0; t < NT; ++t)
      unpacked.template add<Isa>(
          acc[t], reinterpret_cast<const typename W::ABlock*>(act + t * act_stride)[i]);
  }
  for (int t = 0; t < NT; ++t) y[t * y_stride] = acc[t].sum();
}

template <class Isa, class W, int NT>
void rows(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const uint8_t* act,
          uint64_t act_stride, int64_t nb, float* y, int64_t y_stride) {
  for (int64_t r = 0; r < n_rows; ++r)
    tile<Isa, W, NT>(w + r * row_bytes, act, act_stride, nb, y + r, y_stride);
}

template <class Isa, class W>
void gemv(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
          float* y) {
  rows<Isa, W, 1>(w, row_bytes, n_rows, static_cast<const uint8_t*>(act), 0, n / W::kBlock, y, 0);
}

// Activation rows in groups of 4 (each weight block unpacked once per group), then the last 1-3.
// Per output the arithmetic is gemv's, so the bits are too.
template <class Isa, class W>
void gemm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
          uint64_t act_stride, int64_t n_act, int64_t n, float* y, int64_t y_stride) {
  const auto* a = static_cast<const uint8_t*>(act);
  const int64_t nb = n / W::kBlock;
  int64_t t = 0;
  for (; t + 4 <= n_act; t += 4)
    rows<Isa, W, 4>(w, row_bytes, n_rows, a + t * act_stride, act_stride, nb, y + t * y_stride,
                    y_stride);
  const uint8_t* at = a + t * act_stride;
  float* yt = y + t * y_stride;
  switch (n_act - t) {
    case 3:
      rows<Isa, W, 3>(w, row_bytes, n_rows, at, act_stride, nb, yt, y_stride);
      break;
    case 2:
      rows<Isa, W, 2>(w, row_bytes, n_rows, at, act_stride, nb, yt, y_stride);
      break;
    case 1:
      rows<Isa, W, 1>(w, row_bytes, n_rows, at, act_stride, nb, yt, y_stride);
      break;
    default:
      break;
  }
}

}  // namespace
}  // namespace kz::arm

#endif  // __aarch64__
