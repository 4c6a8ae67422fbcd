// Device buffers: a cl_mem's lifetime, the weights (wrapped or uploaded once, WeightCache) and
// device-only temporaries. With host-unified memory (Adreno, PoCL) buffers use the host bytes in
// place (CL_MEM_USE_HOST_PTR, zero copy); otherwise they are copied, and the bytes counted.
// Activations and state are queue.h's.
#pragma once

#include <cstdint>
#include <unordered_map>

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

// A new buffer (host: for CL_MEM_USE_HOST_PTR, else null); throws naming the call on failure.
Buffer create_buffer(Device& device, cl_mem_flags flags, uint64_t bytes, void* host);
// Enqueues a copy of host bytes into mem, without waiting: host must stay unchanged until it runs.
void upload(Device& device, cl_mem mem, const void* host, uint64_t bytes,
            TransferCounters& counters);

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

}  // namespace kz::opencl
