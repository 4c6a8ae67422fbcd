#include "backend/split_backend.h"

namespace kz {

SplitBackend::SplitBackend(Backend& prefill, Backend& decode, int64_t min_prefill_tokens)
    : InterceptingBackend({&prefill, &decode}),
      prefill_(prefill),
      decode_(decode),
      min_prefill_tokens_(min_prefill_tokens),
      current_(&decode) {}

std::string SplitBackend::device_key() const {
  return "prefill " + prefill_.device_key() + " + decode " + decode_.device_key();
}

void SplitBackend::begin_batch(int64_t n_tok) {
  current_ = &for_batch(n_tok);
  InterceptingBackend::begin_batch(n_tok);
}

}  // namespace kz
