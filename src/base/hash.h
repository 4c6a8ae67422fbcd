// FNV-1a, 64-bit: a fast, stable hash for fingerprints and cache keys (not for security).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kz {

constexpr uint64_t kFnv1aSeed = 0xcbf29ce484222325ull;

// Continues hash h over n bytes at p.
inline uint64_t fnv1a(const void* p, size_t n, uint64_t h = kFnv1aSeed) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace kz
