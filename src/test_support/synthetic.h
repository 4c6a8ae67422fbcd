// Synthetic models: a complete GGUF file of architecture qwen3 or qwen35 with deterministic
// random weights (same config, options and seed -> byte-identical file) and a synthesized (or
// copied) byte-level BPE vocabulary. Used by `kazeia mkmodel` to test and benchmark real model
// shapes without downloading weights, and by tests for small models of every weight type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "quant/types.h"

namespace kz {

struct SyntheticConfig {
  std::string arch;  // "qwen3" | "qwen35"
  int64_t n_vocab = 0, n_embd = 0, n_layer = 0, n_ff = 0, n_ctx_train = 0;
  int n_head = 0, n_head_kv = 0, head_dim = 0;
  float freq_base = 10000.0f, eps = 1e-6f;
  bool tied_output = true;  // no output.weight: the LM head reuses token_embd.weight
  // qwen35 only (qwen3 rotates the whole head: n_rot must be 0 or head_dim).
  int n_rot = 0;                    // rotary dims of each attention head
  int d_conv = 0;                   // DeltaNet conv taps
  int n_k = 0;                      // DeltaNet key heads
  int n_v = 0;                      // DeltaNet value heads (a multiple of n_k)
  int d_k = 0;                      // DeltaNet key (= value) head dim
  int full_attention_interval = 4;  // layer il is full attention iff (il + 1) % interval == 0
  std::string name;                 // general.name
};

// Real shapes ("qwen3-0.6b", "qwen3-4b" with Qwen3's 151,936-token vocabulary, "qwen35-0.8b",
// "qwen35-4b" with Qwen3.5's 248,320) and small test shapes ("qwen3-tiny", "qwen35-tiny"). Throws
// kz::Error listing the valid names if `name` is unknown.
SyntheticConfig synthetic_preset(std::string_view name);
std::vector<std::string> synthetic_preset_names();

struct SyntheticOptions {
  DType weight_type = DType::F16;  // of the 2-D matrices; norms, ssm_a, dt bias, conv stay F32
  uint64_t seed = 1;
  // Optional GGUF file whose tokenizer.* keys are copied (e.g. a real Qwen vocabulary file);
  // n_vocab then comes from it. Empty: a byte-level BPE vocabulary is synthesized.
  std::string vocab_from;
  int n_threads = 0;  // threads generating and quantizing weights; 0 = all cores
};

// Throws kz::Error naming the field at fault.
void validate_synthetic_config(const SyntheticConfig& cfg);

// Sizes implied by a config (before a file exists).
struct SyntheticSizes {
  uint64_t n_params = 0;            // all weights (tied output counted once)
  int64_t n_attention_layers = 0;   // layers with a KV cache
  int64_t n_recurrent_layers = 0;   // Gated DeltaNet layers (qwen35)
  uint64_t recurrent_bytes = 0;     // f32 conv + delta-rule state of one sequence
  uint64_t kv_bytes_per_token = 0;  // K and V of all attention layers at F16
};
SyntheticSizes synthetic_sizes(const SyntheticConfig& cfg);
// Tensor payload bytes of the file for a weight type (without metadata and alignment padding).
uint64_t synthetic_weight_bytes(const SyntheticConfig& cfg, DType weight_type);

// Writes the model to `path` without holding the weights in memory (tensors are generated and
// quantized in chunks of rows, in parallel, and streamed to the file). On error the partial file
// is removed and kz::Error is thrown.
void write_synthetic_model(const SyntheticConfig& cfg, const SyntheticOptions& opt,
                           const std::string& path);

}  // namespace kz
