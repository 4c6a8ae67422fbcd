// Tokens of the gated delta rule with AVX-512 (kernels/delta_rule_rows.h): a 16-lane vector holds
// the same 8 elements of two adjacent state rows, each half doing AVX2's 8-lane operations lane
// for lane, so the bits are delta_rule__avx2's with half the arithmetic instructions.
#include "kernels/x86/intrinsics.h"

#include "kernels/delta_rule_rows.h"
#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/vec8_avx2.h"

namespace kz::x86 {
namespace {

// The halves are moved as 4 doubles (AVX-512F's inserts and extracts; DQ has the f32x8 ones).
__m512 join(__m256 lo, __m256 hi) {
  return _mm512_castpd_ps(
      _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(lo)), _mm256_castps_pd(hi), 1));
}
__m256 high_half(__m512 x) {
  return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1));
}

struct Avx512TwoRows {
  static constexpr int kRows = 2;
  using V = __m512;
  static V zero() { return _mm512_setzero_ps(); }
  static V splat(float x) { return _mm512_set1_ps(x); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(b, c, a); }  // a + b * c, fused
  static V load_shared(const float* p) {
    return _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(p))));
  }
  static V load_rows(const float* p, int64_t stride) {
    return join(_mm256_loadu_ps(p), _mm256_loadu_ps(p + stride));
  }
  static void store_rows(float* p, int64_t stride, V x) {
    _mm256_storeu_ps(p, _mm512_castps512_ps256(x));
    _mm256_storeu_ps(p + stride, high_half(x));
  }
  static V splat_rows(const float* x) { return join(_mm256_set1_ps(x[0]), _mm256_set1_ps(x[1])); }
  static void hsum_rows(V x, float* sums) {  // each half in hsum_f32x8's order
    sums[0] = hsum_f32x8(_mm512_castps512_ps256(x));
    sums[1] = hsum_f32x8(high_half(x));
  }
};

}  // namespace

void delta_rule__avx512(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                        const float* beta, float eps, float* state, float* out, int h_begin,
                        int h_end) {
  delta_rule::run<Avx2Vec8, Avx512TwoRows>(dims, n_tok, qkv, g, beta, eps, state, out, h_begin,
                                           h_end);
}

}  // namespace kz::x86
