// The x86 quantized dot products reproduce the summation order of the reference's AVX2 kernels
// (ggml-cpu/arch/x86/quants.c), which the fixtures' ref.json were computed with. This scalar
// model of that order (8 int32 lanes of 4 consecutive bytes per 32-byte chunk, f32 FMA per block
// or super-block, the fixed horizontal sum) must give the kernels' results bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "base/half.h"
#include "quant/blocks.h"
#include "x86_test_util.h"

namespace kz {
namespace {

using testing::X86Level;

// ((x0 + x4) + (x2 + x6)) + ((x1 + x5) + (x3 + x7)), as the AVX2 horizontal sum.
float hsum8(const float x[8]) {
  const float r0 = x[0] + x[4], r1 = x[1] + x[5], r2 = x[2] + x[6], r3 = x[3] + x[7];
  return (r0 + r2) + (r1 + r3);
}
float hsum4(const float x[4]) {
  return (x[0] + x[2]) + (x[1] + x[3]);
}

// Element e of a Q8_0-activated 32-block as an int (weights).
int q4_0_value(const BlockQ4_0& b, int e) {
  return (e < 16 ? b.qs[e] & 0xF : b.qs[e - 16] >> 4) - 8;
}

template <class Block, class Value>
float model_q8_0(const uint8_t* w, const uint8_t* a, int64_t n, Value value) {
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

void scales_mins(const uint8_t* p, int sc[8], int m[8]) {
  for (int s = 0; s < 8; ++s) {
    uint8_t a, b;
    scale_min_k4(s, p, &a, &b);
    sc[s] = a;
    m[s] = b;
  }
}

// Super-block lanes: lane l = sum over chunks c and bytes b in 4l..4l+3 of scale * q * a.
template <class Scale, class Quant>
void k_lanes(const int8_t* q8, Scale scale, Quant quant, int lanes[8]) {
  for (int l = 0; l < 8; ++l) {
    lanes[l] = 0;
    for (int c = 0; c < 8; ++c)
      for (int b = 4 * l; b < 4 * l + 4; ++b)
        lanes[l] += scale(32 * c + b) * quant(32 * c + b) * q8[32 * c + b];
  }
}

int q4k_quant(const BlockQ4K& x, int e) {
  const uint8_t byte = x.qs[32 * (e / 64) + e % 32];
  return (e % 64) < 32 ? byte & 0xF : byte >> 4;
}

float model_q4_5_k(DType t, const uint8_t* w, const uint8_t* a, int64_t n) {
  const auto* y = reinterpret_cast<const BlockQ8K*>(a);
  float acc[8] = {}, acc_m[4] = {}, summs = 0;
  for (int64_t i = 0; i < n / 256; ++i) {
    const bool q5 = t == DType::Q5_K;
    const auto& x4 = reinterpret_cast<const BlockQ4K*>(w)[i];
    const auto& x5 = reinterpret_cast<const BlockQ5K*>(w)[i];
    int sc[8], m[8];
    scales_mins(q5 ? x5.scales : x4.scales, sc, m);
    auto quant = [&](int e) {
      if (!q5) return q4k_quant(x4, e);
      const uint8_t byte = x5.qs[32 * (e / 64) + e % 32];
      const int low = (e % 64) < 32 ? byte & 0xF : byte >> 4;
      return low | (((x5.qh[e % 32] >> (e / 32)) & 1) << 4);
    };
    int lanes[8];
    k_lanes(
        y[i].qs, [&](int e) { return sc[e / 32]; }, quant, lanes);
    const float dw = fp16_to_fp32(q5 ? x5.d : x4.d), dminw = fp16_to_fp32(q5 ? x5.dmin : x4.dmin);
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
  return hsum8(acc) + (t == DType::Q5_K ? summs : hsum4(acc_m));
}

float model_q6_k(const uint8_t* w, const uint8_t* a, int64_t n) {
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

float model(DType t, const uint8_t* w, const uint8_t* a, int64_t n) {
  switch (t) {
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

class X86LaneOrder : public ::testing::TestWithParam<X86Level> {};

TEST_P(X86LaneOrder, QuantizedDotsFollowReferenceAvx2Order) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  for (DType t : {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K}) {
    const MatmulKernel& k = table.matmul[static_cast<uint32_t>(t)];
    for (int64_t n : {256, 768, 2048}) {
      const int64_t rows = 5;
      const auto w = testing::random_matrix(t, rows, n, uint32_t(n) + 11);
      const auto x = testing::random_floats(n, uint32_t(n) + 3, 2.0f);
      std::vector<uint8_t> act(row_bytes(k.act_type, n));
      k.quantize(x.data(), act.data(), n);
      std::vector<float> y(rows);
      k.gemv(w.data(), row_bytes(t, n), rows, act.data(), n, y.data());
      for (int64_t r = 0; r < rows; ++r)
        EXPECT_EQ(y[r], model(t, w.data() + r * row_bytes(t, n), act.data(), n))
            << k.name << " n=" << n << " row " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, X86LaneOrder,
                         ::testing::Values(X86Level::kAvx2, X86Level::kAvx512Vnni),
                         [](const auto& info) { return testing::level_name(info.param); });

}  // namespace
}  // namespace kz
