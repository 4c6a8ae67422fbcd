// A scalar model of the summation order of the reference implementation's AVX2 dot products
// (ggml-cpu/arch/x86/quants.c, which the fixtures' ref.json were computed with): 8 int32 lanes of
// 4 consecutive bytes per 32-byte chunk, f32 FMA per block or super-block, the fixed horizontal
// sum; for float formats 4 x 8 FMA lanes. The x86 kernels and the ARM kernels (which follow the
// same order so both architectures give the same bits) must match it exactly.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/half.h"
#include "quant/blocks.h"
#include "quant/types.h"

namespace kz::testing::avx2_order {

// ((x0 + x4) + (x2 + x6)) + ((x1 + x5) + (x3 + x7)), as the AVX2 horizontal sum.
inline float hsum8(const float x[8]) {
  const float r0 = x[0] + x[4], r1 = x[1] + x[5], r2 = x[2] + x[6], r3 = x[3] + x[7];
  return (r0 + r2) + (r1 + r3);
}
inline float hsum4(const float x[4]) {
  return (x[0] + x[2]) + (x[1] + x[3]);
}

// Float formats: 4 x 8 lanes over steps of 32 (FMA), (a0 + a2) + (a1 + a3), halves, pairs;
// the n % 32 tail in double.
template <class ToFloat>
inline float model_float(const uint16_t* x16, const uint16_t* y16, const float* x32,
                         const float* y32, int64_t n, ToFloat f) {
  auto xv = [&](int64_t i) { return x32 ? x32[i] : f(x16[i]); };
  auto yv = [&](int64_t i) { return y32 ? y32[i] : f(y16[i]); };
  float s[4][8] = {};
  const int64_t np = n & ~int64_t{31};
  for (int64_t i = 0; i < np; i += 32)
    for (int j = 0; j < 4; ++j)
      for (int l = 0; l < 8; ++l)
        s[j][l] = std::fmaf(xv(i + 8 * j + l), yv(i + 8 * j + l), s[j][l]);
  float v[8];
  for (int l = 0; l < 8; ++l) v[l] = (s[0][l] + s[2][l]) + (s[1][l] + s[3][l]);
  const float t[4] = {v[0] + v[4], v[1] + v[5], v[2] + v[6], v[3] + v[7]};
  double sum = (t[0] + t[1]) + (t[2] + t[3]);
  for (int64_t i = np; i < n; ++i) sum += static_cast<double>(xv(i) * yv(i));
  return static_cast<float>(sum);
}

inline int q4_0_value(const BlockQ4_0& b, int e) {
  return (e < 16 ? b.qs[e] & 0xF : b.qs[e - 16] >> 4) - 8;
}

template <class Block, class Value>
inline float model_q8_0(const uint8_t* w, const uint8_t* a, int64_t n, Value value) {
  const auto* x = reinterpret_cast<const Block*>(w);
  const auto* y = reinterpret_cast<const BlockQ8_0*>(a);
  float acc[8] = {};
  for (int64_t ib = 0; ib < n / 32; ++ib) {
    const float d = fp16_to_fp32(x[ib].d) * fp16_to_fp32(y[ib].d);
    for (int l = 0; l < 8; ++l) {
      int lane = 0;
      for (int e = 4 * l; e < 4 * l + 4; ++e) lane += value(x[ib], e) * y[ib].qs[e];
      acc[l] = std::fmaf(d, float(lane), acc[l]);
    }
  }
  return hsum8(acc);
}

// Super-block lanes: lane l = sum over chunks c and bytes b in 4l..4l+3 of scale * q * a.
template <class Scale, class Quant>
inline void k_lanes(const int8_t* q8, Scale scale, Quant quant, int lanes[8]) {
  for (int l = 0; l < 8; ++l) {
    lanes[l] = 0;
    for (int c = 0; c < 8; ++c)
      for (int b = 4 * l; b < 4 * l + 4; ++b)
        lanes[l] += scale(32 * c + b) * quant(32 * c + b) * q8[32 * c + b];
  }
}

inline float model_q4_5_k(DType t, const uint8_t* w, const uint8_t* a, int64_t n) {
  const auto* y = reinterpret_cast<const BlockQ8K*>(a);
  const bool q5 = t == DType::Q5_K;
  float acc[8] = {}, acc_m[4] = {}, summs = 0;
  for (int64_t i = 0; i < n / 256; ++i) {
    // Super-block i viewed only as the type it is: a BlockQ5K over a Q4_K row's bytes would name
    // an object running past the row (undefined behaviour).
    const uint8_t* block = w + i * int64_t(q5 ? sizeof(BlockQ5K) : sizeof(BlockQ4K));
    const BlockQ4K* x4 = q5 ? nullptr : reinterpret_cast<const BlockQ4K*>(block);
    const BlockQ5K* x5 = q5 ? reinterpret_cast<const BlockQ5K*>(block) : nullptr;
    const uint8_t* packed = q5 ? x5->scales : x4->scales;
    int sc[8], m[8];
    for (int s = 0; s < 8; ++s) {
      uint8_t a8, b8;
      scale_min_k4(s, packed, &a8, &b8);
      sc[s] = a8;
      m[s] = b8;
    }
    // The quants chosen once, as a pointer: GCC 12.2's C++ front end miscompiles a subscript of
    // a conditional between two arrays, (q5 ? x5->qs : x4->qs)[e % 32], when UBSan instruments
    // the index's division: the false arm reads an index that was never computed.
    const uint8_t* qs = q5 ? x5->qs : x4->qs;
    auto quant = [&](int e) {
      const uint8_t byte = qs[32 * (e / 64) + e % 32];
      const int low = (e % 64) < 32 ? byte & 0xF : byte >> 4;
      return q5 ? low | (((x5->qh[e % 32] >> (e / 32)) & 1) << 4) : low;
    };
    int lanes[8];
    k_lanes(
        y[i].qs, [&](int e) { return sc[e / 32]; }, quant, lanes);
    const float dw = fp16_to_fp32(q5 ? x5->d : x4->d);
    const float dminw = fp16_to_fp32(q5 ? x5->dmin : x4->dmin);
    for (int l = 0; l < 8; ++l) acc[l] = std::fmaf(y[i].d * dw, float(lanes[l]), acc[l]);
    int prod[4];
    for (int k = 0; k < 4; ++k) {
      const int s0 = y[i].bsums[4 * k] + y[i].bsums[4 * k + 1];
      const int s1 = y[i].bsums[4 * k + 2] + y[i].bsums[4 * k + 3];
      prod[k] = m[2 * k] * s0 + m[2 * k + 1] * s1;
    }
    const float dmin = -y[i].d * dminw;
    if (q5) {
      summs = std::fmaf(dmin, float(prod[0] + prod[1] + prod[2] + prod[3]), summs);
    } else {
      for (int k = 0; k < 4; ++k) acc_m[k] = std::fmaf(dmin, float(prod[k]), acc_m[k]);
    }
  }
  return hsum8(acc) + (q5 ? summs : hsum4(acc_m));
}

inline float model_q6_k(const uint8_t* w, const uint8_t* a, int64_t n) {
  const auto* y = reinterpret_cast<const BlockQ8K*>(a);
  float acc[8] = {};
  for (int64_t i = 0; i < n / 256; ++i) {
    const auto& x = reinterpret_cast<const BlockQ6K*>(w)[i];
    auto quant = [&](int e) {
      const int h = e / 128, g = (e % 128) / 32, l = e % 32;
      const uint8_t byte = x.ql[64 * h + l + 32 * (g % 2)];
      const int low = g < 2 ? byte & 0xF : byte >> 4;
      return (low | (((x.qh[32 * h + l] >> (2 * g)) & 3) << 4)) - 32;
    };
    int lanes[8];
    k_lanes(
        y[i].qs, [&](int e) { return int(x.scales[e / 16]); }, quant, lanes);
    const float d = y[i].d * fp16_to_fp32(x.d);
    for (int l = 0; l < 8; ++l) acc[l] = std::fmaf(d, float(lanes[l]), acc[l]);
  }
  return hsum8(acc);
}

inline float model(DType t, const uint8_t* w, const uint8_t* a, int64_t n) {
  const auto* w16 = reinterpret_cast<const uint16_t*>(w);
  const auto* a16 = reinterpret_cast<const uint16_t*>(a);
  switch (t) {
    case DType::F32:
      return model_float(nullptr, nullptr, reinterpret_cast<const float*>(w),
                         reinterpret_cast<const float*>(a), n, fp16_to_fp32);
    case DType::F16:
      return model_float(w16, a16, nullptr, nullptr, n, fp16_to_fp32);
    case DType::BF16:
      return model_float(w16, a16, nullptr, nullptr, n, bf16_to_fp32);
    case DType::Q8_0:
      return model_q8_0<BlockQ8_0>(w, a, n, [](const BlockQ8_0& b, int e) { return int(b.qs[e]); });
    case DType::Q4_0:
      return model_q8_0<BlockQ4_0>(w, a, n, q4_0_value);
    case DType::Q6_K:
      return model_q6_k(w, a, n);
    default:
      return model_q4_5_k(t, w, a, n);
  }
}

}  // namespace kz::testing::avx2_order
