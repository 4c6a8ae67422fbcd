// The state of one sequence: what a model must keep between calls to continue it. Attention
// layers keep K/V per position; recurrent (Gated DeltaNet) layers keep a fixed-size conv window
// and delta-rule state. Sized exactly at creation; never reallocated while in use. It lives in
// shared memory (base/shared_memory.h), which every backend reaches: handing a sequence from the
// prefill device to the decode device copies nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "base/shared_memory.h"
#include "quant/types.h"

namespace kz {

struct AttentionCache {
  // [n_kv_head][n_ctx][head_dim] of the cache type (KvCacheView, ops/op_types.h); a Q8_0 row
  // is head_dim / 32 blocks.
  SharedVector<uint8_t> k, v;
};

// The recurrent layers' states, all in one allocation on huge pages where offered: a checkpoint
// is one copy, and a copy into fresh memory faults in 2 MiB pages rather than 4 KiB ones.
class RecurrentStates {
 public:
  RecurrentStates() = default;
  // n_layers zeroed states.
  RecurrentStates(int n_layers, int64_t conv_floats, int64_t ssm_floats);
  // Zeroed states of this one's shape: a buffer to copy states into (no read of these).
  RecurrentStates shaped_alike() const { return {n_layers_, conv_floats_, ssm_floats_}; }

  size_t size() const { return size_t(n_layers_); }  // layers
  bool empty() const { return n_layers_ == 0; }
  // [conv_dim][d_conv - 1], oldest input first.
  std::span<float> conv(size_t layer) { return {layer_start(layer), size_t(conv_floats_)}; }
  std::span<const float> conv(size_t layer) const;
  // [n_v][d_v][d_k].
  std::span<float> ssm(size_t layer);
  std::span<const float> ssm(size_t layer) const;
  // Every layer's conv then ssm state, in layer order (how state images store them).
  std::span<float> floats() { return data_; }
  std::span<const float> floats() const { return data_; }
  uint64_t bytes() const { return data_.size() * sizeof(float); }
  void clear() { std::fill(data_.begin(), data_.end(), 0.0f); }

 private:
  float* layer_start(size_t layer) {
    return data_.data() + int64_t(layer) * (conv_floats_ + ssm_floats_);
  }

  int n_layers_ = 0;
  int64_t conv_floats_ = 0, ssm_floats_ = 0;
  HugeSharedVector<float> data_;
};

struct SequenceState {
  DType k_type = DType::F16, v_type = DType::F16;  // KV cache element types
  int64_t n_ctx = 0;
  int n_kv_head = 0;                 // KV heads of each attention layer
  int64_t n_past = 0;                // tokens evaluated so far (= next position)
  std::vector<AttentionCache> attn;  // one per attention layer, in layer order
  RecurrentStates recur;             // one per recurrent layer, in layer order

  // Bytes independent of the context length (recurrent state) and per context token (KV).
  uint64_t fixed_bytes() const;
  uint64_t bytes_per_token() const;
};

// The recurrent layers' state after the first n_past tokens: a sequence's checkpoint
// (runtime/sequence.h), which Model::eval can also take in the middle of a batch.
struct Checkpoint {
  int64_t n_past = 0;
  RecurrentStates recur;
};

// KV cache element types: f32, f16 or q8_0 (GGUF Q8_0 blocks of 32, so head_dim must be a
// multiple of 32). The type called `name`; otherwise throws naming `what` (e.g. "--cache-type-k").
DType parse_kv_cache_type(std::string_view name, std::string_view what);
// Throws naming `what` unless t is a KV cache type that stores heads of head_dim elements.
void check_kv_cache_type(DType t, int head_dim, std::string_view what);

}  // namespace kz
