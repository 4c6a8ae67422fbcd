// What the backend conformance tests share (tests/backend/cpu_backend_test.cpp,
// tests/opencl/ops_test.cpp): random inputs, a failure message naming the worst element, and the
// checks of ops whose cases are the same for every backend, each run against `ref` (the oracle)
// with the tolerance the tested backend's arithmetic earns.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "quant/types.h"
#include "testing/metrics.h"

namespace kz::testing {

// n normal values of standard deviation `scale`, in a V (std::vector or SharedVector).
template <class V = std::vector<float>>
V random(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  V v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// The first pair and the worst difference, for failure messages.
inline std::string describe(const std::vector<float>& got, const std::vector<float>& want) {
  size_t worst = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > std::fabs(got[worst] - want[worst])) worst = i;
  return "first pair " + std::to_string(got[0]) + " vs " + std::to_string(want[0]) + "; worst at " +
         std::to_string(worst) + ": " + std::to_string(got[worst]) + " vs " +
         std::to_string(want[worst]);
}

#define KZ_EXPECT_CLOSE(got, want, tol) \
  EXPECT_LE(::kz::testing::rel_rms(got, want), tol) << ::kz::testing::describe(got, want)

// rms_norm with and without weights, and gated_rms_norm (its exponential: gated_tol), over row
// lengths with tails. `after_each` runs after each shape (a device forgetting the weights it
// cached by address).
inline void expect_norms_match(
    Backend& be, Backend& ref, double norm_tol, double gated_tol,
    const std::function<void()>& after_each = [] {}) {
  for (auto [n, rows] : {std::pair<int64_t, int64_t>{1024, 1}, {1027, 7}, {128, 64}, {5, 3}}) {
    SCOPED_TRACE("n " + std::to_string(n) + " rows " + std::to_string(rows));
    const auto x = random(n * rows, 1, 3.0f), w = random(n, 2), z = random(n * rows, 3);
    std::vector<float> got(n * rows), want(n * rows);
    be.rms_norm(x.data(), w.data(), n, rows, 1e-6f, got.data());
    ref.rms_norm(x.data(), w.data(), n, rows, 1e-6f, want.data());
    KZ_EXPECT_CLOSE(got, want, norm_tol);
    be.rms_norm(x.data(), nullptr, n, rows, 1e-6f, got.data());
    ref.rms_norm(x.data(), nullptr, n, rows, 1e-6f, want.data());
    KZ_EXPECT_CLOSE(got, want, norm_tol);
    be.gated_rms_norm(x.data(), z.data(), w.data(), n, rows, 1e-6f, got.data());
    ref.gated_rms_norm(x.data(), z.data(), w.data(), n, rows, 1e-6f, want.data());
    KZ_EXPECT_CLOSE(got, want, gated_tol);
    after_each();
  }
}

// NEOX RoPE over whole and partial rotations, odd head sizes included.
inline void expect_rope_matches(Backend& be, Backend& ref, double tol) {
  for (auto [n_tok, n_head, head_dim, n_rot] : {std::tuple<int64_t, int, int, int>{1, 16, 128, 128},
                                                {7, 8, 64, 64},
                                                {3, 4, 256, 64},
                                                {2, 3, 36, 20}}) {
    SCOPED_TRACE("head_dim " + std::to_string(head_dim) + " n_rot " + std::to_string(n_rot));
    std::vector<int32_t> pos(n_tok);
    for (int64_t t = 0; t < n_tok; ++t) pos[t] = int32_t(100 + 3 * t);
    auto got = random(n_tok * n_head * head_dim, 5);
    auto want = got;
    be.rope_neox(got.data(), n_tok, n_head, head_dim, n_rot, pos.data(), 1e6f);
    ref.rope_neox(want.data(), n_tok, n_head, head_dim, n_rot, pos.data(), 1e6f);
    KZ_EXPECT_CLOSE(got, want, tol);
  }
}

// swiglu, silu and mul_sigmoid (their exponential: exp_tol) and add (exact), over lengths with
// tails.
inline void expect_elementwise_matches(Backend& be, Backend& ref, double exp_tol) {
  for (int64_t n : {1, 7, 8, 100, 6144, 100003}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const auto a = random(n, 7, 4.0f), b = random(n, 8, 4.0f);
    std::vector<float> got(n), want(n);
    be.swiglu(a.data(), b.data(), n, got.data());
    ref.swiglu(a.data(), b.data(), n, want.data());
    KZ_EXPECT_CLOSE(got, want, exp_tol) << "swiglu";
    got = a, want = a;
    be.silu(got.data(), n);
    ref.silu(want.data(), n);
    KZ_EXPECT_CLOSE(got, want, exp_tol) << "silu";
    got = a, want = a;
    be.add(got.data(), b.data(), n);
    ref.add(want.data(), b.data(), n);
    EXPECT_EQ(got, want) << "add";
    got = a, want = a;
    be.mul_sigmoid(got.data(), b.data(), n);
    ref.mul_sigmoid(want.data(), b.data(), n);
    KZ_EXPECT_CLOSE(got, want, exp_tol) << "mul_sigmoid";
  }
}

// Attention over caches of every type, one token and prompts, GQA ratios from 1 to 8, heads of
// 32 to 256: `tol(cache type)` is the bound. The cache is filled by `ref`.
inline void expect_attention_matches(Backend& be, Backend& ref,
                                     const std::function<double(DType)>& tol) {
  for (DType kv_type : {DType::F32, DType::F16, DType::Q8_0}) {
    for (auto [n_ctx_used, n_tok, n_head, n_kv, d] :
         {std::tuple<int64_t, int64_t, int, int, int>{1, 1, 4, 2, 32},
          {37, 1, 16, 8, 128},
          {300, 5, 8, 2, 64},
          {65, 65, 4, 1, 256},
          {130, 64, 8, 8, 64}}) {
      SCOPED_TRACE(std::string(dtype_name(kv_type)) + " ctx " + std::to_string(n_ctx_used) +
                   " tokens " + std::to_string(n_tok) + " heads " + std::to_string(n_head) + "/" +
                   std::to_string(n_kv));
      const int64_t n_ctx = n_ctx_used + 3, pos0 = n_ctx_used - n_tok;  // unused tail positions
      const int64_t row = int64_t(n_kv) * d;
      std::vector<uint8_t> k(row_bytes(kv_type, d) * n_kv * n_ctx),
          v(row_bytes(kv_type, d) * n_kv * n_ctx);
      const KvCacheView kv{kv_type, kv_type, k.data(), v.data(), n_ctx, n_kv, d};
      const auto kf = random(n_ctx * row, 11), vf = random(n_ctx * row, 12);
      ref.kv_store(kv, 0, n_ctx, kf.data(), vf.data());
      const auto q = random(n_tok * n_head * d, 13, 2.0f);
      std::vector<float> got(q.size()), want(q.size());
      be.attention(q.data(), kv, pos0, n_tok, n_head, 1.0f / std::sqrt(float(d)), got.data());
      ref.attention(q.data(), kv, pos0, n_tok, n_head, 1.0f / std::sqrt(float(d)), want.data());
      KZ_EXPECT_CLOSE(got, want, tol(kv_type));
    }
  }
}

// The delta net's gates (softplus, sigmoid) over token and head counts. `after_each`: as above.
inline void expect_delta_net_gates_match(
    Backend& be, Backend& ref, double tol, const std::function<void()>& after_each = [] {}) {
  for (auto [n_tok, n_v] : {std::pair<int64_t, int>{6, 5}, {1, 16}, {70, 32}}) {
    const auto alpha = random(n_tok * n_v, 24, 8.0f), b = random(n_tok * n_v, 25);
    const auto dt_bias = random(n_v, 26, 8.0f), a = random(n_v, 27);
    std::vector<float> g1(n_tok * n_v), b1(g1.size()), g2(g1.size()), b2(g1.size());
    be.delta_net_gates(alpha.data(), b.data(), dt_bias.data(), a.data(), n_tok, n_v, g1.data(),
                       b1.data());
    ref.delta_net_gates(alpha.data(), b.data(), dt_bias.data(), a.data(), n_tok, n_v, g2.data(),
                        b2.data());
    KZ_EXPECT_CLOSE(g1, g2, tol) << "tokens " << n_tok;
    KZ_EXPECT_CLOSE(b1, b2, tol) << "tokens " << n_tok;
    after_each();
  }
}

}  // namespace kz::testing
