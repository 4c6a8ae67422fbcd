#include "base/shared_memory.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

namespace kz::shared_memory {
namespace {

struct Registry {
  std::mutex mutex;                       // guards regions
  std::map<uintptr_t, uint64_t> regions;  // base -> bytes
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

void* allocate(uint64_t bytes) {
  // Whole 64-byte lines: drivers may read or write a buffer in such units.
  const uint64_t size = std::max<uint64_t>(64, (bytes + 63) / 64 * 64);
  void* p = ::operator new(size, std::align_val_t(kAlignment));
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.regions[reinterpret_cast<uintptr_t>(p)] = size;  // devices may use the whole lines
  return p;
}

void release(void* base) {
  if (!base) return;
  Registry& r = registry();
  SharedRegion region{static_cast<uint8_t*>(base), 0};
  {
    std::lock_guard lock(r.mutex);
    const auto it = r.regions.find(reinterpret_cast<uintptr_t>(base));
    if (it != r.regions.end()) region.bytes = it->second;
  }
  {
    std::lock_guard lock(r.listeners_mutex);
    for (SharedMemoryListener* l : r.listeners) l->on_free(region);
  }
  {
    std::lock_guard lock(r.mutex);
    r.regions.erase(reinterpret_cast<uintptr_t>(base));
  }
  ::operator delete(base, std::align_val_t(kAlignment));
}

std::optional<SharedRegion> find(const void* p, uint64_t bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.regions.upper_bound(a);
  if (it == r.regions.begin()) return std::nullopt;
  --it;
  if (a + bytes > it->first + it->second) return std::nullopt;
  return SharedRegion{reinterpret_cast<uint8_t*>(it->first), it->second};
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
