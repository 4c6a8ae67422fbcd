// The check every ISA's F32 -> F16 converter (OpKernels::to_f16) passes: the bits of quant's
// quantize_f16 in every rounding case (ties, subnormals, overflow, NaN), over random bit patterns,
// edge values and lengths with tails.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <random>
#include <vector>

#include "kernels/kernel_table.h"
#include "quant/quant.h"

namespace kz::testing {

inline void check_to_f16(decltype(OpKernels::to_f16) to_f16) {
  std::mt19937 rng(5);
  std::vector<float> x(1 << 20);
  for (float& f : x) f = std::bit_cast<float>(uint32_t(rng()));
  const float edges[] = {
      0.0f,          -0.0f,         65504.0f,      65519.0f,        65520.0f,
      -65536.0f,     5.9604645e-8f, 2.9802322e-8f, 2.9802326e-8f,   1e-45f,
      6.1035156e-5f, INFINITY,      -INFINITY,     1.0f + 0x1p-11f, 1.0f + 0x1p-11f + 0x1p-23f};
  for (size_t i = 0; i < std::size(edges); ++i) x[i * 3] = edges[i];
  x[100] = NAN;
  for (int64_t n :
       {int64_t(1), int64_t(3), int64_t(7), int64_t(9), int64_t(17), int64_t(x.size())}) {
    std::vector<uint16_t> got(n), want(n);
    to_f16(x.data(), got.data(), n);
    quantize_row(DType::F16, x.data(), want.data(), n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], want[i]) << "n " << n << " x " << x[i] << " bits 0x" << std::hex
                                 << std::bit_cast<uint32_t>(x[i]);
  }
}

}  // namespace kz::testing
