// Element-wise, normalization and RoPE ops on ARMv8.0 Advanced SIMD (kernel table `ops`), with
// the arithmetic of kernels/x86/ops_elementwise_avx2.cpp operation for operation: the same
// vector exp (Cephes range reduction, degree-6 polynomial, fused multiply-adds), the same
// double-precision sums of squares in 4 lanes, the same scalar tails. So ARM and x86 give the
// same bits; rms_norm, rope_neox and add also equal the reference's (kernels/ref/ops.h).
#include <arm_neon.h>

#include <cmath>

#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/exp_neon.h"
#include "kernels/ref/ops.h"
#include "quant/quant.h"

namespace kz::arm {
namespace {

inline float32x4_t exp_neg4(float32x4_t x) {
  return exp4(vsubq_f32(vdupq_n_f32(0.0f), x));
}
inline float32x4_t sigmoid4(float32x4_t x) {
  return vdivq_f32(vdupq_n_f32(1.0f), vaddq_f32(vdupq_n_f32(1.0f), exp_neg4(x)));
}
inline float32x4_t silu4(float32x4_t x) {
  return vdivq_f32(x, vaddq_f32(vdupq_n_f32(1.0f), exp_neg4(x)));
}

// Σ x² in 4 double lanes, ((l0 + l1) + (l2 + l3)), then the tail; squares exact in double, or
// (kF32Square) rounded to f32 first.
template <bool kF32Square>
double sum_squares(const float* x, int64_t n) {
  float64x2_t a01 = vdupq_n_f64(0), a23 = vdupq_n_f64(0);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4_t v = vld1q_f32(x + i);
    if constexpr (kF32Square) {
      v = vmulq_f32(v, v);
      a01 = vaddq_f64(a01, vcvt_f64_f32(vget_low_f32(v)));
      a23 = vaddq_f64(a23, vcvt_high_f64_f32(v));
    } else {
      const float64x2_t d01 = vcvt_f64_f32(vget_low_f32(v)), d23 = vcvt_high_f64_f32(v);
      a01 = vaddq_f64(a01, vmulq_f64(d01, d01));
      a23 = vaddq_f64(a23, vmulq_f64(d23, d23));
    }
  }
  double sum = vaddvq_f64(a01) + vaddvq_f64(a23);
  for (; i < n; ++i) sum += kF32Square ? double(x[i] * x[i]) : double(x[i]) * double(x[i]);
  return sum;
}

// Element-wise loop as the x86 kernels': whole groups of 8 by the vector code (f4 on lanes
// i..i+3 and i+4..i+7), the n % 8 tail by the scalar code, which differs from the vector exp in
// the last bits: the split must be the same for the bits to be.
template <class F4, class F1>
void each(int64_t n, F4 f4, F1 f1) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    f4(i);
    f4(i + 4);
  }
  for (; i < n; ++i) f1(i);
}

}  // namespace

void rms_norm__neon(const float* x, const float* w, int64_t n, int64_t rows, float eps, float* y) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    const float mean = float(sum_squares<false>(xr, n) / double(n));
    const float scale = 1.0f / std::sqrt(mean + eps);
    each(
        n,
        [&](int64_t i) {
          float32x4_t v = vmulq_n_f32(vld1q_f32(xr + i), scale);
          if (w) v = vmulq_f32(v, vld1q_f32(w + i));
          vst1q_f32(yr + i, v);
        },
        [&](int64_t i) { yr[i] = w ? (xr[i] * scale) * w[i] : xr[i] * scale; });
  }
}

void rope_neox__neon(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                     const int32_t* pos, float freq_base) {
  const float theta_scale = std::pow(freq_base, -2.0f / float(n_rot));
  const int half = n_rot / 2;
  float cos_t[512], sin_t[512];  // half <= 512 (checked by the caller)
  for (int64_t t = 0; t < n_tok; ++t) {
    float theta = float(pos[t]);
    for (int k = 0; k < half; ++k) {  // θ iterated as the reference does
      cos_t[k] = std::cos(theta);
      sin_t[k] = std::sin(theta);
      theta *= theta_scale;
    }
    for (int h = 0; h < n_head; ++h) {
      float* v = x + (t * n_head + h) * int64_t(head_dim);
      each(
          half,
          [&](int64_t k) {
            const float32x4_t a = vld1q_f32(v + k), b = vld1q_f32(v + k + half);
            const float32x4_t c = vld1q_f32(cos_t + k), s = vld1q_f32(sin_t + k);
            vst1q_f32(v + k, vsubq_f32(vmulq_f32(a, c), vmulq_f32(b, s)));
            vst1q_f32(v + k + half, vaddq_f32(vmulq_f32(a, s), vmulq_f32(b, c)));
          },
          [&](int64_t k) {
            const float a = v[k], b = v[k + half];
            v[k] = a * cos_t[k] - b * sin_t[k];
            v[k + half] = a * sin_t[k] + b * cos_t[k];
          });
    }
  }
}

void swiglu__neon(const float* gate, const float* up, int64_t n, float* y) {
  each(
      n,
      [&](int64_t i) {
        vst1q_f32(y + i, vmulq_f32(silu4(vld1q_f32(gate + i)), vld1q_f32(up + i)));
      },
      [&](int64_t i) { y[i] = ref::silu(gate[i]) * up[i]; });
}

void silu__neon(float* x, int64_t n) {
  each(
      n, [&](int64_t i) { vst1q_f32(x + i, silu4(vld1q_f32(x + i))); },
      [&](int64_t i) { x[i] = ref::silu(x[i]); });
}

void add__neon(float* x, const float* y, int64_t n) {
  each(
      n, [&](int64_t i) { vst1q_f32(x + i, vaddq_f32(vld1q_f32(x + i), vld1q_f32(y + i))); },
      [&](int64_t i) { x[i] += y[i]; });
}

void mul_sigmoid__neon(float* x, const float* gate, int64_t n) {
  each(
      n,
      [&](int64_t i) {
        vst1q_f32(x + i, vmulq_f32(vld1q_f32(x + i), sigmoid4(vld1q_f32(gate + i))));
      },
      [&](int64_t i) { x[i] *= ref::sigmoid(gate[i]); });
}

void gated_rms_norm__neon(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                          float eps, float* y) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    const float* zr = z + r * n;
    float* yr = y + r * n;
    const float mean = static_cast<float>(sum_squares<true>(xr, n) / static_cast<double>(n));
    const float scale = 1.0f / std::sqrt(mean + eps);
    each(
        n,
        [&](int64_t i) {
          const float32x4_t v = vmulq_f32(vmulq_n_f32(vld1q_f32(xr + i), scale), vld1q_f32(w + i));
          vst1q_f32(yr + i, vmulq_f32(v, silu4(vld1q_f32(zr + i))));
        },
        [&](int64_t i) { yr[i] = xr[i] * scale * w[i] * ref::silu(zr[i]); });
  }
}

// FCVTN rounds to nearest even (the default FPCR) and keeps subnormals, as quantize_f16 does;
// blocks with a NaN take the scalar converter, whose NaN encoding is sign | 0x7e00.
void to_f16__neon(const float* x, void* dst, int64_t n) {
  auto* h = static_cast<uint16_t*>(dst);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float32x4_t v = vld1q_f32(x + i);
    if (vminvq_u32(vceqq_f32(v, v)) == 0) {  // a lane is NaN
      quantize_row(DType::F16, x + i, h + i, 4);
      continue;
    }
    vst1_u16(h + i, vreinterpret_u16_f16(vcvt_f16_f32(v)));
  }
  if (i < n) quantize_row(DType::F16, x + i, h + i, n - i);  // the tail, in the scalar converter
}

}  // namespace kz::arm
