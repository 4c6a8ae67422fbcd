// One OpenCL device opened for the backend: context, in-order queue, the program built once from
// kernel_sources.h, and its kernels created on first use.
#pragma once

#include <string>
#include <unordered_map>

#include "backend/opencl/cl_api.h"
#include "backend/opencl/devices.h"

namespace kz::opencl {

// Work sizes; local {0} lets the driver choose. launch() rounds global up to whole work-groups.
struct Range {
  size_t x = 1, y = 1, z = 1;
};

class Device {
 public:
  // Throws kz::Error if the library, the device (opencl:index) or the program build fails.
  explicit Device(int index);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const ClApi& cl() const { return cl_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  const DeviceInfo& info() const { return info_; }

  cl_kernel kernel(const std::string& name);

  // Enqueues kernel `name` with the arguments in order (buffers as cl_mem, scalars with the
  // kernel's exact type: int32_t for int, int64_t for long, uint64_t for ulong, float).
  template <class... Args>
  void launch(const std::string& name, Range global, Range local, const Args&... args) {
    cl_kernel k = kernel(name);
    cl_uint i = 0;
    (set_arg(k, i++, sizeof(Args), &args), ...);
    enqueue(k, name, global, local);
  }

 private:
  void set_arg(cl_kernel k, cl_uint index, size_t size, const void* value);
  void enqueue(cl_kernel k, const std::string& name, Range global, Range local);
  void build_program();

  const ClApi& cl_;
  DeviceInfo info_;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  std::unordered_map<std::string, cl_kernel> kernels_;
};

}  // namespace kz::opencl
