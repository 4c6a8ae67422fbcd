// Packed Q4_0 / Q8_0 block dot products (packed_q8_0_blocks.h) and Q4_K sub-block sums
// (packed_q4_k_blocks.h) built on a 4-byte dot-product instruction: Dp::dpbusd(acc, u, s) adds to
// int32 lane l the exact sum of the 4 products u[4l + i] * s[4l + i], u unsigned and s signed
// bytes (vpdpbusd). One instruction per 32 bytes and token, with no 16-bit pair sums: Q4_0 and
// Q8_0 dots start from -offset, which takes out the weights' zero point (so Q8_0, stored + 128,
// needs no sign fix-up); Q4_K's int32 sub-block sums take their scales with one multiply.
// Integer sums are exact, so the lanes, and every output, are those of the AVX2 kernels.
// Dp is vpdpbusd itself (matmul_packed_avx512vnni.cpp) or, in the tests, an exact AVX2
// emulation of it, so the packing and offsets are checked on machines without VNNI.
#pragma once

#include <immintrin.h>

#include "kernels/x86/packed_q4_k_blocks.h"
#include "kernels/x86/packed_q8_0_blocks.h"

namespace kz::x86::packed {

template <class Dp>
struct Q4_0Dpbusd : Q4_0Layout {
  template <int NT>
  static void dots(const Packed& w, const ActBlock* const a[NT], __m256i isum[NT]) {
    const __m256i low = _mm256_set1_epi8(0xF);
    for (int t = 0; t < NT; ++t) isum[t] = _mm256_set1_epi32(-a[t]->offset);
    for (int j = 0; j < 4; ++j) {
      const __m256i v = load_i8x32(w.qs + 32 * j);
      const __m256i lo = _mm256_and_si256(v, low);
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
      for (int t = 0; t < NT; ++t) {
        isum[t] = Dp::dpbusd(isum[t], lo, broadcast_4_bytes(a[t]->qs + 4 * j));
        isum[t] = Dp::dpbusd(isum[t], hi, broadcast_4_bytes(a[t]->qs + 16 + 4 * j));
      }
    }
  }
};

template <class Dp>
struct Q8_0UnsignedDpbusd : Q8_0UnsignedLayout {
  template <int NT>
  static void dots(const Packed& w, const ActBlock* const a[NT], __m256i isum[NT]) {
    for (int t = 0; t < NT; ++t) isum[t] = _mm256_set1_epi32(-a[t]->offset);
    for (int j = 0; j < 8; ++j) {
      const __m256i v = load_i8x32(w.qs + 32 * j);
      for (int t = 0; t < NT; ++t)
        isum[t] = Dp::dpbusd(isum[t], v, broadcast_4_bytes(a[t]->qs + 4 * j));
    }
  }
};

template <class Dp>
struct Q4KSumsDpbusd {
  template <int NT>
  static void add_chunk(const PackedQ4K& wb, const ActBlockK* const a[NT], int j, const Scales& s,
                        __m256i isum[NT]) {
    const __m256i low = _mm256_set1_epi8(0xF);
    __m256i lo[NT], hi[NT];
    for (int t = 0; t < NT; ++t) lo[t] = hi[t] = _mm256_setzero_si256();
    for (int i = 0; i < 8; ++i) {
      const __m256i v = load_i8x32(wb.qs[j][i]);
      const __m256i ql = _mm256_and_si256(v, low);
      const __m256i qh = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
      for (int t = 0; t < NT; ++t) {
        const int8_t* at = a[t]->qs + 64 * j + 4 * i;
        lo[t] = Dp::dpbusd(lo[t], ql, broadcast_4_bytes(at));
        hi[t] = Dp::dpbusd(hi[t], qh, broadcast_4_bytes(at + 32));
      }
    }
    const int sub = 2 * j % 4;  // byte of sub-block 2j in s.sc[j / 2]
    const __m256i sc_lo = _mm256_shuffle_epi8(s.sc[j / 2], byte_of_lanes(sub));
    const __m256i sc_hi = _mm256_shuffle_epi8(s.sc[j / 2], byte_of_lanes(sub + 1));
    for (int t = 0; t < NT; ++t)
      isum[t] = _mm256_add_epi32(isum[t], _mm256_add_epi32(_mm256_mullo_epi32(lo[t], sc_lo),
                                                           _mm256_mullo_epi32(hi[t], sc_hi)));
  }
};

}  // namespace kz::x86::packed
