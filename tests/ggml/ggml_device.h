// Opening ggml devices in tests: the devices of $KAZEIA_GGML_DEVICES (default "CPU,Vulkan0"),
// ggml from $KAZEIA_GGML_DIR (scripts/fetch-ggml.sh). Without ggml or a device the tests skip,
// unless KAZEIA_REQUIRE_GGML=1 (CI), where they fail.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "backend/ggml/ggml_backend.h"
#include "base/error.h"

namespace kz::testing {

inline std::vector<std::string> ggml_device_names() {
  const char* env = std::getenv("KAZEIA_GGML_DEVICES");
  const std::string list = env && *env ? env : "CPU,Vulkan0";
  std::vector<std::string> names;
  for (size_t start = 0; start <= list.size();) {
    const size_t end = std::min(list.find(',', start), list.size());
    if (end > start) names.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

inline bool ggml_required() {
  const char* env = std::getenv("KAZEIA_REQUIRE_GGML");
  return env && std::string(env) == "1";
}

// Sets `backend`, or records why not (skip or failure); call from SetUp and return if null.
inline void open_ggml(std::unique_ptr<GgmlBackend>& backend, const std::string& device,
                      int n_threads = 2) {
  try {
    backend = std::make_unique<GgmlBackend>(device, n_threads);
  } catch (const Error& e) {
    if (ggml_required()) FAIL() << e.what();
    GTEST_SKIP() << e.what();
  }
}

inline std::string device_test_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

}  // namespace kz::testing
