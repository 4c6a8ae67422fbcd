// What the packed Q4_K and Q5_K kernels of every x86 ISA share (matmul_packed_q4_k_avx2.cpp,
// matmul_packed_x16_avx512vnni.cpp): the packed
// super-blocks of 8 interleaved rows (AVX-512: 16), the activation super-block, the scale
// unpacking and the 8-row tile, over an ISA's sums policy S (packed_sums.h) and
// a format's quants Q (Q4Quants, Q5Quants).
//
// Per (row, token, super-block), with sumi_s the exact sum of quant * activation over sub-block s
// and S_s the sum of the activation's quants there:
//   isum = sum_s sc_s * sumi_s,  imin = sum_s m_s * S_s                      (exact int32)
//   acc = fma(float(isum), d_w * d_a, acc),  acc = fma(float(imin), dmin_w * -d_a, acc)
// over the super-blocks in order, the same for every ISA, gemv and gemm (so gemm equals gemv,
// and every ISA AVX2, bit for bit). Include only from *_avx2.cpp / *_avx512*.cpp files.
#pragma once

#include "kernels/x86/intrinsics.h"

#include <cstdint>

#include "kernels/x86/packed_driver.h"
#include "kernels/x86/packed_sums.h"
#include "kernels/x86/simd_avx2.h"
#include "quant/blocks.h"

namespace kz::x86::packed {
namespace {  // per file: see simd_avx2.h

// Super-block b of a group of R rows (8; 16 for 512-bit vectors). scales[w][r] is 32-bit word
// w of row r's 12 scale bytes; qs[j][i] holds bytes 4i..4i+3 of row r's 32-byte chunk j at
// bytes 4r..4r+3 (low nibbles: sub-block 2j, elements 64j+4i..; high nibbles: sub-block 2j+1,
// elements 64j+32+4i..).
template <int R>
struct PackedQ4KRows {
  uint16_t d[R], dmin[R];
  uint32_t scales[3][R];
  uint8_t qs[4][8][4 * R];
};
using PackedQ4K = PackedQ4KRows<kRows>;
using PackedQ4Kx16 = PackedQ4KRows<2 * kRows>;
static_assert(sizeof(PackedQ4K) == kRows * sizeof(BlockQ4K));
static_assert(sizeof(PackedQ4Kx16) == 2 * kRows * sizeof(BlockQ4K));

// Q5_K: Q4_K's layout with the fifth bits; qh[i] holds bytes 4i..4i+3 of row r's 32 qh bytes at
// bytes 4r..4r+3 (bit s: the fifth bit of element 32s + 4i.. of sub-block s), so one vector of
// them serves the 4 chunks' vectors i.
template <int R>
struct PackedQ5KRows {
  uint16_t d[R], dmin[R];
  uint32_t scales[3][R];
  uint8_t qh[8][4 * R];
  uint8_t qs[4][8][4 * R];
};
using PackedQ5K = PackedQ5KRows<kRows>;
using PackedQ5Kx16 = PackedQ5KRows<2 * kRows>;
static_assert(sizeof(PackedQ5K) == kRows * sizeof(BlockQ5K));
static_assert(sizeof(PackedQ5Kx16) == 2 * kRows * sizeof(BlockQ5K));

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
template <class Packed>
Scales unpack_scales(const Packed& w) {
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

// The unsigned quants of chunk j's vector i: lo of sub-block 2j, hi of sub-block 2j + 1.
// kSumVectors: how many vectors' products SumsMaddubs may sum in int16 (packed_sums.h).
struct Q4Quants {
  using Packed = PackedQ4K;
  static constexpr int kSumVectors = 8;
  static void get(const PackedQ4K& w, int j, int i, __m256i& lo, __m256i& hi) {
    const __m256i low = _mm256_set1_epi8(0xF);
    const __m256i v = load_i8x32(w.qs[j][i]);
    lo = _mm256_and_si256(v, low);
    hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
  }
};
// Fifth bits 2j and 2j + 1 moved to bit 4 (the 16-bit shifts keep bit 4 of each byte within it);
// quants up to 31: 4 vectors' int16 pair sums at most 8 * 31 * 128.
struct Q5Quants {
  using Packed = PackedQ5K;
  static constexpr int kSumVectors = 4;
  static void get(const PackedQ5K& w, int j, int i, __m256i& lo, __m256i& hi) {
    const __m256i low = _mm256_set1_epi8(0xF), bit4 = _mm256_set1_epi8(0x10);
    const __m256i v = load_i8x32(w.qs[j][i]);
    const __m256i h = _mm256_srl_epi16(load_i8x32(w.qh[i]), _mm_cvtsi32_si128(2 * j));
    lo = _mm256_or_si256(_mm256_and_si256(v, low), _mm256_and_si256(_mm256_slli_epi16(h, 4), bit4));
    hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v, 4), low),
                         _mm256_and_si256(_mm256_slli_epi16(h, 3), bit4));
  }
};

// One group of 8 rows x NT <= kTokens tokens (packed_driver.h).
template <class S, class Q = Q4Quants>
struct Q4KTiles {
  using Packed = typename Q::Packed;
  static constexpr int64_t kBlock = kQK_K;
  static constexpr int kTokens = kTokensAvx2;
  // Adds to isum[t] lane r the scaled sums sc_s * sumi_s of row r over chunk j's two sub-blocks
  // (2j: low nibbles, 2j + 1: high nibbles) with token t.
  template <int NT>
  static void add_chunk(const Packed& wb, const ActBlockK* const a[NT], int j, const Scales& s,
                        __m256i isum[NT]) {
    const int sub = 2 * j % 4;  // byte of sub-block 2j in s.sc[j / 2]
    for (int i0 = 0; i0 < 8; i0 += Q::kSumVectors) {
      __m256i lo[NT], hi[NT];
      for (int t = 0; t < NT; ++t) lo[t] = hi[t] = S::start(0);
#pragma GCC unroll 1  // as Q4_0Weights; unrolling by 2 or 8 measured within noise (AVX2)
      for (int i = i0; i < i0 + Q::kSumVectors; ++i) {
        __m256i q_lo, q_hi;
        Q::get(wb, j, i, q_lo, q_hi);
        for (int t = 0; t < NT; ++t) {
          const int8_t* at = a[t]->qs + 64 * j + 4 * i;
          lo[t] = S::add(lo[t], q_lo, broadcast_4_bytes(at));
          hi[t] = S::add(hi[t], q_hi, broadcast_4_bytes(at + 32));
        }
      }
      for (int t = 0; t < NT; ++t)
        isum[t] =
            _mm256_add_epi32(isum[t], _mm256_add_epi32(S::scaled(lo[t], s.sc[j / 2], sub),
                                                       S::scaled(hi[t], s.sc[j / 2], sub + 1)));
    }
  }
  template <int NT>
  static void tile(const Packed* w, const uint8_t* act, uint64_t act_row_bytes, int64_t nb,
                   float* y, int64_t y_stride) {
    __m256 acc[NT];
    for (int t = 0; t < NT; ++t) acc[t] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_weights_ahead(w + b, sizeof(Packed));  // a small batch's one pass streams them too
      const Packed& wb = w[b];
      const ActBlockK* a[NT];
      for (int t = 0; t < NT; ++t)
        a[t] = reinterpret_cast<const ActBlockK*>(act + t * act_row_bytes) + b;
      const Scales s = unpack_scales(wb);
      __m256i isum[NT];
      for (int t = 0; t < NT; ++t) isum[t] = _mm256_setzero_si256();
      for (int j = 0; j < 4; ++j) add_chunk<NT>(wb, a, j, s, isum);
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
}  // namespace kz::x86::packed
