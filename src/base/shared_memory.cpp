#include "base/shared_memory.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

#include "base/huge_pages.h"

namespace kz::shared_memory {
namespace {

struct Registry {
  std::mutex mutex;  // guards regions
  struct Allocation {
    uint64_t bytes = 0;
    size_t alignment = 0;
  };
  std::map<uintptr_t, Allocation> regions;  // by base
  // Guards listeners; held while they are called, so that one is not removed (its backend
  // destroyed) during its own call.
  std::mutex listeners_mutex;
  std::vector<SharedMemoryListener*> listeners;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: memory may be freed during exit
  return *r;
}

}  // namespace

void* allocate(uint64_t bytes, bool on_huge_pages) {
  // Whole 64-byte lines: drivers may read or write a buffer in such units.
  const uint64_t size = std::max<uint64_t>(64, (bytes + 63) / 64 * 64);
  // Huge pages want 2 MiB alignment; other buffers keep 4 KiB, so that arrays read side by side
  // do not all fall on the same cache sets.
  const size_t alignment = on_huge_pages ? huge_pages::alignment(size, kAlignment) : kAlignment;
  void* p = ::operator new(size, std::align_val_t(alignment));
  if (on_huge_pages) huge_pages::advise(p, size);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.regions[reinterpret_cast<uintptr_t>(p)] = {size, alignment};  // devices may use whole lines
  return p;
}

void release(void* base) {
  if (!base) return;
  Registry& r = registry();
  SharedRegion region{static_cast<uint8_t*>(base), 0};
  size_t alignment = kAlignment;
  {
    std::lock_guard lock(r.mutex);
    const auto it = r.regions.find(reinterpret_cast<uintptr_t>(base));
    if (it != r.regions.end()) region.bytes = it->second.bytes, alignment = it->second.alignment;
  }
  {
    std::lock_guard lock(r.listeners_mutex);
    for (SharedMemoryListener* l : r.listeners) l->on_free(region);
  }
  {
    std::lock_guard lock(r.mutex);
    r.regions.erase(reinterpret_cast<uintptr_t>(base));
  }
  ::operator delete(base, std::align_val_t(alignment));
}

std::optional<SharedRegion> find(const void* p, uint64_t bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.regions.upper_bound(a);
  if (it == r.regions.begin()) return std::nullopt;
  --it;
  if (a + bytes > it->first + it->second.bytes) return std::nullopt;
  return SharedRegion{reinterpret_cast<uint8_t*>(it->first), it->second.bytes};
}

void add_listener(SharedMemoryListener* listener) {
  Registry& r = registry();
  std::lock_guard lock(r.listeners_mutex);
  r.listeners.push_back(listener);
}

void remove_listener(SharedMemoryListener* listener) {
  Registry& r = registry();
  std::lock_guard lock(r.listeners_mutex);
  std::erase(r.listeners, listener);
}

}  // namespace kz::shared_memory
