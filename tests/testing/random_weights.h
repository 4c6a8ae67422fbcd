// Random quantized weight matrices for backend op tests.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/op_types.h"
#include "quant/quant.h"
#include "testing/backend_conformance.h"

namespace kz::testing {

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
