// The OpenCL C 1.2 source of every kernel, compiled once per backend at run time. fp16 is read
// and written only through vload_half / vstore_half (no cl_khr_fp16 needed); no 2.x features.
#pragma once

#include <string>

namespace kz::opencl {

// Weight types with matrix kernels, by their dtype_name: each gets gemm_T, gemv_T, get_rows_T.
inline constexpr const char* kMatrixTypes[] = {"f32",  "f16",  "bf16", "q4_0",
                                               "q8_0", "q4_k", "q5_k", "q6_k"};

// Work shapes of the matrix kernels, for the host's launch sizes and the kernels alike
// (program_source() passes them as GEMM_TO, GEMM_TT, GEMM_GROUP, GEMV_ROWS). A gemm work-item
// computes 16 rows x 16 tokens; a gemv row takes 4 work-items.
inline constexpr int kGemmRows = 64;     // weight rows per gemm work-group
inline constexpr int kGemmTokens = 128;  // tokens per gemm work-group
inline constexpr int kGemmGroup = (kGemmRows / 16) * (kGemmTokens / 16);  // its work-items
inline constexpr int kGemvRows = 8;  // rows per gemv work-group (of 4 * kGemvRows work-items)
// Tokens per chunk of the chunked delta rule (DN_CHUNK), and the work-items of a head's group.
inline constexpr int kDeltaRuleChunk = 32;
inline constexpr int kDeltaRuleGroup = 64;

std::string program_source();

// The pieces program_source() joins (kernels_*.cpp).
extern const char* const kCommonSource;
extern const char* const kDequantSource;
extern const char* const kMatmulTemplate;  // written over WTYPE, expanded once per weight type
extern const char* const kOpsSource;
extern const char* const kDeltaNetSource;

}  // namespace kz::opencl
