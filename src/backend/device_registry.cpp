#include "backend/device_registry.h"

#include "backend/cpu_backend.h"
#include "backend/ggml/devices.h"
#include "backend/opencl/devices.h"
#include "backend/opencl/opencl_backend.h"
#include "backend/ref_backend.h"
#include "base/error.h"

namespace kz {
namespace {

bool has_prefix(std::string_view name, std::string_view prefix) {
  return name.substr(0, prefix.size()) == prefix;
}

std::vector<DeviceDriver>& drivers() {
  static std::vector<DeviceDriver> table = {
      {"cpu", "cpu", "the CPU's fast kernels (also spelled none, as llama.cpp's -dev none)", false,
       [](std::string_view n) { return n == "cpu" || n == "none"; },
       [](std::string_view, int threads) -> std::unique_ptr<Backend> {
         return std::make_unique<CpuBackend>(threads);
       },
       nullptr},
      {"ref", "ref", "plain scalar reference code, the oracle", false,
       [](std::string_view n) { return n == "ref"; },
       [](std::string_view, int) -> std::unique_ptr<Backend> {
         return std::make_unique<RefBackend>();
       },
       nullptr},
      {"opencl", "opencl[:N]", "our OpenCL kernels on OpenCL device N, loaded at run time", true,
       [](std::string_view n) { return n == "opencl" || has_prefix(n, "opencl:"); },
       [](std::string_view n, int) { return make_opencl_backend(*opencl_device_index(n)); },
       opencl::describe_devices},
      {"ggml", "ggml:NAME",
       "ggml device NAME (CPU, Vulkan0, GPUOpenCL, HTP0), ggml loaded at run time", true,
       [](std::string_view n) { return has_prefix(n, "ggml:"); },
       [](std::string_view n, int threads) { return ggml::open_device(n.substr(5), threads); },
       ggml::describe_devices},
  };
  return table;
}

}  // namespace

const std::vector<DeviceDriver>& device_drivers() {
  return drivers();
}

void register_device_driver(const DeviceDriver& driver) {
  for (const DeviceDriver& d : drivers())
    if (d.kind == driver.kind) return;
  drivers().push_back(driver);
}

const DeviceDriver& driver_for(std::string_view name) {
  std::string spellings;
  for (const DeviceDriver& d : device_drivers()) {
    if (d.matches(name)) return d;
    spellings += std::string(spellings.empty() ? "" : ", ") + std::string(d.spelling);
  }
  fail("unknown device '", name, "' (expected ", spellings, ")");
}

}  // namespace kz
