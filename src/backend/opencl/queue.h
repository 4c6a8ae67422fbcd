// The device's queue and what the host hands it. Activations and sequence state live in shared
// memory (base/shared_memory.h); the queue keeps one device buffer per shared allocation and a
// placement for it: the host's (the host may read and write it) or the device's (queued ops may
// use it, the host must not). Ops on shared memory are enqueued without waiting; the host waits
// only at sync(): when a CPU op needs the data, at the end of a batch, or for an output outside
// shared memory. With host-unified memory (Adreno, PoCL) a buffer uses the host bytes in place
// (CL_MEM_USE_HOST_PTR) and a placement change is a map or an unmap, which copies nothing;
// otherwise the device holds a copy, uploaded when it takes the allocation and read back at
// sync() where its ops wrote it.
#pragma once

#include <cstdint>
#include <mutex>
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

  // The buffer over [host, host + bytes) when it lies in shared memory, its allocation placed on
  // the device (`written`: ops write it); a range inside an allocation is a sub-buffer, kept in
  // `subs` for the op. Null when the range is not in shared memory, or when it starts where the
  // device cannot place a sub-buffer: then the allocation is given back to the host first (a
  // sync, which sets `synced`).
  cl_mem shared(const void* host, uint64_t bytes, bool written, std::vector<Buffer>& subs,
                bool& synced);
  // A device buffer holding the host bytes as they are now (the host may change them once the op
  // call returns, before the op runs); kept until the next wait.
  cl_mem staged(const void* host, uint64_t bytes);
  // Kernels were enqueued: the next sync() has something to wait for.
  void enqueued() { pending_ = true; }
  // Waits for every queued op and places every shared allocation on the host: one
  // synchronisation, counted, if anything was queued since the last one.
  void sync();
  // Waits for the queue without counting (commands the host does not wait on, such as unmaps
  // after a counted sync).
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
  std::vector<std::vector<uint8_t>> staging_;  // host copies behind staged buffers
  std::vector<Buffer> staged_;
  bool pending_ = false;
};

// The buffers of one op call: shared memory resolves to the queue's buffers and the op is only
// enqueued; inputs elsewhere are staged (copied as they are now); outputs elsewhere are wrapped
// for the call and make finish() wait (one synchronisation) so that they are in host memory when
// the op returns.
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
  cl_mem shared(const void* host, uint64_t bytes, bool written);
  cl_mem wrap(void* host, uint64_t bytes, bool read);

  struct Wrapped {
    Buffer buffer;
    void* host;
    uint64_t bytes;
  };
  struct Placed {
    const void* host;
    uint64_t bytes;
    bool written;
  };
  Queue& queue_;
  std::vector<Placed> placed_;  // this call's shared ranges, placed again after a sync
  std::vector<Buffer> subs_;
  std::vector<Wrapped> wrapped_;  // outputs outside shared memory
  bool finished_ = false;
};

}  // namespace kz::opencl
