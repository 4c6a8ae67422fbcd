#include "model/state.h"

#include "base/error.h"

namespace kz {

RecurrentStates::RecurrentStates(int n_layers, int64_t conv_floats, int64_t ssm_floats)
    : n_layers_(n_layers),
      conv_floats_(conv_floats),
      ssm_floats_(ssm_floats),
      data_(size_t(n_layers) * size_t(conv_floats + ssm_floats), 0.0f) {}

std::span<const float> RecurrentStates::conv(size_t layer) const {
  return const_cast<RecurrentStates*>(this)->conv(layer);
}

std::span<float> RecurrentStates::ssm(size_t layer) {
  return {layer_start(layer) + conv_floats_, size_t(ssm_floats_)};
}

std::span<const float> RecurrentStates::ssm(size_t layer) const {
  return const_cast<RecurrentStates*>(this)->ssm(layer);
}

uint64_t SequenceState::fixed_bytes() const {
  return recur.bytes();
}

uint64_t SequenceState::bytes_per_token() const {
  uint64_t bytes = 0;
  for (const auto& a : attn) bytes += n_ctx ? (a.k.size() + a.v.size()) / n_ctx : 0;
  return bytes;
}

DType parse_kv_cache_type(std::string_view name, std::string_view what) {
  for (DType t : {DType::F32, DType::F16, DType::Q8_0})
    if (name == dtype_name(t)) return t;
  fail("invalid value '", name, "' for ", what, " (expected f32, f16 or q8_0)");
}

void check_kv_cache_type(DType t, int head_dim, std::string_view what) {
  if (t != DType::F32 && t != DType::F16 && t != DType::Q8_0)
    fail("unsupported ", what, " ", dtype_name(t), " (expected f32, f16 or q8_0)");
  if (head_dim % info(t).block_size != 0)
    fail(what, " ", dtype_name(t), " needs a head size that is a multiple of ", info(t).block_size,
         "; this model's is ", head_dim, " (use f16)");
}

}  // namespace kz
