// Q6_K x Q8_K products for FEAT_I8MM over weights repacked into groups of 4 interleaved rows
// (kernel_table.h: PackedMatmul; packed_i8mm.h), in the order of x86's packed Q6_K kernels
// (x86/packed_q6_k_blocks.h), so the same bits as those. Per (row, token, super-block), with
// sumi_s the exact sum of (quant - 32) * activation over 16-element sub-block s and sc_s its
// signed 8-bit scale:
//   isum = sum_s sc_s * sumi_s                                                 (exact int32)
//   acc = fma(float(isum), d_w * d_a, acc)
// over the super-blocks in order, gemv and gemm alike.
//
// Element e = 128h + 32g + l of a row: low 4 bits from ql[64h + 32(g % 2) + l] (low nibble for
// g < 2), high 2 bits from qh[32h + l] >> 2g. The packed layout keeps, per h and 8-byte chunk c
// of l, the ql and qh bytes of rows 2p and 2p + 1 as 16-byte operands; one ql vector gives the
// quants of two groups g, one qh vector the high bits of all four.
#include <array>

#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/packed_i8mm.h"
#include "kernels/arm/quant_dot.h"

namespace kz::arm {
namespace {

using namespace packed;

// Super-block b of a group of 4 rows. scales[s][r]: row r's scale of sub-block s.
// ql[h][c][i][p]: bytes 64h + 32i + 8c .. + 7 of rows 2p and 2p + 1's ql;
// qh[h][c][p]: bytes 32h + 8c .. + 7 of their qh.
struct PackedQ6K {
  uint16_t d[kRows];
  int8_t scales[16][kRows];
  uint8_t ql[2][4][2][2][16];
  uint8_t qh[2][4][2][16];
};
static_assert(sizeof(PackedQ6K) == kRows * sizeof(BlockQ6K));

// vshlq_u8 counts for group g (negative: right): ql's nibble g / 2 to bits 0-3, qh's bits 2g and
// 2g + 1 to bits 4, 5. Loaded, not computed: g runs in a loop (unrolled, GCC spills registers).
constexpr int8_t kLowShift[4] = {0, 0, -4, -4}, kHighShift[4] = {4, 2, 0, -2};

struct Q6KWeights {
  using Block = BlockQ6K;
  using Packed = PackedQ6K;
  static constexpr int64_t kBlock = kQK_K;
  static void pack_block(const Block* const rows[kRows], Packed& out) {
    for (int r = 0; r < kRows; ++r) {
      out.d[r] = rows[r]->d;
      for (int s = 0; s < 16; ++s) out.scales[s][r] = rows[r]->scales[s];
    }
    for (int h = 0; h < 2; ++h)
      for (int c = 0; c < 4; ++c)
        for (int p = 0; p < 2; ++p) {
          const Block &r0 = *rows[2 * p], &r1 = *rows[2 * p + 1];
          for (int i = 0; i < 2; ++i) {
            const int at = 64 * h + 32 * i + 8 * c;
            interleave_pair(r0.ql + at, r1.ql + at, out.ql[h][c][i][p]);
          }
          interleave_pair(r0.qh + 32 * h + 8 * c, r1.qh + 32 * h + 8 * c, out.qh[h][c][p]);
        }
  }
  // Operands w[p][c] of group g of half h: quants - 32 of elements 128h + 32g + 8c ...
  static void get(const Packed& b, int h, int g, int8x16_t w[2][4]) {
    for (int c = 0; c < 4; ++c)
      for (int p = 0; p < 2; ++p) {
        const uint8x16_t l = vld1q_u8(b.ql[h][c][g % 2][p]);
        const uint8x16_t low = vandq_u8(vshlq_u8(l, vld1q_dup_s8(&kLowShift[g])), vdupq_n_u8(0x0F));
        w[p][c] = with_high_bits(low, vld1q_u8(b.qh[h][c][p]), g);
      }
  }
  // The operands of row pair p for groups i and i + 2 (i < 2) of half h, which share their ql
  // and qh bytes: lo[c] from ql's low nibbles (group i), hi[c] from its high ones (i + 2).
  static void get_two(const Packed& b, int h, int i, int p, int8x16_t lo[4], int8x16_t hi[4]) {
    for (int c = 0; c < 4; ++c) {
      const uint8x16_t l = vld1q_u8(b.ql[h][c][i][p]), hb = vld1q_u8(b.qh[h][c][p]);
      lo[c] = with_high_bits(vandq_u8(l, vdupq_n_u8(0x0F)), hb, i);
      hi[c] = with_high_bits(vshrq_n_u8(l, 4), hb, i + 2);
    }
  }
  // Group g's quants - 32: low 4 bits `low`, bits 2g and 2g + 1 of qh bytes `hb` above them.
  static int8x16_t with_high_bits(uint8x16_t low, uint8x16_t hb, int g) {
    const uint8x16_t high = vandq_u8(vshlq_u8(hb, vld1q_dup_s8(&kHighShift[g])), vdupq_n_u8(0x30));
    return vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(low, high)), vdupq_n_s8(32));
  }
};

// scale_pair's table indices for sub-block s % 4 and row pair p, as constants (see kLowShift).
constexpr auto kScaleIndex = [] {
  std::array<std::array<std::array<uint32_t, 4>, 2>, 4> idx{};
  for (int s = 0; s < 4; ++s)
    for (int p = 0; p < 2; ++p)
      for (int lane = 0; lane < 4; ++lane)
        idx[s][p][lane] = 0x00FFFFFFu | uint32_t(4 * s + 2 * p + lane / 2) << 24;
  return idx;
}();
// {sc[2p][s], sc[2p][s], sc[2p + 1][s], sc[2p + 1][s]} as int32: the table lookup puts each
// scale in its lane's top byte (indices past 15 read as 0), the arithmetic shift sign-extends.
int32x4_t scale_pair(const PackedQ6K& b, int p, int s) {
  const int8x16_t four = vld1q_s8(b.scales[s & ~3]);  // sub-blocks s & ~3 .. + 3, 4 rows each
  const uint8x16_t idx = vreinterpretq_u8_u32(vld1q_u32(kScaleIndex[s & 3][p].data()));
  return vshrq_n_s32(vreinterpretq_s32_s8(vqtbl1q_s8(four, idx)), 24);
}

// Exact sums over 16 elements (chunks c0, c0 + 1) of a 2x2 (row, token) tile.
inline int32x4_t mmla16(const int8x16_t w[4], const TokenPair& t, int c0) {
  return vmmlaq_s32(vmmlaq_s32(vdupq_n_s32(0), w[c0], t.c[c0]), w[c0 + 1], t.c[c0 + 1]);
}

// One group of 4 rows x NT <= kTokens tokens (packed_i8mm.h): 8, as matmul_packed_q4_k_i8mm.cpp
// (a few spills, fewer instructions per block).
struct Tiles {
  using Packed = PackedQ6K;
  static constexpr int64_t kBlock = kQK_K;
  static constexpr int kTokens = 8;
  // One token (a pair of it with itself): groups g and g + 2 from one load of the bytes they
  // share, which the 8-token loop cannot afford in registers. The group order differs from that
  // loop's, but isum is an exact integer sum: the same bits.
  static void one_token(const Packed& wb, const ActPairK& a, int32x4_t isum[2][1]) {
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 2; ++i) {
        const TokenPair t_lo(a.qs + 16 * h + 4 * i), t_hi(a.qs + 16 * h + 4 * i + 8);
        const int s_lo = 8 * h + 2 * i, s_hi = s_lo + 4;  // groups i and i + 2's first sub-block
        for (int p = 0; p < 2; ++p) {
          int8x16_t lo[4], hi[4];
          Q6KWeights::get_two(wb, h, i, p, lo, hi);
          int32x4_t v = isum[p][0];
          v = vmlaq_s32(v, mmla16(lo, t_lo, 0), scale_pair(wb, p, s_lo));
          v = vmlaq_s32(v, mmla16(lo, t_lo, 2), scale_pair(wb, p, s_lo + 1));
          v = vmlaq_s32(v, mmla16(hi, t_hi, 0), scale_pair(wb, p, s_hi));
          isum[p][0] = vmlaq_s32(v, mmla16(hi, t_hi, 2), scale_pair(wb, p, s_hi + 1));
        }
      }
  }
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
      int32x4_t isum[2][TP];
      for (auto& row : isum)
        for (auto& v : row) v = vdupq_n_s32(0);
      if constexpr (NT == 1) {
        one_token(wb, *a[0], isum);
      } else {
        for (int h = 0; h < 2; ++h)
          for (int g = 0; g < 4; ++g) {
            int8x16_t q[2][4];
            Q6KWeights::get(wb, h, g, q);
            const int s = 8 * h + 2 * g;  // sub-blocks s (chunks 0, 1) and s + 1 (chunks 2, 3)
            for (int k = 0; k < TP; ++k) {
              const TokenPair tok(a[k]->qs + 16 * h + 4 * g);  // elements 128h + 32g ...
              for (int p = 0; p < 2; ++p) {
                isum[p][k] = vmlaq_s32(isum[p][k], mmla16(q[p], tok, 0), scale_pair(wb, p, s));
                isum[p][k] = vmlaq_s32(isum[p][k], mmla16(q[p], tok, 2), scale_pair(wb, p, s + 1));
              }
            }
          }
      }
      const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(wb.d)));
      for (int k = 0; k < TP; ++k) {
        const float32x4_t da = vld1q_f32(a[k]->d);
        for (int p = 0; p < 2; ++p)
          acc[p][k] =
              vfmaq_f32(acc[p][k], vcvtq_f32_s32(isum[p][k]), vmulq_f32(row_pair(dw, p), da));
      }
    }
    store_tile<NT>(acc, y, y_stride);
  }
};

}  // namespace

void pack_q6_K_x4(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack<Q6KWeights>(w, row_bytes, n_rows, n, dst);
}
void gemv_q6_Kx4_q8_K__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                 const void* act, int64_t n, float* y) {
  packed::gemv<Tiles>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q6_Kx4_q8_K__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                 const void* act, uint64_t act_row_bytes, int64_t n_tok, int64_t n,
                                 float* y, int64_t y_stride) {
  packed::gemm<Tiles>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

}  // namespace kz::arm
