// Logits of a prompt evaluated as one batch, then of its continuation fed one token at a time
// (teacher-forced), over one sequence state: the prompt on `prefill`, the steps on `decode`.
#pragma once

#include <span>
#include <vector>

#include "model/model.h"

namespace kz::testing {

inline std::vector<std::vector<float>> teacher_forced_logits(const Model& model,
                                                             const std::vector<int32_t>& prompt,
                                                             const std::vector<int32_t>& steps,
                                                             Backend& prefill, Backend& decode,
                                                             DType cache) {
  SequenceState st = model.new_state(int64_t(prompt.size() + steps.size()), cache, cache);
  Scratch scratch;
  std::vector<float> logits;
  std::vector<std::vector<float>> out;
  model.eval(prefill, st, scratch, prompt, false, logits);
  out.push_back(logits);
  for (const int32_t& t : steps) {
    model.eval(decode, st, scratch, std::span(&t, 1), false, logits);
    out.push_back(logits);
  }
  return out;
}

}  // namespace kz::testing
