// AVX2 Q4_0 / Q8_0 matrix products over weights repacked into groups of 8 interleaved rows
// (kernel_table.h: PackedMatmul; the blocks and tile: packed_q8_0_blocks.h). A 32-byte vector
// holds 4 consecutive quants of each of the 8 rows, so every int32 lane accumulates one row's
// exact block dot product: per (8 rows, token, block) one conversion and one FMA, where the
// row-major kernels (gemm_q8_0_tiles.h) need eight. Also the activation converters of every
// ISA's packed Q4_0 / Q8_0 kernels.
#include "kernels/x86/intrinsics.h"

#include <cstring>

#include "kernels/x86/kernels_avx2.h"
#include "kernels/x86/packed_q8_0_blocks.h"
#include "kernels/x86/simd_avx2.h"
#include "quant/blocks.h"

namespace kz::x86 {
namespace {

using namespace packed;

// Q8_0 packed as signed bytes: maddubs(|w|, a * sign(w)), as the reference's x86 kernels do.
struct Q8_0SignedWeights : Q8_0Layout {
  template <int NT>
  static void dots(const Packed& w, const ActBlock* const a[NT], __m256i isum[NT]) {
    for (int t = 0; t < NT; ++t) isum[t] = _mm256_setzero_si256();
#pragma GCC unroll 1  // as Q4_0Weights (packed_q8_0_blocks.h)
    for (int j = 0; j < 8; ++j) {
      const __m256i v = load_i8x32(w.qs + 32 * j);
      const __m256i abs_v = _mm256_sign_epi8(v, v);
      for (int t = 0; t < NT; ++t) {
        const __m256i x = _mm256_sign_epi8(broadcast_4_bytes(a[t]->qs + 4 * j), v);
        isum[t] = _mm256_add_epi32(
            isum[t], _mm256_madd_epi16(_mm256_maddubs_epi16(abs_v, x), _mm256_set1_epi16(1)));
      }
    }
  }
};

// The quants and scale of quantize_q8_0__avx2 (the reference's converter), with the scale as f32
// and kZeroPoint times the quants' sum.
template <int kZeroPoint>
void quantize_q8_0_offset(const float* x, void* dst, int64_t n) {
  auto* out = static_cast<ActBlock*>(dst);
  for (int64_t b = 0; b < n / kQK; ++b) {
    BlockQ8_0 q;
    quantize_q8_0__avx2(x + b * kQK, &q, kQK);
    out[b].d = fp16_to_f32(q.d);
    std::memcpy(out[b].qs, q.qs, kQK);
    const __m256i pairs = _mm256_maddubs_epi16(_mm256_set1_epi8(1), load_i8x32(q.qs));
    const __m256i quads = _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
    const __m128i s4 =
        _mm_add_epi32(_mm256_castsi256_si128(quads), _mm256_extracti128_si256(quads, 1));
    const __m128i s2 = _mm_add_epi32(s4, _mm_unpackhi_epi64(s4, s4));
    out[b].offset = kZeroPoint * _mm_cvtsi128_si32(_mm_add_epi32(s2, _mm_shuffle_epi32(s2, 1)));
  }
}

}  // namespace

void quantize_q8_0_zp8__avx2(const float* x, void* dst, int64_t n) {
  quantize_q8_0_offset<8>(x, dst, n);
}
void quantize_q8_0_zp128__avx2(const float* x, void* dst, int64_t n) {
  quantize_q8_0_offset<128>(x, dst, n);
}
const uint64_t kPackedActBlockBytes = sizeof(ActBlock);

void pack_q4_0_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack<Q4_0Layout>(w, row_bytes, n_rows, n, dst);
}
void pack_q8_0_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack<Q8_0Layout>(w, row_bytes, n_rows, n, dst);
}
void gemv_q4_0x8_q8_0__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            int64_t n, float* y) {
  packed::gemv<Tiles<Q4_0Weights<SumsMaddubs>>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_0x8_q8_0__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                            int64_t y_stride) {
  packed::gemm<Tiles<Q4_0Weights<SumsMaddubs>>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n,
                                                y, y_stride);
}
void gemv_q8_0x8_q8_0__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            int64_t n, float* y) {
  packed::gemv<Tiles<Q8_0SignedWeights>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q8_0x8_q8_0__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                            int64_t y_stride) {
  packed::gemm<Tiles<Q8_0SignedWeights>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y,
                                         y_stride);
}

}  // namespace kz::x86
