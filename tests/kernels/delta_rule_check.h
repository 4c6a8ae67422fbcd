// The check every ISA's delta-rule kernel (OpKernels::delta_rule) passes: a prompt's tokens at
// once, over two head ranges, give the bits of one token per call, and both stay within `rel`
// (of the largest magnitude) of the reference recurrence. Shapes include d_k not a multiple of
// 8 and d_v not a multiple of the kernel's 4 rows at a time.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernel_checks.h"
#include "kernels/kernel_table.h"
#include "kernels/ref/delta_net.h"

namespace kz::testing {

inline void check_delta_rule(decltype(OpKernels::delta_rule) delta_rule, float rel) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto draw = [&](int64_t n, float scale) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = scale * normal(rng);
    return v;
  };
  for (DeltaNetDims dims : {DeltaNetDims{2, 8, 4, 8}, DeltaNetDims{1, 20, 3, 12},
                            DeltaNetDims{1, 20, 3, 13}, DeltaNetDims{2, 128, 4, 128}}) {
    for (int64_t n_tok : {1, 3, 17, 40}) {
      SCOPED_TRACE("d_k " + std::to_string(dims.d_k) + " d_v " + std::to_string(dims.d_v) +
                   " tokens " + std::to_string(n_tok));
      const auto qkv = draw(dims.conv_dim() * n_tok, 1.0f);
      std::vector<float> g(dims.n_v * n_tok), beta(g.size());
      for (size_t i = 0; i < g.size(); ++i) {
        g[i] = -0.1f - 0.05f * float(i % 7);
        beta[i] = 0.3f + 0.1f * float(i % 5);
      }
      auto s_all = draw(dims.state_floats(), 0.2f), s_one = s_all, s_want = s_all;
      std::vector<float> all(dims.value_dim() * n_tok), one(all.size()), want(all.size());
      delta_rule(dims, n_tok, qkv.data(), g.data(), beta.data(), 1e-6f, s_all.data(), all.data(), 0,
                 1);
      delta_rule(dims, n_tok, qkv.data(), g.data(), beta.data(), 1e-6f, s_all.data(), all.data(), 1,
                 dims.n_v);
      for (int64_t t = 0; t < n_tok; ++t)
        delta_rule(dims, 1, qkv.data() + t * dims.conv_dim(), g.data() + t * dims.n_v,
                   beta.data() + t * dims.n_v, 1e-6f, s_one.data(),
                   one.data() + t * dims.value_dim(), 0, dims.n_v);
      ASSERT_EQ(all, one);
      ASSERT_EQ(s_all, s_one);
      ref::gated_delta_rule_recurrent(dims, n_tok, qkv.data(), g.data(), beta.data(), 1e-6f,
                                      s_want.data(), want.data());
      expect_near_rel(all, want, rel, "delta out");
      expect_near_rel(s_all, s_want, rel, "delta state");
    }
  }
}

}  // namespace kz::testing
