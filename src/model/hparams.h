// Hyper-parameters shared by the Qwen architectures, read from `<arch>.*` keys with the
// reference loader's types and defaults (spec/qwen3.md §1, spec/qwen35.md §2).
#pragma once

#include <cstdint>
#include <string>

#include "gguf/gguf.h"

namespace kz {

struct CommonHparams {
  int64_t n_vocab = 0;      // length of tokenizer.ggml.tokens
  int64_t n_ctx_train = 0;  // <a>.context_length
  int64_t n_embd = 0;       // <a>.embedding_length
  int64_t n_block = 0;      // <a>.block_count (qwen35: trunk + MTP layers)
  int64_t n_ff = 0;         // <a>.feed_forward_length
  int n_head = 0;           // H
  int n_head_kv = 0;        // H_kv
  int head_dim = 0;         // D (key_length; value_length must equal it)
  int n_rot = 0;            // rope.dimension_count
  float freq_base = 10000.0f;
  float eps = 0.0f;  // attention.layer_norm_rms_epsilon
};

// Reads and validates the keys above for architecture `arch`; errors name the key.
CommonHparams read_common_hparams(const gguf::File& file, const std::string& arch);

}  // namespace kz
