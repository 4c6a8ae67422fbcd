// Packed Q4_0 / Q8_0 block dot products (packed_q8_0_blocks.h) built on a 4-byte dot-product
// instruction: Dp::dpbusd(acc, u, s) adds to int32 lane l the exact sum of the 4 products
// u[4l + i] * s[4l + i], u unsigned and s signed bytes (vpdpbusd). Each dot starts from
// -offset, which takes out the weights' zero point, so one instruction per 32 bytes is all a
// token needs: no 16-bit pair sums, and for Q8_0 no sign fix-up (its quants are stored + 128).
// Integer sums are exact, so the lanes, and every output, are those of the AVX2 kernels.
// Dp is vpdpbusd itself (matmul_packed_avx512vnni.cpp) or, in the tests, an exact AVX2
// emulation of it, so the packing and offsets are checked on machines without VNNI.
#pragma once

#include <immintrin.h>

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

}  // namespace kz::x86::packed
