#include "backend/opencl/buffers.h"

namespace kz::opencl {

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    if (mem_) cl_->clReleaseMemObject(mem_);
    cl_ = o.cl_;
    mem_ = o.mem_;
    o.mem_ = nullptr;
  }
  return *this;
}

Buffer::~Buffer() {
  if (mem_) cl_->clReleaseMemObject(mem_);
}

Buffer create_buffer(Device& device, cl_mem_flags flags, uint64_t bytes, void* host) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = device.cl().clCreateBuffer(device.context(), flags, bytes, host, &err);
  check(err, "clCreateBuffer");
  return Buffer(device.cl(), mem);
}

void upload(Device& device, cl_mem mem, const void* host, uint64_t bytes,
            TransferCounters& counters) {
  check(device.cl().clEnqueueWriteBuffer(device.queue(), mem, CL_FALSE, 0, bytes, host, 0, nullptr,
                                         nullptr),
        "clEnqueueWriteBuffer");
  counters.bytes_to_device += bytes;
}

cl_mem WeightCache::get(const void* host, uint64_t bytes) {
  SizedBuffer& e = entries_[host];
  if (e.buffer.get() && e.bytes >= bytes) return e.buffer.get();
  void* p = const_cast<void*>(host);  // read only: CL_MEM_READ_ONLY
  if (zero_copy_) {
    e.buffer = create_buffer(device_, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes, p);
    counters_.weight_bytes_wrapped += bytes;
  } else {
    e.buffer = create_buffer(device_, CL_MEM_READ_ONLY, bytes, nullptr);
    upload(device_, e.buffer.get(), host, bytes, counters_);
    counters_.weight_bytes_uploaded += bytes;
  }
  e.bytes = bytes;
  return e.buffer.get();
}

cl_mem ScratchBuffers::get(int slot, uint64_t bytes) {
  SizedBuffer& e = slots_[slot];
  if (!e.buffer.get() || e.bytes < bytes) {
    e.buffer = Buffer();
    e.buffer = create_buffer(device_, CL_MEM_READ_WRITE, bytes, nullptr);
    e.bytes = bytes;
  }
  return e.buffer.get();
}

}  // namespace kz::opencl
