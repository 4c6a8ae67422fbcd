// Host memory that a device may use in place: the activations (model/scratch.h) and the sequence
// state (model/state.h). Allocations are page-aligned, as zero-copy drivers want for
// CL_MEM_USE_HOST_PTR, and registered, so that a device backend can find the allocation a pointer
// lies in and keep one device buffer per allocation across ops instead of one per op call. Before
// an allocation is freed, the listeners (device backends) are told, so that they wait for the
// work still queued on it and drop their buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <vector>

namespace kz {

// One registered allocation: the bytes asked for, rounded up to whole 64-byte lines (zero-copy
// drivers want a buffer's size in whole lines).
struct SharedRegion {
  uint8_t* base = nullptr;
  uint64_t bytes = 0;
};

class SharedMemoryListener {
 public:
  // Called before `region` is freed, on the thread that frees it.
  virtual void on_free(const SharedRegion& region) = 0;

 protected:
  ~SharedMemoryListener() = default;
};

namespace shared_memory {

constexpr size_t kAlignment = 4096;

// With `on_huge_pages`, on 2 MiB pages where the system offers them (base/huge_pages.h): for
// buffers used whole, never for the K/V caches, which a short conversation touches only the
// start of.
void* allocate(uint64_t bytes, bool on_huge_pages = false);
void release(void* base);
// The allocation that holds all of [p, p + bytes); nullopt when p is not in shared memory (or the
// range runs past its allocation's end).
std::optional<SharedRegion> find(const void* p, uint64_t bytes);
void add_listener(SharedMemoryListener* listener);
void remove_listener(SharedMemoryListener* listener);

}  // namespace shared_memory

// A std::allocator over shared memory, for std::vector.
template <class T, bool kHugePages = false>
struct SharedAllocator {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = SharedAllocator<U, kHugePages>;
  };
  SharedAllocator() = default;
  template <class U>
  SharedAllocator(const SharedAllocator<U, kHugePages>&) {}
  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(shared_memory::allocate(n * sizeof(T), kHugePages));
  }
  void deallocate(T* p, size_t) { shared_memory::release(p); }
  template <class U>
  bool operator==(const SharedAllocator<U, kHugePages>&) const {
    return true;
  }
};

template <class T>
using SharedVector = std::vector<T, SharedAllocator<T>>;
// On huge pages where offered (shared_memory::allocate).
template <class T>
using HugeSharedVector = std::vector<T, SharedAllocator<T, true>>;

}  // namespace kz
