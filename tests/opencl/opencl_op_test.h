// What the OpenCL op tests share: a fixture holding the opencl backend (in one memory mode, the
// test's parameter) beside `ref`; random inputs and weights: testing/random_weights.h.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "backend/ref_backend.h"
#include "opencl_device.h"
#include "testing/backend_conformance.h"
#include "testing/random_weights.h"

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

}  // namespace testing
}  // namespace kz
