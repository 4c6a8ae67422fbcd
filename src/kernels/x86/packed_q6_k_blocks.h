// What the packed Q6_K kernels of every x86 ISA share (matmul_packed_q6_k_avx2.cpp,
// matmul_packed_x16_avx512vnni.cpp): the packed super-block of 8 interleaved rows (AVX-512: 16;
// the same vectors, twice as wide), the activation
// super-block, the quant unpacking and the tile, over an ISA's sums policy (below).
//
// The layout is chosen so that a one-token product (decode) unpacks no more than the row-major
// kernel does: each 16-element sub-block of the 8 rows is three 32-byte vectors X, Y, Z whose
// bytes hold whole 6-bit quants of the sub-block's first 12 elements (bits 0-5) and, in their
// top 2 bits, the 2-bit thirds of the last 4 elements' quants. Four vectors of quants come from
// three loads with 11 simple operations, no cross-lane moves and no second array.
//
// Per (row, token, super-block), with sumi_s the exact sum of quant * activation over sub-block
// s (quants stored unsigned, q + 32), S_s the sum of the activation's quants there and sc_s the
// signed 8-bit scale:
//   isum = sum_s sc_s * sumi_s - 32 * sum_s sc_s * S_s                         (exact int32)
//   acc = fma(float(isum), d_w * d_a, acc)
// over the super-blocks in order, the same for every ISA, gemv and gemm (so gemm equals gemv,
// and every ISA AVX2, bit for bit). Include only from *_avx2.cpp / *_avx512*.cpp files.
#pragma once

#include "kernels/x86/intrinsics.h"

#include <cstdint>

#include "kernels/x86/packed_driver.h"
#include "kernels/x86/simd_avx2.h"
#include "quant/blocks.h"

namespace kz::x86::packed {
namespace {  // per file: see simd_avx2.h

// Super-block b of a group of R rows (8; 16 for 512-bit vectors). scales[p][r] holds row r's
// scales of sub-blocks 2p and 2p + 1; qs[s][v] bytes 4r..4r+3 hold row r's quants of elements
// 16s + 4v + i (i < 4) in bits 0-5 and bits 2v, 2v + 1 of the quant of element 16s + 12 + i in
// bits 6-7.
template <int R>
struct PackedQ6KRows {
  uint16_t d[R];
  int8_t scales[8][R][2];
  uint8_t qs[16][3][4 * R];
};
using PackedQ6K = PackedQ6KRows<kRows>;
using PackedQ6Kx16 = PackedQ6KRows<2 * kRows>;
static_assert(sizeof(PackedQ6K) == kRows * sizeof(BlockQ6K));
static_assert(sizeof(PackedQ6Kx16) == 2 * kRows * sizeof(BlockQ6K));

// An activation super-block: the Q8_K scale, the sums of each 16-element sub-block's quants,
// the quants; padded to a whole 37 bytes per 32 elements.
struct ActBlockQ6K {
  float d;
  int16_t sub_sums[16];
  int8_t qs[kQK_K];
  uint8_t pad[4];
};
static_assert(sizeof(ActBlockQ6K) % (kQK_K / kQK) == 0);

// The four vectors of unsigned quants (elements 16s + 4v.., v < 4) of sub-block s.
inline void unpack_sub_block(const PackedQ6K& w, int s, __m256i q[4]) {
  const __m256i x = load_i8x32(w.qs[s][0]), y = load_i8x32(w.qs[s][1]);
  const __m256i z = load_i8x32(w.qs[s][2]);
  const __m256i low6 = _mm256_set1_epi8(0x3F), top2 = _mm256_set1_epi8(char(0xC0));
  q[0] = _mm256_and_si256(x, low6);
  q[1] = _mm256_and_si256(y, low6);
  q[2] = _mm256_and_si256(z, low6);
  // Masked first, the 16-bit shifts move no bits across bytes.
  q[3] = _mm256_or_si256(_mm256_or_si256(_mm256_srli_epi16(_mm256_and_si256(x, top2), 6),
                                         _mm256_srli_epi16(_mm256_and_si256(y, top2), 4)),
                         _mm256_srli_epi16(_mm256_and_si256(z, top2), 2));
}

// Lane r: row r's scales of sub-blocks 2p and 2p + 1 as int16.
inline __m256i scale_pair(const PackedQ6K& w, int p) {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w.scales[p])));
}

// How an ISA sums one sub-block: sub_block(isum, q, a, sc) adds to lane r of isum row r's scale
// times its exact sum of q * a over the sub-block's 16 elements (a: its activation quants), with
// sc = scale(pair, odd) made once per super-block from scale_pair's vector.
//
// AVX2: maddubs pair sums of two vectors add in int16 without overflow (|2 * 63 * 128| * 2 =
// 32256), then madd multiplies them by the scale in both halves of the lane.
struct Q6SumsMaddubs {
  static __m256i scale(__m256i pair, int odd) {
    const __m256i even_twice = _mm256_setr_epi8(0, 1, 0, 1, 4, 5, 4, 5, 8, 9, 8, 9, 12, 13, 12, 13,
                                                0, 1, 0, 1, 4, 5, 4, 5, 8, 9, 8, 9, 12, 13, 12, 13);
    const __m256i odd_twice = _mm256_add_epi8(even_twice, _mm256_set1_epi8(2));
    return _mm256_shuffle_epi8(pair, odd ? odd_twice : even_twice);
  }
  static __m256i sub_block(__m256i isum, const __m256i q[4], const int8_t* a, __m256i sc) {
    const __m256i p01 = _mm256_add_epi16(_mm256_maddubs_epi16(q[0], broadcast_4_bytes(a)),
                                         _mm256_maddubs_epi16(q[1], broadcast_4_bytes(a + 4)));
    const __m256i p23 = _mm256_add_epi16(_mm256_maddubs_epi16(q[2], broadcast_4_bytes(a + 8)),
                                         _mm256_maddubs_epi16(q[3], broadcast_4_bytes(a + 12)));
    return _mm256_add_epi32(
        isum, _mm256_add_epi32(_mm256_madd_epi16(p01, sc), _mm256_madd_epi16(p23, sc)));
  }
};

// One group of 8 rows x NT <= kTokens tokens (packed_driver.h).
template <class S>
struct Q6KTiles {
  using Packed = PackedQ6K;
  static constexpr int64_t kBlock = kQK_K;
  static constexpr int kTokens = kTokensAvx2;
  template <int NT>
  static void tile(const PackedQ6K* w, const uint8_t* act, uint64_t act_row_bytes, int64_t nb,
                   float* y, int64_t y_stride) {
    __m256 acc[NT];
    for (int t = 0; t < NT; ++t) acc[t] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_weights_ahead(w + b, sizeof(Packed));  // a small batch's one pass streams them too
      const PackedQ6K& wb = w[b];
      const ActBlockQ6K* a[NT];
      for (int t = 0; t < NT; ++t)
        a[t] = reinterpret_cast<const ActBlockQ6K*>(act + t * act_row_bytes) + b;
      // The quants' offset first: isum = -32 * sum_s sc_s * S_s.
      __m256i isum[NT];
      for (int t = 0; t < NT; ++t) isum[t] = _mm256_setzero_si256();
      for (int p = 0; p < 8; ++p) {
        const __m256i pair = scale_pair(wb, p);
        for (int t = 0; t < NT; ++t)
          isum[t] = _mm256_add_epi32(
              isum[t], _mm256_madd_epi16(pair, broadcast_4_bytes(a[t]->sub_sums + 2 * p)));
      }
      for (int t = 0; t < NT; ++t)
        isum[t] = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(isum[t], 5));
      for (int p = 0; p < 8; ++p) {
        const __m256i pair = scale_pair(wb, p);
        for (int odd = 0; odd < 2; ++odd) {
          const int s = 2 * p + odd;
          __m256i q[4];
          unpack_sub_block(wb, s, q);
          const __m256i sc = S::scale(pair, odd);
          for (int t = 0; t < NT; ++t) isum[t] = S::sub_block(isum[t], q, a[t]->qs + 16 * s, sc);
        }
      }
      const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(wb.d)));
      for (int t = 0; t < NT; ++t)
        acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[t]),
                                 _mm256_mul_ps(dw, _mm256_set1_ps(a[t]->d)), acc[t]);
    }
    for (int t = 0; t < NT; ++t) _mm256_storeu_ps(y + t * y_stride, acc[t]);
  }
};

}  // namespace
}  // namespace kz::x86::packed
