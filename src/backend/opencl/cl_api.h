// The OpenCL entry points the engine uses, resolved at run time with dlopen/dlsym: nothing links
// against libOpenCL.so (an Android APK must not link the vendor's library, and the engine must
// run where there is none). Types and constants come from the Khronos headers.
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS  // clCreateCommandQueue: the 1.2 call Adreno ships
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <optional>
#include <string>
#include <vector>

namespace kz::opencl {

#define KZ_OPENCL_FUNCTIONS(X) \
  X(clGetPlatformIDs)          \
  X(clGetPlatformInfo)         \
  X(clGetDeviceIDs)            \
  X(clGetDeviceInfo)           \
  X(clCreateContext)           \
  X(clReleaseContext)          \
  X(clCreateCommandQueue)      \
  X(clReleaseCommandQueue)     \
  X(clCreateProgramWithSource) \
  X(clBuildProgram)            \
  X(clGetProgramBuildInfo)     \
  X(clReleaseProgram)          \
  X(clCreateKernel)            \
  X(clReleaseKernel)           \
  X(clSetKernelArg)            \
  X(clCreateBuffer)            \
  X(clCreateSubBuffer)         \
  X(clReleaseMemObject)        \
  X(clEnqueueNDRangeKernel)    \
  X(clEnqueueReadBuffer)       \
  X(clEnqueueWriteBuffer)      \
  X(clEnqueueCopyBuffer)       \
  X(clEnqueueMapBuffer)        \
  X(clEnqueueUnmapMemObject)   \
  X(clFinish)

struct ClApi {
#define KZ_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
  KZ_OPENCL_FUNCTIONS(KZ_DECLARE_POINTER)
#undef KZ_DECLARE_POINTER
  std::string library;  // the path or name that was loaded
};

// Loads the library on first use, searching KAZEIA_OPENCL_LIBRARY (if set), libOpenCL.so,
// libOpenCL.so.1, then the Android vendor paths. Throws kz::Error naming every place tried if no
// library with all the entry points is found. The library stays loaded for the process.
const ClApi& cl_api();

// The first of `names` that loads with every entry point; nullopt when none does, with `tried`
// listing each name (and a missing entry point where one was).
std::optional<ClApi> load_library(const std::vector<std::string>& names, std::string& tried);

// Every device of every platform, in opencl:N order; with `platforms`, each one's platform name
// (devices.cpp).
std::vector<cl_device_id> all_device_ids(const ClApi& cl,
                                         std::vector<std::string>* platforms = nullptr);

// Throws kz::Error "opencl: CALL failed: CODE (NAME)" unless err is CL_SUCCESS.
void check(cl_int err, const char* call);

}  // namespace kz::opencl
