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
  static void sum_squares4(const float* const p[4], int n, double sums[4]);
};

// sums[r] = the sum over i < n of double(p[r][i] * p[r][i]) in order of i: x86's
// Avx2Vec8::sum_squares4 operation for operation, rows 0-1 and 2-3 in two double vectors.
inline void NeonVec8::sum_squares4(const float* const p[4], int n, double sums[4]) {
  float64x2_t sum01 = vdupq_n_f64(0.0), sum23 = vdupq_n_f64(0.0);
  auto add_squares = [&](float32x4_t col) {  // lane r: element i of row r
    const float32x4_t sq = vmulq_f32(col, col);
    sum01 = vaddq_f64(sum01, vcvt_f64_f32(vget_low_f32(sq)));
    sum23 = vaddq_f64(sum23, vcvt_high_f64_f32(sq));
  };
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    const float32x4x2_t ab = vtrnq_f32(vld1q_f32(p[0] + i), vld1q_f32(p[1] + i));
    const float32x4x2_t cd = vtrnq_f32(vld1q_f32(p[2] + i), vld1q_f32(p[3] + i));
    add_squares(vcombine_f32(vget_low_f32(ab.val[0]), vget_low_f32(cd.val[0])));
    add_squares(vcombine_f32(vget_low_f32(ab.val[1]), vget_low_f32(cd.val[1])));
    add_squares(vcombine_f32(vget_high_f32(ab.val[0]), vget_high_f32(cd.val[0])));
    add_squares(vcombine_f32(vget_high_f32(ab.val[1]), vget_high_f32(cd.val[1])));
  }
  for (; i < n; ++i) {
    const float col[4] = {p[0][i], p[1][i], p[2][i], p[3][i]};
    add_squares(vld1q_f32(col));
  }
  vst1q_f64(sums, sum01);
  vst1q_f64(sums + 2, sum23);
}

}  // namespace
}  // namespace kz::arm
