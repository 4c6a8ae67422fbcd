#include "runtime/mtp_drafter.h"

#include <algorithm>

namespace kz {

MtpDrafter::MtpDrafter(const Model& model, int64_t n_ctx, DType k_type, DType v_type)
    : model_(model),
      n_embd_(model.info().n_embd),
      state_(model.new_mtp_state(n_ctx, k_type, v_type)),
      last_hidden_(n_embd_, 0.0f) {}

void MtpDrafter::rewind(int64_t n) {
  if (n >= state_.n_past) return;
  state_.n_past = std::max<int64_t>(n, 0);
  std::fill(last_hidden_.begin(), last_hidden_.end(), 0.0f);
}

void MtpDrafter::observe(Backend& backend, Scratch& scratch, std::span<const int32_t> tokens,
                         std::span<const float> hidden) {
  const int64_t end = int64_t(tokens.size()), tail = int64_t(hidden.size()) / n_embd_;
  const int64_t tail_start = end - tail, from = state_.n_past;
  if (from >= end || tail == 0) return;
  // Row p's hidden input: the trunk's at p - 1 if known (the tail, or last_hidden_ for the first
  // new row), else zeros.
  rows_.assign((end - from) * n_embd_, 0.0f);
  for (int64_t p = from; p < end; ++p) {
    const float* h = nullptr;
    if (p - 1 >= tail_start)
      h = hidden.data() + (p - 1 - tail_start) * n_embd_;
    else if (p == from)
      h = last_hidden_.data();
    if (h) std::copy(h, h + n_embd_, rows_.begin() + (p - from) * n_embd_);
  }
  model_.mtp_eval(backend, state_, scratch, tokens.subspan(from), rows_, false, logits_);
  std::copy(hidden.end() - n_embd_, hidden.end(), last_hidden_.begin());
}

std::vector<int32_t> MtpDrafter::draft(Backend& backend, Scratch& scratch, int32_t next, int k) {
  const int64_t start = state_.n_past;
  k = int(std::min<int64_t>(k, state_.n_ctx - start));
  std::vector<int32_t> drafts;
  step_hidden_ = last_hidden_;  // buffers kept between steps: a draft step allocates nothing
  int32_t token = next;
  for (int j = 0; j < k; ++j) {
    model_.mtp_eval(backend, state_, scratch, std::span(&token, 1), step_hidden_, false, logits_,
                    &own_hidden_);
    token = int32_t(std::max_element(logits_.begin(), logits_.end()) - logits_.begin());
    drafts.push_back(token);
    std::swap(step_hidden_, own_hidden_);
  }
  // The draft rows carry the MTP's own hidden states: observe() rewrites them with the trunk's.
  state_.n_past = start;
  return drafts;
}

uint64_t MtpDrafter::bytes() const {
  return state_.fixed_bytes() + uint64_t(state_.n_ctx) * state_.bytes_per_token();
}

}  // namespace kz
