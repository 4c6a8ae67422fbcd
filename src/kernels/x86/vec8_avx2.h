// The 8-lane f32 vector operations that the kernels written once over an ISA
// (kernels/online_attention.h, kernels/delta_rule_rows.h) take, for AVX2 + FMA. Include only from
// *_avx2.cpp files.
#pragma once

#include <immintrin.h>

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
};

}  // namespace
}  // namespace kz::x86
