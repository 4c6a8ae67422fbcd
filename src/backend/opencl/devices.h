// The OpenCL devices of every platform, numbered in one sequence ("opencl:N" is the N-th device
// over all platforms, platforms in the driver's order). Plain data, so that callers need no
// OpenCL headers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kz::opencl {

struct DeviceInfo {
  int index = 0;  // N of opencl:N
  std::string platform, name, vendor, driver_version, version, c_version;
  uint64_t global_mem_bytes = 0, max_alloc_bytes = 0, local_mem_bytes = 0;
  unsigned compute_units = 0;
  bool host_unified_memory = false;
  uint64_t base_align_bytes = 0;          // CL_DEVICE_MEM_BASE_ADDR_ALIGN: a sub-buffer's origin
  bool fp16 = false;                      // cl_khr_fp16
  int max_sub_groups = 0;                 // CL_DEVICE_MAX_NUM_SUB_GROUPS (OpenCL 2.1+); 0: unknown
  std::vector<uint64_t> sub_group_sizes;  // cl_intel_required_subgroup_size; empty: unknown
};

struct DeviceList {
  bool library_found = false;
  std::string library;  // what was loaded, or why none was (one line)
  std::vector<DeviceInfo> devices;
};

// Never throws for a missing library or a platform without devices: that is information.
DeviceList list_devices();
// The devices as `kazeia devices` prints them (opencl_listing.cpp).
std::string describe_devices();

}  // namespace kz::opencl
