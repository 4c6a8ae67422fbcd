// Reference (scalar, f32) kernels of the element-wise, normalization, RoPE and attention ops.
// Shapes and semantics are those of the matching Backend ops (backend/backend.h); the numerics
// follow the reference implementation's CPU kernels where the spec describes them.
#pragma once

#include <cstdint>
#include <span>

#include "ops/op_types.h"

namespace kz::ref {

// f32 activations times dequantized weights (the "f32act" semantics of the fixtures).
void matmul_f32act(const Matrix& w, const float* x, int64_t n_tok, float* y);
// Activations first rounded to the weight type's dot-product format, as the reference
// implementation's CPU backend does (the "ref.json" semantics); weight types without a dot
// product (vec_dot.h) as matmul_f32act.
void matmul_rounded_act(const Matrix& w, const float* x, int64_t n_tok, float* y);
void get_rows(const Matrix& w, std::span<const int32_t> ids, float* y);

void rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps, float* y);
void rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot, const int32_t* pos,
               float freq_base);
void swiglu(const float* gate, const float* up, int64_t n, float* y);
void silu(float* x, int64_t n);
void add(float* x, const float* y, int64_t n);
void mul_sigmoid(float* x, const float* gate, int64_t n);
// a[r] = x[r][0, n), b[r] = x[r][n, 2n) for each of `rows` rows.
void split_halves(const float* x, int64_t rows, int64_t n, float* a, float* b);
// out[r] = a[r] | b[r] for rows of n values each (the inverse of split_halves).
void join_halves(const float* a, const float* b, int64_t rows, int64_t n, float* out);

void kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k, const float* v);
void attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
               float scale, float* out);

// Sums in index order, as every reference kernel does.
inline float dot(const float* a, const float* b, int64_t n) {
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}
inline float silu(float x) {
  return x / (1.0f + __builtin_expf(-x));
}
inline float sigmoid(float x) {
  return 1.0f / (1.0f + __builtin_expf(-x));
}

}  // namespace kz::ref
