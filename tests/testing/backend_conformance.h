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

}  // namespace kz::testing
