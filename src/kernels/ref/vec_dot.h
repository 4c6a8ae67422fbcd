// Reference dot products of one weight row with one activation row, the way the reference CPU
// backend computes matrix products (spec/quants.md §6): the f32 activations are first converted
// to the weight type's activation format (vec_dot_type), then each weight block is multiplied
// with the matching activation block in integers and scaled in f32, in the order of the generic
// (scalar) reference kernels. SIMD kernels in kernels/x86 and kernels/arm have the same
// signatures and are tested against these.
#pragma once

#include <cstdint>

#include "quant/types.h"

namespace kz::ref {

using DotFn = float (*)(const void* w_row, const void* act_row, int64_t n);
using GemvFn = void (*)(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                        int64_t n, float* y);
using QuantizeFn = void (*)(const float* x, void* dst, int64_t n);

// Whether a weight type has a dot product here.
bool has_vec_dot(DType weight);
// y[r] = vec_dot(row r) for n_rows rows row_bytes apart; throws for types without a dot product.
GemvFn gemv_function(DType weight);
// The activation converter of an activation format (F32, F16, BF16, Q8_0, Q8_1, Q8_K).
QuantizeFn activation_quantizer(DType act_type);

// Activation format for a weight type (§6.1); throws kz::Error for types without a dot product.
DType vec_dot_type(DType weight);

// Converts n f32 activations to act_type (F32, F16, BF16, Q8_0, Q8_1 or Q8_K; §6.2) into dst,
// which holds row_bytes(act_type, n) bytes.
void quantize_activation(DType act_type, const float* x, void* dst, int64_t n);

// Dot product of a weight row (n elements of type `weight`) with an activation row already in
// vec_dot_type(weight). n must be a multiple of the weight type's block size.
float vec_dot(DType weight, const void* w_row, const void* act_row, int64_t n);

// The individual kernels (weight format _ activation format), n elements.
float vec_dot_f32_f32(const void* w, const void* a, int64_t n);
float vec_dot_f16_f16(const void* w, const void* a, int64_t n);
float vec_dot_bf16_bf16(const void* w, const void* a, int64_t n);
float vec_dot_q4_0_q8_0(const void* w, const void* a, int64_t n);
float vec_dot_q4_1_q8_1(const void* w, const void* a, int64_t n);
float vec_dot_q5_0_q8_0(const void* w, const void* a, int64_t n);
float vec_dot_q5_1_q8_1(const void* w, const void* a, int64_t n);
float vec_dot_q8_0_q8_0(const void* w, const void* a, int64_t n);
float vec_dot_iq4_nl_q8_0(const void* w, const void* a, int64_t n);
float vec_dot_q2_K_q8_K(const void* w, const void* a, int64_t n);
float vec_dot_q3_K_q8_K(const void* w, const void* a, int64_t n);
float vec_dot_q4_K_q8_K(const void* w, const void* a, int64_t n);
float vec_dot_q5_K_q8_K(const void* w, const void* a, int64_t n);
float vec_dot_q6_K_q8_K(const void* w, const void* a, int64_t n);
float vec_dot_iq4_xs_q8_K(const void* w, const void* a, int64_t n);

}  // namespace kz::ref
