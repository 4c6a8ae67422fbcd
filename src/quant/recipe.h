// Quantization recipes: which type each tensor of a model gets when a file is quantized to a mix
// such as Q4_K_M. The rules are the reference quantizer's (llama.cpp src/llama-quant.cpp,
// llama_tensor_get_type and its helpers) for dense models, restricted to the mixes whose every
// type the engine can quantize; docs/quantize.md lists them and where we differ.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "quant/types.h"

namespace kz {

// A named mix: the reference's llama_ftype (general.file_type) and the type most tensors get.
struct QuantMix {
  std::string_view name;     // as users type it (case-insensitive): "Q4_K_M", "lmq4", ...
  uint32_t file_type;        // llama_ftype written to general.file_type
  DType base;                // the mix's default tensor type
  std::string_view summary;  // one line for --help
  // Presets only (lmq4): the token embeddings' and output head's type unless a flag says otherwise.
  std::optional<DType> token_embd = std::nullopt, output = std::nullopt;
};

// Every mix, aliases last (Q3_K = Q3_K_M, Q4_K = Q4_K_M, Q5_K = Q5_K_M, as in the reference).
const std::vector<QuantMix>& quant_mixes();
// Case-insensitive; nullptr if unknown.
const QuantMix* find_quant_mix(std::string_view name);

// Types a tensor of a quantized file may have: those the engine both quantizes and computes with.
bool is_quantize_target(DType t);
// Such a type by name ("q4_0", case-insensitive); throws kz::Error naming `flag` otherwise.
DType parse_quantize_target(const std::string& flag, const std::string& name);

struct TensorTypeOverride {
  std::regex regex;  // ECMAScript, searched in the tensor name
  DType type;
};
// Parses "REGEX=TYPE" (the last '=' separates them); throws kz::Error naming `flag`.
TensorTypeOverride parse_tensor_type_override(const std::string& flag, const std::string& text);

struct RecipeOptions {
  const QuantMix* mix = nullptr;
  std::optional<DType> token_embd, output;    // --token-embedding-type, --output-tensor-type
  std::vector<TensorTypeOverride> overrides;  // --tensor-type, first match wins
  bool pure = false;                          // every quantizable tensor in the base type
};

// The model facts the rules read.
struct RecipeModel {
  int64_t n_layer = 0;                // block_count (the reference's n_layer_all)
  int64_t n_head = 0, n_head_kv = 0;  // of layer 0, as the reference's n_gqa() reads them
};

struct RecipeTensor {
  std::string name;
  int n_dims = 0;  // without trailing 1s (ggml_n_dims)
  int64_t ne0 = 0;
  DType type = DType::F32;  // the input file's type
};

// The reference's tensor order (layer number, then name; tensors outside blk.N first): the order
// its counters (i-th attn_v, i-th ffn_down) advance in, and the order of its output files.
bool reference_tensor_order(const std::string& a, const std::string& b);

// The type of each tensor (same order as `tensors`, which must be in reference_tensor_order).
// Tensors that are not quantized (1-D, norms, ssm_conv1d, ...) keep their input type.
std::vector<DType> choose_tensor_types(const std::vector<RecipeTensor>& tensors,
                                       const RecipeModel& model, const RecipeOptions& options);

}  // namespace kz
