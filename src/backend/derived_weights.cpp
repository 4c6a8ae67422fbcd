#include "backend/derived_weights.h"

namespace kz {

const uint8_t* DerivedWeights::get(const void* kind, uint64_t size,
                                   const std::function<void(uint8_t*)>& make) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& e : entries_)
    if (e.kind == kind) return e.bytes.get();
  auto bytes = std::make_unique_for_overwrite<uint8_t[]>(size);
  make(bytes.get());
  entries_.push_back({kind, std::move(bytes)});
  return entries_.back().bytes.get();
}

}  // namespace kz
