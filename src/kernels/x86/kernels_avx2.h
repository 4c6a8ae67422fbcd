// The AVX2 (+FMA, F16C) and AVX-512 VNNI kernels of the kernel table (kernels/kernel_table.h),
// defined in the *_avx2.cpp / *_avx512vnni.cpp files of this folder. Names: operation, weight
// format, activation format, ISA. gemv/gemm signatures are MatmulKernel's.
#pragma once

#include <cstdint>

#include "ops/op_types.h"

namespace kz::x86 {

#define KZ_X86_GEMV(name)                                                                     \
  void name(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n, \
            float* y)
#define KZ_X86_GEMM(name)                                                          \
  void name(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, \
            uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y, int64_t y_stride)

// Activation converters (same bytes as kernels/ref/vec_dot.h activation_quantizer).
void quantize_q8_0__avx2(const float* x, void* dst, int64_t n);
// Packed kernels (packed_q8_0_blocks.h): weights in groups of 8 interleaved rows; activation
// blocks of kPackedActBlockBytes (the Q8_0 block's scale as f32, the weights' zero point times
// the quants' sum, the quants). Q8_0 is packed signed for AVX2 (pack_q8_0_x8), as unsigned
// q + 128 for VNNI (pack_q8_0u_x16, zero point 128).
void quantize_q8_0_zp8__avx2(const float* x, void* dst, int64_t n);
void quantize_q8_0_zp128__avx2(const float* x, void* dst, int64_t n);
extern const uint64_t kPackedActBlockBytes;
void pack_q4_0_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
void pack_q8_0_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
// Q4_0 and unsigned Q8_0 in groups of 16 rows for 512-bit vectors
// (matmul_packed_x16_avx512vnni.cpp), the same activation blocks.
void pack_q4_0_x16(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
void pack_q8_0u_x16(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
// Packed Q4_K and Q5_K (matmul_packed_q4_k_avx2.cpp): activation super-blocks of
// kPackedQ4KActBlockBytes per 32 elements (the Q8_K scale, the sub-block sums, the quants).
void quantize_q8_K_sums__avx2(const float* x, void* dst, int64_t n);
extern const uint64_t kPackedQ4KActBlockBytes;
void pack_q4_K_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
void pack_q5_K_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
// Q4_K and Q5_K in groups of 16 rows for 512-bit vectors (matmul_packed_x16_avx512vnni.cpp).
void pack_q4_K_x16(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
void pack_q5_K_x16(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
// Packed Q6_K (matmul_packed_q6_k_avx2.cpp): activation super-blocks of kPackedQ6KActBlockBytes
// per 32 elements (the Q8_K scale, the 16-element sums, the quants).
void quantize_q8_K_sums16__avx2(const float* x, void* dst, int64_t n);
extern const uint64_t kPackedQ6KActBlockBytes;
void pack_q6_K_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);
// Q6_K in groups of 16 rows for 512-bit vectors (matmul_packed_x16_avx512vnni.cpp).
void pack_q6_K_x16(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst);

KZ_X86_GEMV(gemv_f32_f32__avx2);
KZ_X86_GEMV(gemv_f16_f16__avx2);
KZ_X86_GEMV(gemv_bf16_bf16__avx2);
KZ_X86_GEMV(gemv_q4_0_q8_0__avx2);
KZ_X86_GEMM(gemm_q4_0_q8_0_4x2__avx2);
KZ_X86_GEMV(gemv_q8_0_q8_0__avx2);
KZ_X86_GEMM(gemm_q8_0_q8_0_4x2__avx2);
KZ_X86_GEMV(gemv_q4_K_q8_K__avx2);
KZ_X86_GEMM(gemm_q4_K_q8_K_4x1__avx2);
KZ_X86_GEMV(gemv_q5_K_q8_K__avx2);
KZ_X86_GEMM(gemm_q5_K_q8_K_4x1__avx2);
KZ_X86_GEMV(gemv_q6_K_q8_K__avx2);
KZ_X86_GEMM(gemm_q6_K_q8_K_4x1__avx2);
KZ_X86_GEMV(gemv_q4_0x8_q8_0__avx2);
KZ_X86_GEMM(gemm_q4_0x8_q8_0__avx2);
KZ_X86_GEMV(gemv_q8_0x8_q8_0__avx2);
KZ_X86_GEMM(gemm_q8_0x8_q8_0__avx2);
KZ_X86_GEMV(gemv_q4_Kx8_q8_K__avx2);
KZ_X86_GEMM(gemm_q4_Kx8_q8_K__avx2);
KZ_X86_GEMV(gemv_q5_Kx8_q8_K__avx2);
KZ_X86_GEMM(gemm_q5_Kx8_q8_K__avx2);
KZ_X86_GEMV(gemv_q6_Kx8_q8_K__avx2);
KZ_X86_GEMM(gemm_q6_Kx8_q8_K__avx2);

KZ_X86_GEMV(gemv_q4_0_q8_0__avx512vnni);
KZ_X86_GEMM(gemm_q4_0_q8_0_4x2__avx512vnni);
KZ_X86_GEMV(gemv_q8_0_q8_0__avx512vnni);
KZ_X86_GEMM(gemm_q8_0_q8_0_4x2__avx512vnni);
KZ_X86_GEMV(gemv_q4_0x16_q8_0__avx512vnni);
KZ_X86_GEMM(gemm_q4_0x16_q8_0__avx512vnni);
KZ_X86_GEMV(gemv_q8_0ux16_q8_0__avx512vnni);
KZ_X86_GEMM(gemm_q8_0ux16_q8_0__avx512vnni);
KZ_X86_GEMV(gemv_q4_Kx16_q8_K__avx512vnni);
KZ_X86_GEMM(gemm_q4_Kx16_q8_K__avx512vnni);
KZ_X86_GEMV(gemv_q5_Kx16_q8_K__avx512vnni);
KZ_X86_GEMM(gemm_q5_Kx16_q8_K__avx512vnni);
KZ_X86_GEMV(gemv_q6_Kx16_q8_K__avx512vnni);
KZ_X86_GEMM(gemm_q6_Kx16_q8_K__avx512vnni);

#undef KZ_X86_GEMV
#undef KZ_X86_GEMM

}  // namespace kz::x86
