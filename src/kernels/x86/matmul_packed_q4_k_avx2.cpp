// AVX2 Q4_K matrix products over weights repacked into groups of 8 interleaved rows
// (kernel_table.h: PackedMatmul), the Q4_K form of matmul_packed_avx2.cpp: a 32-byte vector holds
// 4 consecutive quant bytes of each of the 8 rows, so int32 lane r sums row r's products exactly
// and no horizontal sums are needed. The row-major kernels (gemm_k_quants_tiles.h) unpack a
// super-block into 16 vectors and reduce every output across lanes; here one vector of quants
// serves 8 rows and a super-block's scales unpack with a few vector operations for all 8.
//
// Per (row, token, super-block), with sumi_s the exact sum of quant * activation over sub-block s
// and S_s the sum of the activation's quants there:
//   isum = sum_s sc_s * sumi_s,  imin = sum_s m_s * S_s                      (exact int32)
//   acc = fma(float(isum), d_w * d_a, acc),  acc = fma(float(imin), dmin_w * -d_a, acc)
// over the super-blocks in order, the same for gemv and gemm (so gemm equals gemv bit for bit).
#include <immintrin.h>

#include <cstring>

#include "kernels/ref/vec_dot.h"
#include "kernels/x86/kernels_avx2.h"
#include "kernels/x86/packed_driver.h"
#include "kernels/x86/simd_avx2.h"
#include "quant/blocks.h"

namespace kz::x86 {
namespace {

using packed::broadcast_4_bytes;
using packed::kRows;

// Super-block b of a group of 8 rows. scales[w][r] is 32-bit word w of row r's 12 scale bytes;
// qs[j][i] holds bytes 4i..4i+3 of row r's 32-byte chunk j at bytes 4r..4r+3 (low nibbles:
// sub-block 2j, elements 64j+4i..; high nibbles: sub-block 2j+1, elements 64j+32+4i..).
struct PackedQ4K {
  uint16_t d[kRows], dmin[kRows];
  uint32_t scales[3][kRows];
  uint8_t qs[4][8][32];
};
static_assert(sizeof(PackedQ4K) == kRows * sizeof(BlockQ4K));

// An activation super-block: the Q8_K scale, the sums of each sub-block's quants (int16, pairs
// of sub-blocks per 32-bit word), the quants; padded to a whole 36 bytes per 32 elements.
struct ActBlockK {
  float d;
  int16_t sub_sums[8];
  int8_t qs[kQK_K];
  uint8_t pad[12];
};
static_assert(sizeof(ActBlockK) % (kQK_K / kQK) == 0);

// The 8 rows' 6-bit scales and mins (spec/quants.md §4.1, scales_mins_k4 in
// gemm_k_quants_tiles.h, one row per 32-bit lane): byte s of lane r of sc[0] is row r's scale of
// sub-block s, of sc[1] that of sub-block 4 + s; likewise m for the mins.
struct Scales {
  __m256i sc[2], m[2];
};
inline Scales unpack_scales(const PackedQ4K& w) {
  const __m256i u0 = load_i8x32(w.scales[0]), u1 = load_i8x32(w.scales[1]);
  const __m256i u2 = load_i8x32(w.scales[2]);
  const __m256i six = _mm256_set1_epi32(0x3f3f3f3f), four = _mm256_set1_epi32(0x0f0f0f0f);
  const __m256i two = _mm256_set1_epi32(0x03030303);
  auto high = [&](__m256i low4, __m256i top2) {
    return _mm256_or_si256(_mm256_and_si256(low4, four),
                           _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(top2, 6), two), 4));
  };
  return {{_mm256_and_si256(u0, six), high(u2, u0)},
          {_mm256_and_si256(u1, six), high(_mm256_srli_epi32(u2, 4), u1)}};
}

// A shuffle control that makes each 32-bit lane the int16 pair (byte b0, byte b1) of that lane.
inline __m256i pair_of_bytes(int b0, int b1) {
  const __m256i lane_offsets = _mm256_setr_epi32(0, 0x00040004, 0x00080008, 0x000c000c, 0,
                                                 0x00040004, 0x00080008, 0x000c000c);
  return _mm256_add_epi32(_mm256_set1_epi32(int(0x80008000u | uint32_t(b1) << 16 | uint32_t(b0))),
                          lane_offsets);
}

// One group of 8 rows x NT tokens (packed_driver.h).
struct Tiles {
  using Packed = PackedQ4K;
  static constexpr int64_t kBlock = kQK_K;
  template <int NT>
  static void tile(const PackedQ4K* w, const uint8_t* act, uint64_t act_row_bytes, int64_t nb,
                   float* y, int64_t y_stride) {
    const __m256i low = _mm256_set1_epi8(0xF);
    __m256 acc[NT];
    for (int t = 0; t < NT; ++t) acc[t] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
      if constexpr (NT == 1) prefetch_weights_ahead(w + b, sizeof(Packed));
      const PackedQ4K& wb = w[b];
      const ActBlockK* a[NT];
      for (int t = 0; t < NT; ++t)
        a[t] = reinterpret_cast<const ActBlockK*>(act + t * act_row_bytes) + b;
      const Scales s = unpack_scales(wb);
      __m256i isum[NT];
      for (int t = 0; t < NT; ++t) isum[t] = _mm256_setzero_si256();
      for (int j = 0; j < 4; ++j) {  // chunk j: sub-blocks 2j (low nibbles) and 2j+1 (high)
        __m256i lo[NT], hi[NT];      // 8 pair sums of at most 2 * 15 * 128: no int16 overflow
        for (int t = 0; t < NT; ++t) lo[t] = hi[t] = _mm256_setzero_si256();
#pragma GCC unroll 1  // as matmul_packed_avx2.cpp; unrolling by 2 or 8 measured within noise
        for (int i = 0; i < 8; ++i) {
          const __m256i v = load_i8x32(wb.qs[j][i]);
          const __m256i ql = _mm256_and_si256(v, low);
          const __m256i qh = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
          for (int t = 0; t < NT; ++t) {
            const int8_t* at = a[t]->qs + 64 * j + 4 * i;
            lo[t] = _mm256_add_epi16(lo[t], _mm256_maddubs_epi16(ql, broadcast_4_bytes(at)));
            hi[t] = _mm256_add_epi16(hi[t], _mm256_maddubs_epi16(qh, broadcast_4_bytes(at + 32)));
          }
        }
        const int sub = 2 * j % 4;  // byte of sub-block 2j in s.sc[j / 2]
        const __m256i sc_lo = _mm256_shuffle_epi8(s.sc[j / 2], pair_of_bytes(sub, sub));
        const __m256i sc_hi = _mm256_shuffle_epi8(s.sc[j / 2], pair_of_bytes(sub + 1, sub + 1));
        for (int t = 0; t < NT; ++t)
          isum[t] = _mm256_add_epi32(isum[t], _mm256_add_epi32(_mm256_madd_epi16(lo[t], sc_lo),
                                                               _mm256_madd_epi16(hi[t], sc_hi)));
      }
      __m256i imin[NT];
      for (int t = 0; t < NT; ++t) imin[t] = _mm256_setzero_si256();
      for (int pair = 0; pair < 4; ++pair) {
        const int b0 = 2 * pair % 4;
        const __m256i m = _mm256_shuffle_epi8(s.m[pair / 2], pair_of_bytes(b0, b0 + 1));
        for (int t = 0; t < NT; ++t)
          imin[t] = _mm256_add_epi32(
              imin[t], _mm256_madd_epi16(m, broadcast_4_bytes(a[t]->sub_sums + 2 * pair)));
      }
      const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(wb.d)));
      const __m256 dm = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(wb.dmin)));
      for (int t = 0; t < NT; ++t) {
        acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[t]),
                                 _mm256_mul_ps(dw, _mm256_set1_ps(a[t]->d)), acc[t]);
        acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin[t]),
                                 _mm256_mul_ps(dm, _mm256_set1_ps(-a[t]->d)), acc[t]);
      }
    }
    for (int t = 0; t < NT; ++t) _mm256_storeu_ps(y + t * y_stride, acc[t]);
  }
};

}  // namespace

// The quants and scale of the reference's Q8_K converter, with the sub-block sums.
void quantize_q8_K_sums__avx2(const float* x, void* dst, int64_t n) {
  auto* out = static_cast<ActBlockK*>(dst);
  for (int64_t b = 0; b < n / kQK_K; ++b) {
    BlockQ8K q;
    ref::quantize_activation(DType::Q8_K, x + b * kQK_K, &q, kQK_K);
    out[b].d = q.d;
    for (int s = 0; s < 8; ++s) out[b].sub_sums[s] = int16_t(q.bsums[2 * s] + q.bsums[2 * s + 1]);
    std::memcpy(out[b].qs, q.qs, kQK_K);
    std::memset(out[b].pad, 0, sizeof out[b].pad);
  }
}
const uint64_t kPackedQ4KActBlockBytes = sizeof(ActBlockK) / (kQK_K / kQK);

void pack_q4_K_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  auto* out = reinterpret_cast<PackedQ4K*>(dst);
  for (int64_t g = 0; g < n_rows; g += kRows)
    for (int64_t b = 0; b < n / kQK_K; ++b, ++out)
      for (int r = 0; r < kRows; ++r) {
        const BlockQ4K& in = reinterpret_cast<const BlockQ4K*>(w + (g + r) * row_bytes)[b];
        out->d[r] = in.d;
        out->dmin[r] = in.dmin;
        for (int word = 0; word < 3; ++word)
          std::memcpy(&out->scales[word][r], in.scales + 4 * word, 4);
        for (int j = 0; j < 4; ++j)
          for (int i = 0; i < 8; ++i) std::memcpy(&out->qs[j][i][4 * r], in.qs + 32 * j + 4 * i, 4);
      }
}

void gemv_q4_Kx8_q8_K__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            int64_t n, float* y) {
  packed::gemv<Tiles>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_Kx8_q8_K__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                            int64_t y_stride) {
  packed::gemm<Tiles>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

}  // namespace kz::x86
