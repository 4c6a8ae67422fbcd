// The 8-lane f32 vector operations that the kernels written once over an ISA
// (kernels/online_attention.h, kernels/delta_rule_rows.h) take, for AVX2 + FMA. Include only from
// *_avx2.cpp files.
#pragma once

#include "kernels/x86/intrinsics.h"

#include "kernels/x86/simd_avx2.h"

namespace kz::x86 {
namespace {  // per file: see simd_avx2.h

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
  static void hsum8(const V x[8], float r[8]) { hsum8_f32x8(x, r); }
  static void sum_squares4(const float* const p[4], int n, double sums[4]);
};

// sums[r] = the sum over i < n of double(p[r][i] * p[r][i]) in order of i, four rows at once,
// one double lane a row (delta_rule_rows.h: l2_normalize_rows).
inline void Avx2Vec8::sum_squares4(const float* const p[4], int n, double sums[4]) {
  __m256d sum = _mm256_setzero_pd();
  auto add_squares = [&](__m128 col) {  // lane r: element i of row r
    sum = _mm256_add_pd(sum, _mm256_cvtps_pd(_mm_mul_ps(col, col)));
  };
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128 c0 = _mm_loadu_ps(p[0] + i), c1 = _mm_loadu_ps(p[1] + i);
    __m128 c2 = _mm_loadu_ps(p[2] + i), c3 = _mm_loadu_ps(p[3] + i);
    _MM_TRANSPOSE4_PS(c0, c1, c2, c3);
    add_squares(c0);
    add_squares(c1);
    add_squares(c2);
    add_squares(c3);
  }
  for (; i < n; ++i) add_squares(_mm_setr_ps(p[0][i], p[1][i], p[2][i], p[3][i]));
  _mm256_storeu_pd(sums, sum);
}

}  // namespace
}  // namespace kz::x86
