// IQ4_NL (32-element blocks) and IQ4_XS (256-element super-blocks of 8 x 32 with 6-bit scales):
// 4-bit indices into the non-linear grid kIQ4NLValues (ggml-quants.c: quantize_iq4_nl /
// quantize_iq4_xs without importance weights, i.e. what llama-quantize writes).
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

constexpr int kTries = 7;  // scale candidates (values[0] + t) / max for t in -7..7

// Best scale for one 32-element sub-block (weights x^2), searching around -max/values[0];
// fills L with grid indices for the initial scale. Returns 0 for an all-zero block.
float fit_block(const float* xb, uint8_t* L) {
  float amax = 0, max = 0;
  for (int j = 0; j < 32; ++j) {
    if (std::fabs(xb[j]) > amax) {
      amax = std::fabs(xb[j]);
      max = xb[j];
    }
  }
  if (amax < kGroupMaxEps) {
    std::memset(L, 0, 32);
    return 0;
  }
  const int8_t* values = kIQ4NLValues;
  float d = -max / values[0];
  float id = 1 / d;
  float sumqx = 0, sumq2 = 0;
  for (int j = 0; j < 32; ++j) {
    const int l = best_index_int8(16, values, id * xb[j]);
    L[j] = static_cast<uint8_t>(l);
    const float q = values[l], w = xb[j] * xb[j];
    sumqx += w * q * xb[j];
    sumq2 += w * q * q;
  }
  d = sumq2 > 0 ? sumqx / sumq2 : 0.f;
  float best = d * sumqx;
  for (int itry = -kTries; itry <= kTries; ++itry) {
    id = static_cast<float>(itry + values[0]) / max;
    sumqx = sumq2 = 0;
    for (int j = 0; j < 32; ++j) {
      const float q = values[best_index_int8(16, values, id * xb[j])], w = xb[j] * xb[j];
      sumqx += w * q * xb[j];
      sumq2 += w * q * q;
    }
    if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
      d = sumqx / sumq2;
      best = d * sumqx;
    }
  }
  return d;
}

void assign(const float* xb, float id, uint8_t* L) {
  for (int j = 0; j < 32; ++j)
    L[j] = static_cast<uint8_t>(best_index_int8(16, kIQ4NLValues, id * xb[j]));
}

// Element j: low nibble of qs[j], element j+16: high nibble (per 32 elements).
void pack(const uint8_t* L, uint8_t* qs) {
  for (int j = 0; j < 16; ++j) qs[j] = static_cast<uint8_t>(L[j] | (L[16 + j] << 4));
}

void dequantize_32(const uint8_t* qs, float d, float* dst) {
  for (int j = 0; j < 16; ++j) {
    dst[j] = d * static_cast<float>(kIQ4NLValues[qs[j] & 0xF]);
    dst[j + 16] = d * static_cast<float>(kIQ4NLValues[qs[j] >> 4]);
  }
}

}  // namespace

void dequantize_iq4_nl(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockIQ4NL*>(src);
  for (int64_t i = 0; i < n / kQK; ++i, dst += kQK)
    dequantize_32(b[i].qs, fp16_to_fp32(b[i].d), dst);
}

void quantize_iq4_nl(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockIQ4NL*>(dst);
  uint8_t L[32];
  for (int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    const float d = fit_block(x, L);
    y[i].d = fp32_to_fp16(d);
    assign(x, d ? 1 / d : 0, L);
    pack(L, y[i].qs);
  }
}

void dequantize_iq4_xs(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockIQ4XS*>(src);
  for (int64_t i = 0; i < n / kQK_K; ++i) {
    const float d = fp16_to_fp32(b[i].d);
    for (int ib = 0; ib < 8; ++ib, dst += 32)
      dequantize_32(b[i].qs + 16 * ib, d * static_cast<float>(iq4xs_scale(b[i], ib)), dst);
  }
}

void quantize_iq4_xs(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockIQ4XS*>(dst);
  uint8_t L[kQK_K];
  float scales[8];
  for (int64_t i = 0; i < n / kQK_K; ++i, x += kQK_K) {
    float max_scale = 0, amax_scale = 0;
    for (int ib = 0; ib < 8; ++ib) {
      scales[ib] = fit_block(x + 32 * ib, L + 32 * ib);
      if (std::fabs(scales[ib]) > amax_scale) {
        amax_scale = std::fabs(scales[ib]);
        max_scale = scales[ib];
      }
    }
    // Super-block scale d maps the largest sub-block scale to -32; sub-blocks re-quantized with
    // the unrounded d * l.
    const float d = -max_scale / 32;
    y[i].d = fp32_to_fp16(d);
    y[i].scales_h = 0;
    std::memset(y[i].scales_l, 0, sizeof(y[i].scales_l));
    const float id = d ? 1 / d : 0.f;
    for (int ib = 0; ib < 8; ++ib) {
      int l = std::max(-32, std::min(31, nearest_int(id * scales[ib])));
      const float dl = d * static_cast<float>(l);
      assign(x + 32 * ib, dl ? 1 / dl : 0.f, L + 32 * ib);
      l += 32;
      y[i].scales_l[ib / 2] =
          static_cast<uint8_t>(y[i].scales_l[ib / 2] | ((l & 0xF) << (4 * (ib % 2))));
      y[i].scales_h = static_cast<uint16_t>(y[i].scales_h | ((l >> 4) << (2 * ib)));
      pack(L + 32 * ib, y[i].qs + 16 * ib);
    }
  }
}

}  // namespace kz::quant
