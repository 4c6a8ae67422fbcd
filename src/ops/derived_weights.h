// Data a backend derives once from a weight matrix (e.g. its rows repacked for a kernel),
// cached with the matrix so that it lives exactly as long as the weights it came from.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "base/huge_pages.h"

namespace kz {

class DerivedWeights {
 public:
  // The `size` bytes that make(dst) writes for `kind` (one kind per derivation, e.g. the packing
  // function's address), made on the first request; later requests return the same bytes
  // without taking a lock (every matrix product of a decode step asks).
  const uint8_t* get(const void* kind, uint64_t size, const std::function<void(uint8_t*)>& make);

 private:
  static constexpr int kMaxKinds = 4;  // kernel tables per matrix in one process (tests: a few)
  struct Entry {
    const void* kind = nullptr;
    huge_pages::Bytes bytes;  // read by every token: on huge pages where offered
  };
  const uint8_t* find(const void* kind, int count) const;

  std::mutex mutex_;            // held while making an entry
  std::atomic<int> count_ = 0;  // entries [0, count_) are complete and never change
  Entry entries_[kMaxKinds];
};

}  // namespace kz
