// What the backend conformance tests share (tests/backend/cpu_backend_test.cpp,
// tests/opencl/ops_test.cpp, tests/ggml/ops_test.cpp): a failure message naming the worst
// element, and the checks of ops whose cases are the same for every backend, each run against
// `ref` (the oracle) with the tolerance the tested backend's arithmetic earns. Random inputs and
// weights: testing/random_weights.h.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "quant/quant.h"
#include "quant/types.h"
#include "testing/delta_rule_case.h"
#include "testing/metrics.h"
#include "testing/random_weights.h"

namespace kz::testing {

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

// A product's shape: rows x cols weights times n_tok tokens.
struct MatmulShape {
  int64_t cols, rows, n_tok;
};

// matmul for each weight type in `types`, over odd row counts and 1 to 130 tokens, then a
// device's own edge cases (`extra_shapes`): `tol(weight type)` is the bound. `after_each` runs
// after each product (a device forgetting the weights it cached by address: the next matrix may
// reuse these addresses).
inline void expect_matmul_matches(
    Backend& be, Backend& ref, std::span<const DType> types,
    const std::function<double(DType)>& tol, const std::function<void()>& after_each = [] {},
    const std::vector<MatmulShape>& extra_shapes = {}) {
  std::vector<MatmulShape> shapes = {{256, 37, 1},   {512, 65, 4},   {1024, 133, 9},
                                     {256, 127, 64}, {768, 200, 65}, {2048, 16, 130}};
  shapes.insert(shapes.end(), extra_shapes.begin(), extra_shapes.end());
  for (DType t : types) {
    for (auto [cols, rows, n_tok] : shapes) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " " + std::to_string(rows) + "x" +
                   std::to_string(cols) + " tokens " + std::to_string(n_tok));
      const Weights w = random_matrix(t, cols, rows);
      const auto x = random(cols * n_tok, 99, 2.0f);
      std::vector<float> got(rows * n_tok), want(rows * n_tok);
      be.matmul(w.m, x.data(), n_tok, got.data());
      ref.matmul(w.m, x.data(), n_tok, want.data());
      KZ_EXPECT_CLOSE(got, want, tol(t));
      after_each();
    }
  }
}

// get_rows (ids repeated and out of order) for each weight type in `types`: dequantization is
// the reference's, bit for bit. `after_each`: as above.
inline void expect_get_rows_exact(
    Backend& be, Backend& ref, std::span<const DType> types,
    const std::function<void()>& after_each = [] {}) {
  for (DType t : types) {
    const int64_t cols = 512, rows = 50;
    const Weights w = random_matrix(t, cols, rows);
    const std::vector<int32_t> ids = {0, 49, 7, 7, 23};
    std::vector<float> got(ids.size() * cols), want(got.size());
    be.get_rows(w.m, ids, got.data());
    ref.get_rows(w.m, ids, want.data());
    EXPECT_EQ(got, want) << dtype_name(t);
    after_each();
  }
}

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

// rms_norm in place, as the model calls it (q normalized into itself).
inline void expect_rms_norm_in_place_matches(Backend& be, Backend& ref, double tol) {
  auto got = random(128 * 16, 4), want = got;
  const auto w = random(128, 5);
  be.rms_norm(got.data(), w.data(), 128, 16, 1e-6f, got.data());
  ref.rms_norm(want.data(), w.data(), 128, 16, 1e-6f, want.data());
  KZ_EXPECT_CLOSE(got, want, tol);
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

// split_halves is the reference's, bit for bit, and join_halves puts the halves back together.
inline void expect_split_halves_exact(Backend& be, Backend& ref) {
  for (auto [rows, n] : {std::pair<int64_t, int64_t>{1, 1}, {3, 7}, {16 * 5, 256}, {512, 128}}) {
    const auto x = random(rows * 2 * n, 9);
    std::vector<float> a(rows * n), b(rows * n), want_a(a.size()), want_b(b.size());
    be.split_halves(x.data(), rows, n, a.data(), b.data());
    ref.split_halves(x.data(), rows, n, want_a.data(), want_b.data());
    EXPECT_EQ(a, want_a) << rows << " rows of " << n;
    EXPECT_EQ(b, want_b) << rows << " rows of " << n;
    std::vector<float> out(rows * 2 * n);
    be.join_halves(a.data(), b.data(), rows, n, out.data());
    EXPECT_EQ(out, x) << rows << " rows of " << n;
  }
}

// kv_store of 19 tokens after 4 and of the last position alone, for every K/V cache type pair,
// around bytes already in the cache. `q8_0_tol` 0: every stored byte is the reference's, for
// inputs holding NaN, infinities and values that round to F16's extremes as well. Above 0 (a
// device quantizing Q8_0 its own way): the F32 / F16 bytes are the reference's, and every cache
// row read back as floats matches (Q8_0: within q8_0_tol, a rounding step of a block's scale),
// on finite inputs as a relative RMS needs. `after_store` runs before the comparison (a device
// waiting for its copies).
inline void expect_kv_store_matches(
    Backend& be, Backend& ref, double q8_0_tol, const std::function<void()>& after_store = [] {}) {
  const bool exact = q8_0_tol == 0;
  for (auto [n_ctx, pos0, n_tok, n_kv, d] :
       {std::tuple<int64_t, int64_t, int64_t, int, int>{23, 4, 19, 3, 96}, {70, 69, 1, 2, 64}}) {
    for (DType kt : {DType::F16, DType::F32, DType::Q8_0})
      for (DType vt : {DType::F16, DType::Q8_0, DType::F32}) {
        SCOPED_TRACE(std::string(dtype_name(kt)) + "/" + std::string(dtype_name(vt)) + " tokens " +
                     std::to_string(n_tok));
        const int64_t row = int64_t(n_kv) * d;
        auto kf = random(n_tok * row, 31, 3.0f), vf = random(n_tok * row, 32, 3.0f);
        if (exact) {
          kf[5] = NAN, kf[17] = INFINITY, vf[0] = 3e-8f;
          if (n_tok > 1) kf[40] = -65520.0f, vf[9] = 65519.0f, vf[100] = -NAN;
        }
        const uint64_t kb = row_bytes(kt, d) * n_kv * n_ctx, vb = row_bytes(vt, d) * n_kv * n_ctx;
        std::vector<uint8_t> k_got(kb, 0xAB), v_got(vb, 0xAB), k_want(kb, 0xAB), v_want(vb, 0xAB);
        const KvCacheView got{kt, vt, k_got.data(), v_got.data(), n_ctx, n_kv, d};
        const KvCacheView want{kt, vt, k_want.data(), v_want.data(), n_ctx, n_kv, d};
        be.kv_store(got, pos0, n_tok, kf.data(), vf.data());
        ref.kv_store(want, pos0, n_tok, kf.data(), vf.data());
        after_store();
        if (exact || kt != DType::Q8_0) {
          EXPECT_EQ(k_got, k_want);
        }
        if (exact || vt != DType::Q8_0) {
          EXPECT_EQ(v_got, v_want);
        }
        if (exact) continue;
        for (auto [type, g, w] : {std::tuple{kt, &k_got, &k_want}, {vt, &v_got, &v_want}}) {
          const int64_t n = int64_t(g->size() / row_bytes(type, d)) * d;
          std::vector<float> gf(n), wf(n);
          dequantize_row(type, g->data(), gf.data(), n);
          dequantize_row(type, w->data(), wf.data(), n);
          KZ_EXPECT_CLOSE(gf, wf, type == DType::Q8_0 ? q8_0_tol : 0.0);
        }
      }
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

// ssm_conv over channel counts with tails, one token to 70, kernel widths 4 and 3: the outputs
// within `tol` (0: equal) and the new state the reference's (it is copied, not computed).
// `after_each`: as above.
inline void expect_ssm_conv_matches(
    Backend& be, Backend& ref, double tol, const std::function<void()>& after_each = [] {}) {
  for (auto [channels, n_tok, d_conv] :
       {std::tuple<int64_t, int64_t, int>{1031, 6, 4}, {6144, 1, 4}, {100, 2, 4}, {33, 70, 3}}) {
    SCOPED_TRACE("channels " + std::to_string(channels) + " tokens " + std::to_string(n_tok));
    const auto x = random(n_tok * channels, 21), w = random(channels * d_conv, 22);
    auto s_got = random(channels * (d_conv - 1), 23), s_want = s_got;
    std::vector<float> got(n_tok * channels), want(got.size());
    be.ssm_conv(x.data(), n_tok, channels, d_conv, w.data(), s_got.data(), got.data());
    ref.ssm_conv(x.data(), n_tok, channels, d_conv, w.data(), s_want.data(), want.data());
    if (tol == 0) {
      EXPECT_EQ(got, want);
    } else {
      KZ_EXPECT_CLOSE(got, want, tol);
    }
    EXPECT_EQ(s_got, s_want);
    after_each();
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

// One gated delta rule call (testing/delta_rule_case.h): the output and the new state within
// `tol`. The shapes are each test's: the forms and sizes each backend switches between differ.
inline void expect_delta_rule_matches(Backend& be, Backend& ref, const DeltaNetDims& dims,
                                      int64_t n_tok, double tol) {
  SCOPED_TRACE("d_k " + std::to_string(dims.d_k) + " tokens " + std::to_string(n_tok));
  const DeltaRuleCase c = random_delta_rule_case(dims, n_tok);
  const DeltaRuleResult got = run_delta_rule(be, c), want = run_delta_rule(ref, c);
  KZ_EXPECT_CLOSE(got.out, want.out, tol);
  KZ_EXPECT_CLOSE(got.state, want.state, tol);
}

}  // namespace kz::testing
