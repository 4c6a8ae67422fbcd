// F32 and F16 gemv on ARMv8.0 Advanced SIMD, bit-identical to the reference: element i's f32
// product goes to lane i % 8 (two float32x4 accumulators), products and sums are rounded
// separately (no fused multiply-add), and the 8 lanes are added in order at the end. fp16 is
// widened by FCVTL (base ARMv8; FEAT_FP16 is only needed for fp16 arithmetic).
#include <arm_neon.h>

#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/quant_dot.h"

namespace kz::arm {
namespace {

float sum_lanes(float32x4_t lo, float32x4_t hi, float tail[8]) {
  float lanes[8];
  vst1q_f32(lanes, lo);
  vst1q_f32(lanes + 4, hi);
  float sum = 0;
  for (int l = 0; l < 8; ++l) sum += lanes[l] + tail[l];
  return sum;
}

float dot_f32(const float* x, const float* a, int64_t n) {
  float32x4_t lo = vdupq_n_f32(0), hi = vdupq_n_f32(0);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    lo = vaddq_f32(lo, vmulq_f32(vld1q_f32(x + i), vld1q_f32(a + i)));
    hi = vaddq_f32(hi, vmulq_f32(vld1q_f32(x + i + 4), vld1q_f32(a + i + 4)));
  }
  float tail[8] = {};
  for (; i < n; ++i) tail[i % 8] = x[i] * a[i];
  return sum_lanes(lo, hi, tail);
}

float dot_f16(const uint16_t* x, const uint16_t* a, int64_t n) {
  float32x4_t lo = vdupq_n_f32(0), hi = vdupq_n_f32(0);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const float16x8_t xh = vreinterpretq_f16_u16(vld1q_u16(x + i));
    const float16x8_t ah = vreinterpretq_f16_u16(vld1q_u16(a + i));
    lo = vaddq_f32(lo, vmulq_f32(vcvt_f32_f16(vget_low_f16(xh)), vcvt_f32_f16(vget_low_f16(ah))));
    hi = vaddq_f32(hi, vmulq_f32(vcvt_high_f32_f16(xh), vcvt_high_f32_f16(ah)));
  }
  float tail[8] = {};
  for (; i < n; ++i) tail[i % 8] = half_to_float(x[i]) * half_to_float(a[i]);
  return sum_lanes(lo, hi, tail);
}

}  // namespace

void gemv_f32_f32__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                        int64_t n, float* y) {
  for (int64_t r = 0; r < n_rows; ++r)
    y[r] = dot_f32(reinterpret_cast<const float*>(w + r * row_bytes),
                   static_cast<const float*>(act), n);
}

void gemv_f16_f16__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                        int64_t n, float* y) {
  for (int64_t r = 0; r < n_rows; ++r)
    y[r] = dot_f16(reinterpret_cast<const uint16_t*>(w + r * row_bytes),
                   static_cast<const uint16_t*>(act), n);
}

}  // namespace kz::arm
