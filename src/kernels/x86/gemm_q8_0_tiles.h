// Dot products of Q4_0 / Q8_0 weight rows with Q8_0 activation rows, as register tiles of NR
// weight rows x NT tokens: each weight block is loaded and unpacked once per tile and multiplied
// with NT activation blocks. Per output the arithmetic is that of the reference's x86 kernels
// (ggml-cpu/arch/x86/quants.c: ggml_vec_dot_{q4_0,q8_0}_q8_0; llamafile's tinyBLAS_Q0_AVX is the
// same per output): per block, 8 int32 lanes (int8_dot.h) converted to f32 and accumulated as
// acc = fma(d_w * d_a, lanes, acc); the 8 lanes are summed at the end (simd_avx2.h). Hence gemv
// and gemm give the same bits. Include only from ISA-specific files; Dot is an int8_dot.h policy.
#pragma once

#include "kernels/x86/intrinsics.h"

#include <cstdint>

#include "kernels/x86/simd_avx2.h"
#include "quant/blocks.h"

namespace kz::x86 {
namespace {  // per file: see simd_avx2.h

struct WeightsQ8_0 {
  using Block = BlockQ8_0;
  static __m256i bytes(const Block& b) { return load_i8x32(b.qs); }
};
struct WeightsQ4_0 {
  using Block = BlockQ4_0;
  static __m256i bytes(const Block& b) {
    return _mm256_sub_epi8(nibbles_to_bytes(b.qs), _mm256_set1_epi8(8));
  }
};

template <class Dot, class W, int NR, int NT>
inline void tile_q8_0(const uint8_t* w, uint64_t row_bytes, const uint8_t* act,
                      uint64_t act_row_bytes, int64_t n_blocks, float* y, int64_t y_stride) {
  __m256 acc[NR][NT];
  for (int r = 0; r < NR; ++r)
    for (int t = 0; t < NT; ++t) acc[r][t] = _mm256_setzero_ps();
  for (int64_t ib = 0; ib < n_blocks; ++ib) {
    __m256i a[NT];
    float da[NT];
    for (int t = 0; t < NT; ++t) {
      const BlockQ8_0& b = reinterpret_cast<const BlockQ8_0*>(act + t * act_row_bytes)[ib];
      a[t] = load_i8x32(b.qs);
      da[t] = fp16_to_f32(b.d);
    }
    for (int r = 0; r < NR; ++r) {
      const auto& b = reinterpret_cast<const typename W::Block*>(w + r * row_bytes)[ib];
      const __m256i x = W::bytes(b);
      const float dw = fp16_to_f32(b.d);
      for (int t = 0; t < NT; ++t) {
        const __m256 q = _mm256_cvtepi32_ps(Dot::dot(x, a[t]));
        acc[r][t] = _mm256_fmadd_ps(_mm256_set1_ps(dw * da[t]), q, acc[r][t]);
      }
    }
  }
  for (int r = 0; r < NR; ++r)
    for (int t = 0; t < NT; ++t) y[t * y_stride + r] = hsum_f32x8(acc[r][t]);
}

// All rows for NT tokens: tiles of NR rows, then single rows.
template <class Dot, class W, int NR, int NT>
inline void rows_q8_0(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const uint8_t* act,
                      uint64_t act_row_bytes, int64_t n_blocks, float* y, int64_t y_stride) {
  int64_t r = 0;
  for (; r + NR <= n_rows; r += NR)
    tile_q8_0<Dot, W, NR, NT>(w + r * row_bytes, row_bytes, act, act_row_bytes, n_blocks, y + r,
                              y_stride);
  for (; r < n_rows; ++r)
    tile_q8_0<Dot, W, 1, NT>(w + r * row_bytes, row_bytes, act, act_row_bytes, n_blocks, y + r,
                             y_stride);
}

template <class Dot, class W>
void gemv_q8_0(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
               float* y) {
  rows_q8_0<Dot, W, 4, 1>(w, row_bytes, n_rows, static_cast<const uint8_t*>(act), 0, n / kQK, y, 0);
}

// Tokens in groups of 4 (2 rows x 4 tokens = 8 accumulators), the last 1-3 tokens as a group.
template <class Dot, class W>
void gemm_q8_0(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
               uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y, int64_t y_stride) {
  const auto* a = static_cast<const uint8_t*>(act);
  const int64_t nb = n / kQK;
  int64_t t = 0;
  for (; t + 4 <= n_tok; t += 4)
    rows_q8_0<Dot, W, 2, 4>(w, row_bytes, n_rows, a + t * act_row_bytes, act_row_bytes, nb,
                            y + t * y_stride, y_stride);
  const uint8_t* at = a + t * act_row_bytes;
  float* yt = y + t * y_stride;
  switch (n_tok - t) {
    case 3:
      rows_q8_0<Dot, W, 2, 3>(w, row_bytes, n_rows, at, act_row_bytes, nb, yt, y_stride);
      break;
    case 2:
      rows_q8_0<Dot, W, 4, 2>(w, row_bytes, n_rows, at, act_row_bytes, nb, yt, y_stride);
      break;
    case 1:
      rows_q8_0<Dot, W, 4, 1>(w, row_bytes, n_rows, at, act_row_bytes, nb, yt, y_stride);
      break;
    default:
      break;
  }
}

}  // namespace
}  // namespace kz::x86
