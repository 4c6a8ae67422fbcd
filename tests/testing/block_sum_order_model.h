// A scalar model of the "block-sum" summation order of the Q4_0 / Q8_0 kernels that put whole
// blocks in one integer lane (x86's repacked AVX2 kernels, ARM's i8mm kernels): each 32-element
// block's integer dot product is exact, and per output acc = fma(float(isum_b), d_w,b * d_a,b,
// acc) over the blocks in order, from 0. Kernels in this order must match it bit for bit.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/half.h"
#include "quant/blocks.h"
#include "quant/types.h"
#include "testing/avx2_order_model.h"

namespace kz::testing::block_sum_order {

template <class Block, class Value>
inline float model_q8_0(const uint8_t* w, const uint8_t* a, int64_t n, Value value) {
  const auto* x = reinterpret_cast<const Block*>(w);
  const auto* y = reinterpret_cast<const BlockQ8_0*>(a);
  float acc = 0.0f;
  for (int64_t ib = 0; ib < n / 32; ++ib) {
    int32_t isum = 0;
    for (int e = 0; e < 32; ++e) isum += value(x[ib], e) * y[ib].qs[e];
    const float d = fp16_to_fp32(x[ib].d) * fp16_to_fp32(y[ib].d);
    acc = std::fmaf(float(isum), d, acc);
  }
  return acc;
}

// One row of Q4_0 or Q8_0 weights (w) times one Q8_0 activation row (a).
inline float model(DType t, const uint8_t* w, const uint8_t* a, int64_t n) {
  if (t == DType::Q4_0) return model_q8_0<BlockQ4_0>(w, a, n, avx2_order::q4_0_value);
  return model_q8_0<BlockQ8_0>(w, a, n, [](const BlockQ8_0& b, int e) { return int(b.qs[e]); });
}

}  // namespace kz::testing::block_sum_order
