#include "runtime/sequence.h"

#include <algorithm>

#include "base/error.h"

namespace kz {
namespace {

uint64_t recurrent_bytes(const Checkpoint& c) {
  uint64_t bytes = 0;
  for (const auto& r : c.recur) bytes += (r.conv.size() + r.ssm.size()) * sizeof(float);
  return bytes;
}

}  // namespace

Sequence::Sequence(const Model& model, int64_t n_ctx, DType k_type, DType v_type,
                   CheckpointPolicy policy)
    : model_(model), policy_(policy), state_(model.new_state(n_ctx, k_type, v_type)) {}

int64_t Sequence::resume(std::span<const int32_t> tokens) {
  const int64_t limit = std::min<int64_t>(tokens_.size(), int64_t(tokens.size()) - 1);
  int64_t common = 0;
  while (common < limit && tokens_[common] == tokens[common]) ++common;
  int64_t keep = common;
  if (has_recurrent_layers() && keep < state_.n_past) {
    // Checkpoints past the common prefix describe another continuation: drop them.
    while (!checkpoints_.empty() && checkpoints_.back().n_past > keep) checkpoints_.pop_back();
    if (checkpoints_.empty()) {
      keep = 0;
      clear_recurrent();
    } else {
      keep = checkpoints_.back().n_past;
      state_.recur = checkpoints_.back().recur;
    }
  }
  state_.n_past = keep;
  tokens_.resize(keep);
  return keep;
}

void Sequence::append(Backend& backend, Scratch& scratch, std::span<const int32_t> tokens,
                      std::span<const int64_t> boundaries, std::vector<float>& logits,
                      std::vector<float>* hidden) {
  const int64_t end = state_.n_past + int64_t(tokens.size());
  if (hidden) hidden->clear();
  std::vector<float> part_hidden;
  size_t done = 0;
  while (done < tokens.size()) {
    // Evaluate up to the next checkpoint position (or the end).
    int64_t stop = end;
    if (has_recurrent_layers()) {
      for (int64_t b : boundaries)
        if (b > state_.n_past && b < stop) stop = b;
      if (policy_.interval > 0) {
        const int64_t next = (state_.n_past / policy_.interval + 1) * policy_.interval;
        if (next < stop) stop = next;
      }
    }
    const size_t n = size_t(stop - state_.n_past);
    const auto part = tokens.subspan(done, n);
    model_.eval(backend, state_, scratch, part, false, logits, hidden ? &part_hidden : nullptr);
    if (hidden) hidden->insert(hidden->end(), part_hidden.begin(), part_hidden.end());
    tokens_.insert(tokens_.end(), part.begin(), part.end());
    done += n;
    if (stop < end) checkpoint();
  }
}

void Sequence::verify(Backend& backend, Scratch& scratch, std::span<const int32_t> tokens,
                      std::vector<float>& logits, std::vector<float>* hidden) {
  before_verify_.n_past = state_.n_past;
  if (has_recurrent_layers()) before_verify_.recur = state_.recur;  // same sizes: no allocation
  model_.eval(backend, state_, scratch, tokens, true, logits, hidden);
  tokens_.insert(tokens_.end(), tokens.begin(), tokens.end());
  verified_ = int64_t(tokens.size());
}

void Sequence::keep_verified(Backend& backend, Scratch& scratch, int64_t n) {
  if (n < 0 || n > verified_) fail("keep_verified: ", n, " of ", verified_, " verified tokens");
  const int64_t start = before_verify_.n_past;
  verified_ = 0;
  if (n == state_.n_past - start) return;
  tokens_.resize(start + n);
  state_.n_past = start + n;
  if (!has_recurrent_layers()) return;
  state_.recur = before_verify_.recur;
  state_.n_past = start;
  if (n > 0) model_.advance(backend, state_, scratch, std::span(tokens_).subspan(start, n));
}

uint64_t Sequence::rollback_bytes() const {
  return recurrent_bytes(before_verify_);
}

void Sequence::checkpoint() {
  if (!has_recurrent_layers()) return;
  if (!checkpoints_.empty() && checkpoints_.back().n_past == state_.n_past) return;
  checkpoints_.push_back({state_.n_past, state_.recur});
  evict_over_budget();
}

void Sequence::evict_over_budget() {
  // Keep at least the newest checkpoint, whatever the budget.
  while (checkpoints_.size() > 1 && checkpoint_bytes() > policy_.budget_bytes)
    checkpoints_.erase(checkpoints_.begin());
}

void Sequence::reset() {
  checkpoints_.clear();
  tokens_.clear();
  state_.n_past = 0;
  clear_recurrent();
}

void Sequence::clear_recurrent() {
  for (auto& r : state_.recur) {
    std::fill(r.conv.begin(), r.conv.end(), 0.0f);
    std::fill(r.ssm.begin(), r.ssm.end(), 0.0f);
  }
}

void Sequence::replace(SequenceState state, std::vector<int32_t> tokens,
                       std::vector<Checkpoint> checkpoints) {
  state_ = std::move(state);
  tokens_ = std::move(tokens);
  checkpoints_ = std::move(checkpoints);
  checkpoint();
}

uint64_t Sequence::checkpoint_bytes() const {
  uint64_t bytes = 0;
  for (const auto& c : checkpoints_) bytes += recurrent_bytes(c);
  return bytes;
}

}  // namespace kz
