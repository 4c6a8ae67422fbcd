// kazeia devices: the OpenCL platforms and devices, numbered as --device opencl:N takes them.
// No library or no device is information, not an error: exit 0.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "args.h"
#include "backend/opencl/devices.h"

namespace kz::cli {
namespace {

std::string mib(uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

std::string sub_groups(const opencl::DeviceInfo& d) {
  std::string s;
  for (uint64_t size : d.sub_group_sizes) s += (s.empty() ? "" : ",") + std::to_string(size);
  if (!s.empty()) return "sizes " + s;
  if (d.max_sub_groups > 0) return "up to " + std::to_string(d.max_sub_groups) + " per work-group";
  return "not reported";
}

}  // namespace

int cmd_devices(int argc, char** argv) {
  ArgParser p("kazeia devices",
              "List the OpenCL platforms and devices (opencl:N is the N-th device over all "
              "platforms). The OpenCL library is loaded at run time: KAZEIA_OPENCL_LIBRARY, "
              "then libOpenCL.so, libOpenCL.so.1, the Android vendor paths.");
  if (!p.parse(argc, argv)) return 0;
  const opencl::DeviceList list = opencl::list_devices();
  if (!list.library_found) {
    std::printf("%s\n", list.library.c_str());  // "opencl: no OpenCL library found (tried ...)"
    return 0;
  }
  std::printf("OpenCL library: %s\n", list.library.c_str());
  if (list.devices.empty()) {
    std::printf("no OpenCL devices\n");
    return 0;
  }
  std::string platform;
  for (const opencl::DeviceInfo& d : list.devices) {
    if (d.platform != platform) std::printf("\nplatform: %s\n", (platform = d.platform).c_str());
    std::printf("  opencl:%d  %s\n", d.index, d.name.c_str());
    std::printf("    vendor           %s\n", d.vendor.c_str());
    std::printf("    driver           %s\n", d.driver_version.c_str());
    std::printf("    version          %s (%s)\n", d.version.c_str(), d.c_version.c_str());
    std::printf("    compute units    %u\n", d.compute_units);
    std::printf("    global memory    %s (max allocation %s, local %s)\n",
                mib(d.global_mem_bytes).c_str(), mib(d.max_alloc_bytes).c_str(),
                (std::to_string(d.local_mem_bytes >> 10) + " KiB").c_str());
    std::printf("    unified memory   %s\n", d.host_unified_memory ? "yes (zero copy)" : "no");
    std::printf("    fp16             %s\n", d.fp16 ? "yes (cl_khr_fp16)" : "no");
    std::printf("    sub-groups       %s\n", sub_groups(d).c_str());
  }
  return 0;
}

}  // namespace kz::cli
