// Quantizing a model file: every tensor converted to the type its recipe (quant/recipe.h) chooses,
// written like the reference quantizer writes it (its metadata changes, its tensor order), to a
// temporary file that is loaded to validate it before it is renamed into place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gguf/gguf.h"
#include "quant/recipe.h"

namespace kz {

class Progress;

struct QuantizeOptions {
  RecipeOptions recipe;
  // Convert tensors stored in a quantized type other than Q8_0 (lossy twice).
  bool allow_requantize = false;
};

struct PlannedTensor {
  const gguf::TensorInfo* source = nullptr;
  std::vector<int64_t> ne;  // as written: trailing 1s dropped, like the reference
  DType type = DType::F32;
  uint64_t bytes = 0;
};

struct QuantizePlan {
  std::vector<gguf::KeyValue> metadata;
  std::vector<PlannedTensor> tensors;  // in the reference's order (reference_tensor_order)
  uint64_t file_size = 0;              // of the output file, exactly
};

// Chooses every tensor's type; throws kz::Error naming the tensor when its input type cannot be
// converted (or only with allow_requantize), or naming the key when the model's facts are missing.
QuantizePlan plan_quantization(const gguf::File& input, const QuantizeOptions& options);

// Writes `plan` to `path` through a temporary file beside it, with n_threads threads (0: all),
// validates the result by loading it as a model, then renames it over `path`. Refuses a `path`
// that is the input file (also through a link). `progress` (may be null) counts the output's
// tensor bytes and names the tensor under way.
void write_quantized_model(const gguf::File& input, const QuantizePlan& plan,
                           const std::string& path, int n_threads, Progress* progress = nullptr);

}  // namespace kz
