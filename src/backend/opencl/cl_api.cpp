#include "backend/opencl/cl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <optional>
#include <vector>

#include "base/error.h"

namespace kz::opencl {
namespace {

std::vector<std::string> search_order() {
  std::vector<std::string> names;
  if (const char* env = std::getenv("KAZEIA_OPENCL_LIBRARY"); env && *env) names.push_back(env);
  for (const char* name : {"libOpenCL.so", "libOpenCL.so.1", "/vendor/lib64/libOpenCL.so",
                           "/system/vendor/lib64/libOpenCL.so", "/system/lib64/libOpenCL.so"})
    names.push_back(name);
  return names;
}

}  // namespace

std::optional<ClApi> load_library(const std::vector<std::string>& names, std::string& tried) {
  for (const std::string& name : names) {
    tried += (tried.empty() ? "" : ", ") + name;
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) continue;
    ClApi api;
    bool complete = true;
#define KZ_RESOLVE(fn)                                          \
  api.fn = reinterpret_cast<decltype(api.fn)>(dlsym(lib, #fn)); \
  if (!api.fn) {                                                \
    complete = false;                                           \
    tried += " (no " #fn ")";                                   \
  }
    KZ_OPENCL_FUNCTIONS(KZ_RESOLVE)
#undef KZ_RESOLVE
    if (!complete) {
      dlclose(lib);
      continue;
    }
    api.library = name;
    return api;
  }
  return std::nullopt;
}

namespace {

struct Loaded {
  std::optional<ClApi> api;
  std::string tried;
};

const char* error_name(cl_int err) {
  switch (err) {
    case CL_DEVICE_NOT_FOUND:
      return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE:
      return "CL_DEVICE_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
      return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES:
      return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
      return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE:
      return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE:
      return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE:
      return "CL_INVALID_DEVICE";
    case CL_INVALID_BUFFER_SIZE:
      return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_HOST_PTR:
      return "CL_INVALID_HOST_PTR";
    case CL_INVALID_MEM_OBJECT:
      return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_KERNEL_NAME:
      return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS:
      return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_INDEX:
      return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_SIZE:
      return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_WORK_GROUP_SIZE:
      return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE:
      return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE:
      return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_OPERATION:
      return "CL_INVALID_OPERATION";
    case CL_PLATFORM_NOT_FOUND_KHR:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "see CL/cl.h";
  }
}

}  // namespace

// Loaded once per process and never changed after.
const ClApi& cl_api() {
  static const Loaded loaded = [] {
    Loaded l;
    l.api = load_library(search_order(), l.tried);
    return l;
  }();
  if (!loaded.api) fail("opencl: no OpenCL library found (tried ", loaded.tried, ")");
  return *loaded.api;
}

void check(cl_int err, const char* call) {
  if (err != CL_SUCCESS) fail("opencl: ", call, " failed: ", err, " (", error_name(err), ")");
}

}  // namespace kz::opencl
