// Drafting with the model's multi-token-prediction layer (spec/qwen35.md §4.6). The MTP layer
// keeps its own K/V cache, one row per position of the sequence: row p pairs the token at p with
// the trunk's final-normed hidden state at p-1. Drafting appends rows for the draft tokens; they
// are rewound afterwards and rewritten with the trunk's own hidden states of the tokens kept.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/model.h"

namespace kz {

class MtpDrafter {
 public:
  // Throws if the model has no MTP layer.
  MtpDrafter(const Model& model, int64_t n_ctx, DType k_type, DType v_type);

  // Forgets rows at positions >= n (the sequence resumed or rolled back to n tokens). The hidden
  // state before position n is then unknown: the next row pairs with zeros, as the reference's
  // first MTP row does; that only makes drafts less likely to be accepted, never wrong.
  void rewind(int64_t n);
  // The trunk evaluated `tokens`' last hidden.size() / n_embd tokens with those final-normed
  // hidden rows: adds the MTP rows of every position not yet covered (earlier ones, e.g. after
  // a restored state, pair with zeros).
  void observe(Backend& backend, Scratch& scratch, std::span<const int32_t> tokens,
               std::span<const float> hidden);
  // Up to k greedy drafts after `next`, the token at position n_past (not yet evaluated).
  std::vector<int32_t> draft(Backend& backend, Scratch& scratch, int32_t next, int k);

  int64_t n_past() const { return state_.n_past; }
  uint64_t bytes() const;  // the MTP layer's K/V cache

 private:
  const Model& model_;
  int64_t n_embd_;
  SequenceState state_;
  std::vector<float> last_hidden_;  // the trunk's at position n_past - 1; zeros if unknown
  std::vector<float> logits_, rows_, own_hidden_, step_hidden_;
};

}  // namespace kz
