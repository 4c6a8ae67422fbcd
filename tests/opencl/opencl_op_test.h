// What the OpenCL op tests share: a fixture holding the opencl backend (in one memory mode, the
// test's parameter) beside `ref`, random inputs and random quantized weights.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "backend/ref_backend.h"
#include "opencl_device.h"
#include "quant/quant.h"
#include "testing/backend_conformance.h"

namespace kz {
namespace opencl {
inline void PrintTo(MemoryMode mode, std::ostream* os) {
  *os << (mode == MemoryMode::kAuto ? "auto" : "copy");
}
}  // namespace opencl

namespace testing {

class OpenclOpTest : public ::testing::TestWithParam<opencl::MemoryMode> {
 protected:
  void SetUp() override { open_opencl(cl_, GetParam()); }
  std::unique_ptr<OpenclBackend> cl_;
  RefBackend ref_;
};

inline std::string memory_mode_name(const ::testing::TestParamInfo<opencl::MemoryMode>& info) {
  return info.param == opencl::MemoryMode::kAuto ? "auto" : "copy";
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

}  // namespace testing
}  // namespace kz
