// AVX2 Q4_0 / Q8_0 matrix products over weights repacked into groups of 8 interleaved rows
// (kernel_table.h: PackedMatmul). A 32-byte vector holds 4 consecutive quants of each of the 8
// rows, so every int32 lane accumulates one row's exact block dot product: per (8 rows, token,
// block) one conversion and one FMA, where the row-major kernels (gemm_q8_0_tiles.h) need eight.
// Summation order, the same for gemv and gemm (tests: testing/block_sum_order_model.h): per output
// acc = fma(float(block sum), d_w * d_a, acc) over the blocks in order.
#include <immintrin.h>

#include <cstring>

#include "kernels/x86/kernels_avx2.h"
#include "kernels/x86/packed_driver.h"
#include "kernels/x86/simd_avx2.h"
#include "quant/blocks.h"

namespace kz::x86 {
namespace {

using packed::broadcast_4_bytes;
using packed::kRows;

// Block b of a group of 8 rows: the rows' scales, then their quants in 32-byte vectors, vector j
// holding elements 4j..4j+3 of row r at bytes 4r..4r+3. Q4_0 keeps the file's nibble pairing, so
// its vector j carries elements 4j.. in the low nibbles and 16+4j.. in the high nibbles.
struct PackedQ4_0 {
  uint16_t d[kRows];
  uint8_t qs[kRows * kQK / 2];
};
struct PackedQ8_0 {
  uint16_t d[kRows];
  int8_t qs[kRows * kQK];
};
static_assert(sizeof(PackedQ4_0) == kRows * sizeof(BlockQ4_0));
static_assert(sizeof(PackedQ8_0) == kRows * sizeof(BlockQ8_0));

// An activation block: the Q8_0 block's scale as f32, 8 times the sum of its quants (what Q4_0's
// +8 nibble offset adds to a dot product), its quants.
struct ActBlock {
  float d;
  int32_t sum8;
  int8_t qs[kQK];
};

struct WeightsQ4_0 {
  using Packed = PackedQ4_0;
  using Block = BlockQ4_0;
  // Block b's dot products with NT activation blocks, lane r = row r. The nibbles stay unsigned
  // (maddubs takes an unsigned operand) and the -8 offset is taken out with the activation sums;
  // 8 pair sums of at most 2 * 15 * 128 fit int16.
  template <int NT>
  static void dots(const Packed& w, const ActBlock* const a[NT], __m256i isum[NT]) {
    const __m256i low = _mm256_set1_epi8(0xF);
    __m256i s[NT];
    for (int t = 0; t < NT; ++t) s[t] = _mm256_setzero_si256();
#pragma GCC unroll 1  // unrolled, GCC hoists every vector's loads and spills registers
    for (int j = 0; j < 4; ++j) {
      const __m256i v = load_i8x32(w.qs + 32 * j);
      const __m256i lo = _mm256_and_si256(v, low);
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
      for (int t = 0; t < NT; ++t) {
        s[t] =
            _mm256_add_epi16(s[t], _mm256_maddubs_epi16(lo, broadcast_4_bytes(a[t]->qs + 4 * j)));
        s[t] = _mm256_add_epi16(s[t],
                                _mm256_maddubs_epi16(hi, broadcast_4_bytes(a[t]->qs + 16 + 4 * j)));
      }
    }
    for (int t = 0; t < NT; ++t)
      isum[t] = _mm256_sub_epi32(_mm256_madd_epi16(s[t], _mm256_set1_epi16(1)),
                                 _mm256_set1_epi32(a[t]->sum8));
  }
  // File block e of a row -> its 4-byte groups, in the packed order.
  static void pack_block(const Block& b, int r, Packed& out) {
    out.d[r] = b.d;
    for (int j = 0; j < 4; ++j) std::memcpy(out.qs + 32 * j + 4 * r, b.qs + 4 * j, 4);
  }
};

struct WeightsQ8_0 {
  using Packed = PackedQ8_0;
  using Block = BlockQ8_0;
  // Signed weights: maddubs(|w|, a * sign(w)), as the reference's x86 kernels do.
  template <int NT>
  static void dots(const Packed& w, const ActBlock* const a[NT], __m256i isum[NT]) {
    for (int t = 0; t < NT; ++t) isum[t] = _mm256_setzero_si256();
#pragma GCC unroll 1  // as above
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
  static void pack_block(const Block& b, int r, Packed& out) {
    out.d[r] = b.d;
    for (int j = 0; j < 8; ++j) std::memcpy(out.qs + 32 * j + 4 * r, b.qs + 4 * j, 4);
  }
};

template <class W>
void pack(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  auto* out = reinterpret_cast<typename W::Packed*>(dst);
  for (int64_t g = 0; g < n_rows; g += kRows)
    for (int64_t b = 0; b < n / kQK; ++b, ++out)
      for (int r = 0; r < kRows; ++r)
        W::pack_block(reinterpret_cast<const typename W::Block*>(w + (g + r) * row_bytes)[b], r,
                      *out);
}

// One group of 8 rows x NT tokens (packed_driver.h).
template <class W>
struct Tiles {
  using Packed = typename W::Packed;
  static constexpr int64_t kBlock = kQK;
  template <int NT>
  static void tile(const Packed* w, const uint8_t* act, uint64_t act_row_bytes, int64_t nb,
                   float* y, int64_t y_stride) {
    __m256 acc[NT];
    for (int t = 0; t < NT; ++t) acc[t] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
      if constexpr (NT == 1) prefetch_weights_ahead(w + b, sizeof(Packed));
      const ActBlock* a[NT];
      for (int t = 0; t < NT; ++t)
        a[t] = reinterpret_cast<const ActBlock*>(act + t * act_row_bytes) + b;
      __m256i isum[NT];
      W::template dots<NT>(w[b], a, isum);
      const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w[b].d)));
      for (int t = 0; t < NT; ++t)
        acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[t]),
                                 _mm256_mul_ps(dw, _mm256_set1_ps(a[t]->d)), acc[t]);
    }
    for (int t = 0; t < NT; ++t) _mm256_storeu_ps(y + t * y_stride, acc[t]);
  }
};

}  // namespace

// The quants and scale of quantize_q8_0__avx2 (the reference's converter), with the scale as f32
// and 8 times the quants' sum.
void quantize_q8_0_sum__avx2(const float* x, void* dst, int64_t n) {
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
    out[b].sum8 = 8 * _mm_cvtsi128_si32(_mm_add_epi32(s2, _mm_shuffle_epi32(s2, 1)));
  }
}
const uint64_t kPackedActBlockBytes = sizeof(ActBlock);

void pack_q4_0_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack<WeightsQ4_0>(w, row_bytes, n_rows, n, dst);
}
void pack_q8_0_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack<WeightsQ8_0>(w, row_bytes, n_rows, n, dst);
}
void gemv_q4_0x8_q8_0__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            int64_t n, float* y) {
  packed::gemv<Tiles<WeightsQ4_0>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_0x8_q8_0__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                            int64_t y_stride) {
  packed::gemm<Tiles<WeightsQ4_0>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}
void gemv_q8_0x8_q8_0__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            int64_t n, float* y) {
  packed::gemv<Tiles<WeightsQ8_0>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q8_0x8_q8_0__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                            int64_t y_stride) {
  packed::gemm<Tiles<WeightsQ8_0>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

}  // namespace kz::x86
