// `kazeia devices`' OpenCL section: the platforms and devices, numbered as --device opencl:N takes
// them. Built with or without the OpenCL backend (list_devices() then says why there is none).
#include <string>
#include <string_view>

#include "backend/opencl/devices.h"

namespace kz::opencl {
namespace {

std::string mib(uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

std::string sub_groups(const DeviceInfo& d) {
  std::string s;
  for (uint64_t size : d.sub_group_sizes) {
    if (!s.empty()) s += ',';
    s += std::to_string(size);
  }
  if (!s.empty()) return "sizes " + s;
  if (d.max_sub_groups > 0) return "up to " + std::to_string(d.max_sub_groups) + " per work-group";
  return "not reported";
}

// "    key              value": keys in a column of 17.
void line(std::string& out, std::string_view key, const std::string& value) {
  out.append(4, ' ').append(key).append(17 - key.size(), ' ').append(value).push_back('\n');
}

}  // namespace

std::string describe_devices() {
  const DeviceList list = list_devices();
  if (!list.library_found) return list.library + "\n";  // "opencl: no OpenCL library found (...)"
  std::string out = "OpenCL library: " + list.library + "\n";
  if (list.devices.empty()) return out + "no OpenCL devices\n";
  std::string platform;
  for (const DeviceInfo& d : list.devices) {
    if (d.platform != platform) out += "\nplatform: " + (platform = d.platform) + "\n";
    out += "  opencl:" + std::to_string(d.index) + "  " + d.name + "\n";
    line(out, "vendor", d.vendor);
    line(out, "driver", d.driver_version);
    line(out, "version", d.version + " (" + d.c_version + ")");
    line(out, "compute units", std::to_string(d.compute_units));
    line(out, "global memory",
         mib(d.global_mem_bytes) + " (max allocation " + mib(d.max_alloc_bytes) + ", local " +
             std::to_string(d.local_mem_bytes >> 10) + " KiB)");
    line(out, "unified memory", d.host_unified_memory ? "yes (zero copy)" : "no");
    line(out, "fp16", d.fp16 ? "yes (cl_khr_fp16)" : "no");
    line(out, "sub-groups", sub_groups(d));
  }
  return out;
}

}  // namespace kz::opencl
