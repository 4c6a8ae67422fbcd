#include "ops/derived_weights.h"

#include "base/error.h"

namespace kz {

const uint8_t* DerivedWeights::find(const void* kind, int count) const {
  for (int i = 0; i < count; ++i)
    if (entries_[i].kind == kind) return entries_[i].bytes.get();
  return nullptr;
}

const uint8_t* DerivedWeights::get(const void* kind, uint64_t size,
                                   const std::function<void(uint8_t*)>& make) {
  if (const uint8_t* bytes = find(kind, count_.load(std::memory_order_acquire))) return bytes;
  std::lock_guard<std::mutex> lock(mutex_);
  const int count = count_.load(std::memory_order_relaxed);
  if (const uint8_t* bytes = find(kind, count)) return bytes;  // made while we waited
  if (count == kMaxKinds) fail("derived weights: more than ", kMaxKinds, " kinds for one matrix");
  Entry& e = entries_[count];
  e.bytes = huge_pages::allocate(size);
  make(e.bytes.get());
  e.kind = kind;
  count_.store(count + 1, std::memory_order_release);
  return e.bytes.get();
}

}  // namespace kz
