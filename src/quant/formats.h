// Per-format reference row converters behind quant.h's dispatch (quant.cpp). n is the element
// count, a multiple of the format's block size (checked by the caller).
#pragma once

#include <cstdint>

namespace kz::quant {

#define KZ_QUANT_FORMAT(name)                                     \
  void dequantize_##name(const void* src, float* dst, int64_t n); \
  void quantize_##name(const float* src, void* dst, int64_t n);

KZ_QUANT_FORMAT(f32)  // float_formats.cpp
KZ_QUANT_FORMAT(f16)
KZ_QUANT_FORMAT(bf16)
KZ_QUANT_FORMAT(q4_0)  // q4_q5_q8.cpp
KZ_QUANT_FORMAT(q4_1)
KZ_QUANT_FORMAT(q5_0)
KZ_QUANT_FORMAT(q5_1)
KZ_QUANT_FORMAT(q8_0)
KZ_QUANT_FORMAT(q8_1)
KZ_QUANT_FORMAT(q2_K)  // k_quants_low.cpp
KZ_QUANT_FORMAT(q3_K)
KZ_QUANT_FORMAT(q4_K)  // k_quants.cpp
KZ_QUANT_FORMAT(q5_K)
KZ_QUANT_FORMAT(q6_K)
KZ_QUANT_FORMAT(q8_K)
KZ_QUANT_FORMAT(iq4_nl)  // iq4.cpp
KZ_QUANT_FORMAT(iq4_xs)

#undef KZ_QUANT_FORMAT

}  // namespace kz::quant
