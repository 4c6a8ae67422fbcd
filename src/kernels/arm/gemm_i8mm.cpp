// Quantized matrix products of several activation rows on ARMv8.2 FEAT_I8MM. vmmlaq_s32(acc, A, B)
// multiplies two 2x8 int8 matrices (A's rows: 8 quants of weight rows r, r+1; B's rows: the
// matching 8 quants of activation rows t, t+1) into acc = [r·t, r·t+1, r+1·t, r+1·t+1], so one
// instruction does the work of four dot products of 8 and each weight block loaded serves two
// activation rows. Integer sums are exact and the f32 steps are those of the row dot products
// (quant_dot.h), lane by lane, so every result equals the gemv's bit for bit; a last odd weight
// row or activation row goes through the FEAT_DotProd row dot product (every i8mm core has it).
#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/quant_dot.h"

namespace kz::arm {
namespace {

struct DotProd {
  static int32x4_t dot(int32x4_t acc, int8x16_t a, int8x16_t b) { return vdotq_s32(acc, a, b); }
};

// Halves of two rows' 16 quants as 2x8 matrices: [r0[0..7], r1[0..7]] and [r0[8..15], r1[8..15]].
inline int8x16_t rows_lo(int8x16_t r0, int8x16_t r1) {
  return vreinterpretq_s8_s64(vzip1q_s64(vreinterpretq_s64_s8(r0), vreinterpretq_s64_s8(r1)));
}
inline int8x16_t rows_hi(int8x16_t r0, int8x16_t r1) {
  return vreinterpretq_s8_s64(vzip2q_s64(vreinterpretq_s64_s8(r0), vreinterpretq_s64_s8(r1)));
}

// acc += [w0·a0, w0·a1, w1·a0, w1·a1] over 16 quants.
inline int32x4_t mmla16(int32x4_t acc, int8x16_t w0, int8x16_t w1, const int8_t* a0,
                        const int8_t* a1) {
  const int8x16_t x0 = vld1q_s8(a0), x1 = vld1q_s8(a1);
  acc = vmmlaq_s32(acc, rows_lo(w0, w1), rows_lo(x0, x1));
  return vmmlaq_s32(acc, rows_hi(w0, w1), rows_hi(x0, x1));
}

// [w0, w0, w1, w1] and [a0, a1, a0, a1]: per-row and per-activation factors in tile lane order.
inline float32x4_t per_row(float w0, float w1) {
  return vcombine_f32(vdup_n_f32(w0), vdup_n_f32(w1));
}
inline int32x4_t per_row(int32_t w0, int32_t w1) {
  return vcombine_s32(vdup_n_s32(w0), vdup_n_s32(w1));
}
inline float32x4_t per_act(float a0, float a1) {
  const float32x2_t a = vset_lane_f32(a1, vdup_n_f32(a0), 1);
  return vcombine_f32(a, a);
}

// The 2x2 tiles: [dot(w0, a0), dot(w0, a1), dot(w1, a0), dot(w1, a1)] over nb blocks.
float32x4_t tile_q4_0_q8_0(const BlockQ4_0* w0, const BlockQ4_0* w1, const BlockQ8_0* a0,
                           const BlockQ8_0* a1, int64_t nb) {
  float32x4_t sum = vdupq_n_f32(0);
  for (int64_t i = 0; i < nb; ++i) {
    int8x16_t lo0, hi0, lo1, hi1;
    q4_0_quants(w0[i], lo0, hi0);
    q4_0_quants(w1[i], lo1, hi1);
    int32x4_t acc = mmla16(vdupq_n_s32(0), lo0, lo1, a0[i].qs, a1[i].qs);
    acc = mmla16(acc, hi0, hi1, a0[i].qs + 16, a1[i].qs + 16);
    // (sumi · d_w) · d_a, as the row dot product.
    const float32x4_t dw = per_row(half_to_float(w0[i].d), half_to_float(w1[i].d));
    const float32x4_t da = per_act(half_to_float(a0[i].d), half_to_float(a1[i].d));
    sum = vaddq_f32(sum, vmulq_f32(vmulq_f32(vcvtq_f32_s32(acc), dw), da));
  }
  return sum;
}

float32x4_t tile_q8_0_q8_0(const BlockQ8_0* w0, const BlockQ8_0* w1, const BlockQ8_0* a0,
                           const BlockQ8_0* a1, int64_t nb) {
  float32x4_t sum = vdupq_n_f32(0);
  for (int64_t i = 0; i < nb; ++i) {
    int32x4_t acc =
        mmla16(vdupq_n_s32(0), vld1q_s8(w0[i].qs), vld1q_s8(w1[i].qs), a0[i].qs, a1[i].qs);
    acc =
        mmla16(acc, vld1q_s8(w0[i].qs + 16), vld1q_s8(w1[i].qs + 16), a0[i].qs + 16, a1[i].qs + 16);
    // sumi · (d_w · d_a), as the row dot product.
    const float32x4_t dw = per_row(half_to_float(w0[i].d), half_to_float(w1[i].d));
    const float32x4_t da = per_act(half_to_float(a0[i].d), half_to_float(a1[i].d));
    sum = vaddq_f32(sum, vmulq_f32(vcvtq_f32_s32(acc), vmulq_f32(dw, da)));
  }
  return sum;
}

float32x4_t tile_q4_K_q8_K(const BlockQ4K* w0, const BlockQ4K* w1, const BlockQ8K* a0,
                           const BlockQ8K* a1, int64_t nb) {
  float32x4_t sum = vdupq_n_f32(0);
  for (int64_t i = 0; i < nb; ++i) {
    uint8_t sc0[8], m0[8], sc1[8], m1[8];
    q4_K_scales_mins(w0[i].scales, sc0, m0);
    q4_K_scales_mins(w1[i].scales, sc1, m1);
    int32x4_t acc = vdupq_n_s32(0);
    for (int j = 0; j < 4; ++j) {
      int8x16_t q0[4], q1[4];
      q4_K_chunk(w0[i], j, q0);
      q4_K_chunk(w1[i], j, q1);
      const int8_t* x0 = a0[i].qs + 64 * j;
      const int8_t* x1 = a1[i].qs + 64 * j;
      for (int s = 0; s < 2; ++s) {  // sub-blocks 2j and 2j+1
        int32x4_t p = mmla16(vdupq_n_s32(0), q0[2 * s], q1[2 * s], x0 + 32 * s, x1 + 32 * s);
        p = mmla16(p, q0[2 * s + 1], q1[2 * s + 1], x0 + 32 * s + 16, x1 + 32 * s + 16);
        acc = vmlaq_s32(acc, p, per_row(int32_t{sc0[2 * j + s]}, int32_t{sc1[2 * j + s]}));
      }
    }
    const int32_t mins[4] = {q8_K_min_sum(a0[i], m0), q8_K_min_sum(a1[i], m0),
                             q8_K_min_sum(a0[i], m1), q8_K_min_sum(a1[i], m1)};
    const float32x4_t da = per_act(a0[i].d, a1[i].d);
    const float32x4_t d = vmulq_f32(per_row(half_to_float(w0[i].d), half_to_float(w1[i].d)), da);
    const float32x4_t dmin =
        vmulq_f32(per_row(half_to_float(w0[i].dmin), half_to_float(w1[i].dmin)), da);
    sum = vaddq_f32(sum, vmulq_f32(d, vcvtq_f32_s32(acc)));
    sum = vsubq_f32(sum, vmulq_f32(dmin, vcvtq_f32_s32(vld1q_s32(mins))));
  }
  return sum;
}

float32x4_t tile_q6_K_q8_K(const BlockQ6K* w0, const BlockQ6K* w1, const BlockQ8K* a0,
                           const BlockQ8K* a1, int64_t nb) {
  float32x4_t sum = vdupq_n_f32(0);
  for (int64_t i = 0; i < nb; ++i) {
    int32x4_t acc = vdupq_n_s32(0);
    for (int h = 0; h < 2; ++h) {
      int8x16_t q0[8], q1[8];
      q6_K_half(w0[i], h, q0);
      q6_K_half(w1[i], h, q1);
      for (int k = 0; k < 8; ++k) {
        const int64_t off = 128 * h + 16 * k;
        const int32x4_t p = mmla16(vdupq_n_s32(0), q0[k], q1[k], a0[i].qs + off, a1[i].qs + off);
        acc = vmlaq_s32(
            acc, p, per_row(int32_t{w0[i].scales[8 * h + k]}, int32_t{w1[i].scales[8 * h + k]}));
      }
    }
    const float32x4_t d = vmulq_f32(per_row(half_to_float(w0[i].d), half_to_float(w1[i].d)),
                                    per_act(a0[i].d, a1[i].d));
    sum = vaddq_f32(sum, vmulq_f32(d, vcvtq_f32_s32(acc)));
  }
  return sum;
}

// Pairs of weight rows (outer: the pair stays in L1 while the activation rows stream past)
// times pairs of activation rows; odd leftovers by the row dot product.
template <class WBlock, class ABlock, int kBlock,
          float32x4_t (*Tile)(const WBlock*, const WBlock*, const ABlock*, const ABlock*, int64_t),
          float (*Dot)(const WBlock*, const ABlock*, int64_t)>
void gemm_2x2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
              uint64_t act_stride, int64_t n_act, int64_t n, float* y, int64_t y_stride) {
  const int64_t nb = n / kBlock;
  auto wrow = [&](int64_t r) { return reinterpret_cast<const WBlock*>(w + r * row_bytes); };
  auto arow = [&](int64_t t) {
    return reinterpret_cast<const ABlock*>(static_cast<const uint8_t*>(act) + t * act_stride);
  };
  auto out = [&](int64_t t, int64_t r) -> float& { return y[t * y_stride + r]; };
  int64_t r = 0;
  for (; r + 2 <= n_rows; r += 2) {
    int64_t t = 0;
    for (; t + 2 <= n_act; t += 2) {
      float s[4];
      vst1q_f32(s, Tile(wrow(r), wrow(r + 1), arow(t), arow(t + 1), nb));
      out(t, r) = s[0];
      out(t + 1, r) = s[1];
      out(t, r + 1) = s[2];
      out(t + 1, r + 1) = s[3];
    }
    if (t < n_act) {
      out(t, r) = Dot(wrow(r), arow(t), nb);
      out(t, r + 1) = Dot(wrow(r + 1), arow(t), nb);
    }
  }
  if (r < n_rows)
    for (int64_t t = 0; t < n_act; ++t) out(t, r) = Dot(wrow(r), arow(t), nb);
}

}  // namespace

void gemm_q4_0_q8_0_2x2__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, uint64_t act_stride, int64_t n_act, int64_t n,
                                   float* y, int64_t y_stride) {
  gemm_2x2<BlockQ4_0, BlockQ8_0, kQK, tile_q4_0_q8_0, dot_q4_0_q8_0<DotProd>>(
      w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemm_q8_0_q8_0_2x2__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, uint64_t act_stride, int64_t n_act, int64_t n,
                                   float* y, int64_t y_stride) {
  gemm_2x2<BlockQ8_0, BlockQ8_0, kQK, tile_q8_0_q8_0, dot_q8_0_q8_0<DotProd>>(
      w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemm_q4_K_q8_K_2x2__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, uint64_t act_stride, int64_t n_act, int64_t n,
                                   float* y, int64_t y_stride) {
  gemm_2x2<BlockQ4K, BlockQ8K, kQK_K, tile_q4_K_q8_K, dot_q4_K_q8_K<DotProd>>(
      w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemm_q6_K_q8_K_2x2__neon_i8mm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, uint64_t act_stride, int64_t n_act, int64_t n,
                                   float* y, int64_t y_stride) {
  gemm_2x2<BlockQ6K, BlockQ8K, kQK_K, tile_q6_K_q8_K, dot_q6_K_q8_K<DotProd>>(
      w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}

}  // namespace kz::arm
