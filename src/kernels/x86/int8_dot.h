// The 8-bit integer dot product of one 32-byte block, per ISA: signed weight bytes w times signed
// activation bytes a into 8 int32 lanes, lane l = sum of bytes 4l..4l+3. AVX2 goes through
// 16-bit pair sums (maddubs, madd); AVX-512 VNNI sums the four products in one instruction
// (dpbusd). Integer sums are exact, so both give the same lanes and the kernels built on them
// (gemm_q8_0_tiles.h) the same floats. Include only from *_avx2.cpp / *_avx512*.cpp files.
#pragma once

#include "kernels/x86/intrinsics.h"

namespace kz::x86 {
namespace {  // per file: see simd_avx2.h

struct Int8DotAvx2 {
  static __m256i dot(__m256i w, __m256i a) {
    const __m256i aw = _mm256_sign_epi8(w, w);
    const __m256i sa = _mm256_sign_epi8(a, w);
    return _mm256_madd_epi16(_mm256_maddubs_epi16(aw, sa), _mm256_set1_epi16(1));
  }
};

#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
struct Int8DotAvx512Vnni {
  static __m256i dot(__m256i w, __m256i a) {
    const __m256i aw = _mm256_sign_epi8(w, w);
    const __m256i sa = _mm256_sign_epi8(a, w);
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), aw, sa);
  }
};
#endif

}  // namespace
}  // namespace kz::x86
