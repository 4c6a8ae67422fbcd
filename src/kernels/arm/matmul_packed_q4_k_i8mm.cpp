// Q4_K / Q5_K x Q8_K products for FEAT_I8MM over weights repacked into groups of 4 interleaved
// rows (kernel_table.h: PackedMatmul; packed_i8mm.h), in the order of x86's packed K-quant
// kernels (x86/packed_q4_k_blocks.h), so the same bits as those. Per (row, token, super-block),
// with sumi_s the exact sum of quant * activation over 32-element sub-block s, S_s the sum of
// the activation's quants there, sc_s and m_s the 6-bit scale and min:
//   isum = sum_s sc_s * sumi_s,  imin = sum_s m_s * S_s                      (exact int32)
//   acc = fma(float(isum), d_w * d_a, acc),  acc = fma(float(imin), dmin_w * -d_a, acc)
// over the super-blocks in order, gemv and gemm alike. The levels below (quant_dot.h) keep the
// reference's AVX2 order instead, whose 4-product lanes vmmlaq_s32 cannot give.
//
// vmmlaq_s32 gives a sub-block's sums for 2 rows x 2 tokens in 4 instructions; the 16-byte
// operands are stored ready (8 bytes of row 2p, then the same 8 of row 2p + 1), and so are the
// activations' (quantize_q8_K_pair__neon: two tokens interleaved). The per-row scale of a 2x2 tile,
// {sc_r0, sc_r0, sc_r1, sc_r1}, is one table lookup from the 4 rows' unpacked scales.
#include <cstring>
#include <type_traits>

#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/packed_i8mm.h"
#include "kernels/arm/quant_dot.h"
#include "kernels/ref/vec_dot.h"

namespace kz::arm {
namespace {

using namespace packed;

// Super-block b of a group of 4 rows. scales[w][r]: 32-bit word w of row r's 12 scale bytes.
// qs[j][p][c]: bytes 32j + 8c .. 32j + 8c + 7 of rows 2p and 2p + 1 (low nibbles: elements 8c..
// of sub-block 2j, high nibbles: of sub-block 2j + 1).
struct PackedQ4K {
  uint16_t d[kRows], dmin[kRows];
  uint32_t scales[3][kRows];
  uint8_t qs[4][2][4][16];
};
static_assert(sizeof(PackedQ4K) == kRows * sizeof(BlockQ4K));

// Q5_K adds qh[p][c]: bytes 8c..8c+7 of rows 2p and 2p + 1's qh (bit s: the fifth bit of
// element 32s + 8c + i), one vector for all 4 chunks.
struct PackedQ5K {
  uint16_t d[kRows], dmin[kRows];
  uint32_t scales[3][kRows];
  uint8_t qh[2][4][16];
  uint8_t qs[4][2][4][16];
};
static_assert(sizeof(PackedQ5K) == kRows * sizeof(BlockQ5K));

template <class Packed, class Block>
void pack_block_k(const Block* const rows[kRows], Packed& out) {
  for (int r = 0; r < kRows; ++r) {
    out.d[r] = rows[r]->d;
    out.dmin[r] = rows[r]->dmin;
    for (int w = 0; w < 3; ++w) std::memcpy(&out.scales[w][r], rows[r]->scales + 4 * w, 4);
  }
  for (int p = 0; p < 2; ++p)
    for (int c = 0; c < 4; ++c) {
      for (int j = 0; j < 4; ++j)
        interleave_pair(rows[2 * p]->qs + 32 * j + 8 * c, rows[2 * p + 1]->qs + 32 * j + 8 * c,
                        out.qs[j][p][c]);
      if constexpr (std::is_same_v<Block, BlockQ5K>)
        interleave_pair(rows[2 * p]->qh + 8 * c, rows[2 * p + 1]->qh + 8 * c, out.qh[p][c]);
    }
}

// The 4 rows' 6-bit scales and mins (quant_dot.h: q4_K_scales_mins, one row per 32-bit lane):
// byte s of lane r of sc[0] is row r's scale of sub-block s, of sc[1] that of sub-block 4 + s;
// likewise m for the mins.
struct Scales {
  uint8x16_t sc[2], m[2];
};
template <class Packed>
Scales unpack_scales(const Packed& w) {
  const uint32x4_t u0 = vld1q_u32(w.scales[0]), u1 = vld1q_u32(w.scales[1]);
  const uint32x4_t u2 = vld1q_u32(w.scales[2]);
  const uint32x4_t six = vdupq_n_u32(0x3f3f3f3f), four = vdupq_n_u32(0x0f0f0f0f);
  const uint32x4_t two = vdupq_n_u32(0x03030303);
  auto high = [&](uint32x4_t low4, uint32x4_t top2) {
    return vreinterpretq_u8_u32(
        vorrq_u32(vandq_u32(low4, four), vshlq_n_u32(vandq_u32(vshrq_n_u32(top2, 6), two), 4)));
  };
  return {{vreinterpretq_u8_u32(vandq_u32(u0, six)), high(u2, u0)},
          {vreinterpretq_u8_u32(vandq_u32(u1, six)), high(vshrq_n_u32(u2, 4), u1)}};
}

// {x[2p][s], x[2p][s], x[2p + 1][s], x[2p + 1][s]} as int32 from one of Scales' vectors (s < 4
// here): table indices past 15 read as 0, which zero-extends the byte.
int32x4_t scale_pair(uint8x16_t x, int p, int s) {
  const uint32_t r0 = 0xFFFFFF00u | (8 * p + s), r1 = 0xFFFFFF00u | (8 * p + 4 + s);
  const uint32x4_t idx = {r0, r0, r1, r1};
  return vreinterpretq_s32_u8(vqtbl1q_u8(x, vreinterpretq_u8_u32(idx)));
}

// m_r · S_t over the 8 sub-blocks in 4 int32 lanes (each <= 63 * 32 * 127 * 2).
int32x4_t min_products(int16x8_t m, int16x8_t sums) {
  return vmlal_high_s16(vmull_s16(vget_low_s16(m), vget_low_s16(sums)), m, sums);
}

// The quants of chunk j (sub-blocks 2j: lo, 2j + 1: hi), as operands w[p][c].
struct Q4Quants {
  using Block = BlockQ4K;
  using Packed = PackedQ4K;
  static constexpr int64_t kBlock = kQK_K;
  static void pack_block(const Block* const rows[kRows], Packed& out) { pack_block_k(rows, out); }
  static void get(const Packed& b, int j, int8x16_t lo[2][4], int8x16_t hi[2][4]) {
    for (int p = 0; p < 2; ++p)
      for (int c = 0; c < 4; ++c) {
        const uint8x16_t v = vld1q_u8(b.qs[j][p][c]);
        lo[p][c] = low_nibbles(v);
        hi[p][c] = high_nibbles(v);
      }
  }
};
// Fifth bits 2j and 2j + 1 moved to bit 4 (quants up to 31).
struct Q5Quants {
  using Block = BlockQ5K;
  using Packed = PackedQ5K;
  static constexpr int64_t kBlock = kQK_K;
  static void pack_block(const Block* const rows[kRows], Packed& out) { pack_block_k(rows, out); }
  static void get(const Packed& b, int j, int8x16_t lo[2][4], int8x16_t hi[2][4]) {
    const uint8x16_t bit4 = vdupq_n_u8(0x10);
    // A negative count shifts right (vshlq_u8): bit 2j or 2j + 1 to bit 4 for every j.
    const int8x16_t to_lo = vdupq_n_s8(int8_t(4 - 2 * j)), to_hi = vdupq_n_s8(int8_t(3 - 2 * j));
    for (int p = 0; p < 2; ++p)
      for (int c = 0; c < 4; ++c) {
        const uint8x16_t v = vld1q_u8(b.qs[j][p][c]), h = vld1q_u8(b.qh[p][c]);
        lo[p][c] = vreinterpretq_s8_u8(
            vorrq_u8(vandq_u8(v, vdupq_n_u8(0x0F)), vandq_u8(vshlq_u8(h, to_lo), bit4)));
        hi[p][c] =
            vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(v, 4), vandq_u8(vshlq_u8(h, to_hi), bit4)));
      }
  }
};

// One group of 4 rows x NT <= kTokens tokens (packed_i8mm.h). At 8 tokens GCC spills a few
// vectors in the chunk loop, and still runs fewer instructions per block than at 4 (llvm-mca:
// docs/benchmarks.md, "ARM kernels: instruction counts").
template <class Q>
struct Tiles {
  using Packed = typename Q::Packed;
  static constexpr int64_t kBlock = kQK_K;
  static constexpr int kTokens = 8;
  template <int NT>
  static void tile(const Packed* w, const uint8_t* act, uint64_t act_row_bytes, int64_t nb,
                   float* y, int64_t y_stride) {
    constexpr int TP = (NT + 1) / 2;
    float32x4_t acc[2][TP];
    for (auto& row : acc)
      for (auto& v : row) v = vdupq_n_f32(0);
    for (int64_t b = 0; b < nb; ++b) {
      const Packed& wb = w[b];
      const ActPairK* a[TP];  // token pair k: tokens 2k and 2k + 1
      for (int k = 0; k < TP; ++k)
        a[k] = reinterpret_cast<const ActPairK*>(act + 2 * k * act_row_bytes) + b;
      const Scales s = unpack_scales(wb);
      int32x4_t isum[2][TP];
      for (auto& row : isum)
        for (auto& v : row) v = vdupq_n_s32(0);
      for (int j = 0; j < 4; ++j) {
        int8x16_t lo[2][4], hi[2][4];
        Q::get(wb, j, lo, hi);
        for (int k = 0; k < TP; ++k) {
          const TokenPair tlo(a[k]->qs + 8 * j), thi(a[k]->qs + 8 * j + 4);
          for (int p = 0; p < 2; ++p) {
            isum[p][k] =
                vmlaq_s32(isum[p][k], mmla32(lo[p], tlo), scale_pair(s.sc[j / 2], p, 2 * j % 4));
            isum[p][k] = vmlaq_s32(isum[p][k], mmla32(hi[p], thi),
                                   scale_pair(s.sc[j / 2], p, 2 * j % 4 + 1));
          }
        }
      }
      // Row r's 8 mins as int16: rows 0, 1 from the low and high half of z[0], rows 2, 3 of z[1].
      const uint32x4_t m0 = vreinterpretq_u32_u8(s.m[0]), m1 = vreinterpretq_u32_u8(s.m[1]);
      const uint8x16_t z[2] = {vreinterpretq_u8_u32(vzip1q_u32(m0, m1)),
                               vreinterpretq_u8_u32(vzip2q_u32(m0, m1))};
      const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(wb.d)));
      const float32x4_t dm = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(wb.dmin)));
      for (int k = 0; k < TP; ++k) {
        const int16x8_t s0 = vld1q_s16(a[k]->sub_sums[0]), s1 = vld1q_s16(a[k]->sub_sums[1]);
        const float32x4_t da = vld1q_f32(a[k]->d);
        for (int p = 0; p < 2; ++p) {
          const int16x8_t mr0 = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(z[p])));
          const int16x8_t mr1 = vreinterpretq_s16_u16(vmovl_high_u8(z[p]));
          // Lanes {r0 t0, r0 t1, r1 t0, r1 t1}, as isum's.
          const int32x4_t imin =
              vpaddq_s32(vpaddq_s32(min_products(mr0, s0), min_products(mr0, s1)),
                         vpaddq_s32(min_products(mr1, s0), min_products(mr1, s1)));
          acc[p][k] =
              vfmaq_f32(acc[p][k], vcvtq_f32_s32(isum[p][k]), vmulq_f32(row_pair(dw, p), da));
          acc[p][k] =
              vfmaq_f32(acc[p][k], vcvtq_f32_s32(imin), vmulq_f32(row_pair(dm, p), vnegq_f32(da)));
        }
      }
    }
    store_tile<NT>(acc, y, y_stride);
  }
};

}  // namespace

void quantize_q8_K_pair__neon(const float* x0, const float* x1, void* dst, int64_t n) {
  auto* out = static_cast<ActPairK*>(dst);
  for (int64_t b = 0; b < n / kQK_K; ++b) {
    BlockQ8K q[2];
    for (int t = 0; t < 2; ++t) {
      ref::quantize_activation(DType::Q8_K, (t ? x1 : x0) + b * kQK_K, &q[t], kQK_K);
      for (int s = 0; s < 8; ++s)
        out[b].sub_sums[t][s] = int16_t(q[t].bsums[2 * s] + q[t].bsums[2 * s + 1]);
    }
    for (int i = 0; i < 4; ++i) out[b].d[i] = q[i % 2].d;
    for (int k = 0; k < 32; ++k) interleave_pair(q[0].qs + 8 * k, q[1].qs + 8 * k, out[b].qs[k]);
    std::memset(out[b].pad, 0, sizeof out[b].pad);
  }
}

void pack_q4_K_x4(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack<Q4Quants>(w, row_bytes, n_rows, n, dst);
}
void pack_q5_K_x4(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack<Q5Quants>(w, row_bytes, n_rows, n, dst);
}
void gemv_q4_Kx4_q8_K__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                 const void* act, int64_t n, float* y) {
  packed::gemv<Tiles<Q4Quants>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_Kx4_q8_K__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                 const void* act, uint64_t act_row_bytes, int64_t n_tok, int64_t n,
                                 float* y, int64_t y_stride) {
  packed::gemm<Tiles<Q4Quants>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}
void gemv_q5_Kx4_q8_K__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                 const void* act, int64_t n, float* y) {
  packed::gemv<Tiles<Q5Quants>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q5_Kx4_q8_K__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                 const void* act, uint64_t act_row_bytes, int64_t n_tok, int64_t n,
                                 float* y, int64_t y_stride) {
  packed::gemm<Tiles<Q5Quants>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

}  // namespace kz::arm
