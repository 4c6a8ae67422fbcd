// Data a backend derives once from a weight matrix (e.g. its rows repacked for a kernel),
// cached with the matrix so that it lives exactly as long as the weights it came from.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace kz {

class DerivedWeights {
 public:
  // The `size` bytes that make(dst) writes for `kind` (one kind per derivation, e.g. the packing
  // function's address), made on the first request; later requests return the same bytes.
  const uint8_t* get(const void* kind, uint64_t size, const std::function<void(uint8_t*)>& make);

 private:
  struct Entry {
    const void* kind;
    std::unique_ptr<uint8_t[]> bytes;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;
};

}  // namespace kz
