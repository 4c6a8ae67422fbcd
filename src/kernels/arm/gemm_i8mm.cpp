// Q4_0 / Q8_0 x Q8_0 products for cores with FEAT_I8MM (and FEAT_DotProd), in the "block-sum"
// order: each 32-element block's integer dot product is exact, and per output
//   acc = fma(float(block sum), d_w * d_a, acc)
// over the blocks in order, from 0 (tests/testing/block_sum_order_model.h states it in scalar
// code). vmmlaq_s32 sums 8 products per int32 lane, so it cannot give the 4-product lanes of the
// AVX2 order (quant_dot.h) cheaply; whole blocks per lane it gives at full width. These kernels
// therefore differ from x86 and from the __neon / __neon_dotprod kernels in the last bits.
//
// gemm: vmmlaq_s32 multiplies a 2x8 int8 tile (8 bytes of two weight rows) by an 8x2 one (the
// same 8 bytes of two activation rows) into a 2x2 int32 tile; 4 of them, one per 8-byte chunk,
// give the exact block sums of 2 rows x 2 tokens. A register tile is 4 rows x 4 tokens.
// gemv (decode, and gemm's last odd token): vdotq_s32 per row and block, the 4 lanes reduced to
// the block sum, 4 rows per f32 vector. Both round the same values in the same order, so every
// output of gemm equals gemv's bit for bit, whatever the tile it falls in.
#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/quant_dot.h"

#include <algorithm>

namespace kz::arm {
namespace {

// 4 consecutive rows starting at r, the last valid row repeated past n_rows: a tail computes
// a few duplicate outputs (never stored) instead of taking another code path.
template <class Block>
void row_blocks(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t r,
                const Block* x[4]) {
  for (int i = 0; i < 4; ++i)
    x[i] = reinterpret_cast<const Block*>(w + std::min(r + i, n_rows - 1) * row_bytes);
}

// Stores the first `count` lanes of v (at most 4) to y.
void store_lanes(float32x4_t v, int64_t count, float* y) {
  float lanes[4];
  vst1q_f32(lanes, v);
  for (int64_t i = 0; i < std::min<int64_t>(count, 4); ++i) y[i] = lanes[i];
}

// 4 weight rows x one activation row: lane i = the dot product of row x[i].
template <class W>
float32x4_t dot_4x1(const typename W::Block* const x[4], const BlockQ8_0* a, int64_t nb) {
  float32x4_t acc = vdupq_n_f32(0);
  for (int64_t b = 0; b < nb; ++b) {
    const int8x16_t alo = vld1q_s8(a[b].qs), ahi = vld1q_s8(a[b].qs + 16);
    int32x4_t s[4];
    float dw[4];
    for (int i = 0; i < 4; ++i) {
      W u;  // quant_dot.h's unpacking: lo = elements 0-15, hi = 16-31, d = scale
      u.load(x[i][b]);
      s[i] = vdotq_s32(vdotq_s32(vdupq_n_s32(0), u.lo, alo), u.hi, ahi);
      dw[i] = u.d;
    }
    // Pairwise adds: lane i = the 4 lanes of s[i] summed, row i's exact block sum.
    const int32x4_t sums = vpaddq_s32(vpaddq_s32(s[0], s[1]), vpaddq_s32(s[2], s[3]));
    const float32x4_t d = vmulq_n_f32(vld1q_f32(dw), half_to_float(a[b].d));
    acc = vfmaq_f32(acc, vcvtq_f32_s32(sums), d);
  }
  return acc;
}

// 64-bit halves: {lo(a), lo(b)} and {hi(a), hi(b)}, i.e. 8-byte chunk 0 (or 1) of two rows as
// one 2x8 operand of vmmlaq_s32.
int8x16_t zip_lo(int8x16_t a, int8x16_t b) {
  return vreinterpretq_s8_s64(vzip1q_s64(vreinterpretq_s64_s8(a), vreinterpretq_s64_s8(b)));
}
int8x16_t zip_hi(int8x16_t a, int8x16_t b) {
  return vreinterpretq_s8_s64(vzip2q_s64(vreinterpretq_s64_s8(a), vreinterpretq_s64_s8(b)));
}

// The 4 8-byte chunks of one block of two rows (elements 0-15 in lo, 16-31 in hi).
struct Chunks {
  int8x16_t c[4];
  Chunks(int8x16_t lo0, int8x16_t hi0, int8x16_t lo1, int8x16_t hi1)
      : c{zip_lo(lo0, lo1), zip_hi(lo0, lo1), zip_lo(hi0, hi1), zip_hi(hi0, hi1)} {}
  // Exact block sums of a 2x2 (row, token) tile: lanes {r0 t0, r0 t1, r1 t0, r1 t1}.
  int32x4_t mmla(const Chunks& tokens) const {
    int32x4_t s = vdupq_n_s32(0);
    for (int k = 0; k < 4; ++k) s = vmmlaq_s32(s, c[k], tokens.c[k]);
    return s;
  }
};

// 4 weight rows x 2*TP activation rows; acc[p][q] holds rows 2p, 2p+1 x tokens 2q, 2q+1 in
// vmmlaq_s32's lane order, and y receives them.
template <class W, int TP>
void tile_4x2tp(const typename W::Block* const x[4], const uint8_t* act, uint64_t act_stride,
                int64_t nb, int64_t valid_rows, float* y, int64_t y_stride) {
  const BlockQ8_0* a[2 * TP];
  for (int t = 0; t < 2 * TP; ++t) a[t] = reinterpret_cast<const BlockQ8_0*>(act + t * act_stride);
  float32x4_t acc[2][TP];
  for (auto& row : acc)
    for (auto& v : row) v = vdupq_n_f32(0);
  for (int64_t b = 0; b < nb; ++b) {
    W u[4];
    float dw[4];
    for (int i = 0; i < 4; ++i) u[i].load(x[i][b]), dw[i] = u[i].d;
    const Chunks rows[2] = {Chunks(u[0].lo, u[0].hi, u[1].lo, u[1].hi),
                            Chunks(u[2].lo, u[2].hi, u[3].lo, u[3].hi)};
    const float32x4_t dw4 = vld1q_f32(dw);
    // Row scales per lane of a 2x2 tile: {d0, d0, d1, d1} and {d2, d2, d3, d3}.
    const float32x4_t drow[2] = {vzip1q_f32(dw4, dw4), vzip2q_f32(dw4, dw4)};
    for (int q = 0; q < TP; ++q) {
      const BlockQ8_0 &a0 = a[2 * q][b], &a1 = a[2 * q + 1][b];
      const Chunks tokens(vld1q_s8(a0.qs), vld1q_s8(a0.qs + 16), vld1q_s8(a1.qs),
                          vld1q_s8(a1.qs + 16));
      const float da0 = half_to_float(a0.d), da1 = half_to_float(a1.d);
      const float32x4_t dtok = {da0, da1, da0, da1};
      for (int p = 0; p < 2; ++p) {
        const float32x4_t d = vmulq_f32(drow[p], dtok);
        acc[p][q] = vfmaq_f32(acc[p][q], vcvtq_f32_s32(rows[p].mmla(tokens)), d);
      }
    }
  }
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < TP; ++q) {
      const float32x4_t v = acc[p][q];
      // Lanes {r t, r t+1, r+1 t, r+1 t+1} for r = 2p, t = 2q.
      float* y0 = y + 2 * q * y_stride + 2 * p;
      if (2 * p < valid_rows) {
        y0[0] = vgetq_lane_f32(v, 0);
        y0[y_stride] = vgetq_lane_f32(v, 1);
      }
      if (2 * p + 1 < valid_rows) {
        y0[1] = vgetq_lane_f32(v, 2);
        y0[y_stride + 1] = vgetq_lane_f32(v, 3);
      }
    }
}

template <class W>
void gemv_bs(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
             float* y) {
  const auto* a = static_cast<const BlockQ8_0*>(act);
  for (int64_t r = 0; r < n_rows; r += 4) {
    const typename W::Block* x[4];
    row_blocks(w, row_bytes, n_rows, r, x);
    store_lanes(dot_4x1<W>(x, a, n / kQK), n_rows - r, y + r);
  }
}

// Per group of 4 weight rows (each block unpacked once per group of up to 4 tokens): tokens in
// tiles of 4, then a tile of 2, then a last odd token by gemv's dot_4x1.
template <class W>
void gemm_bs(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
             uint64_t act_stride, int64_t n_tok, int64_t n, float* y, int64_t y_stride) {
  const auto* a = static_cast<const uint8_t*>(act);
  const int64_t nb = n / kQK;
  for (int64_t r = 0; r < n_rows; r += 4) {
    const typename W::Block* x[4];
    row_blocks(w, row_bytes, n_rows, r, x);
    const int64_t valid = n_rows - r;
    int64_t t = 0;
    for (; t + 4 <= n_tok; t += 4)
      tile_4x2tp<W, 2>(x, a + t * act_stride, act_stride, nb, valid, y + t * y_stride + r,
                       y_stride);
    if (t + 2 <= n_tok) {
      tile_4x2tp<W, 1>(x, a + t * act_stride, act_stride, nb, valid, y + t * y_stride + r,
                       y_stride);
      t += 2;
    }
    if (t < n_tok)
      store_lanes(dot_4x1<W>(x, reinterpret_cast<const BlockQ8_0*>(a + t * act_stride), nb), valid,
                  y + t * y_stride + r);
  }
}

}  // namespace

void gemv_q4_0_q8_0__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                               const void* act, int64_t n, float* y) {
  gemv_bs<WeightsQ4_0>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_0_q8_0_4x4__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, uint64_t act_stride, int64_t n_act, int64_t n,
                                   float* y, int64_t y_stride) {
  gemm_bs<WeightsQ4_0>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemv_q8_0_q8_0__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                               const void* act, int64_t n, float* y) {
  gemv_bs<WeightsQ8_0>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q8_0_q8_0_4x4__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, uint64_t act_stride, int64_t n_act, int64_t n,
                                   float* y, int64_t y_stride) {
  gemm_bs<WeightsQ8_0>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}

}  // namespace kz::arm
