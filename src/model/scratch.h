// Reusable activation buffers for the forward pass, one per named slot. A buffer grows when a
// larger batch needs it and is then reused, so a decode step allocates nothing. The buffers are
// shared memory (base/shared_memory.h), so a device backend keeps them on the device between ops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/shared_memory.h"

namespace kz {

class Scratch {
 public:
  float* get(size_t slot, size_t n) {
    if (slot >= buffers_.size()) buffers_.resize(slot + 1);
    if (buffers_[slot].size() < n) {
      // Freed before it grows (its contents are not needed): the host does not read memory a
      // device may still be writing, and the two never coexist.
      SharedVector<float>().swap(buffers_[slot]);
      buffers_[slot].resize(n);
    }
    return buffers_[slot].data();
  }

  // Positions pos0 .. pos0+n-1 of a batch.
  const int32_t* positions(int64_t pos0, int64_t n) {
    if (positions_.size() < size_t(n)) positions_.resize(n);
    for (int64_t i = 0; i < n; ++i) positions_[i] = int32_t(pos0 + i);
    return positions_.data();
  }

 private:
  std::vector<SharedVector<float>> buffers_;
  std::vector<int32_t> positions_;
};

}  // namespace kz
