// Reference (scalar) block-format conversion: dequantization bit-exact with the reference
// implementation (spec/quants.md §2-§4) and reference quantizers (§5, §6.2). Fast kernels live in
// kernels/ and are tested against these.
#pragma once

#include <cstdint>

#include "quant/types.h"

namespace kz {

bool can_dequantize(DType t);
bool can_quantize(DType t);

// n must be a multiple of the block size of t. Throw kz::Error for unsupported types.
void dequantize_row(DType t, const void* src, float* dst, int64_t n);
void quantize_row(DType t, const float* src, void* dst, int64_t n);

}  // namespace kz
