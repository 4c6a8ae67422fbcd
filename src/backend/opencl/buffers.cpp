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

namespace {

Buffer create(Device& device, cl_mem_flags flags, uint64_t bytes, void* host) {
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

}  // namespace

cl_mem WeightCache::get(const void* host, uint64_t bytes) {
  SizedBuffer& e = entries_[host];
  if (e.buffer.get() && e.bytes >= bytes) return e.buffer.get();
  void* p = const_cast<void*>(host);  // read only: CL_MEM_READ_ONLY
  if (zero_copy_) {
    e.buffer = create(device_, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes, p);
    counters_.weight_bytes_wrapped += bytes;
  } else {
    e.buffer = create(device_, CL_MEM_READ_ONLY, bytes, nullptr);
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
    e.buffer = create(device_, CL_MEM_READ_WRITE, bytes, nullptr);
    e.bytes = bytes;
  }
  return e.buffer.get();
}

KernelCall::~KernelCall() {
  // After an error the kernels may still use the host bytes: wait before releasing them.
  if (!finished_) device_.cl().clFinish(device_.queue());
}

cl_mem KernelCall::in(const void* host, uint64_t bytes) {
  return wrap(const_cast<void*>(host), bytes, true, false);
}
cl_mem KernelCall::inout(void* host, uint64_t bytes) {
  return wrap(host, bytes, true, true);
}
cl_mem KernelCall::out(void* host, uint64_t bytes) {
  return wrap(host, bytes, false, true);
}

// The same host range twice (an in-place op: x is also y) is one buffer: two buffers over one
// host range are undefined in OpenCL.
cl_mem KernelCall::wrap(void* host, uint64_t bytes, bool read, bool written) {
  for (Wrapped& w : wrapped_) {
    if (w.host == host && w.bytes == bytes) {
      w.written = w.written || written;
      return w.buffer.get();
    }
  }
  Buffer buffer;
  if (zero_copy_) {
    buffer = create(device_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host);
  } else {
    buffer = create(device_, CL_MEM_READ_WRITE, bytes, nullptr);
    if (read) upload(device_, buffer.get(), host, bytes, counters_);
  }
  wrapped_.push_back({std::move(buffer), host, bytes, written});
  return wrapped_.back().buffer.get();
}

void KernelCall::finish() {
  const ClApi& cl = device_.cl();
  cl_command_queue q = device_.queue();
  if (zero_copy_) {
    // Mapping is what makes a CL_MEM_USE_HOST_PTR buffer's contents valid on the host; with
    // unified memory it copies nothing.
    std::vector<std::pair<cl_mem, void*>> mapped;
    for (const Wrapped& w : wrapped_) {
      if (!w.written) continue;
      cl_int err = CL_SUCCESS;
      void* p = cl.clEnqueueMapBuffer(q, w.buffer.get(), CL_FALSE, CL_MAP_READ, 0, w.bytes, 0,
                                      nullptr, nullptr, &err);
      check(err, "clEnqueueMapBuffer");
      mapped.emplace_back(w.buffer.get(), p);
    }
    check(cl.clFinish(q), "clFinish");
    for (auto [mem, p] : mapped)
      check(cl.clEnqueueUnmapMemObject(q, mem, p, 0, nullptr, nullptr), "clEnqueueUnmapMemObject");
  } else {
    for (const Wrapped& w : wrapped_) {
      if (!w.written) continue;
      check(cl.clEnqueueReadBuffer(q, w.buffer.get(), CL_FALSE, 0, w.bytes, w.host, 0, nullptr,
                                   nullptr),
            "clEnqueueReadBuffer");
      counters_.bytes_to_host += w.bytes;
    }
  }
  check(cl.clFinish(q), "clFinish");
  ++counters_.syncs;
  finished_ = true;
}

}  // namespace kz::opencl
