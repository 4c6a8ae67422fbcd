// Random inputs and quantized weight matrices for backend op tests.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "ops/op_types.h"
#include "quant/quant.h"

namespace kz::testing {

// n normal values of standard deviation `scale`, in a V (std::vector or SharedVector).
template <class V = std::vector<float>>
V random(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  V v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

struct Weights {
  std::vector<uint8_t> bytes;
  Matrix m;
};

// rows x cols weights of type t, row r quantized from random(cols, r + 1).
inline Weights random_matrix(DType t, int64_t cols, int64_t rows) {
  Weights w;
  const uint64_t rb = row_bytes(t, cols);
  w.bytes.resize(rb * rows);
  for (int64_t r = 0; r < rows; ++r)
    quantize_row(t, random(cols, uint32_t(r + 1)).data(), w.bytes.data() + r * rb, cols);
  w.m = Matrix{t, cols, rows, w.bytes.data(), rb, "w", nullptr};
  return w;
}

}  // namespace kz::testing
