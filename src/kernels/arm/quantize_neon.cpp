// Q8_0 activations on ARMv8.0 Advanced SIMD.
//
// Rounded exactly as the reference's quantizer rounds them (kernels/ref/vec_dot.cpp, after the
// reference implementation's x86 kernel): d = fp16(amax / 127), q = round_half_even(x · 127/amax).
// The reference implementation's own ARM kernel (ggml-cpu/arch/arm/quants.c: quantize_row_q8_0)
// multiplies by 1/d instead, which can move a quant by one; the fixtures were made on x86, and
// identical activations keep this path bit-identical to the reference kernel table entry.
// vcvtnq_s32_f32 rounds to nearest, ties to even, as nearbyint does in the default mode.
#include <arm_neon.h>

#include "base/half.h"
#include "kernels/arm/arm_kernels.h"
#include "quant/blocks.h"

namespace kz::arm {

void quantize_q8_0__neon(const float* x, void* dst, int64_t n) {
  auto* blocks = static_cast<BlockQ8_0*>(dst);
  for (int64_t b = 0; b < n / kQK; ++b) {
    const float* xb = x + b * kQK;
    float32x4_t v[8];
    for (int k = 0; k < 8; ++k) v[k] = vld1q_f32(xb + 4 * k);
    float32x4_t amax4 = vabsq_f32(v[0]);
    for (int k = 1; k < 8; ++k) amax4 = vmaxq_f32(amax4, vabsq_f32(v[k]));
    const float amax = vmaxvq_f32(amax4);
    blocks[b].d = fp32_to_fp16(amax / 127.0f);
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    int16x8_t q16[4];
    for (int k = 0; k < 4; ++k) {
      const int32x4_t q0 = vcvtnq_s32_f32(vmulq_n_f32(v[2 * k], id));
      const int32x4_t q1 = vcvtnq_s32_f32(vmulq_n_f32(v[2 * k + 1], id));
      q16[k] = vcombine_s16(vmovn_s32(q0), vmovn_s32(q1));
    }
    vst1q_s8(blocks[b].qs, vcombine_s8(vmovn_s16(q16[0]), vmovn_s16(q16[1])));
    vst1q_s8(blocks[b].qs + 16, vcombine_s8(vmovn_s16(q16[2]), vmovn_s16(q16[3])));
  }
}

}  // namespace kz::arm
