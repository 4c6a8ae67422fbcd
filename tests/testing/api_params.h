// Parameters of the engine API tests: generation and session settings in one call.
#pragma once

#include <cstdint>

#include "api/engine.h"

namespace kz::testing {

// temperature 0: greedy.
inline GenerateParams generate_params(int max_tokens, float temperature = 0.0f, uint64_t seed = 0) {
  GenerateParams p;
  p.sampling.temperature = temperature;
  p.sampling.seed = seed;
  p.max_tokens = max_tokens;
  return p;
}

inline SessionParams session_params(int64_t n_ctx, int n_threads) {
  SessionParams p;
  p.n_ctx = n_ctx;
  p.n_threads = n_threads;
  return p;
}

}  // namespace kz::testing
