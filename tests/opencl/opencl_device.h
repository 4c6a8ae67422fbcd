// Opening the OpenCL backend in tests: device opencl:N from KAZEIA_OPENCL_DEVICE (default 0).
// Without a library or device the tests skip, unless KAZEIA_REQUIRE_OPENCL=1 (CI on PoCL), where
// they fail.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "backend/opencl/opencl_backend.h"
#include "base/error.h"

namespace kz::testing {

inline int opencl_device_index() {
  const char* env = std::getenv("KAZEIA_OPENCL_DEVICE");
  return env && *env ? std::atoi(env) : 0;
}

inline bool opencl_required() {
  const char* env = std::getenv("KAZEIA_REQUIRE_OPENCL");
  return env && std::string(env) == "1";
}

// Sets `backend`, or records why not (skip or failure); call from SetUp and return if null.
inline void open_opencl(std::unique_ptr<OpenclBackend>& backend,
                        opencl::MemoryMode mode = opencl::MemoryMode::kAuto) {
  try {
    backend = std::make_unique<OpenclBackend>(opencl_device_index(), mode);
  } catch (const Error& e) {
    if (opencl_required()) FAIL() << e.what();
    GTEST_SKIP() << e.what();
  }
}

}  // namespace kz::testing
