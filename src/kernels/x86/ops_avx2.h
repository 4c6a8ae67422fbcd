// The AVX2 (+FMA, F16C) versions of the non-matmul ops (kernels/kernel_table.h: OpKernels).
// rms_norm and rope_neox give the reference's bits (same f32 operations, no contraction); the
// ops with exponentials use a vector exp within a few ulp of std::exp; attention and the delta
// rule sum in a different order than the reference (vector lanes, FMA).
#pragma once

#include "kernels/kernel_table.h"

namespace kz::x86 {

OpKernels ops_avx2();

void rms_norm__avx2(const float* x, const float* w, int64_t n, int64_t rows, float eps, float* y);
void rope_neox__avx2(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                     const int32_t* pos, float freq_base);
void swiglu__avx2(const float* gate, const float* up, int64_t n, float* y);
void silu__avx2(float* x, int64_t n);
void add__avx2(float* x, const float* y, int64_t n);
void mul_sigmoid__avx2(float* x, const float* gate, int64_t n);
void gated_rms_norm__avx2(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                          float eps, float* y);
// The ones with an exponential in 16 lanes (ops_elementwise_avx512.cpp; AVX-512F), the same bits.
void swiglu__avx512(const float* gate, const float* up, int64_t n, float* y);
void silu__avx512(float* x, int64_t n);
void mul_sigmoid__avx512(float* x, const float* gate, int64_t n);
void gated_rms_norm__avx512(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                            float eps, float* y);
// Fused causal attention with an online softmax over blocks of keys; F32, F16 or Q8_0 K/V.
void attention__avx2(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                     float scale, float* out, int64_t begin, int64_t end);
// The same with prompts in 16 lanes (attention_avx512.cpp; AVX-512F, the same bits).
void attention__avx512(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                       int n_head, float scale, float* out, int64_t begin, int64_t end);
// Tokens of the gated delta rule (kernels/delta_rule_rows.h).
void delta_rule__avx2(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                      const float* beta, float eps, float* state, float* out, int h_begin,
                      int h_end);
// The same bits with two state rows in a 16-lane vector (delta_rule_avx512.cpp; AVX-512F).
void delta_rule__avx512(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                        const float* beta, float eps, float* state, float* out, int h_begin,
                        int h_end);
void l2_norm__avx2(float* x, int64_t n, int64_t rows, float eps);
// F32 -> F16 with F16C, the bits of quant's quantize_f16 (NaN blocks take its scalar encoding).
void to_f16__avx2(const float* x, void* dst, int64_t n);

}  // namespace kz::x86
