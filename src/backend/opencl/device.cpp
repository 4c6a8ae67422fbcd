#include "backend/opencl/device.h"

#include <vector>

#include "backend/opencl/kernel_sources.h"
#include "base/error.h"

namespace kz::opencl {
namespace {

size_t round_up(size_t n, size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

// The build log on one line, shortened: errors are one line.
std::string one_line(std::string log) {
  for (char& c : log)
    if (c == '\n' || c == '\r') c = ' ';
  return log.size() > 600 ? log.substr(0, 600) + "..." : log;
}

}  // namespace

Device::Device(int index) : cl_(cl_api()) {
  std::vector<std::string> platforms;
  const std::vector<cl_device_id> ids = all_device_ids(cl_, &platforms);
  if (ids.empty()) fail("opencl: no OpenCL devices (library ", cl_.library, ")");
  if (index < 0 || size_t(index) >= ids.size())
    fail("opencl: no device opencl:", index, " (", ids.size(), " device",
         ids.size() == 1 ? "" : "s", ": opencl:0..", ids.size() - 1, ")");
  device_ = ids[index];
  info_ = list_devices().devices.at(index);
  cl_int err = CL_SUCCESS;
  context_ = cl_.clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  queue_ = cl_.clCreateCommandQueue(context_, device_, 0, &err);
  check(err, "clCreateCommandQueue");
  build_program();
}

Device::~Device() {
  for (auto& [name, k] : kernels_) cl_.clReleaseKernel(k);
  if (program_) cl_.clReleaseProgram(program_);
  if (queue_) cl_.clReleaseCommandQueue(queue_);
  if (context_) cl_.clReleaseContext(context_);
}

void Device::build_program() {
  const std::string source = program_source();
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int err = CL_SUCCESS;
  program_ = cl_.clCreateProgramWithSource(context_, 1, &text, &length, &err);
  check(err, "clCreateProgramWithSource");
  // Correctly rounded division where the device offers it: the Q8_0 K/V store's scale
  // (amax / 127, then 1 / d) must be the reference's bits.
  cl_device_fp_config fp = 0;
  cl_.clGetDeviceInfo(device_, CL_DEVICE_SINGLE_FP_CONFIG, sizeof(fp), &fp, nullptr);
  std::string options = "-cl-std=CL1.2";
  if (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
    options += " -cl-fp32-correctly-rounded-divide-sqrt";
  err = cl_.clBuildProgram(program_, 1, &device_, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t size = 0;
    cl_.clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    cl_.clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    fail("opencl: kernel build failed on ", info_.name, ": ", one_line(log));
  }
}

cl_kernel Device::kernel(const std::string& name) {
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
  cl_int err = CL_SUCCESS;
  cl_kernel k = cl_.clCreateKernel(program_, name.c_str(), &err);
  check(err, ("clCreateKernel " + name).c_str());
  kernels_.emplace(name, k);
  return k;
}

void Device::set_arg(cl_kernel k, cl_uint index, size_t size, const void* value) {
  check(cl_.clSetKernelArg(k, index, size, value), "clSetKernelArg");
}

void Device::enqueue(cl_kernel k, const std::string& name, Range global, Range local) {
  const bool driver_local = local.x == 0;
  const size_t l[3] = {local.x, local.y, local.z};
  const size_t g[3] = {driver_local ? global.x : round_up(global.x, local.x),
                       driver_local ? global.y : round_up(global.y, local.y),
                       driver_local ? global.z : round_up(global.z, local.z)};
  const cl_uint dims = g[2] > 1 || l[2] > 1 ? 3 : g[1] > 1 || l[1] > 1 ? 2 : 1;
  if (g[0] == 0 || g[1] == 0 || g[2] == 0) return;
  check(cl_.clEnqueueNDRangeKernel(queue_, k, dims, nullptr, g, driver_local ? nullptr : l, 0,
                                   nullptr, nullptr),
        ("clEnqueueNDRangeKernel " + name).c_str());
}

}  // namespace kz::opencl
