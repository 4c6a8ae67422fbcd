#include "model/state.h"

namespace kz {

uint64_t SequenceState::fixed_bytes() const {
  uint64_t bytes = 0;
  for (const auto& r : recur) bytes += (r.conv.size() + r.ssm.size()) * sizeof(float);
  return bytes;
}

uint64_t SequenceState::bytes_per_token() const {
  uint64_t bytes = 0;
  for (const auto& a : attn) bytes += n_ctx ? (a.k.size() + a.v.size()) / n_ctx : 0;
  return bytes;
}

}  // namespace kz
