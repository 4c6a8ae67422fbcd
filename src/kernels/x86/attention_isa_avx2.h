// The operations that kernels/online_attention.h (one query token) and
// kernels/blocked_attention.h (prompts) run their online softmax with on AVX2: vec8_avx2.h's
// 8-lane vectors, the cache loads and the exponential. Include only from *_avx2.cpp /
// *_avx512*.cpp files.
#pragma once

#include "kernels/x86/intrinsics.h"

#include "kernels/online_attention.h"
#include "kernels/x86/simd_avx2.h"
#include "kernels/x86/vec8_avx2.h"

namespace kz::x86 {
namespace {  // per file: see simd_avx2.h

struct Avx2Attention : Avx2Vec8 {
  static V load_f16(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static V load_i8(const int8_t* p) {
    const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q));
  }
  static float half(uint16_t h) { return _cvtsh_ss(h); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V exp(V x) { return exp_f32x8(x); }
  static void exp_block(float* s, float m) {
    static_assert(online_attention::kKeyBlock == 16);
    for (int j = 0; j < 16; j += 8)
      _mm256_store_ps(s + j, exp_f32x8(_mm256_sub_ps(_mm256_load_ps(s + j), _mm256_set1_ps(m))));
  }
};

}  // namespace
}  // namespace kz::x86
