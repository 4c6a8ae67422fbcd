#include "backend/opencl/devices.h"

#include <string_view>

#include "backend/opencl/cl_api.h"
#include "base/error.h"

namespace kz::opencl {
namespace {

template <class Get>
std::string info_string(Get get) {
  size_t size = 0;
  if (get(0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (get(size, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

template <class T>
T device_value(const ClApi& cl, cl_device_id d, cl_device_info what) {
  T value{};
  if (cl.clGetDeviceInfo(d, what, sizeof(T), &value, nullptr) != CL_SUCCESS) return T{};
  return value;
}

std::string device_string(const ClApi& cl, cl_device_id d, cl_device_info what) {
  return info_string(
      [&](size_t n, void* p, size_t* got) { return cl.clGetDeviceInfo(d, what, n, p, got); });
}

DeviceInfo describe(const ClApi& cl, cl_device_id d) {
  DeviceInfo info;
  info.name = device_string(cl, d, CL_DEVICE_NAME);
  info.vendor = device_string(cl, d, CL_DEVICE_VENDOR);
  info.driver_version = device_string(cl, d, CL_DRIVER_VERSION);
  info.version = device_string(cl, d, CL_DEVICE_VERSION);
  info.c_version = device_string(cl, d, CL_DEVICE_OPENCL_C_VERSION);
  info.global_mem_bytes = device_value<cl_ulong>(cl, d, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.max_alloc_bytes = device_value<cl_ulong>(cl, d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info.local_mem_bytes = device_value<cl_ulong>(cl, d, CL_DEVICE_LOCAL_MEM_SIZE);
  info.compute_units = device_value<cl_uint>(cl, d, CL_DEVICE_MAX_COMPUTE_UNITS);
  info.host_unified_memory = device_value<cl_bool>(cl, d, CL_DEVICE_HOST_UNIFIED_MEMORY);
  info.base_align_bytes = device_value<cl_uint>(cl, d, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
  const std::string extensions = device_string(cl, d, CL_DEVICE_EXTENSIONS);
  info.fp16 = extensions.find("cl_khr_fp16") != std::string::npos;
  info.max_sub_groups = int(device_value<cl_uint>(cl, d, CL_DEVICE_MAX_NUM_SUB_GROUPS));
  if (extensions.find("cl_intel_required_subgroup_size") != std::string::npos) {
    size_t size = 0;
    if (cl.clGetDeviceInfo(d, CL_DEVICE_SUB_GROUP_SIZES_INTEL, 0, nullptr, &size) == CL_SUCCESS) {
      std::vector<size_t> sizes(size / sizeof(size_t));
      if (cl.clGetDeviceInfo(d, CL_DEVICE_SUB_GROUP_SIZES_INTEL, size, sizes.data(), nullptr) ==
          CL_SUCCESS)
        info.sub_group_sizes.assign(sizes.begin(), sizes.end());
    }
  }
  return info;
}

}  // namespace

std::vector<cl_device_id> all_device_ids(const ClApi& cl, std::vector<std::string>* platforms) {
  cl_uint n_platforms = 0;
  // No ICD registered is CL_PLATFORM_NOT_FOUND_KHR: no devices, not an error.
  if (cl.clGetPlatformIDs(0, nullptr, &n_platforms) != CL_SUCCESS) return {};
  std::vector<cl_platform_id> ids(n_platforms);
  check(cl.clGetPlatformIDs(n_platforms, ids.data(), nullptr), "clGetPlatformIDs");
  std::vector<cl_device_id> devices;
  for (cl_platform_id p : ids) {
    cl_uint n = 0;
    if (cl.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
    std::vector<cl_device_id> some(n);
    check(cl.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, some.data(), nullptr), "clGetDeviceIDs");
    devices.insert(devices.end(), some.begin(), some.end());
    if (platforms) {
      const std::string name = info_string([&](size_t size, void* ptr, size_t* got) {
        return cl.clGetPlatformInfo(p, CL_PLATFORM_NAME, size, ptr, got);
      });
      platforms->insert(platforms->end(), n, name);
    }
  }
  return devices;
}

DeviceList list_devices() {
  DeviceList list;
  const ClApi* cl = nullptr;
  try {
    cl = &cl_api();
  } catch (const Error& e) {
    list.library = e.what();
    return list;
  }
  list.library_found = true;
  list.library = cl->library;
  std::vector<std::string> platforms;
  const std::vector<cl_device_id> ids = all_device_ids(*cl, &platforms);
  for (size_t i = 0; i < ids.size(); ++i) {
    DeviceInfo info = describe(*cl, ids[i]);
    info.index = int(i);
    info.platform = platforms[i];
    list.devices.push_back(std::move(info));
  }
  return list;
}

}  // namespace kz::opencl
