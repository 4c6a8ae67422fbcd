// One gated delta rule call on random inputs, for the op tests of every backend: q | k | v rows,
// log decays below 0, write strengths in (0, 1) and a small initial state.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backend/backend.h"

namespace kz::testing {

struct DeltaRuleCase {
  DeltaNetDims dims;
  int64_t n_tok = 0;
  std::vector<float> qkv, g, beta, state;
};

inline DeltaRuleCase random_delta_rule_case(const DeltaNetDims& dims, int64_t n_tok) {
  std::mt19937 rng(31 + uint32_t(n_tok) + uint32_t(dims.d_k));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  DeltaRuleCase c{dims, n_tok, {}, {}, {}, {}};
  for (int64_t i = 0; i < n_tok * dims.conv_dim(); ++i) c.qkv.push_back(normal(rng));
  for (int64_t i = 0; i < n_tok * dims.n_v; ++i) {
    c.g.push_back(-std::log1p(std::exp(normal(rng))));  // log decay < 0
    c.beta.push_back(1.0f / (1.0f + std::exp(-normal(rng))));
  }
  for (int64_t i = 0; i < dims.state_floats(); ++i) c.state.push_back(0.1f * normal(rng));
  return c;
}

struct DeltaRuleResult {
  std::vector<float> out, state;
};

inline DeltaRuleResult run_delta_rule(Backend& be, const DeltaRuleCase& c) {
  DeltaRuleResult r{std::vector<float>(c.n_tok * c.dims.value_dim()), c.state};
  be.gated_delta_rule(c.dims, c.n_tok, c.qkv.data(), c.g.data(), c.beta.data(), 1e-6f,
                      r.state.data(), r.out.data());
  return r;
}

}  // namespace kz::testing
