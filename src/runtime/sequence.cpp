#include "runtime/sequence.h"

#include <algorithm>

#include "base/error.h"

namespace kz {
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
    while (!checkpoints_.empty() && checkpoints_.back().n_past > keep) {
      recycle(std::move(checkpoints_.back()));
      checkpoints_.pop_back();
    }
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
  if (hidden) hidden->clear();
  if (tokens.empty()) return;
  // The batch stays whole (its weights are read once): the model copies the recurrent state at
  // the checkpoint positions as it goes.
  std::vector<Checkpoint> snapshots;
  for (int64_t p : checkpoint_positions(int64_t(tokens.size()), boundaries)) {
    Checkpoint c = take_buffer(snapshots.size());
    if (c.recur.empty()) c.recur = state_.recur.shaped_alike();  // for the model to fill
    c.n_past = p;
    snapshots.push_back(std::move(c));
  }
  model_.eval(backend, state_, scratch, tokens, false, logits, hidden, snapshots);
  tokens_.insert(tokens_.end(), tokens.begin(), tokens.end());
  for (Checkpoint& c : snapshots) checkpoints_.push_back(std::move(c));
  evict_over_budget();
}

std::vector<int64_t> Sequence::checkpoint_positions(int64_t n_tokens,
                                                    std::span<const int64_t> boundaries) const {
  std::vector<int64_t> at;
  if (!has_recurrent_layers()) return at;
  const int64_t start = state_.n_past, end = start + n_tokens;
  for (int64_t b : boundaries)
    if (b > start && b < end) at.push_back(b);
  if (policy_.interval > 0)
    for (int64_t p = (start / policy_.interval + 1) * policy_.interval; p < end;
         p += policy_.interval)
      at.push_back(p);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  // Only the newest that fit in the budget would be kept (the oldest are dropped first).
  const uint64_t fit = std::max<uint64_t>(1, policy_.budget_bytes / state_.recur.bytes());
  if (at.size() > fit) at.erase(at.begin(), at.end() - int64_t(fit));
  return at;
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
  return before_verify_.recur.bytes();
}

void Sequence::checkpoint() {
  if (!has_recurrent_layers()) return;
  if (!checkpoints_.empty() && checkpoints_.back().n_past == state_.n_past) return;
  Checkpoint c = take_buffer(0);
  c.n_past = state_.n_past;
  c.recur = state_.recur;  // into a kept buffer: a copy, no allocation
  checkpoints_.push_back(std::move(c));
  evict_over_budget();
}

Checkpoint Sequence::take_buffer(size_t pending) {
  ++taken_;
  if (!spare_.empty()) {
    Checkpoint c{0, std::move(spare_.back())};
    spare_.pop_back();
    return c;
  }
  const uint64_t one = state_.recur.bytes();
  if (!checkpoints_.empty() && checkpoint_bytes() + (pending + 1) * one > policy_.budget_bytes) {
    Checkpoint oldest = std::move(checkpoints_.front());
    checkpoints_.erase(checkpoints_.begin());
    return oldest;
  }
  return {};
}

void Sequence::prepare_checkpoint_buffers() {
  const uint64_t one = state_.recur.bytes();
  while (has_recurrent_layers() && spare_.size() < taken_ &&
         checkpoint_bytes() + spare_bytes() + one <= policy_.budget_bytes)
    spare_.push_back(state_.recur.shaped_alike());  // zeroed: its pages are touched now
  taken_ = 0;
}

void Sequence::recycle(Checkpoint&& c) {
  RecurrentStates buffer = std::move(c.recur);  // no longer counted by checkpoint_bytes()
  if (checkpoint_bytes() + spare_bytes() + buffer.bytes() <= policy_.budget_bytes)
    spare_.push_back(std::move(buffer));
}

void Sequence::evict_over_budget() {
  // Keep at least the newest checkpoint, whatever the budget.
  while (checkpoints_.size() > 1 && checkpoint_bytes() > policy_.budget_bytes) {
    recycle(std::move(checkpoints_.front()));
    checkpoints_.erase(checkpoints_.begin());
  }
}

void Sequence::reset() {
  for (Checkpoint& c : checkpoints_) recycle(std::move(c));
  checkpoints_.clear();
  tokens_.clear();
  state_.n_past = 0;
  clear_recurrent();
}

void Sequence::clear_recurrent() {
  state_.recur.clear();
}

void Sequence::replace(SequenceState state, std::vector<int32_t> tokens,
                       std::vector<Checkpoint> checkpoints) {
  state_ = std::move(state);
  tokens_ = std::move(tokens);
  spare_.clear();  // the restored checkpoints take the budget
  checkpoints_ = std::move(checkpoints);
  checkpoint();
}

uint64_t Sequence::checkpoint_bytes() const {
  uint64_t bytes = 0;
  for (const auto& c : checkpoints_) bytes += c.recur.bytes();
  return bytes;
}

uint64_t Sequence::spare_bytes() const {
  uint64_t bytes = 0;
  for (const auto& r : spare_) bytes += r.bytes();
  return bytes;
}

}  // namespace kz
