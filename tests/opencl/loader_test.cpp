// The run-time loader and device selection fail with one line, never a crash.
#include <gtest/gtest.h>

#include <string>

#include "backend/opencl/cl_api.h"
#include "backend/opencl/devices.h"
#include "opencl_device.h"

namespace kz {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(OpenclLoader, MissingLibraryIsReportedWithWhatWasTried) {
  std::string tried;
  EXPECT_FALSE(opencl::load_library({"/nonexistent/libOpenCL.so", "libnot-opencl.so"}, tried));
  EXPECT_EQ(tried, "/nonexistent/libOpenCL.so, libnot-opencl.so");
}

TEST(OpenclLoader, LibraryWithoutTheEntryPointsIsSkipped) {
  std::string tried;
  EXPECT_FALSE(opencl::load_library({"libc.so.6"}, tried));
  EXPECT_TRUE(contains(tried, "libc.so.6 (no clGetPlatformIDs)")) << tried;
}

TEST(OpenclLoader, ListingDevicesNeverThrows) {
  const opencl::DeviceList list = opencl::list_devices();
  if (!list.library_found) {
    EXPECT_TRUE(contains(list.library, "no OpenCL library found")) << list.library;
    EXPECT_TRUE(list.devices.empty());
  }
  for (size_t i = 0; i < list.devices.size(); ++i) EXPECT_EQ(list.devices[i].index, int(i));
}

TEST(OpenclLoader, MissingDeviceIsAOneLineError) {
  try {
    OpenclBackend backend(1000);
    FAIL() << "opened opencl:1000";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("opencl: ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(OpenclLoader, DeviceNames) {
  EXPECT_EQ(opencl_device_index("opencl"), 0);
  EXPECT_EQ(opencl_device_index("opencl:3"), 3);
  EXPECT_EQ(opencl_device_index("cpu"), std::nullopt);
  EXPECT_THROW(opencl_device_index("opencl:"), Error);
  EXPECT_THROW(opencl_device_index("opencl:x1"), Error);
  EXPECT_THROW(opencl_device_index("opencl:-1"), Error);
}

TEST(OpenclLoader, RequiredDeviceIsPresent) {
  if (!testing::opencl_required()) GTEST_SKIP() << "KAZEIA_REQUIRE_OPENCL is not 1";
  EXPECT_FALSE(opencl::list_devices().devices.empty());
}

}  // namespace
}  // namespace kz
