// The exponential of the NEON kernels: x86::exp_f32x8 (x86/simd_avx2.h) operation for operation,
// 4 lanes at a time, so both ISAs give the same bits. Include only from *_neon*.cpp files.
#pragma once

#include <arm_neon.h>

namespace kz::arm {

inline float32x4_t exp4(float32x4_t x) {
  x = vminq_f32(x, vdupq_n_f32(88.0f));  // e^88 < FLT_MAX; no overflow to inf
  x = vmaxq_f32(x, vdupq_n_f32(-87.3365447504019f));
  const float32x4_t fx = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(1.44269504088896341f)));
  x = vfmsq_f32(x, fx, vdupq_n_f32(0.693359375f));
  x = vfmsq_f32(x, fx, vdupq_n_f32(-2.12194440e-4f));
  float32x4_t y = vdupq_n_f32(1.9875691500e-4f);
  y = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), y, x);
  y = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), y, x);
  y = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), y, x);
  y = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), y, x);
  y = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), y, x);
  y = vfmaq_f32(vaddq_f32(x, vdupq_n_f32(1.0f)), y, vmulq_f32(x, x));
  const int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtnq_s32_f32(fx), vdupq_n_s32(127)), 23);
  return vmulq_f32(y, vreinterpretq_f32_s32(e));
}

}  // namespace kz::arm
