// The 8-lane f32 vector operations that the kernels written once over an ISA
// (kernels/online_attention.h, kernels/delta_rule_rows.h) take, on ARMv8.0 Advanced SIMD: two
// 4-lane halves, each operation the lane for lane equal of its AVX2 twin in
// kernels/x86/vec8_avx2.h (fused multiply-add, the AVX2 horizontal sum order), so ARM and x86
// give the same bits. Include only from *_neon.cpp files.
#pragma once

#include <arm_neon.h>

#include "kernels/arm/quant_dot.h"

namespace kz::arm {
namespace {  // as quant_dot.h's F32x8, which it wraps

struct NeonVec8 {
  using V = F32x8;
  static V zero() { return {}; }
  static V splat(float x) { return {vdupq_n_f32(x), vdupq_n_f32(x)}; }
  static V load(const float* p) { return {vld1q_f32(p), vld1q_f32(p + 4)}; }
  static void store(float* p, V x) {
    vst1q_f32(p, x.lo);
    vst1q_f32(p + 4, x.hi);
  }
  static V add(V a, V b) { return {vaddq_f32(a.lo, b.lo), vaddq_f32(a.hi, b.hi)}; }
  static V mul(V a, V b) { return {vmulq_f32(a.lo, b.lo), vmulq_f32(a.hi, b.hi)}; }
  static V fma(V a, V b, V c) { return {vfmaq_f32(a.lo, b.lo, c.lo), vfmaq_f32(a.hi, b.hi, c.hi)}; }
  static float hsum(V x) { return hsum8(x); }
};

}  // namespace
}  // namespace kz::arm
