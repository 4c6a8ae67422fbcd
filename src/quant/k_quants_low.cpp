// Q2_K and Q3_K (ggml-quants.c: quantize_row_q{2,3}_K_ref / dequantize_row_q{2,3}_K). Both pack
// 2-bit quants as Q2_K does: in each 128-element half, byte l of the 32-byte group holds elements
// l, l+32, l+64, l+96 in bits 0-1, 2-3, 4-5, 6-7. Scales are per 16 elements.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/half.h"
#include "quant/blocks.h"
#include "quant/formats.h"
#include "quant/quant_helpers.h"

// Bit-exactness needs each f32 product rounded on its own: no fused multiply-add contraction
// (GCC does not contract in ISO C++ mode; clang does unless told not to).
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace kz::quant {
namespace {

// 2-bit field of element e (0..255) in a 64-byte qs array.
int q2_bits(const uint8_t* qs, int e) {
  const int half = e / 128, r = e % 128;
  return (qs[32 * half + r % 32] >> (2 * (r / 32))) & 3;
}

void pack_q2(const uint8_t* L, uint8_t* qs) {
  for (int j = 0; j < kQK_K; j += 128)
    for (int l = 0; l < 32; ++l)
      qs[j / 4 + l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) |
                                           (L[j + l + 96] << 6));
}

}  // namespace

void dequantize_q2_K(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ2K*>(src);
  for (int64_t i = 0; i < n / kQK_K; ++i, dst += kQK_K) {
    const float d = fp16_to_fp32(b[i].d), min = fp16_to_fp32(b[i].dmin);
    for (int s = 0; s < 16; ++s) {
      const uint8_t sc = b[i].scales[s];
      const float dl = d * static_cast<float>(sc & 0xF), ml = min * static_cast<float>(sc >> 4);
      for (int e = 16 * s; e < 16 * s + 16; ++e)
        dst[e] = dl * static_cast<float>(q2_bits(b[i].qs, e)) - ml;
    }
  }
}

void quantize_q2_K(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ2K*>(dst);
  uint8_t L[kQK_K], Laux[16];
  float weights[16], mins[16], scales[16];
  const float q4scale = 15.f;
  for (int64_t i = 0; i < n / kQK_K; ++i, x += kQK_K) {
    float max_scale = 0, max_min = 0;
    for (int j = 0; j < 16; ++j) {
      for (int l = 0; l < 16; ++l) weights[l] = std::fabs(x[16 * j + l]);
      scales[j] = make_qkx2_quants(16, 3, x + 16 * j, weights, L + 16 * j, &mins[j], Laux, -0.5f,
                                   0.1f, 15, true);
      max_scale = std::max(max_scale, scales[j]);
      max_min = std::max(max_min, mins[j]);
    }
    if (max_scale > 0) {
      const float iscale = q4scale / max_scale;
      for (int j = 0; j < 16; ++j)
        y[i].scales[j] = static_cast<uint8_t>(nearest_int(iscale * scales[j]));
      y[i].d = fp32_to_fp16(max_scale / q4scale);
    } else {
      for (int j = 0; j < 16; ++j) y[i].scales[j] = 0;
      y[i].d = fp32_to_fp16(0.f);
    }
    if (max_min > 0) {
      const float iscale = q4scale / max_min;
      for (int j = 0; j < 16; ++j)
        y[i].scales[j] =
            static_cast<uint8_t>(y[i].scales[j] | (nearest_int(iscale * mins[j]) << 4));
      y[i].dmin = fp32_to_fp16(max_min / q4scale);
    } else {
      y[i].dmin = fp32_to_fp16(0.f);
    }
    // Re-quantize with the stored (fp16) scales and mins.
    for (int j = 0; j < 16; ++j) {
      const float d = fp16_to_fp32(y[i].d) * static_cast<float>(y[i].scales[j] & 0xF);
      if (!d) continue;
      const float dm = fp16_to_fp32(y[i].dmin) * static_cast<float>(y[i].scales[j] >> 4);
      for (int ii = 0; ii < 16; ++ii) {
        const int l = nearest_int((x[16 * j + ii] + dm) / d);
        L[16 * j + ii] = static_cast<uint8_t>(std::max(0, std::min(3, l)));
      }
    }
    pack_q2(L, y[i].qs);
  }
}

void dequantize_q3_K(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ3K*>(src);
  for (int64_t i = 0; i < n / kQK_K; ++i, dst += kQK_K) {
    const float d_all = fp16_to_fp32(b[i].d);
    for (int s = 0; s < 16; ++s) {
      const float dl = d_all * static_cast<float>(q3k_scale(b[i].scales, s));
      for (int e = 16 * s; e < 16 * s + 16; ++e) {
        // High bit of element e: bit e/32 of hmask[e % 32]; clear means "subtract 4".
        const int high = (b[i].hmask[e % 32] >> (e / 32)) & 1;
        dst[e] = dl * static_cast<float>(q2_bits(b[i].qs, e) - (high ? 0 : 4));
      }
    }
  }
}

void quantize_q3_K(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ3K*>(dst);
  int8_t L[kQK_K];
  float scales[16];
  for (int64_t i = 0; i < n / kQK_K; ++i, x += kQK_K) {
    float max_scale = 0, amax = 0;
    for (int j = 0; j < 16; ++j) {
      scales[j] = make_q3_quants(16, 4, x + 16 * j, L + 16 * j, true);
      const float scale = std::fabs(scales[j]);
      if (scale > amax) {
        amax = scale;
        max_scale = scales[j];
      }
    }
    std::memset(y[i].scales, 0, 12);
    if (max_scale) {
      const float iscale = -32.f / max_scale;
      for (int j = 0; j < 16; ++j) {
        auto l = static_cast<int8_t>(nearest_int(iscale * scales[j]));
        const int lv = std::max(-32, std::min(31, static_cast<int>(l))) + 32;
        if (j < 8)
          y[i].scales[j] = static_cast<uint8_t>(lv & 0xF);
        else
          y[i].scales[j - 8] = static_cast<uint8_t>(y[i].scales[j - 8] | ((lv & 0xF) << 4));
        y[i].scales[j % 4 + 8] =
            static_cast<uint8_t>(y[i].scales[j % 4 + 8] | ((lv >> 4) << (2 * (j / 4))));
      }
      y[i].d = fp32_to_fp16(1 / iscale);
    } else {
      y[i].d = fp32_to_fp16(0.f);
    }
    for (int j = 0; j < 16; ++j) {
      const float d = fp16_to_fp32(y[i].d) * static_cast<float>(q3k_scale(y[i].scales, j));
      if (!d) continue;
      for (int ii = 0; ii < 16; ++ii) {
        const int l = nearest_int(x[16 * j + ii] / d);
        L[16 * j + ii] = static_cast<int8_t>(std::max(-4, std::min(3, l)) + 4);
      }
    }
    // High bit of element j goes to bit j/32 of hmask[j % 32]; the low 2 bits pack as Q2_K.
    std::memset(y[i].hmask, 0, 32);
    uint8_t Lu[kQK_K];
    for (int j = 0; j < kQK_K; ++j) {
      int l = L[j];
      if (l > 3) {
        y[i].hmask[j % 32] = static_cast<uint8_t>(y[i].hmask[j % 32] | (1 << (j / 32)));
        l -= 4;
      }
      Lu[j] = static_cast<uint8_t>(l);
    }
    pack_q2(Lu, y[i].qs);
  }
}

}  // namespace kz::quant
