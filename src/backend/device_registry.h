// Every kind of device in one place: how its names are spelled, how one is opened, whether it is
// an accelerator beside the CPU, and what `kazeia devices` lists of it. The factory
// (make_backend), `kazeia devices`, the device options (runtime/devices.h) and the docs read
// this table; adding a kind of device is one entry here and its driver. Test devices are not in
// the engine: test support adds them (test_support/faulty_backend.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"

namespace kz {

struct DeviceDriver {
  std::string_view kind;      // cpu, ref, opencl, ggml; faulty where registered
  std::string_view spelling;  // how names are written: "opencl[:N]", "ggml:NAME"
  std::string_view summary;   // one line for --help and the docs
  // Reads the weights in file order beside the CPU (so the CPU keeps the file's rows, one copy).
  bool accelerator = false;
  bool (*matches)(std::string_view name) = nullptr;
  std::unique_ptr<Backend> (*open)(std::string_view name, int n_threads) = nullptr;
  // What `kazeia devices` prints of this kind (empty: nothing to list); never throws.
  std::string (*list)() = nullptr;
};

const std::vector<DeviceDriver>& device_drivers();
// Adds a kind after the others, once (a kind already there is kept). Not synchronized with the
// lookups: call it at start-up, before any device is named.
void register_device_driver(const DeviceDriver& driver);
// The driver of a device name; throws kz::Error naming the name and the spellings there are.
const DeviceDriver& driver_for(std::string_view name);

}  // namespace kz
