// The device's queue and what the host hands it. Activations and sequence state live in shared
// memory (base/shared_memory.h); the queue keeps one device buffer per shared allocation and a
// placement for it: the host's (the host may read and write it) or the device's (queued ops may
// use it, the host must not). Ops on shared memory are enqueued without waiting; the host waits
// only at sync(): when a CPU op needs the data, at the end of a batch, or for an output outside
// shared memory. With host-unified memory (Adreno, PoCL) a buffer uses the host bytes in place
// (CL_MEM_USE_HOST_PTR) and a placement change is a map or an unmap, which copies nothing;
// otherwise the device holds a copy, uploaded when it takes the allocation and read back at
// sync() where its ops wrote it.
//
// Threads: one thread runs ops and sync(); an allocation may be freed on another thread while
// that one is idle (on_free waits for the queue). A listener must not free shared memory itself.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "backend/opencl/buffers.h"
#include "base/shared_memory.h"

namespace kz::opencl {

class Queue final : public SharedMemoryListener {
 public:
  Queue(Device& device, bool zero_copy, TransferCounters& counters);
  ~Queue();
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  Device& device() { return device_; }
  bool zero_copy() const { return zero_copy_; }
  TransferCounters& counters() { return counters_; }

  // A range of shared memory on the device: its allocation's buffer and the range's place in it.
  struct Placed {
    cl_mem buffer;
    uint64_t offset, bytes, allocation_bytes;
  };
  // Places the allocation holding [host, host + bytes) on the device (`written`: ops write it);
  // nullopt when the range is not in shared memory.
  std::optional<Placed> place(const void* host, uint64_t bytes, bool written);
  // A device buffer holding the host bytes as they are now (the host may change them once the op
  // call returns, before the op runs).
  Buffer copy_of(const void* host, uint64_t bytes);
  // Kernels were enqueued: the next sync() has something to wait for.
  void enqueued() { pending_ = true; }
  // Waits for every queued op and places every shared allocation on the host: one
  // synchronisation, counted, if anything was queued since the last one.
  void sync();
  // Waits for the queue without counting (after an error, or for commands that follow a counted
  // sync such as unmaps).
  void drain();

  void on_free(const SharedRegion& region) override;

 private:
  struct Allocation {
    Buffer buffer;
    uint64_t bytes = 0;
    bool on_device = false;  // placement: queued ops may use it, the host may not
    bool written = false;    // copying path: ops wrote it since it was placed on the device
    void* mapped = nullptr;  // zero copy: mapped for the host since the last sync
  };
  void wait();  // clFinish, counted

  Device& device_;
  bool zero_copy_;
  TransferCounters& counters_;
  std::recursive_mutex mutex_;  // on_free may come from another thread
  std::unordered_map<const uint8_t*, Allocation> allocations_;
  bool pending_ = false;
};

// The buffers of one op call. Shared memory resolves to its allocation's buffer, a sub-buffer
// (a range starting where the device allows one: CL_DEVICE_MEM_BASE_ADDR_ALIGN) or, for a range
// starting elsewhere, a temporary copied from and back to the allocation on the device; the op
// is only enqueued. Inputs elsewhere are copied at the call; outputs elsewhere are wrapped for the
// call and make finish() wait (one synchronisation), so that they are in host memory when the op
// returns. The same range asked for twice (an in-place op) is one buffer.
class KernelCall {
 public:
  explicit KernelCall(Queue& queue) : queue_(queue) {}
  ~KernelCall();
  KernelCall(const KernelCall&) = delete;
  KernelCall& operator=(const KernelCall&) = delete;

  cl_mem in(const void* host, uint64_t bytes);
  cl_mem inout(void* host, uint64_t bytes);  // read and written by the kernels
  cl_mem out(void* host, uint64_t bytes);    // every byte written by the kernels
  // After the kernels are enqueued.
  void finish();

 private:
  struct Range {
    const void* host;
    uint64_t bytes;
    cl_mem mem;
    bool written = false;
    // A temporary for an unaligned range of an allocation: copied in before the kernels when
    // they read it, back after them when they write it.
    cl_mem allocation = nullptr;
    uint64_t offset = 0;
    bool copied_in = false;
  };
  cl_mem range(const void* host, uint64_t bytes, bool read, bool written);
  Range shared_range(const void* host, const Queue::Placed& p);
  void copy_in(Range& r);
  cl_mem wrap(void* host, uint64_t bytes, bool read);

  Queue& queue_;
  std::vector<Range> ranges_;
  std::vector<Buffer> owned_;  // sub-buffers, temporaries and copies of host inputs
  struct Wrapped {
    void* host;
    uint64_t bytes;
    cl_mem mem;
  };
  std::vector<Wrapped> wrapped_;  // outputs outside shared memory
  bool finished_ = false;
};

}  // namespace kz::opencl
