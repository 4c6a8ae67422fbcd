// Reusable activation buffers for the forward pass, one per named slot. A buffer grows when a
// larger batch needs it and is then reused, so a decode step allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kz {

class Scratch {
 public:
  float* get(size_t slot, size_t n) {
    if (slot >= buffers_.size()) buffers_.resize(slot + 1);
    if (buffers_[slot].size() < n) buffers_[slot].resize(n);
    return buffers_[slot].data();
  }

  // Positions pos0 .. pos0+n-1 of a batch.
  const int32_t* positions(int64_t pos0, int64_t n) {
    if (positions_.size() < size_t(n)) positions_.resize(n);
    for (int64_t i = 0; i < n; ++i) positions_[i] = int32_t(pos0 + i);
    return positions_.data();
  }

 private:
  std::vector<std::vector<float>> buffers_;
  std::vector<int32_t> positions_;
};

}  // namespace kz
