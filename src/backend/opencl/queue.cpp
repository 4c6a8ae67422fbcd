#include "backend/opencl/queue.h"

#include <algorithm>

namespace kz::opencl {

Queue::Queue(Device& device, bool zero_copy, TransferCounters& counters)
    : device_(device), zero_copy_(zero_copy), counters_(counters) {
  shared_memory::add_listener(this);
}

Queue::~Queue() {
  shared_memory::remove_listener(this);
  try {
    sync();  // the device's last writes reach the host (copying path)
  } catch (...) {
    // A destructor cannot report it; the buffers are released below all the same.
  }
  const ClApi& cl = device_.cl();
  for (auto& [base, a] : allocations_)
    if (a.mapped)
      cl.clEnqueueUnmapMemObject(device_.queue(), a.buffer.get(), a.mapped, 0, nullptr, nullptr);
  cl.clFinish(device_.queue());  // the buffers are released after this, the allocations later
}

std::optional<Queue::Placed> Queue::place(const void* host, uint64_t bytes, bool written) {
  const std::optional<SharedRegion> region = shared_memory::find(host, bytes);
  if (!region) return std::nullopt;
  std::lock_guard lock(mutex_);
  const ClApi& cl = device_.cl();
  Allocation& a = allocations_[region->base];
  if (!a.buffer.get()) {
    a.bytes = region->bytes;
    a.buffer = zero_copy_ ? create_buffer(device_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, a.bytes,
                                          region->base)
                          : create_buffer(device_, CL_MEM_READ_WRITE, a.bytes, nullptr);
  }
  if (!a.on_device) {
    if (a.mapped) {
      check(cl.clEnqueueUnmapMemObject(device_.queue(), a.buffer.get(), a.mapped, 0, nullptr,
                                       nullptr),
            "clEnqueueUnmapMemObject");
      a.mapped = nullptr;
    } else if (!zero_copy_) {
      upload(device_, a.buffer.get(), region->base, a.bytes, counters_);
    }
    a.on_device = true;
    pending_ = true;
  }
  a.written = a.written || written;
  return Placed{a.buffer.get(), uint64_t(static_cast<const uint8_t*>(host) - region->base), bytes,
                a.bytes};
}

Buffer Queue::copy_of(const void* host, uint64_t bytes) {
  counters_.bytes_to_device += bytes;
  return create_buffer(device_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                       const_cast<void*>(host));
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
  // After an error, enqueued commands may still use this call's host bytes and buffers.
  if (!finished_) queue_.device().cl().clFinish(queue_.device().queue());
}

cl_mem KernelCall::in(const void* host, uint64_t bytes) {
  return range(host, bytes, true, false);
}

cl_mem KernelCall::inout(void* host, uint64_t bytes) {
  return range(host, bytes, true, true);
}

cl_mem KernelCall::out(void* host, uint64_t bytes) {
  return range(host, bytes, false, true);
}

cl_mem KernelCall::range(const void* host, uint64_t bytes, bool read, bool written) {
  const std::optional<Queue::Placed> placed = queue_.place(host, bytes, written);
  if (!placed) {
    if (!written) return owned_.emplace_back(queue_.copy_of(host, bytes)).get();
    return wrap(const_cast<void*>(host), bytes, read);
  }
  Range* r = nullptr;
  for (Range& known : ranges_)
    if (known.host == host && known.bytes == bytes) r = &known;
  if (!r) r = &ranges_.emplace_back(shared_range(host, *placed));
  r->written = r->written || written;
  if (read) copy_in(*r);
  return r->mem;
}

KernelCall::Range KernelCall::shared_range(const void* host, const Queue::Placed& p) {
  Range r{host, p.bytes, p.buffer};
  if (p.offset == 0 && p.bytes == p.allocation_bytes) return r;
  Device& device = queue_.device();
  const ClApi& cl = device.cl();
  if (p.offset % std::max<uint64_t>(1, device.info().base_align_bytes) == 0) {
    cl_buffer_region sub{p.offset, p.bytes};
    cl_int err = CL_SUCCESS;
    cl_mem m =
        cl.clCreateSubBuffer(p.buffer, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &sub, &err);
    check(err, "clCreateSubBuffer");
    r.mem = owned_.emplace_back(cl, m).get();
    return r;
  }
  // No sub-buffer can start here: a temporary, copied on the device (no alignment rule).
  r.mem = owned_.emplace_back(create_buffer(device, CL_MEM_READ_WRITE, p.bytes, nullptr)).get();
  r.allocation = p.buffer;
  r.offset = p.offset;
  return r;
}

void KernelCall::copy_in(Range& r) {
  if (!r.allocation || r.copied_in) return;
  check(queue_.device().cl().clEnqueueCopyBuffer(queue_.device().queue(), r.allocation, r.mem,
                                                 r.offset, 0, r.bytes, 0, nullptr, nullptr),
        "clEnqueueCopyBuffer");
  r.copied_in = true;
}

cl_mem KernelCall::wrap(void* host, uint64_t bytes, bool read) {
  for (const Wrapped& w : wrapped_)
    if (w.host == host && w.bytes == bytes) return w.mem;
  Device& device = queue_.device();
  Buffer& buffer = owned_.emplace_back();
  if (queue_.zero_copy()) {
    buffer = create_buffer(device, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host);
  } else {
    buffer = create_buffer(device, CL_MEM_READ_WRITE, bytes, nullptr);
    if (read) upload(device, buffer.get(), host, bytes, queue_.counters());
  }
  wrapped_.push_back({host, bytes, buffer.get()});
  return buffer.get();
}

void KernelCall::finish() {
  Device& device = queue_.device();
  const ClApi& cl = device.cl();
  cl_command_queue q = device.queue();
  for (const Range& r : ranges_)
    if (r.allocation && r.written)
      check(
          cl.clEnqueueCopyBuffer(q, r.mem, r.allocation, 0, r.offset, r.bytes, 0, nullptr, nullptr),
          "clEnqueueCopyBuffer");
  queue_.enqueued();
  if (wrapped_.empty()) {  // shared memory only: nothing to wait for
    finished_ = true;
    return;
  }
  std::vector<std::pair<cl_mem, void*>> mapped;
  for (const Wrapped& w : wrapped_) {
    if (queue_.zero_copy()) {
      cl_int err = CL_SUCCESS;
      void* p = cl.clEnqueueMapBuffer(q, w.mem, CL_FALSE, CL_MAP_READ, 0, w.bytes, 0, nullptr,
                                      nullptr, &err);
      check(err, "clEnqueueMapBuffer");
      mapped.emplace_back(w.mem, p);
    } else {
      check(cl.clEnqueueReadBuffer(q, w.mem, CL_FALSE, 0, w.bytes, w.host, 0, nullptr, nullptr),
            "clEnqueueReadBuffer");
      queue_.counters().bytes_to_host += w.bytes;
    }
  }
  queue_.sync();
  for (auto [mem, p] : mapped)
    check(cl.clEnqueueUnmapMemObject(q, mem, p, 0, nullptr, nullptr), "clEnqueueUnmapMemObject");
  if (!mapped.empty()) queue_.drain();
  finished_ = true;
}

}  // namespace kz::opencl
