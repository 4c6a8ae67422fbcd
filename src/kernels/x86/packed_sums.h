// How an ISA sums the u8 x s8 products of the packed kernels (packed_q8_0_blocks.h,
// packed_q4_k_blocks.h) into exact per-row int32 lanes. A sums policy S has
//   static __m256i start(int32_t offset);
//   static __m256i add(__m256i acc, __m256i u, __m256i s);
//       // adds the products u[4l + i] * s[4l + i] (u unsigned, s signed bytes) to lane l
//   static __m256i finish(__m256i acc, int32_t offset);  // lane l's exact sum minus offset
//   static __m256i scaled(__m256i acc, __m256i sc, int b);
//       // lane l's exact sum (started from offset 0) times byte b of sc's lane l
// Integer sums are exact, so every policy gives the same lanes and the kernels the same bits (the
// 16-row AVX-512 VNNI kernels, matmul_packed_x16_avx512vnni.cpp, sum with vpdpbusd in int32).
// Include only from *_avx2.cpp / *_avx512*.cpp files.
#pragma once

#include "kernels/x86/intrinsics.h"

#include <cstdint>

namespace kz::x86::packed {
namespace {  // per file: see simd_avx2.h

// A shuffle control that makes each 32-bit lane the int16 pair (byte b0, byte b1) of that lane.
inline __m256i pair_of_bytes(int b0, int b1) {
  const __m256i lane_offsets = _mm256_setr_epi32(0, 0x00040004, 0x00080008, 0x000c000c, 0,
                                                 0x00040004, 0x00080008, 0x000c000c);
  return _mm256_add_epi32(_mm256_set1_epi32(int(0x80008000u | uint32_t(b1) << 16 | uint32_t(b0))),
                          lane_offsets);
}
// AVX2: maddubs into 16-bit pair sums, widened by madd at the end. Exact while a lane holds at
// most 8 pair sums of 4-bit quants (2 * 15 * 128 each): a Q4_0 block, a Q4_K sub-block.
struct SumsMaddubs {
  static __m256i start(int32_t) { return _mm256_setzero_si256(); }
  static __m256i add(__m256i acc, __m256i u, __m256i s) {
    return _mm256_add_epi16(acc, _mm256_maddubs_epi16(u, s));
  }
  static __m256i finish(__m256i acc, int32_t offset) {
    return _mm256_sub_epi32(_mm256_madd_epi16(acc, _mm256_set1_epi16(1)),
                            _mm256_set1_epi32(offset));
  }
  static __m256i scaled(__m256i acc, __m256i sc, int b) {
    return _mm256_madd_epi16(acc, _mm256_shuffle_epi8(sc, pair_of_bytes(b, b)));
  }
};

}  // namespace
}  // namespace kz::x86::packed
