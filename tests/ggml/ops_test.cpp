// Every op through each ggml device (ggml_device.h: ggml's CPU and, here, Vulkan on Mesa's
// lavapipe) against RefBackend, the oracle, on random inputs of model shapes and edge sizes:
// tails, one token, GQA ratios, every weight and cache type the devices take. Each op runs as
// its own graph (the test reads the results at once, so the backend syncs).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "backend/ref_backend.h"
#include "ggml_device.h"
#include "testing/backend_conformance.h"
#include "testing/delta_rule_case.h"
#include "testing/random_weights.h"

namespace kz {
namespace {

using testing::random;
using testing::random_matrix;
using testing::Weights;

// Tolerances (relative RMS over the output), from the devices' own arithmetic; `ref` keeps f32
// activations throughout. ggml's CPU quantizes a product's activations to 8 bits for quantized
// weights and rounds them to F16 for F16 weights, and its flash attention rounds the query to
// F16 (F16 caches) or Q8_0 (Q8_0 caches); ggml-vulkan rounds activations through F16 in every
// product. Measured worst cases over these shapes (tests run with the bounds lowered):
// CPU attention with Q8_0 caches 9.3e-3; Vulkan products with F32 weights 3e-4, F16 1.0e-2,
// quantized 1.1e-2. The other bounds are the ones the tests have passed at, not measured
// worst cases.
struct Tolerances {
  double matmul_f32, matmul_f16, matmul_quant, norm, transcendental, attention, attention_q8_0,
      delta_rule;
};
Tolerances tolerances(const std::string& device) {
  if (device.rfind("Vulkan", 0) == 0) return {1e-3, 2e-2, 2e-2, 1e-5, 1e-5, 1e-2, 2e-2, 1e-4};
  return {1e-5, 3e-3, 1e-2, 1e-5, 1e-5, 6e-3, 1.5e-2, 1e-4};
}

class GgmlVsRef : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { testing::open_ggml(be_, GetParam()); }
  std::unique_ptr<GgmlBackend> be_;
  RefBackend ref_;
  Tolerances tol_ = tolerances(GetParam());
};

constexpr DType kMatrixTypes[] = {DType::F32,  DType::F16,  DType::Q4_0, DType::Q8_0,
                                  DType::Q4_K, DType::Q5_K, DType::Q6_K};

TEST_P(GgmlVsRef, Matmul) {
  for (DType t : kMatrixTypes) {
    for (auto [cols, rows, n_tok] : {std::tuple<int64_t, int64_t, int64_t>{256, 37, 1},
                                     {512, 65, 4},
                                     {1024, 133, 9},
                                     {256, 127, 64},
                                     {768, 200, 65},
                                     {2048, 16, 130}}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " " + std::to_string(rows) + "x" +
                   std::to_string(cols) + " tokens " + std::to_string(n_tok));
      const Weights w = random_matrix(t, cols, rows);
      const auto x = random(cols * n_tok, 99, 2.0f);
      std::vector<float> got(rows * n_tok), want(rows * n_tok);
      be_->matmul(w.m, x.data(), n_tok, got.data());
      ref_.matmul(w.m, x.data(), n_tok, want.data());
      KZ_EXPECT_CLOSE(got, want,
                      t == DType::F32   ? tol_.matmul_f32
                      : t == DType::F16 ? tol_.matmul_f16
                                        : tol_.matmul_quant);
      be_->forget_weights();  // the next matrix may reuse these addresses
    }
  }
}

// Dequantization is the reference's, bit for bit.
TEST_P(GgmlVsRef, GetRowsIsExact) {
  for (DType t : kMatrixTypes) {
    const int64_t cols = 512, rows = 50;
    const Weights w = random_matrix(t, cols, rows);
    const std::vector<int32_t> ids = {0, 49, 7, 7, 23};
    std::vector<float> got(ids.size() * cols), want(got.size());
    be_->get_rows(w.m, ids, got.data());
    ref_.get_rows(w.m, ids, want.data());
    EXPECT_EQ(got, want) << dtype_name(t);
    be_->forget_weights();
  }
}

TEST_P(GgmlVsRef, Norms) {
  testing::expect_norms_match(*be_, ref_, tol_.norm, tol_.transcendental,
                              [&] { be_->forget_weights(); });
}

TEST_P(GgmlVsRef, RmsNormInPlace) {
  auto got = random(128 * 16, 4), want = got;
  const auto w = random(128, 5);
  be_->rms_norm(got.data(), w.data(), 128, 16, 1e-6f, got.data());
  ref_.rms_norm(want.data(), w.data(), 128, 16, 1e-6f, want.data());
  KZ_EXPECT_CLOSE(got, want, tol_.norm);
}

TEST_P(GgmlVsRef, RopeNeox) {
  testing::expect_rope_matches(*be_, ref_, tol_.transcendental);
}

TEST_P(GgmlVsRef, Elementwise) {
  testing::expect_elementwise_matches(*be_, ref_, tol_.transcendental);
}

TEST_P(GgmlVsRef, SplitAndJoinHalvesAreExact) {
  for (auto [rows, n] : {std::pair<int64_t, int64_t>{1, 1}, {3, 7}, {16 * 5, 256}, {512, 128}}) {
    const auto x = random(rows * 2 * n, 9);
    std::vector<float> a(rows * n), b(rows * n), want_a(a.size()), want_b(b.size());
    be_->split_halves(x.data(), rows, n, a.data(), b.data());
    ref_.split_halves(x.data(), rows, n, want_a.data(), want_b.data());
    EXPECT_EQ(a, want_a) << rows << " rows of " << n;
    EXPECT_EQ(b, want_b) << rows << " rows of " << n;
    std::vector<float> out(rows * 2 * n);
    be_->join_halves(a.data(), b.data(), rows, n, out.data());
    EXPECT_EQ(out, x) << rows << " rows of " << n;
  }
}

// The stored bytes are the reference's (F32, F16; Q8_0 within one rounding step of a block's
// scale), around positions already in the cache.
TEST_P(GgmlVsRef, KvStore) {
  for (auto [n_ctx, pos0, n_tok, n_kv, d] :
       {std::tuple<int64_t, int64_t, int64_t, int, int>{23, 4, 19, 3, 96}, {70, 69, 1, 2, 64}}) {
    for (DType kt : {DType::F16, DType::F32, DType::Q8_0})
      for (DType vt : {DType::F16, DType::Q8_0, DType::F32}) {
        SCOPED_TRACE(std::string(dtype_name(kt)) + "/" + std::string(dtype_name(vt)) + " tokens " +
                     std::to_string(n_tok));
        const int64_t row = int64_t(n_kv) * d;
        const auto kf = random(n_tok * row, 31, 3.0f), vf = random(n_tok * row, 32, 3.0f);
        const uint64_t kb = row_bytes(kt, d) * n_kv * n_ctx, vb = row_bytes(vt, d) * n_kv * n_ctx;
        std::vector<uint8_t> k_got(kb, 0xAB), v_got(vb, 0xAB), k_want(kb, 0xAB), v_want(vb, 0xAB);
        const KvCacheView got{kt, vt, k_got.data(), v_got.data(), n_ctx, n_kv, d};
        const KvCacheView want{kt, vt, k_want.data(), v_want.data(), n_ctx, n_kv, d};
        be_->kv_store(got, pos0, n_tok, kf.data(), vf.data());
        ref_.kv_store(want, pos0, n_tok, kf.data(), vf.data());
        be_->sync();  // the caches are not the model's shared memory: wait for the copies
        if (kt != DType::Q8_0) {
          EXPECT_EQ(k_got, k_want);
        }
        if (vt != DType::Q8_0) {
          EXPECT_EQ(v_got, v_want);
        }
        // Every cache row, read back as floats: the same values (Q8_0: within a rounding step).
        for (auto [type, g, w] : {std::tuple{kt, &k_got, &k_want}, {vt, &v_got, &v_want}}) {
          const int64_t n = int64_t(g->size() / row_bytes(type, d)) * d;
          std::vector<float> gf(n), wf(n);
          dequantize_row(type, g->data(), gf.data(), n);
          dequantize_row(type, w->data(), wf.data(), n);
          KZ_EXPECT_CLOSE(gf, wf, type == DType::Q8_0 ? 1e-3 : 0.0);
        }
      }
  }
}

TEST_P(GgmlVsRef, Attention) {
  testing::expect_attention_matches(
      *be_, ref_, [&](DType t) { return t == DType::Q8_0 ? tol_.attention_q8_0 : tol_.attention; });
}

TEST_P(GgmlVsRef, SsmConv) {
  for (auto [channels, n_tok, d_conv] :
       {std::tuple<int64_t, int64_t, int>{1031, 6, 4}, {6144, 1, 4}, {100, 2, 4}, {33, 70, 3}}) {
    SCOPED_TRACE("channels " + std::to_string(channels) + " tokens " + std::to_string(n_tok));
    const auto x = random(n_tok * channels, 21), w = random(channels * d_conv, 22);
    auto s_got = random(channels * (d_conv - 1), 23), s_want = s_got;
    std::vector<float> got(n_tok * channels), want(got.size());
    be_->ssm_conv(x.data(), n_tok, channels, d_conv, w.data(), s_got.data(), got.data());
    ref_.ssm_conv(x.data(), n_tok, channels, d_conv, w.data(), s_want.data(), want.data());
    KZ_EXPECT_CLOSE(got, want, 1e-6);
    EXPECT_EQ(s_got, s_want);  // the state is copied, not computed
    be_->forget_weights();
  }
}

TEST_P(GgmlVsRef, DeltaNetGates) {
  testing::expect_delta_net_gates_match(*be_, ref_, tol_.transcendental,
                                        [&] { be_->forget_weights(); });
}

TEST_P(GgmlVsRef, GatedDeltaRule) {
  for (auto [dims, n_tok] : {std::pair<DeltaNetDims, int64_t>{{2, 32, 4, 32}, 1},
                             {{2, 128, 4, 128}, 1},
                             {{2, 32, 4, 32}, 70},
                             {{16, 128, 16, 128}, 5},
                             {{2, 64, 4, 64}, 9},
                             {{2, 128, 4, 128}, 64},
                             {{3, 64, 3, 64}, 6}}) {  // the bundled models' prompt
    SCOPED_TRACE("d_k " + std::to_string(dims.d_k) + " tokens " + std::to_string(n_tok));
    const testing::DeltaRuleCase c = testing::random_delta_rule_case(dims, n_tok);
    const testing::DeltaRuleResult got = testing::run_delta_rule(*be_, c);
    const testing::DeltaRuleResult want = testing::run_delta_rule(ref_, c);
    KZ_EXPECT_CLOSE(got.out, want.out, tol_.delta_rule);
    KZ_EXPECT_CLOSE(got.state, want.state, tol_.delta_rule);
  }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GgmlVsRef);
INSTANTIATE_TEST_SUITE_P(Devices, GgmlVsRef, ::testing::ValuesIn(testing::ggml_device_names()),
                         testing::device_test_name);

}  // namespace
}  // namespace kz
