// Prefill on one device, decode on another: each batch of at least `min_prefill_tokens` tokens
// runs on `prefill`, shorter ones (decode steps, short prompts) on `decode`. Both read and write
// the same sequence state, which lives in memory both reach, so switching hands it over in place.
#pragma once

#include <cstdint>

#include "backend/op_call.h"

namespace kz {

class SplitBackend final : public InterceptingBackend {
 public:
  SplitBackend(Backend& prefill, Backend& decode, int64_t min_prefill_tokens);
  std::string_view name() const override { return "split"; }
  std::string device_key() const override;
  // When an op is called through this decorator anyway (under a profiler), the batch's device.
  void begin_batch(int64_t n_tok) override;
  // The device itself, so that a model's ops reach it without passing through this decorator
  // (an OpCall per op cost 5-10 % of decode; docs/benchmarks.md, "The split's own cost").
  Backend& for_batch(int64_t n_tok) override {
    return n_tok >= min_prefill_tokens_ ? prefill_ : decode_;
  }
  std::string_view last_op_backend() const override { return current_->last_op_backend(); }

 protected:
  void dispatch(OpCall& call) override { call.run(*current_); }

 private:
  Backend& prefill_;
  Backend& decode_;
  int64_t min_prefill_tokens_;
  Backend* current_;
};

}  // namespace kz
