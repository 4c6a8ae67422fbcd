// AVX2 matrix products of Q4_0 / Q8_0 (with Q8_0 activations) and Q4_K / Q5_K / Q6_K (with Q8_K
// activations): instances of the tiles in gemm_q8_0_tiles.h and gemm_k_quants_tiles.h, plus the
// Q8_0 activation converter.
#include "kernels/x86/intrinsics.h"

#include "kernels/x86/gemm_k_quants_tiles.h"
#include "kernels/x86/gemm_q8_0_tiles.h"
#include "kernels/x86/int8_dot.h"
#include "kernels/x86/kernels_avx2.h"

namespace kz::x86 {

// id = 127/amax and round-half-even, as kernels/ref/vec_dot.cpp (the reference's x86 converter).
void quantize_q8_0__avx2(const float* x, void* dst, int64_t n) {
  auto* out = static_cast<BlockQ8_0*>(dst);
  const __m256 sign = _mm256_set1_ps(-0.0f);
  for (int64_t b = 0; b < n / kQK; ++b, x += kQK) {
    __m256 v[4];
    __m256 amax = _mm256_setzero_ps();
    for (int k = 0; k < 4; ++k) {
      v[k] = _mm256_loadu_ps(x + 8 * k);
      amax = _mm256_max_ps(amax, _mm256_andnot_ps(sign, v[k]));
    }
    __m128 m4 = _mm_max_ps(_mm256_extractf128_ps(amax, 1), _mm256_castps256_ps128(amax));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
    const float m = _mm_cvtss_f32(m4);
    out[b].d = static_cast<uint16_t>(_cvtss_sh(m / 127.0f, _MM_FROUND_TO_NEAREST_INT));
    const __m256 id = _mm256_set1_ps(m != 0.0f ? 127.0f / m : 0.0f);
    __m256i q[4];
    for (int k = 0; k < 4; ++k)
      q[k] =
          _mm256_cvtps_epi32(_mm256_round_ps(_mm256_mul_ps(v[k], id), _MM_FROUND_TO_NEAREST_INT));
    // Packing works per 128-bit half; the permutation restores element order.
    const __m256i p =
        _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[b].qs),
                        _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
  }
}

void gemv_q4_0_q8_0__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv_q8_0<Int8DotAvx2, WeightsQ4_0>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_0_q8_0_4x2__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                              uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                              int64_t y_stride) {
  gemm_q8_0<Int8DotAvx2, WeightsQ4_0>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y,
                                      y_stride);
}
void gemv_q8_0_q8_0__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv_q8_0<Int8DotAvx2, WeightsQ8_0>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q8_0_q8_0_4x2__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                              uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                              int64_t y_stride) {
  gemm_q8_0<Int8DotAvx2, WeightsQ8_0>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y,
                                      y_stride);
}

void gemv_q4_K_q8_K__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv_k<WeightsQ4K>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_K_q8_K_4x1__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                              uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                              int64_t y_stride) {
  gemm_k<WeightsQ4K>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}
void gemv_q5_K_q8_K__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv_k<WeightsQ5K>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q5_K_q8_K_4x1__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                              uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                              int64_t y_stride) {
  gemm_k<WeightsQ5K>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}
void gemv_q6_K_q8_K__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv_k<WeightsQ6K>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q6_K_q8_K_4x1__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                              uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                              int64_t y_stride) {
  gemm_k<WeightsQ6K>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

}  // namespace kz::x86
