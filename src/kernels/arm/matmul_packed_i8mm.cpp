// Q4_0 / Q8_0 x Q8_0 products over weights repacked into groups of 4 interleaved rows
// (kernel_table.h: PackedMatmul; packed_i8mm.h), in the block-sum order of gemm_i8mm.cpp:
// per output acc = fma(float(exact block sum), d_w * d_a, acc) over the blocks in order, so the
// same bits as gemv_*__neon_i8mm / gemm_*_4x4__neon_i8mm (and as x86's packed kernels).
//
// Where the row-major i8mm kernels zip every weight block of two rows into vmmlaq_s32 operands
// (8 zips per 4 rows and block) and, for Q4_0, subtract the zero point 8 (4 more operations), the
// packed layout stores the operands ready: a 16-byte load is 8 bytes of row 2p and the same 8 of
// row 2p + 1. Q4_0's bytes are stored XOR 0x88, so that (byte << 4) and (byte & 0xF0), read as
// int8, are 16 (q - 8) for the low and high nibble: two operations per 16 bytes give both
// operands, the block sums come out 16 times too large (exact: |16 * 32 * 8 * 127| < 2^31), and
// the conversion to float divides them by 16 for free (vcvtq_n_f32_s32 with 4 fraction bits,
// exact for integers below 2^24).
// The activations are stored the same way, two tokens interleaved (quantize_q8_0_pair__neon), so
// that the tiles load their operands without zips either. A tile is 4 rows x up to 8 tokens (4
// token pairs: 8 accumulators, 8 weight operands, 4 token operands in the 32 vector registers);
// a lone token (gemv, an odd tail) is paired with itself.
#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/packed_i8mm.h"
#include "kernels/arm/quant_dot.h"

namespace kz::arm {
namespace {

using namespace packed;

// Block b of a group of 4 rows: the rows' fp16 scales, then operand vectors. Q4_0: qs[2p + c] =
// bytes 8c..8c+7 of rows 2p and 2p + 1, XOR 0x88 (low nibbles: elements 8c.., high: 16 + 8c..).
// Q8_0: qs[4p + k] = quants 8k..8k+7 of rows 2p and 2p + 1.
struct PackedQ4_0 {
  uint16_t d[kRows];
  int8_t qs[4][16];
};
struct PackedQ8_0 {
  uint16_t d[kRows];
  int8_t qs[8][16];
};
static_assert(sizeof(PackedQ4_0) == kRows * sizeof(BlockQ4_0));
static_assert(sizeof(PackedQ8_0) == kRows * sizeof(BlockQ8_0));

// Block b of a pair of tokens' activations: the scales {d0, d1, d0, d1} (one load gives a 2x2
// tile's per-token lanes), then qs[k] = quants 8k..8k+7 of token 0, then of token 1.
struct ActPairQ8_0 {
  uint16_t d[4];
  int8_t qs[4][16];
};
static_assert(sizeof(ActPairQ8_0) == 2 * kPackedQ8_0ActBlockBytes);

// w[p][k]: the operand of rows 2p, 2p + 1 for elements 8k..8k+7 (Q4_0: times 16, kFracBits 4).
struct Q4_0Weights {
  using Block = BlockQ4_0;
  using Packed = PackedQ4_0;
  static constexpr int64_t kBlock = kQK;
  static constexpr int kFracBits = 4;
  static void pack_block(const Block* const rows[kRows], Packed& out) {
    for (int r = 0; r < kRows; ++r) out.d[r] = rows[r]->d;
    for (int p = 0; p < 2; ++p)
      for (int c = 0; c < 2; ++c)
        interleave_pair(rows[2 * p]->qs + 8 * c, rows[2 * p + 1]->qs + 8 * c, out.qs[2 * p + c],
                        0x88);
  }
  static void operands(const Packed& b, int8x16_t w[2][4]) {
    for (int p = 0; p < 2; ++p)
      for (int c = 0; c < 2; ++c) {
        const int8x16_t v = vld1q_s8(b.qs[2 * p + c]);
        w[p][c] = vshlq_n_s8(v, 4);
        w[p][c + 2] = vandq_s8(v, vdupq_n_s8(int8_t(0xF0)));
      }
  }
};
struct Q8_0Weights {
  using Block = BlockQ8_0;
  using Packed = PackedQ8_0;
  static constexpr int64_t kBlock = kQK;
  static constexpr int kFracBits = 0;
  static void pack_block(const Block* const rows[kRows], Packed& out) {
    for (int r = 0; r < kRows; ++r) out.d[r] = rows[r]->d;
    for (int p = 0; p < 2; ++p)
      for (int k = 0; k < 4; ++k)
        interleave_pair(rows[2 * p]->qs + 8 * k, rows[2 * p + 1]->qs + 8 * k, out.qs[4 * p + k]);
  }
  static void operands(const Packed& b, int8x16_t w[2][4]) {
    for (int p = 0; p < 2; ++p)
      for (int k = 0; k < 4; ++k) w[p][k] = vld1q_s8(b.qs[4 * p + k]);
  }
};

template <int kFracBits>
float32x4_t to_float(int32x4_t s) {
  if constexpr (kFracBits == 0)
    return vcvtq_f32_s32(s);
  else
    return vcvtq_n_f32_s32(s, kFracBits);
}

template <class W>
struct Tiles {
  using Packed = typename W::Packed;
  static constexpr int64_t kBlock = kQK;
  static constexpr int kTokens = 8;
  template <int NT>
  static void tile(const Packed* w, const uint8_t* act, uint64_t act_row_bytes, int64_t nb,
                   float* y, int64_t y_stride) {
    constexpr int TP = (NT + 1) / 2;
    const ActPairQ8_0* a[TP];
    for (int k = 0; k < TP; ++k)
      a[k] = reinterpret_cast<const ActPairQ8_0*>(act + 2 * k * act_row_bytes);
    float32x4_t acc[2][TP];
    for (auto& row : acc)
      for (auto& v : row) v = vdupq_n_f32(0);
    for (int64_t b = 0; b < nb; ++b) {
      int8x16_t q[2][4];
      W::operands(w[b], q);
      const float32x4_t dw = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(w[b].d)));
      if constexpr (NT == 1) {
        // Rows {0, 0, 1, 1} and {2, 2, 3, 3} of the token with itself -> rows 0..3 in one vector.
        const TokenPair tok(a[0][b].qs);
        const int32x4_t s = vuzp1q_s32(mmla32(q[0], tok), mmla32(q[1], tok));
        acc[0][0] = vfmaq_f32(acc[0][0], to_float<W::kFracBits>(s),
                              vmulq_n_f32(dw, half_to_float(a[0][b].d[0])));
      } else {
        const float32x4_t dw_pair[2] = {row_pair(dw, 0), row_pair(dw, 1)};
        for (int k = 0; k < TP; ++k) {
          const TokenPair tok(a[k][b].qs);
          const float32x4_t da = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(a[k][b].d)));
          for (int p = 0; p < 2; ++p)
            acc[p][k] = vfmaq_f32(acc[p][k], to_float<W::kFracBits>(mmla32(q[p], tok)),
                                  vmulq_f32(dw_pair[p], da));
        }
      }
    }
    if constexpr (NT == 1)
      vst1q_f32(y, acc[0][0]);
    else
      store_tile<NT>(acc, y, y_stride);
  }
};

}  // namespace

void quantize_q8_0_pair__neon(const float* x0, const float* x1, void* dst, int64_t n) {
  auto* out = static_cast<ActPairQ8_0*>(dst);
  for (int64_t b = 0; b < n / kQK; ++b) {
    BlockQ8_0 t[2];
    quantize_q8_0__neon(x0 + b * kQK, &t[0], kQK);
    quantize_q8_0__neon(x1 + b * kQK, &t[1], kQK);
    for (int i = 0; i < 4; ++i) out[b].d[i] = t[i % 2].d;
    for (int k = 0; k < 4; ++k) interleave_pair(t[0].qs + 8 * k, t[1].qs + 8 * k, out[b].qs[k]);
  }
}
void pack_q4_0_x4(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack<Q4_0Weights>(w, row_bytes, n_rows, n, dst);
}
void pack_q8_0_x4(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack<Q8_0Weights>(w, row_bytes, n_rows, n, dst);
}
void gemv_q4_0x4_q8_0__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                 const void* act, int64_t n, float* y) {
  packed::gemv<Tiles<Q4_0Weights>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_0x4_q8_0__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                 const void* act, uint64_t act_row_bytes, int64_t n_tok, int64_t n,
                                 float* y, int64_t y_stride) {
  packed::gemm<Tiles<Q4_0Weights>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}
void gemv_q8_0x4_q8_0__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                 const void* act, int64_t n, float* y) {
  packed::gemv<Tiles<Q8_0Weights>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q8_0x4_q8_0__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                 const void* act, uint64_t act_row_bytes, int64_t n_tok, int64_t n,
                                 float* y, int64_t y_stride) {
  packed::gemm<Tiles<Q8_0Weights>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

}  // namespace kz::arm
