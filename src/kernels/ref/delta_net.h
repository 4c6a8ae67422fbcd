// Reference (scalar, f32) kernels of the Gated DeltaNet mixer (spec/qwen35.md §8). Shapes and
// semantics are those of the matching Backend ops (backend/backend.h).
#pragma once

#include <cstdint>

#include "ops/op_types.h"

namespace kz::ref {

void ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv, const float* w,
              float* state, float* out);
// The same for channels [ch_begin, ch_end) only (independent of the others: threads split them).
void ssm_conv_channels(const float* x, int64_t n_tok, int64_t channels, int d_conv, const float* w,
                       float* state, float* out, int64_t ch_begin, int64_t ch_end);

void delta_net_gates(const float* alpha, const float* b, const float* dt_bias, const float* a,
                     int64_t n_tok, int n_v, float* g, float* beta);

// x[rows][n] in place: x / max(sqrt(sum x^2), eps) (eps is a floor, not added; sum in double).
void l2_norm(float* x, int64_t n, int64_t rows, float eps);

// Token-by-token recurrence (§8.5), the form decode uses and the definition of the op.
void gated_delta_rule_recurrent(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                                const float* g, const float* beta, float eps, float* state,
                                float* out);

// Chunked parallel form (§8.7, WY/UT transform): matrix products within chunks of `chunk` tokens,
// the recurrence only between chunks, so the cost grows linearly with n_tok. Equal to the
// recurrent form up to float rounding.
void gated_delta_rule_chunked(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                              const float* g, const float* beta, float eps, float* state,
                              float* out, int chunk = 64);

void gated_rms_norm(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                    float eps, float* y);

}  // namespace kz::ref
