// ARM64 matrix-product kernels (kernels/kernel_table.h signatures), by instruction set:
//   __neon          ARMv8.0 Advanced SIMD (every AArch64 core): int8 products by vmull_s8 and
//                   pairwise widening adds (vpadalq_s16);
//   __neon_dotprod  ARMv8.2 FEAT_DotProd: vdotq_s32 (4 int8 products per int32 lane);
//   __neon_i8mm     ARMv8.2 FEAT_I8MM: vmmlaq_s32, a 2x8 by 8x2 int8 matrix product, used for two
//                   weight rows times two activation rows at once.
// Declared on every architecture, defined only when targeting AArch64 (the *_neon / *_dotprod /
// *_i8mm files are built with their own -march flags, CMakeLists.txt); register.cpp only
// reaches a kernel when cpu_features() reports its instruction set.
//
// Agreement with the reference (kernels/ref/vec_dot.h), tested in tests/kernels/arm_*.cpp:
// - activations are rounded exactly as the reference rounds them (quantize_q8_0__neon is
//   bit-identical to the reference's Q8_0 quantizer; Q8_K, F16 and BF16 use the reference's);
// - f32, f16, q4_0 and q8_0 dot products are bit-identical to the reference: the same integer
//   block sums and the same f32 operations in the same order (8 f32 lanes for the float formats);
// - the K-quants have the reference's integer block sums but add them in another f32 order
//   (the reference's 8 lanes follow element index % 8, which vdotq_s32 does not keep), so they
//   agree to f32 rounding, not bit for bit.
#pragma once

#include <cstdint>

namespace kz::arm {

// Same signature as MatmulKernel::gemv: y[r] = dot(weight row r, act) for r in [0, n_rows).
using GemvKernel = void(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                        int64_t n, float* y);
// Several activation rows: y[t * y_stride + r] = dot(weight row r, activation row t) for
// r in [0, n_rows), t in [0, n_act); activation rows are act_stride bytes apart.
using GemmKernel = void(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                        uint64_t act_stride, int64_t n_act, int64_t n, float* y, int64_t y_stride);

// Q8_0 activations, bit-identical to the reference quantizer (id = 127/amax, ties to even).
void quantize_q8_0__neon(const float* x, void* dst, int64_t n);

GemvKernel gemv_f32_f32__neon;
GemvKernel gemv_f16_f16__neon;
GemvKernel gemv_q4_0_q8_0__neon;
GemvKernel gemv_q8_0_q8_0__neon;
GemvKernel gemv_q4_K_q8_K__neon;
GemvKernel gemv_q5_K_q8_K__neon;
GemvKernel gemv_q6_K_q8_K__neon;

GemvKernel gemv_q4_0_q8_0__neon_dotprod;
GemvKernel gemv_q8_0_q8_0__neon_dotprod;
GemvKernel gemv_q4_K_q8_K__neon_dotprod;
GemvKernel gemv_q5_K_q8_K__neon_dotprod;
GemvKernel gemv_q6_K_q8_K__neon_dotprod;

// 2 weight rows x 2 activation rows per step; a last odd row or activation row goes through the
// matching __neon_dotprod dot product, so the results equal gemv's bit for bit.
GemmKernel gemm_q4_0_q8_0_2x2__neon_i8mm;
GemmKernel gemm_q8_0_q8_0_2x2__neon_i8mm;
GemmKernel gemm_q4_K_q8_K_2x2__neon_i8mm;
GemmKernel gemm_q6_K_q8_K_2x2__neon_i8mm;

}  // namespace kz::arm
