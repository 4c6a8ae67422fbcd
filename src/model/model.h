// A loaded model: hyper-parameters and weights bound from a memory-mapped GGUF file, and the
// forward pass. One file per architecture (qwen3.cpp, qwen35.cpp) implements it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "gguf/gguf.h"
#include "model/scratch.h"
#include "model/state.h"

namespace kz {

struct ModelInfo {
  std::string arch;  // general.architecture
  std::string name;  // general.name, if any
  int64_t n_vocab = 0;
  int64_t n_embd = 0;
  int64_t n_layer = 0;
  int64_t n_ctx_train = 0;
};

class Model {
 public:
  // Maps the file and binds it by general.architecture; throws kz::Error naming the file and the
  // key or tensor at fault.
  static std::unique_ptr<Model> load(const std::string& path);
  virtual ~Model() = default;

  const gguf::File& file() const { return file_; }
  const ModelInfo& info() const { return info_; }
  // Identifies the file's architecture, hyper-parameters, tensors and weights (a hash of the
  // header and a sample of every tensor), so saved states are only restored into their model.
  uint64_t fingerprint() const { return fingerprint_; }

  // A zeroed state for a sequence of up to n_ctx tokens; K/V cache types F32, F16 or Q8_0.
  virtual SequenceState new_state(int64_t n_ctx, DType k_type, DType v_type) const = 0;

  // Evaluates `tokens` at positions state.n_past.. (in batches of at most kMaxBatch) and advances
  // state.n_past. Writes the logits of the last token ([n_vocab]) or, if all_logits, of every
  // token ([tokens.size()][n_vocab]) to `logits`. Throws if the context would overflow.
  void eval(Backend& backend, SequenceState& state, Scratch& scratch,
            std::span<const int32_t> tokens, bool all_logits, std::vector<float>& logits) const;

  static constexpr int64_t kMaxBatch = 512;

 protected:
  explicit Model(gguf::File file);
  // One batch at positions state.n_past..; logits for every row if all_logits, else the last;
  // `logits` null: skip the output head (an early batch of a long prompt).
  virtual void forward(Backend& backend, SequenceState& state, Scratch& scratch,
                       std::span<const int32_t> tokens, bool all_logits, float* logits) const = 0;

  gguf::File file_;
  ModelInfo info_;
  uint64_t fingerprint_ = 0;
};

}  // namespace kz
