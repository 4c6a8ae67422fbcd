#include "backend/opencl/queue.h"

#include <cstring>

namespace kz::opencl {

Queue::Queue(Device& device, bool zero_copy, TransferCounters& counters)
    : device_(device), zero_copy_(zero_copy), counters_(counters) {
  shared_memory::add_listener(this);
}

Queue::~Queue() {
  shared_memory::remove_listener(this);
  const ClApi& cl = device_.cl();
  for (auto& [base, a] : allocations_)
    if (a.mapped)
      cl.clEnqueueUnmapMemObject(device_.queue(), a.buffer.get(), a.mapped, 0, nullptr, nullptr);
  cl.clFinish(device_.queue());  // the buffers are released after this, the allocations later
}

cl_mem Queue::shared(const void* host, uint64_t bytes, bool written, std::vector<Buffer>& subs,
                     bool& synced) {
  const std::optional<SharedRegion> region = shared_memory::find(host, bytes);
  if (!region) return nullptr;
  std::lock_guard lock(mutex_);
  const uint64_t offset = static_cast<const uint8_t*>(host) - region->base;
  const uint64_t align = std::max<uint64_t>(1, device_.info().base_align_bytes);
  if (offset % align != 0) {
    // The op takes it as host memory, which the device must first give back.
    sync();
    synced = true;
    return nullptr;
  }
  const ClApi& cl = device_.cl();
  cl_command_queue q = device_.queue();
  Allocation& a = allocations_[region->base];
  if (!a.buffer.get()) {
    a.bytes = region->bytes;
    a.buffer = zero_copy_ ? create_buffer(device_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, a.bytes,
                                          region->base)
                          : create_buffer(device_, CL_MEM_READ_WRITE, a.bytes, nullptr);
  }
  if (!a.on_device) {
    if (a.mapped) {
      check(cl.clEnqueueUnmapMemObject(q, a.buffer.get(), a.mapped, 0, nullptr, nullptr),
            "clEnqueueUnmapMemObject");
      a.mapped = nullptr;
    } else if (!zero_copy_) {
      upload(device_, a.buffer.get(), region->base, a.bytes, counters_);
    }
    a.on_device = true;
    pending_ = true;
  }
  a.written = a.written || written;
  if (offset == 0 && bytes == a.bytes) return a.buffer.get();
  cl_buffer_region sub{offset, bytes};
  cl_int err = CL_SUCCESS;
  cl_mem m = cl.clCreateSubBuffer(a.buffer.get(), CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                  &sub, &err);
  check(err, "clCreateSubBuffer");
  subs.emplace_back(cl, m);
  return m;
}

cl_mem Queue::staged(const void* host, uint64_t bytes) {
  std::lock_guard lock(mutex_);
  const auto* p = static_cast<const uint8_t*>(host);
  std::vector<uint8_t>& copy = staging_.emplace_back(p, p + bytes);
  if (zero_copy_) {
    staged_.push_back(
        create_buffer(device_, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes, copy.data()));
  } else {
    staged_.push_back(create_buffer(device_, CL_MEM_READ_ONLY, bytes, nullptr));
    upload(device_, staged_.back().get(), copy.data(), bytes, counters_);
  }
  pending_ = true;
  return staged_.back().get();
}

void Queue::sync() {
  std::lock_guard lock(mutex_);
  const ClApi& cl = device_.cl();
  cl_command_queue q = device_.queue();
  for (auto& [base, a] : allocations_) {
    if (!a.on_device) continue;
    if (zero_copy_) {
      // Mapping is what makes a CL_MEM_USE_HOST_PTR buffer's bytes the host's again.
      cl_int err = CL_SUCCESS;
      a.mapped = cl.clEnqueueMapBuffer(q, a.buffer.get(), CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                       a.bytes, 0, nullptr, nullptr, &err);
      check(err, "clEnqueueMapBuffer");
    } else if (a.written) {
      check(cl.clEnqueueReadBuffer(q, a.buffer.get(), CL_FALSE, 0, a.bytes,
                                   const_cast<uint8_t*>(base), 0, nullptr, nullptr),
            "clEnqueueReadBuffer");
      counters_.bytes_to_host += a.bytes;
    }
    a.on_device = false;
    a.written = false;
    pending_ = true;
  }
  if (pending_) wait();
}

void Queue::drain() {
  check(device_.cl().clFinish(device_.queue()), "clFinish");
}

void Queue::wait() {
  drain();
  ++counters_.syncs;
  pending_ = false;
  staged_.clear();
  staging_.clear();
}

void Queue::on_free(const SharedRegion& region) {
  std::lock_guard lock(mutex_);
  const auto it = allocations_.find(region.base);
  if (it == allocations_.end()) return;
  Allocation& a = it->second;
  // Queued ops may still use it (a scratch buffer outgrown in the middle of a batch).
  if (a.on_device && pending_) wait();
  if (a.mapped) {
    check(device_.cl().clEnqueueUnmapMemObject(device_.queue(), a.buffer.get(), a.mapped, 0,
                                               nullptr, nullptr),
          "clEnqueueUnmapMemObject");
    drain();
  }
  allocations_.erase(it);
}

KernelCall::~KernelCall() {
  // After an error the kernels may still use host bytes wrapped for this call.
  if (!finished_ && !wrapped_.empty()) queue_.drain();
}

cl_mem KernelCall::shared(const void* host, uint64_t bytes, bool written) {
  bool synced = false;
  cl_mem m = queue_.shared(host, bytes, written, subs_, synced);
  // A sync gave the ranges this call placed before back to the host: place them again.
  if (synced)
    for (const Placed& p : placed_) queue_.shared(p.host, p.bytes, p.written, subs_, synced);
  if (m) placed_.push_back({host, bytes, written});
  return m;
}

cl_mem KernelCall::in(const void* host, uint64_t bytes) {
  if (cl_mem m = shared(host, bytes, false)) return m;
  return queue_.staged(host, bytes);
}

cl_mem KernelCall::inout(void* host, uint64_t bytes) {
  if (cl_mem m = shared(host, bytes, true)) return m;
  return wrap(host, bytes, true);
}

cl_mem KernelCall::out(void* host, uint64_t bytes) {
  if (cl_mem m = shared(host, bytes, true)) return m;
  return wrap(host, bytes, false);
}

// The same host range twice (an in-place op: x is also y) is one buffer: two buffers over one
// host range are undefined in OpenCL.
cl_mem KernelCall::wrap(void* host, uint64_t bytes, bool read) {
  for (Wrapped& w : wrapped_)
    if (w.host == host && w.bytes == bytes) return w.buffer.get();
  Device& device = queue_.device();
  Buffer buffer;
  if (queue_.zero_copy()) {
    buffer = create_buffer(device, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host);
  } else {
    buffer = create_buffer(device, CL_MEM_READ_WRITE, bytes, nullptr);
    if (read) upload(device, buffer.get(), host, bytes, queue_.counters());
  }
  wrapped_.push_back({std::move(buffer), host, bytes});
  return wrapped_.back().buffer.get();
}

void KernelCall::finish() {
  finished_ = true;
  queue_.enqueued();
  if (wrapped_.empty()) return;  // shared memory only: nothing to wait for
  Device& device = queue_.device();
  const ClApi& cl = device.cl();
  cl_command_queue q = device.queue();
  std::vector<std::pair<cl_mem, void*>> mapped;
  for (const Wrapped& w : wrapped_) {
    if (queue_.zero_copy()) {
      cl_int err = CL_SUCCESS;
      void* p = cl.clEnqueueMapBuffer(q, w.buffer.get(), CL_FALSE, CL_MAP_READ, 0, w.bytes, 0,
                                      nullptr, nullptr, &err);
      check(err, "clEnqueueMapBuffer");
      mapped.emplace_back(w.buffer.get(), p);
    } else {
      check(cl.clEnqueueReadBuffer(q, w.buffer.get(), CL_FALSE, 0, w.bytes, w.host, 0, nullptr,
                                   nullptr),
            "clEnqueueReadBuffer");
      queue_.counters().bytes_to_host += w.bytes;
    }
  }
  queue_.sync();
  for (auto [mem, p] : mapped)
    check(cl.clEnqueueUnmapMemObject(q, mem, p, 0, nullptr, nullptr), "clEnqueueUnmapMemObject");
  if (!mapped.empty()) queue_.drain();
}

}  // namespace kz::opencl
