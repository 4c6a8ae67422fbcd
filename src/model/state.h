// The state of one sequence: what a model must keep between calls to continue it. Attention
// layers keep K/V per position; recurrent (Gated DeltaNet) layers keep a fixed-size conv window
// and delta-rule state. Sized exactly at creation; never reallocated while in use.
#pragma once

#include <cstdint>
#include <vector>

#include "quant/types.h"

namespace kz {

struct AttentionCache {
  std::vector<uint8_t> k, v;  // [n_ctx][n_kv_head][head_dim] of the cache type
};

struct RecurrentState {
  std::vector<float> conv;  // [conv_dim][d_conv - 1], oldest input first
  std::vector<float> ssm;   // [n_v][d_v][d_k]
};

struct SequenceState {
  DType k_type = DType::F16, v_type = DType::F16;  // KV cache element types
  int64_t n_ctx = 0;
  int64_t n_past = 0;                 // tokens evaluated so far (= next position)
  std::vector<AttentionCache> attn;   // one per attention layer, in layer order
  std::vector<RecurrentState> recur;  // one per recurrent layer, in layer order

  // Bytes independent of the context length (recurrent state) and per context token (KV).
  uint64_t fixed_bytes() const;
  uint64_t bytes_per_token() const;
};

}  // namespace kz
