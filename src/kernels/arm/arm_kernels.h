// ARM64 kernels of the kernel table (kernels/kernel_table.h): matrix products and ops, by ISA:
//   __neon          ARMv8.0 Advanced SIMD (every AArch64 core): int8 products by vmull_s8 and
//                   pairwise widening adds;
//   __neon_dotprod  ARMv8.2 FEAT_DotProd: vdotq_s32 (4 int8 products per int32 lane);
//   __neon_i8mm     FEAT_I8MM (with FEAT_DotProd): vmmlaq_s32 2x2 tiles for Q4_0 / Q8_0 prefill,
//                   and for Q4_0 / Q8_0 / Q4_K / Q5_K / Q6_K over packed weights (decode and
//                   prefill).
// Declared on every architecture, defined only when targeting AArch64 (the *_neon / *_dotprod /
// *_i8mm files are built with their own -march flags, CMakeLists.txt); register.cpp only reaches
// a kernel when the table's features report its instruction set.
//
// The __neon and __neon_dotprod kernels follow the f32 order of the reference implementation's
// x86 AVX2 kernels, as kernels/x86 does (quant_dot.h, gemv_float_neon.cpp), so ARM and x86 give
// the same bits; __neon and __neon_dotprod give the same bits too (exact integer lanes).
// Activations: Q8_0 by quantize_q8_0__neon, bit-identical to the reference's converter (id =
// 127/amax, ties to even); Q8_K, F16 and BF16 by the reference's converters. Against the
// reference's own (generic) dot products they agree to f32 rounding
// (tests/kernels/arm_kernels_test.cpp).
//
// The __neon_i8mm kernels (gemm_i8mm.cpp) follow another order, the "block-sum" order
// (tests/testing/block_sum_order_model.h): vmmlaq_s32 sums 8 products per int32 lane, so it can
// give exact whole-block sums but not the AVX2 order's 4-product lanes. At the i8mm level Q4_0
// and Q8_0 therefore differ from x86 and from the lower ARM levels in the last bits; their gemv
// (vdotq_s32) and gemm (vmmlaq_s32) agree with each other bit for bit.
#pragma once

#include <cstdint>

#include "ops/op_types.h"

namespace kz::arm {

// Same signature as MatmulKernel::gemv: y[r] = dot(weight row r, act) for r in [0, n_rows).
using GemvKernel = void(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                        int64_t n, float* y);
// Several activation rows: y[t * y_stride + r] = dot(weight row r, activation row t) for
// r in [0, n_rows), t in [0, n_act); activation rows are act_stride bytes apart.
using GemmKernel = void(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                        uint64_t act_stride, int64_t n_act, int64_t n, float* y, int64_t y_stride);

// Q8_0 activations, bit-identical to the reference's converter.
void quantize_q8_0__neon(const float* x, void* dst, int64_t n);

GemvKernel gemv_f32_f32__neon;
GemvKernel gemv_f16_f16__neon;
GemvKernel gemv_bf16_bf16__neon;

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

// 4 activation rows per weight-block unpack; the same bits as the gemv of the same suffix.
GemmKernel gemm_q4_0_q8_0_4x1__neon;
GemmKernel gemm_q8_0_q8_0_4x1__neon;
GemmKernel gemm_q4_K_q8_K_4x1__neon;
GemmKernel gemm_q5_K_q8_K_4x1__neon;
GemmKernel gemm_q6_K_q8_K_4x1__neon;
GemmKernel gemm_q4_0_q8_0_4x1__neon_dotprod;
GemmKernel gemm_q8_0_q8_0_4x1__neon_dotprod;
GemmKernel gemm_q4_K_q8_K_4x1__neon_dotprod;
GemmKernel gemm_q5_K_q8_K_4x1__neon_dotprod;
GemmKernel gemm_q6_K_q8_K_4x1__neon_dotprod;

// Block-sum order (above): gemv by vdotq_s32, 4 weight rows per f32 vector; gemm by vmmlaq_s32,
// register tiles of 4 weight rows x 4 activation rows; the same bits as each other.
GemvKernel gemv_q4_0_q8_0__neon_i8mm;
GemvKernel gemv_q8_0_q8_0__neon_i8mm;
GemmKernel gemm_q4_0_q8_0_4x4__neon_i8mm;
GemmKernel gemm_q8_0_q8_0_4x4__neon_i8mm;

// PackedMatmul forms (kernel_table.h) for FEAT_I8MM, over groups of 4 interleaved rows
// (packed_i8mm.h): pack_* lays a matrix out, gemv / gemm read it. Q4_0 / Q8_0
// (matmul_packed_i8mm.cpp): quantize_q8_0__neon's activations of two tokens interleaved by
// quantize_q8_0_pair__neon (kPackedQ8_0ActBlockBytes per token and 32 elements), the bits of
// the block-sum kernels above.
void quantize_q8_0_pair__neon(const float* x0, const float* x1, void* dst, int64_t n);
inline constexpr uint64_t kPackedQ8_0ActBlockBytes = 36;
void pack_q4_0_x4(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
void pack_q8_0_x4(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
GemvKernel gemv_q4_0x4_q8_0__neon_i8mm;
GemmKernel gemm_q4_0x4_q8_0__neon_i8mm;
GemvKernel gemv_q8_0x4_q8_0__neon_i8mm;
GemmKernel gemm_q8_0x4_q8_0__neon_i8mm;
// Q4_K / Q5_K (matmul_packed_q4_k_i8mm.cpp): activations of two tokens interleaved by
// quantize_q8_K_pair__neon (the reference's Q8_K quants and each 32-element sub-block's sum;
// kPackedQ8KActBlockBytes per token and 32 elements), in the order of x86's packed K-quant
// kernels.
void quantize_q8_K_pair__neon(const float* x0, const float* x1, void* dst, int64_t n);
inline constexpr uint64_t kPackedQ8KActBlockBytes = 36;
void pack_q4_K_x4(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
void pack_q5_K_x4(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
GemvKernel gemv_q4_Kx4_q8_K__neon_i8mm;
GemmKernel gemm_q4_Kx4_q8_K__neon_i8mm;
GemvKernel gemv_q5_Kx4_q8_K__neon_i8mm;
GemmKernel gemm_q5_Kx4_q8_K__neon_i8mm;
// Q6_K (matmul_packed_q6_k_i8mm.cpp): the same activations, x86's packed Q6_K order.
void pack_q6_K_x4(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
GemvKernel gemv_q6_Kx4_q8_K__neon_i8mm;
GemmKernel gemm_q6_Kx4_q8_K__neon_i8mm;

// The non-matmul ops (kernels/kernel_table.h: OpKernels), each with the arithmetic of its
// kernels/x86 *__avx2 twin (ops_avx2.h), so the same bits: rms_norm, rope_neox and add also give
// the reference's bits; the ops with exponentials use the same vector exp (within a few ulp of
// std::exp); attention and the delta rule sum in 8 f32 lanes with FMA.
void rms_norm__neon(const float* x, const float* w, int64_t n, int64_t rows, float eps, float* y);
void rope_neox__neon(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                     const int32_t* pos, float freq_base);
void swiglu__neon(const float* gate, const float* up, int64_t n, float* y);
void silu__neon(float* x, int64_t n);
void add__neon(float* x, const float* y, int64_t n);
void mul_sigmoid__neon(float* x, const float* gate, int64_t n);
void gated_rms_norm__neon(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                          float eps, float* y);
void attention__neon(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                     float scale, float* out, int64_t begin, int64_t end);
void delta_rule__neon(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                      const float* beta, float eps, float* state, float* out, int h_begin,
                      int h_end);
void l2_norm__neon(float* x, int64_t n, int64_t rows, float eps);
// F32 -> F16 with the bits of quant's quantize_f16 (F16 K/V rows, F16 weights' activations).
void to_f16__neon(const float* x, void* dst, int64_t n);

}  // namespace kz::arm
