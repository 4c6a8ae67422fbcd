// Fused causal attention on ARMv8.0 Advanced SIMD over an F32, F16 or Q8_0 KV cache: the 8-lane
// vector operations that kernels/online_attention.h (one query token) and
// kernels/blocked_attention.h (prompts) run their online softmax with (vec8_neon.h's, and the
// cache loads and exponential), each the lane for lane equal of its AVX2 twin in
// kernels/x86/attention_avx2.cpp (the same vector exponential too), so ARM and x86 give the same
// bits. That matters beyond tidiness: with 8-bit activations a last-bit difference in
// attention flips roundings downstream (fixtures/README.md), and this order is the one that
// tracks the reference implementation's results on the fixtures.
#include <arm_neon.h>

#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/exp_neon.h"
#include "kernels/arm/quant_dot.h"
#include "kernels/arm/vec8_neon.h"
#include "kernels/blocked_attention.h"
#include "kernels/online_attention.h"

namespace kz::arm {
namespace {

struct NeonAttention : NeonVec8 {
  static V load_f16(const uint16_t* p) {
    const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(p));
    return {vcvt_f32_f16(vget_low_f16(h)), vcvt_high_f32_f16(h)};
  }
  static V load_i8(const int8_t* p) {
    const int16x8_t q = vmovl_s8(vld1_s8(p));
    return {vcvtq_f32_s32(vmovl_s16(vget_low_s16(q))), vcvtq_f32_s32(vmovl_high_s16(q))};
  }
  static float half(uint16_t h) { return half_to_float(h); }
  static V max(V a, V b) { return {vmaxq_f32(a.lo, b.lo), vmaxq_f32(a.hi, b.hi)}; }
  static V exp(V x) { return {exp4(x.lo), exp4(x.hi)}; }
  static void exp_block(float* s, float m) {
    static_assert(online_attention::kKeyBlock == 16);
    for (int j = 0; j < 16; j += 4)
      vst1q_f32(s + j, exp4(vsubq_f32(vld1q_f32(s + j), vdupq_n_f32(m))));
  }
};

}  // namespace

void attention__neon(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                     float scale, float* out, int64_t begin, int64_t end) {
  if (n_tok > 1)
    return blocked_attention::run<NeonAttention>(q, kv, pos0, n_head, scale, out, begin, end);
  online_attention::run<NeonAttention>(q, kv, pos0, n_head, scale, out, begin, end);
}

}  // namespace kz::arm
