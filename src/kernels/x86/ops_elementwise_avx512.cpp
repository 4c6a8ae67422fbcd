// The element-wise ops with an exponential (silu, swiglu, mul_sigmoid, gated_rms_norm) in 16
// lanes: AVX2's operations lane for lane (exp_f32x16 is exp_f32x8's), the same scalar tail of
// n % 8 elements (a last group of 8 takes the low half of a masked vector), so the bits of the
// __avx2 kernels (ops_elementwise_avx2.cpp).
#include "kernels/x86/intrinsics.h"

#include <cmath>

#include "kernels/ref/ops.h"
#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/simd_avx2.h"
#include "kernels/x86/simd_avx512.h"

namespace kz::x86 {
namespace {

__m512 sigmoid16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  return _mm512_div_ps(one, _mm512_add_ps(one, exp_f32x16(_mm512_sub_ps(_mm512_setzero_ps(), x))));
}
__m512 silu16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  return _mm512_div_ps(x, _mm512_add_ps(one, exp_f32x16(_mm512_sub_ps(_mm512_setzero_ps(), x))));
}

// Calls f(i, mask) for the vectors that cover [0, n - n % 8): 16 lanes, then a last 8 if left
// (mask 0x00ff); returns n - n % 8, where the scalar tail begins.
template <class F>
int64_t in_vectors(int64_t n, F&& f) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) f(i, __mmask16(0xffff));
  if (i + 8 <= n) f(i, __mmask16(0x00ff)), i += 8;
  return i;
}

}  // namespace

void swiglu__avx512(const float* gate, const float* up, int64_t n, float* y) {
  int64_t i = in_vectors(n, [&](int64_t j, __mmask16 m) {
    const __m512 g = _mm512_maskz_loadu_ps(m, gate + j), u = _mm512_maskz_loadu_ps(m, up + j);
    _mm512_mask_storeu_ps(y + j, m, _mm512_mul_ps(silu16(g), u));
  });
  for (; i < n; ++i) y[i] = ref::silu(gate[i]) * up[i];
}

void silu__avx512(float* x, int64_t n) {
  int64_t i = in_vectors(n, [&](int64_t j, __mmask16 m) {
    _mm512_mask_storeu_ps(x + j, m, silu16(_mm512_maskz_loadu_ps(m, x + j)));
  });
  for (; i < n; ++i) x[i] = ref::silu(x[i]);
}

void mul_sigmoid__avx512(float* x, const float* gate, int64_t n) {
  int64_t i = in_vectors(n, [&](int64_t j, __mmask16 m) {
    const __m512 g = _mm512_maskz_loadu_ps(m, gate + j);
    _mm512_mask_storeu_ps(x + j, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + j), sigmoid16(g)));
  });
  for (; i < n; ++i) x[i] *= ref::sigmoid(gate[i]);
}

void gated_rms_norm__avx512(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                            float eps, float* y) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    const float* zr = z + r * n;
    float* yr = y + r * n;
    const float mean = static_cast<float>(sum_squares<true>(xr, n) / static_cast<double>(n));
    const float scale = 1.0f / std::sqrt(mean + eps);
    const __m512 s = _mm512_set1_ps(scale);
    int64_t i = in_vectors(n, [&](int64_t j, __mmask16 m) {
      const __m512 v = _mm512_mul_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, xr + j), s),
                                     _mm512_maskz_loadu_ps(m, w + j));
      _mm512_mask_storeu_ps(yr + j, m, _mm512_mul_ps(v, silu16(_mm512_maskz_loadu_ps(m, zr + j))));
    });
    for (; i < n; ++i) yr[i] = xr[i] * scale * w[i] * ref::silu(zr[i]);
  }
}

}  // namespace kz::x86
