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
#include "model/blocks.h"
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
  // token ([tokens.size()][n_vocab]) to `logits`, and if `hidden` is given, every token's
  // final-normed hidden state ([tokens.size()][n_embd], what the LM head multiplies; the MTP
  // head's input). Throws if the context would overflow. Each of `snapshots` (positions n_past
  // set, increasing, within (state.n_past, state.n_past + tokens.size()]) receives the recurrent
  // layers' state after that many tokens, its `recur` sized like state.recur: checkpoints taken
  // without splitting the batch (only the recurrent ops run in segments).
  void eval(Backend& backend, SequenceState& state, Scratch& scratch,
            std::span<const int32_t> tokens, bool all_logits, std::vector<float>& logits,
            std::vector<float>* hidden = nullptr, std::span<Checkpoint> snapshots = {}) const;

  // Evaluates `tokens` for their effect on the state alone (no output head).
  void advance(Backend& backend, SequenceState& state, Scratch& scratch,
               std::span<const int32_t> tokens) const;

  // Multi-token prediction (Qwen3.5's NextN layer, spec/qwen35.md §4.6), for speculative
  // drafting. has_mtp() says whether the file has one; the others throw when it does not.
  virtual bool has_mtp() const { return false; }
  // The MTP layer's own state: the K/V cache of its one attention layer.
  virtual SequenceState new_mtp_state(int64_t n_ctx, DType k_type, DType v_type) const;
  // Runs the MTP layer on `tokens` at positions state.n_past.., row i paired with hidden row i
  // ([tokens.size()][n_embd]: the trunk's final-normed hidden state of the previous position, or
  // the MTP's own of the previous draft step). Writes logits like eval() and, if `mtp_hidden` is
  // given, the MTP's own final-normed rows. Advances state.n_past.
  void mtp_eval(Backend& backend, SequenceState& state, Scratch& scratch,
                std::span<const int32_t> tokens, std::span<const float> hidden, bool all_logits,
                std::vector<float>& logits, std::vector<float>* mtp_hidden = nullptr) const;

  static constexpr int64_t kMaxBatch = 512;

 protected:
  explicit Model(gguf::File file);
  // One batch at positions state.n_past..; writes what `out` asks for.
  virtual void forward(Backend& backend, SequenceState& state, Scratch& scratch,
                       std::span<const int32_t> tokens, const ForwardOutputs& out) const = 0;
  // The MTP layer on one batch; hidden holds one row per token.
  virtual void mtp_forward(Backend& backend, SequenceState& state, Scratch& scratch,
                           std::span<const int32_t> tokens, const float* hidden,
                           const ForwardOutputs& out) const;

  gguf::File file_;
  ModelInfo info_;
  uint64_t fingerprint_ = 0;

 private:
  // Checks, sizes the outputs and runs `pass` over batches of at most kMaxBatch tokens:
  // pass(backend, first token, batch, outputs of the batch). No logits if `logits` is null.
  template <class Pass>
  void run_batches(Backend& backend, SequenceState& state, std::span<const int32_t> tokens,
                   bool all_logits, std::vector<float>* logits, std::vector<float>* hidden,
                   std::span<Checkpoint> snapshots, Pass&& pass) const;
};

}  // namespace kz
