// The 8-lane f32 vector operations that the kernels written once over an ISA
// (kernels/online_attention.h, kernels/delta_rule_rows.h) take, for AVX2 + FMA. Include only from
// *_avx2.cpp files.
#pragma once

#include <immintrin.h>

#include "kernels/x86/simd_avx2.h"

namespace kz::x86 {

struct Avx2Vec8 {
  using V = __m256;
  static V zero() { return _mm256_setzero_ps(); }
  static V splat(float x) { return _mm256_set1_ps(x); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V x) { _mm256_storeu_ps(p, x); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(b, c, a); }  // a + b * c, fused
  static float hsum(V x) { return hsum_f32x8(x); }
  // out[j] = hsum(a[j]) for j < 4, the same sums taken side by side: the halves added (lanes
  // i + 4), then lanes i + 2, then neighbours.
  static void hsum4(const V* a, float* out) {
    const V c01 = _mm256_add_ps(_mm256_permute2f128_ps(a[0], a[1], 0x31),
                                _mm256_permute2f128_ps(a[0], a[1], 0x20));
    const V c23 = _mm256_add_ps(_mm256_permute2f128_ps(a[2], a[3], 0x31),
                                _mm256_permute2f128_ps(a[2], a[3], 0x20));
    const V e = _mm256_add_ps(_mm256_shuffle_ps(c01, c23, 0x44), _mm256_shuffle_ps(c01, c23, 0xEE));
    const V f = _mm256_hadd_ps(e, e);  // sums of a[0], a[2] in lanes 0, 1; a[1], a[3] in 4, 5
    alignas(32) float t[8];
    _mm256_store_ps(t, f);
    out[0] = t[0], out[1] = t[4], out[2] = t[1], out[3] = t[5];
  }
};

}  // namespace kz::x86
