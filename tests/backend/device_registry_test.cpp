// The device registry: the engine's kinds only, until test support adds its faulty device (as
// the kazeia CLI and the tests do); libkazeia.so never has it (engine_has_no_test_support).
#include "backend/device_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "base/error.h"
#include "test_support/faulty_backend.h"

namespace kz {
namespace {

std::string error_of(std::string_view name) {
  try {
    driver_for(name).open(name, 1);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(DeviceRegistry, TestSupportAddsTheFaultyDeviceOnce) {
  EXPECT_EQ(error_of("faulty:silu"),
            "unknown device 'faulty:silu' (expected cpu, ref, opencl[:N], ggml:NAME)");
  register_faulty_device();
  register_faulty_device();
  const auto& drivers = device_drivers();
  EXPECT_EQ(std::count_if(drivers.begin(), drivers.end(),
                          [](const DeviceDriver& d) { return d.kind == "faulty"; }),
            1);
  EXPECT_EQ(drivers.back().kind, "faulty");
  EXPECT_EQ(driver_for("faulty:silu").open("faulty:silu", 1)->name(), "faulty");
  EXPECT_EQ(error_of("faulty:"), "device 'faulty:' names no op to corrupt");
  EXPECT_EQ(error_of("gpu"),
            "unknown device 'gpu' (expected cpu, ref, opencl[:N], ggml:NAME, faulty:ENTRIES)");
}

}  // namespace
}  // namespace kz
