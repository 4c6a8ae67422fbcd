// Host memory seen by the device. The backend interface passes host pointers, so each op wraps
// its inputs and outputs for the call (KernelCall), while weights are wrapped or uploaded once
// (WeightCache). With host-unified memory (Adreno, PoCL) buffers use the host bytes in place
// (CL_MEM_USE_HOST_PTR, zero copy); otherwise they are copied, and the bytes counted.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "backend/opencl/device.h"
#include "backend/opencl/opencl_backend.h"

namespace kz::opencl {

// A cl_mem released on destruction.
class Buffer {
 public:
  Buffer() = default;
  Buffer(const ClApi& cl, cl_mem mem) : cl_(&cl), mem_(mem) {}
  Buffer(Buffer&& o) noexcept : cl_(o.cl_), mem_(o.mem_) { o.mem_ = nullptr; }
  Buffer& operator=(Buffer&& o) noexcept;
  ~Buffer();
  cl_mem get() const { return mem_; }

 private:
  const ClApi* cl_ = nullptr;
  cl_mem mem_ = nullptr;
};

struct SizedBuffer {
  Buffer buffer;
  uint64_t bytes = 0;
};

// Weights by host address: wrapped (or uploaded) on first use, kept for the backend's life.
// Weights are immutable while a backend uses them.
class WeightCache {
 public:
  WeightCache(Device& device, bool zero_copy, TransferCounters& counters)
      : device_(device), zero_copy_(zero_copy), counters_(counters) {}
  cl_mem get(const void* host, uint64_t bytes);
  void clear() { entries_.clear(); }

 private:
  Device& device_;
  bool zero_copy_;
  TransferCounters& counters_;
  std::unordered_map<const void*, SizedBuffer> entries_;
};

// Device-only temporaries by slot, grown on demand and reused across calls.
class ScratchBuffers {
 public:
  explicit ScratchBuffers(Device& device) : device_(device) {}
  cl_mem get(int slot, uint64_t bytes);

 private:
  Device& device_;
  std::unordered_map<int, SizedBuffer> slots_;
};

// The host buffers of one op call. finish() waits for the device and makes the outputs visible
// on the host (one synchronisation); the destructor releases the buffers.
class KernelCall {
 public:
  KernelCall(Device& device, bool zero_copy, TransferCounters& counters)
      : device_(device), zero_copy_(zero_copy), counters_(counters) {}
  ~KernelCall();
  KernelCall(const KernelCall&) = delete;
  KernelCall& operator=(const KernelCall&) = delete;

  cl_mem in(const void* host, uint64_t bytes);
  cl_mem inout(void* host, uint64_t bytes);  // read and written by the kernels
  cl_mem out(void* host, uint64_t bytes);    // every byte written by the kernels
  void finish();

 private:
  cl_mem wrap(void* host, uint64_t bytes, bool read, bool written);

  struct Wrapped {
    Buffer buffer;
    void* host;
    uint64_t bytes;
    bool written;
  };
  Device& device_;
  bool zero_copy_;
  TransferCounters& counters_;
  std::vector<Wrapped> wrapped_;
  bool finished_ = false;
};

}  // namespace kz::opencl
