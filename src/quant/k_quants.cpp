// Q4_K, Q5_K, Q6_K and the activation type Q8_K (spec/quants.md §4.1-§4.5, §5.7, §5.8, §6.2).
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

// Low nibble of element e (0..255) in the 128-byte qs of Q4_K / Q5_K.
int q4k_nibble(const uint8_t* qs, int e) {
  const uint8_t byte = qs[32 * (e / 64) + e % 32];
  return (e % 64) < 32 ? byte & 0xF : byte >> 4;
}

// Shared by Q4_K and Q5_K: 8 sub-blocks of 32, asymmetric scales packed as §4.1, then the final
// quants L (0..nmax) re-quantized with the stored fp16 super-block scales.
template <class Block>
void quantize_k4_style(const float* x, Block* y, int nmax, float rmin, int nstep, uint8_t* L) {
  uint8_t Laux[32];
  float weights[32], mins[8], scales[8];
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 8; ++j) {
    const float* xb = x + 32 * j;
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += xb[l] * xb[l];
    const float av_x = std::sqrt(sum_x2 / 32);
    for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(xb[l]);
    scales[j] = make_qkx2_quants(32, nmax, xb, weights, L + 32 * j, &mins[j], Laux, rmin, 0.1f,
                                 nstep, false);
    max_scale = std::max(max_scale, scales[j]);
    max_min = std::max(max_min, mins[j]);
  }
  const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
  const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
  for (int j = 0; j < 8; ++j) {
    const uint8_t ls =
        std::min<uint8_t>(63, static_cast<uint8_t>(nearest_int(inv_scale * scales[j])));
    const uint8_t lm = std::min<uint8_t>(63, static_cast<uint8_t>(nearest_int(inv_min * mins[j])));
    if (j < 4) {
      y->scales[j] = ls;
      y->scales[j + 4] = lm;
    } else {
      y->scales[j + 4] = static_cast<uint8_t>((ls & 0xF) | ((lm & 0xF) << 4));
      y->scales[j - 4] = static_cast<uint8_t>(y->scales[j - 4] | ((ls >> 4) << 6));
      y->scales[j] = static_cast<uint8_t>(y->scales[j] | ((lm >> 4) << 6));
    }
  }
  y->d = fp32_to_fp16(max_scale / 63.f);
  y->dmin = fp32_to_fp16(max_min / 63.f);
  for (int j = 0; j < 8; ++j) {
    uint8_t sc, m;
    scale_min_k4(j, y->scales, &sc, &m);
    const float d = fp16_to_fp32(y->d) * static_cast<float>(sc);
    if (!d) continue;
    const float dm = fp16_to_fp32(y->dmin) * static_cast<float>(m);
    for (int ii = 0; ii < 32; ++ii) {
      const int l = nearest_int((x[32 * j + ii] + dm) / d);
      L[32 * j + ii] = static_cast<uint8_t>(std::max(0, std::min(nmax, l)));
    }
  }
}

// y = (d*sc)*q - (dmin*m) for each sub-block s, q from `quant(e)`.
template <class Block, class Quant>
void dequantize_k4_style(const Block& b, float* dst, Quant quant) {
  const float d = fp16_to_fp32(b.d), min = fp16_to_fp32(b.dmin);
  for (int s = 0; s < 8; ++s) {
    uint8_t sc, m;
    scale_min_k4(s, b.scales, &sc, &m);
    const float d1 = d * static_cast<float>(sc), m1 = min * static_cast<float>(m);
    for (int e = 32 * s; e < 32 * s + 32; ++e) dst[e] = d1 * static_cast<float>(quant(e)) - m1;
  }
}

}  // namespace

void dequantize_q4_K(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ4K*>(src);
  for (int64_t i = 0; i < n / kQK_K; ++i, dst += kQK_K)
    dequantize_k4_style(b[i], dst, [&](int e) { return q4k_nibble(b[i].qs, e); });
}

void quantize_q4_K(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ4K*>(dst);
  uint8_t L[kQK_K];
  for (int64_t i = 0; i < n / kQK_K; ++i, x += kQK_K) {
    quantize_k4_style(x, &y[i], 15, -1.f, 20, L);
    for (int j = 0; j < kQK_K; j += 64)
      for (int l = 0; l < 32; ++l)
        y[i].qs[j / 2 + l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 4));
  }
}

void dequantize_q5_K(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ5K*>(src);
  for (int64_t i = 0; i < n / kQK_K; ++i, dst += kQK_K)
    dequantize_k4_style(b[i], dst, [&](int e) {
      return q4k_nibble(b[i].qs, e) + (((b[i].qh[e % 32] >> (e / 32)) & 1) << 4);
    });
}

void quantize_q5_K(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ5K*>(dst);
  uint8_t L[kQK_K];
  for (int64_t i = 0; i < n / kQK_K; ++i, x += kQK_K) {
    quantize_k4_style(x, &y[i], 31, -0.5f, 15, L);
    std::memset(y[i].qh, 0, 32);
    std::memset(y[i].qs, 0, 128);
    for (int e = 0; e < kQK_K; ++e) {
      const int l = L[e];
      if (l > 15) y[i].qh[e % 32] = static_cast<uint8_t>(y[i].qh[e % 32] | (1 << (e / 32)));
      uint8_t& byte = y[i].qs[32 * (e / 64) + e % 32];
      byte = static_cast<uint8_t>(byte | ((l & 0xF) << ((e % 64) < 32 ? 0 : 4)));
    }
  }
}

void dequantize_q6_K(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ6K*>(src);
  for (int64_t i = 0; i < n / kQK_K; ++i, dst += kQK_K) {
    const float d = fp16_to_fp32(b[i].d);
    for (int e = 0; e < kQK_K; ++e) {
      const int h = e / 128, g = (e % 128) / 32, l = e % 32;
      const uint8_t byte = b[i].ql[64 * h + l + 32 * (g % 2)];
      const int low = g < 2 ? byte & 0xF : byte >> 4;
      const int high = (b[i].qh[32 * h + l] >> (2 * g)) & 3;
      const int q = (low | (high << 4)) - 32;
      dst[e] = d * static_cast<float>(b[i].scales[e / 16]) * static_cast<float>(q);
    }
  }
}

void quantize_q6_K(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ6K*>(dst);
  int8_t L[kQK_K];
  float scales[16];
  for (int64_t i = 0; i < n / kQK_K; ++i, x += kQK_K) {
    float max_scale = 0, max_abs_scale = 0;
    for (int ib = 0; ib < 16; ++ib) {
      scales[ib] = make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib, 1, nullptr);
      if (std::fabs(scales[ib]) > max_abs_scale) {
        max_abs_scale = std::fabs(scales[ib]);
        max_scale = scales[ib];
      }
    }
    std::memset(&y[i], 0, sizeof(BlockQ6K));
    if (max_abs_scale < kGroupMaxEps) continue;
    const float iscale = -128.f / max_scale;
    y[i].d = fp32_to_fp16(1 / iscale);
    for (int ib = 0; ib < 16; ++ib)
      y[i].scales[ib] = static_cast<int8_t>(std::min(127, nearest_int(iscale * scales[ib])));
    for (int j = 0; j < 16; ++j) {
      const float d = fp16_to_fp32(y[i].d) * static_cast<float>(y[i].scales[j]);
      if (!d) continue;
      for (int ii = 0; ii < 16; ++ii) {
        const int l = nearest_int(x[16 * j + ii] / d);
        L[16 * j + ii] = static_cast<int8_t>(std::max(-32, std::min(31, l)) + 32);
      }
    }
    for (int e = 0; e < kQK_K; ++e) {
      const int h = e / 128, g = (e % 128) / 32, l = e % 32;
      const int q = L[e];
      uint8_t& lo = y[i].ql[64 * h + l + 32 * (g % 2)];
      lo = static_cast<uint8_t>(lo | ((q & 0xF) << (g < 2 ? 0 : 4)));
      uint8_t& hi = y[i].qh[32 * h + l];
      hi = static_cast<uint8_t>(hi | ((q >> 4) << (2 * g)));
    }
  }
}

void dequantize_q8_K(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ8K*>(src);
  for (int64_t i = 0; i < n / kQK_K; ++i, dst += kQK_K)
    for (int j = 0; j < kQK_K; ++j) dst[j] = b[i].d * static_cast<float>(b[i].qs[j]);
}

void quantize_q8_K(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ8K*>(dst);
  for (int64_t i = 0; i < n / kQK_K; ++i, x += kQK_K) {
    float max = 0, amax = 0;
    for (int j = 0; j < kQK_K; ++j) {
      if (std::fabs(x[j]) > amax) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    }
    std::memset(&y[i], 0, sizeof(BlockQ8K));  // the reference leaves bsums unwritten when all 0
    if (!amax) continue;
    const float iscale = -127.f / max;
    for (int j = 0; j < kQK_K; ++j)
      y[i].qs[j] = static_cast<int8_t>(std::min(127, nearest_int(iscale * x[j])));
    for (int j = 0; j < 16; ++j) {
      int sum = 0;
      for (int ii = 0; ii < 16; ++ii) sum += y[i].qs[16 * j + ii];
      y[i].bsums[j] = static_cast<int16_t>(sum);
    }
    y[i].d = 1 / iscale;
  }
}

}  // namespace kz::quant
