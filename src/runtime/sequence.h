// A sequence the engine keeps between calls: the state of the tokens evaluated so far, and
// checkpoints of its recurrent layers so that a later call sharing only a prefix of those tokens
// can resume from the prefix instead of recomputing everything ("never recompute").
//
// Attention layers roll back for free: positions past the kept prefix are simply overwritten.
// Recurrent (Gated DeltaNet) layers cannot roll back, so a checkpoint stores their state after
// position p; resuming at a prefix of length L restores the latest checkpoint with p <= L.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backend/backend.h"
#include "model/model.h"

namespace kz {

struct CheckpointPolicy {
  int64_t interval = 256;                // also checkpoint every N tokens (0: boundaries only)
  uint64_t budget_bytes = 256ull << 20;  // oldest checkpoints are dropped beyond this
};

class Sequence {
 public:
  Sequence(const Model& model, int64_t n_ctx, DType k_type, DType v_type, CheckpointPolicy policy);

  // Keeps the longest prefix of `tokens` this sequence can resume from, at most
  // tokens.size() - 1 tokens (the last token is always evaluated, to produce logits). Returns
  // the number of tokens kept; the caller evaluates the rest with append().
  int64_t resume(std::span<const int32_t> tokens);

  // Evaluates tokens after the current ones, checkpointing the recurrent state at each position
  // in `boundaries` (absolute positions, e.g. message starts) and every policy.interval tokens.
  // Writes the last token's logits and, if `hidden` is given, every token's final-normed hidden
  // state (Model::eval).
  void append(Backend& backend, Scratch& scratch, std::span<const int32_t> tokens,
              std::span<const int64_t> boundaries, std::vector<float>& logits,
              std::vector<float>* hidden = nullptr);

  // Speculative decoding: evaluates `tokens` (the next token and the drafts after it) in one
  // batch with every row's logits ([tokens.size()][n_vocab]), first keeping the recurrent state
  // it starts from; keep_verified(n) then keeps the first n of them.
  void verify(Backend& backend, Scratch& scratch, std::span<const int32_t> tokens,
              std::vector<float>& logits, std::vector<float>* hidden = nullptr);
  // Keeps the first n tokens of the last verify(): attention K/V by truncation; recurrent layers
  // cannot roll back, so their state is restored from before the batch and the n tokens are
  // evaluated again (state only, no logits).
  void keep_verified(Backend& backend, Scratch& scratch, int64_t n);
  // Bytes held to roll back a verification (the recurrent state before it).
  uint64_t rollback_bytes() const;

  // Checkpoints the current position (e.g. at the end of a generated answer).
  void checkpoint();
  // Makes kept buffers, within the budget, for as many checkpoints as were taken since the last
  // call: the next turn likely takes as many, and then fills no fresh memory (its page faults;
  // docs/benchmarks.md, "Prefix reuse") before its first token. For idle time, after an answer.
  void prepare_checkpoint_buffers();
  void reset();

  const std::vector<int32_t>& tokens() const { return tokens_; }
  int64_t n_past() const { return state_.n_past; }
  int64_t n_ctx() const { return state_.n_ctx; }
  const SequenceState& state() const { return state_; }
  // Replaces the state, token history and checkpoints (restored from a saved image).
  void replace(SequenceState state, std::vector<int32_t> tokens,
               std::vector<Checkpoint> checkpoints);
  const std::vector<Checkpoint>& checkpoints() const { return checkpoints_; }
  uint64_t checkpoint_bytes() const;
  size_t checkpoint_count() const { return checkpoints_.size(); }
  // Buffers of dropped checkpoints kept for the next ones; with the checkpoints, within the budget.
  uint64_t spare_bytes() const;

 private:
  bool has_recurrent_layers() const { return !state_.recur.empty(); }
  // Where append() checkpoints n_tokens new tokens: the boundaries and interval positions within
  // them, the newest that fit in the budget.
  std::vector<int64_t> checkpoint_positions(int64_t n_tokens,
                                            std::span<const int64_t> boundaries) const;
  void evict_over_budget();
  // Room for one more checkpoint beside `pending` ones being taken (its contents are to be
  // overwritten): a kept buffer, else the oldest checkpoint, evicted now, when they would not fit
  // in the budget, else an empty one (the caller copies the state into it: one copy, not two).
  // Memory already in use is faster to fill than fresh memory.
  Checkpoint take_buffer(size_t pending);
  // Keeps a dropped checkpoint's buffer for the next checkpoint while the checkpoints and the
  // kept buffers fit in the budget: filling fresh memory costs its page faults.
  void recycle(Checkpoint&& c);
  void clear_recurrent();

  const Model& model_;
  CheckpointPolicy policy_;
  SequenceState state_;
  std::vector<int32_t> tokens_;          // tokens_[i] is at position i; size() == n_past
  std::vector<Checkpoint> checkpoints_;  // ascending n_past
  std::vector<RecurrentStates> spare_;   // buffers of dropped checkpoints (recycle)
  size_t taken_ = 0;                     // checkpoints taken since prepare_checkpoint_buffers()
  Checkpoint before_verify_;             // the recurrent state before the last verify()
  int64_t verified_ = 0;                 // tokens the last verify() evaluated
};

}  // namespace kz
