// Dot products of the 256-element super-block formats with Q8_K activations
// (ggml-cpu/quants.c: ggml_vec_dot_{q2_K..q6_K,iq4_xs}_q8_K_generic). Q3_K..Q6_K accumulate
// scaled integer products in 8 lanes (element e goes to lane e % 8), convert each lane to f32
// once per super-block and add the lanes at the end, as the reference does.
#include <cstdint>

#include "base/half.h"
#include "kernels/ref/vec_dot.h"
#include "quant/blocks.h"

// Bit-exactness needs each f32 product rounded on its own: no fused multiply-add contraction
// (GCC does not contract in ISO C++ mode; clang does unless told not to).
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace kz::ref {
namespace {

// Integer lanes of one super-block: lane l = sum over e with e % 8 == l of scale(e)*q(e)*a(e).
template <class Scale, class Quant>
void lanes_k(const int8_t* q8, Scale scale, Quant quant, int32_t lanes[8]) {
  for (int l = 0; l < 8; ++l) lanes[l] = 0;
  for (int e = 0; e < kQK_K; ++e) lanes[e % 8] += scale(e) * (quant(e) * q8[e]);
}

float sum_lanes(float sumf, const float sums[8]) {
  for (int l = 0; l < 8; ++l) sumf += sums[l];
  return sumf;
}

int q2_bits(const uint8_t* qs, int e) {
  const int r = e % 128;
  return (qs[32 * (e / 128) + r % 32] >> (2 * (r / 32))) & 3;
}

int q4k_nibble(const uint8_t* qs, int e) {
  const uint8_t byte = qs[32 * (e / 64) + e % 32];
  return (e % 64) < 32 ? byte & 0xF : byte >> 4;
}

// 6-bit scales and mins of Q4_K / Q5_K, unpacked.
void scales_mins(const uint8_t* packed, int sc[8], int m[8]) {
  for (int s = 0; s < 8; ++s) {
    uint8_t a, b;
    scale_min_k4(s, packed, &a, &b);
    sc[s] = a;
    m[s] = b;
  }
}

int min_sum(const BlockQ8K& y, const int m[8]) {
  int sumi = 0;
  for (int j = 0; j < 16; ++j) sumi += y.bsums[j] * m[j / 2];
  return sumi;
}

}  // namespace

float vec_dot_q2_K_q8_K(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockQ2K*>(w);
  const auto* y = static_cast<const BlockQ8K*>(a);
  float sumf = 0;
  for (int64_t i = 0; i < n / kQK_K; ++i) {
    int summs = 0;
    for (int j = 0; j < 16; ++j) summs += y[i].bsums[j] * (x[i].scales[j] >> 4);
    const float dall = y[i].d * fp16_to_fp32(x[i].d);
    const float dmin = y[i].d * fp16_to_fp32(x[i].dmin);
    int isum = 0;
    for (int s = 0; s < 16; ++s) {
      int isuml = 0;
      for (int e = 16 * s; e < 16 * s + 16; ++e) isuml += y[i].qs[e] * q2_bits(x[i].qs, e);
      isum += (x[i].scales[s] & 0xF) * isuml;
    }
    sumf += dall * static_cast<float>(isum) - dmin * static_cast<float>(summs);
  }
  return sumf;
}

float vec_dot_q3_K_q8_K(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockQ3K*>(w);
  const auto* y = static_cast<const BlockQ8K*>(a);
  float sums[8] = {};
  for (int64_t i = 0; i < n / kQK_K; ++i) {
    int32_t lanes[8];
    lanes_k(
        y[i].qs, [&](int e) { return q3k_scale(x[i].scales, e / 16); },
        [&](int e) {
          return q2_bits(x[i].qs, e) - (((x[i].hmask[e % 32] >> (e / 32)) & 1) ? 0 : 4);
        },
        lanes);
    const float d = fp16_to_fp32(x[i].d) * y[i].d;
    for (int l = 0; l < 8; ++l) sums[l] += d * static_cast<float>(lanes[l]);
  }
  return sum_lanes(0, sums);
}

float vec_dot_q4_K_q8_K(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockQ4K*>(w);
  const auto* y = static_cast<const BlockQ8K*>(a);
  float sums[8] = {};
  float sumf = 0;
  for (int64_t i = 0; i < n / kQK_K; ++i) {
    int sc[8], m[8];
    scales_mins(x[i].scales, sc, m);
    int32_t lanes[8];
    lanes_k(
        y[i].qs, [&](int e) { return sc[e / 32]; }, [&](int e) { return q4k_nibble(x[i].qs, e); },
        lanes);
    const float d = fp16_to_fp32(x[i].d) * y[i].d;
    for (int l = 0; l < 8; ++l) sums[l] += d * static_cast<float>(lanes[l]);
    const float dmin = fp16_to_fp32(x[i].dmin) * y[i].d;
    sumf -= dmin * static_cast<float>(min_sum(y[i], m));
  }
  return sum_lanes(sumf, sums);
}

float vec_dot_q5_K_q8_K(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockQ5K*>(w);
  const auto* y = static_cast<const BlockQ8K*>(a);
  float sums[8] = {};
  float sumf = 0;
  for (int64_t i = 0; i < n / kQK_K; ++i) {
    int sc[8], m[8];
    scales_mins(x[i].scales, sc, m);
    int32_t lanes[8];
    lanes_k(
        y[i].qs, [&](int e) { return sc[e / 32]; },
        [&](int e) { return q4k_nibble(x[i].qs, e) + (((x[i].qh[e % 32] >> (e / 32)) & 1) << 4); },
        lanes);
    const float d = fp16_to_fp32(x[i].d) * y[i].d;
    for (int l = 0; l < 8; ++l) sums[l] += d * static_cast<float>(lanes[l]);
    const float dmin = fp16_to_fp32(x[i].dmin) * y[i].d;
    sumf -= dmin * static_cast<float>(min_sum(y[i], m));
  }
  return sum_lanes(sumf, sums);
}

float vec_dot_q6_K_q8_K(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockQ6K*>(w);
  const auto* y = static_cast<const BlockQ8K*>(a);
  float sums[8] = {};
  for (int64_t i = 0; i < n / kQK_K; ++i) {
    auto quant = [&](int e) {
      const int h = e / 128, g = (e % 128) / 32, l = e % 32;
      const uint8_t byte = x[i].ql[64 * h + l + 32 * (g % 2)];
      const int low = g < 2 ? byte & 0xF : byte >> 4;
      return (low | (((x[i].qh[32 * h + l] >> (2 * g)) & 3) << 4)) - 32;
    };
    int32_t lanes[8];
    lanes_k(
        y[i].qs, [&](int e) { return static_cast<int>(x[i].scales[e / 16]); }, quant, lanes);
    const float d = fp16_to_fp32(x[i].d) * y[i].d;
    for (int l = 0; l < 8; ++l) sums[l] += d * static_cast<float>(lanes[l]);
  }
  return sum_lanes(0, sums);
}

float vec_dot_iq4_xs_q8_K(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockIQ4XS*>(w);
  const auto* y = static_cast<const BlockQ8K*>(a);
  float sumf = 0;
  for (int64_t i = 0; i < n / kQK_K; ++i) {
    const float d4d8 = fp16_to_fp32(x[i].d) * y[i].d;
    for (int ib = 0; ib < 8; ++ib) {
      const uint8_t* qs = x[i].qs + 16 * ib;
      const int8_t* q8 = y[i].qs + 32 * ib;
      const float dl = d4d8 * static_cast<float>(iq4xs_scale(x[i], ib));
      int sumi1 = 0, sumi2 = 0;
      for (int j = 0; j < 16; ++j) {
        sumi1 += q8[j] * kIQ4NLValues[qs[j] & 0xF];
        sumi2 += q8[j + 16] * kIQ4NLValues[qs[j] >> 4];
      }
      sumf += dl * static_cast<float>(sumi1 + sumi2);
    }
  }
  return sumf;
}

}  // namespace kz::ref
