// AVX2 element-wise, normalization and RoPE ops (ops_avx2.h), and the table of AVX2 op kernels.
#include "kernels/x86/intrinsics.h"

#include <cmath>

#include "kernels/ref/ops.h"
#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/simd_avx2.h"
#include "quant/quant.h"

namespace kz::x86 {
namespace {

inline __m256 sigmoid8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(one, _mm256_add_ps(one, exp_f32x8(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}
inline __m256 silu8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(x, _mm256_add_ps(one, exp_f32x8(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}

}  // namespace

void rms_norm__avx2(const float* x, const float* w, int64_t n, int64_t rows, float eps, float* y) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    const float mean = float(sum_squares<false>(xr, n) / double(n));
    const float scale = 1.0f / std::sqrt(mean + eps);
    const __m256 s = _mm256_set1_ps(scale);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      __m256 v = _mm256_mul_ps(_mm256_loadu_ps(xr + i), s);
      if (w) v = _mm256_mul_ps(v, _mm256_loadu_ps(w + i));
      _mm256_storeu_ps(yr + i, v);
    }
    for (; i < n; ++i) yr[i] = w ? (xr[i] * scale) * w[i] : xr[i] * scale;
  }
}

void rope_neox__avx2(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                     const int32_t* pos, float freq_base) {
  const float theta_scale = std::pow(freq_base, -2.0f / float(n_rot));
  const int half = n_rot / 2;
  alignas(32) float cos_t[512], sin_t[512];  // half <= 512 (checked by the caller)
  for (int64_t t = 0; t < n_tok; ++t) {
    float theta = float(pos[t]);
    for (int k = 0; k < half; ++k) {  // θ iterated as the reference does
      cos_t[k] = std::cos(theta);
      sin_t[k] = std::sin(theta);
      theta *= theta_scale;
    }
    for (int h = 0; h < n_head; ++h) {
      float* v = x + (t * n_head + h) * int64_t(head_dim);
      int k = 0;
      for (; k + 8 <= half; k += 8) {
        const __m256 a = _mm256_loadu_ps(v + k), b = _mm256_loadu_ps(v + k + half);
        const __m256 c = _mm256_load_ps(cos_t + k), s = _mm256_load_ps(sin_t + k);
        _mm256_storeu_ps(v + k, _mm256_sub_ps(_mm256_mul_ps(a, c), _mm256_mul_ps(b, s)));
        _mm256_storeu_ps(v + k + half, _mm256_add_ps(_mm256_mul_ps(a, s), _mm256_mul_ps(b, c)));
      }
      for (; k < half; ++k) {
        const float a = v[k], b = v[k + half];
        v[k] = a * cos_t[k] - b * sin_t[k];
        v[k + half] = a * sin_t[k] + b * cos_t[k];
      }
    }
  }
}

void swiglu__avx2(const float* gate, const float* up, int64_t n, float* y) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 g = _mm256_loadu_ps(gate + i);
    _mm256_storeu_ps(y + i, _mm256_mul_ps(silu8(g), _mm256_loadu_ps(up + i)));
  }
  for (; i < n; ++i) y[i] = ref::silu(gate[i]) * up[i];
}

void silu__avx2(float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    _mm256_storeu_ps(x + i, silu8(v));
  }
  for (; i < n; ++i) x[i] = ref::silu(x[i]);
}

void add__avx2(float* x, const float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(x + i, _mm256_add_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
  for (; i < n; ++i) x[i] += y[i];
}

void mul_sigmoid__avx2(float* x, const float* gate, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(x + i,
                     _mm256_mul_ps(_mm256_loadu_ps(x + i), sigmoid8(_mm256_loadu_ps(gate + i))));
  for (; i < n; ++i) x[i] *= ref::sigmoid(gate[i]);
}

void gated_rms_norm__avx2(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                          float eps, float* y) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    const float* zr = z + r * n;
    float* yr = y + r * n;
    const float mean = static_cast<float>(sum_squares<true>(xr, n) / static_cast<double>(n));
    const float scale = 1.0f / std::sqrt(mean + eps);
    const __m256 s = _mm256_set1_ps(scale);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const __m256 zv = _mm256_loadu_ps(zr + i);
      const __m256 v =
          _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(xr + i), s), _mm256_loadu_ps(w + i));
      _mm256_storeu_ps(yr + i, _mm256_mul_ps(v, silu8(zv)));
    }
    for (; i < n; ++i) yr[i] = xr[i] * scale * w[i] * ref::silu(zr[i]);
  }
}

void to_f16__avx2(const float* x, void* dst, int64_t n) {
  auto* h = static_cast<uint16_t*>(dst);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))) {  // F16C keeps NaN payloads
      quantize_row(DType::F16, x + i, h + i, 8);
      continue;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(h + i),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  if (i < n) quantize_row(DType::F16, x + i, h + i, n - i);  // the tail, in the scalar converter
}

OpKernels ops_avx2() {
  OpKernels k;
  k.rms_norm = rms_norm__avx2;
  k.rope_neox = rope_neox__avx2;
  k.swiglu = swiglu__avx2;
  k.silu = silu__avx2;
  k.add = add__avx2;
  k.mul_sigmoid = mul_sigmoid__avx2;
  k.attention = attention__avx2;
  k.gated_rms_norm = gated_rms_norm__avx2;
  k.delta_rule = delta_rule__avx2;
  k.l2_norm = l2_norm__avx2;
  k.to_f16 = to_f16__avx2;
  k.isa = "avx2";
  return k;
}

}  // namespace kz::x86
