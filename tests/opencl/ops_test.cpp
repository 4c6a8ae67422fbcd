// Every OpenclBackend op against RefBackend (the oracle) on random inputs of model shapes and
// edge sizes: tails, one token, token counts around the matrix kernel's 128-token tile and
// the gemv/gemm switch (4 tokens), odd row counts (the tile has 64 rows), every weight and cache
// type, GQA ratios. Each op runs with zero copy (where the device has unified memory) and with
// copies.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "opencl_op_test.h"
#include "testing/backend_conformance.h"
#include "testing/delta_rule_case.h"

namespace kz {
namespace {

// Tolerances, as relative RMS over the output.
// Same f32 operations as the reference but the sum of squares in f32 (the reference's is in
// double) and sqrt / division within OpenCL's ulp bounds.
constexpr double kNormTol = 1e-6;
// OpenCL's exp / log / cos / sin are within a few ulp of the C library's, not equal.
constexpr double kTranscendentalTol = 1e-5;
// Matrix products: exact weights and f32 activations like the reference, summed in another
// order (tiles, 8-wide parts, a tree) with mad(): float rounding over up to 2048 terms.
constexpr double kMatmulTol = 1e-5;
// Attention: online softmax (rescaled running sums) instead of the reference's two passes.
constexpr double kAttentionTol = 2e-5;
// The delta rule: the reference's operations, but q/k norms summed in f32 and exp within ulp
// bounds, carried through the state over up to 70 tokens.
constexpr double kDeltaRuleTol = 1e-5;

using testing::random;
using testing::random_matrix;
using testing::Weights;

class OpenclVsRef : public testing::OpenclOpTest {};

constexpr DType kMatrixTypes[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q4_0,
                                  DType::Q8_0, DType::Q4_K, DType::Q5_K, DType::Q6_K};

TEST_P(OpenclVsRef, Matmul) {
  for (DType t : kMatrixTypes) {
    for (auto [cols, rows, n_tok] : {std::tuple<int64_t, int64_t, int64_t>{256, 37, 1},
                                     {512, 64, 3},
                                     {512, 65, 4},
                                     {1024, 133, 9},
                                     {256, 64, 63},
                                     {256, 127, 64},
                                     {768, 200, 65},
                                     {256, 70, 128},
                                     {512, 33, 129},
                                     {2048, 16, 130}}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " " + std::to_string(rows) + "x" +
                   std::to_string(cols) + " tokens " + std::to_string(n_tok));
      const Weights w = random_matrix(t, cols, rows);
      const auto x = random(cols * n_tok, 99, 2.0f);
      std::vector<float> got(rows * n_tok), want(rows * n_tok);
      cl_->matmul(w.m, x.data(), n_tok, got.data());
      ref_.matmul(w.m, x.data(), n_tok, want.data());
      KZ_EXPECT_CLOSE(got, want, kMatmulTol);
      cl_->forget_weights();  // the next matrix may reuse these addresses
    }
  }
}

// Float weights need not fill whole 32-column chunks.
TEST_P(OpenclVsRef, MatmulFloatWeightsWithColumnTails) {
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (auto [cols, rows, n_tok] :
         {std::tuple<int64_t, int64_t, int64_t>{5, 3, 1}, {100, 7, 2}, {37, 70, 66}}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " cols " + std::to_string(cols) + " tokens " +
                   std::to_string(n_tok));
      const Weights w = random_matrix(t, cols, rows);
      const auto x = random(cols * n_tok, 98);
      std::vector<float> got(rows * n_tok), want(rows * n_tok);
      cl_->matmul(w.m, x.data(), n_tok, got.data());
      ref_.matmul(w.m, x.data(), n_tok, want.data());
      KZ_EXPECT_CLOSE(got, want, kMatmulTol);
      cl_->forget_weights();  // the next matrix may reuse these addresses
    }
}

// Dequantization is the reference's, bit for bit.
TEST_P(OpenclVsRef, GetRowsIsExact) {
  for (DType t : kMatrixTypes) {
    const int64_t cols = 512, rows = 50;
    const Weights w = random_matrix(t, cols, rows);
    const std::vector<int32_t> ids = {0, 49, 7, 7, 23};
    std::vector<float> got(ids.size() * cols), want(got.size());
    cl_->get_rows(w.m, ids, got.data());
    ref_.get_rows(w.m, ids, want.data());
    EXPECT_EQ(got, want) << dtype_name(t);
    cl_->forget_weights();
  }
  const Weights tail = random_matrix(DType::F16, 13, 4);
  const std::vector<int32_t> ids = {3, 1};
  std::vector<float> got(2 * 13), want(got.size());
  cl_->get_rows(tail.m, ids, got.data());
  ref_.get_rows(tail.m, ids, want.data());
  EXPECT_EQ(got, want);
}

TEST_P(OpenclVsRef, Norms) {
  testing::expect_norms_match(*cl_, ref_, kNormTol, kTranscendentalTol,
                              [&] { cl_->forget_weights(); });
}

// In place, as the model calls it (q normalized into itself).
TEST_P(OpenclVsRef, RmsNormInPlace) {
  auto got = random(128 * 16, 4), want = got;
  const auto w = random(128, 5);
  cl_->rms_norm(got.data(), w.data(), 128, 16, 1e-6f, got.data());
  ref_.rms_norm(want.data(), w.data(), 128, 16, 1e-6f, want.data());
  KZ_EXPECT_CLOSE(got, want, kNormTol);
}

TEST_P(OpenclVsRef, RopeNeox) {
  testing::expect_rope_matches(*cl_, ref_, kTranscendentalTol);
}

TEST_P(OpenclVsRef, Elementwise) {
  testing::expect_elementwise_matches(*cl_, ref_, kTranscendentalTol);
}

TEST_P(OpenclVsRef, SplitHalvesIsExact) {
  for (auto [rows, n] : {std::pair<int64_t, int64_t>{1, 1}, {3, 7}, {16 * 5, 256}, {512, 128}}) {
    const auto x = random(rows * 2 * n, 9);
    std::vector<float> a(rows * n), b(rows * n), want_a(a.size()), want_b(b.size());
    cl_->split_halves(x.data(), rows, n, a.data(), b.data());
    ref_.split_halves(x.data(), rows, n, want_a.data(), want_b.data());
    EXPECT_EQ(a, want_a) << rows << " rows of " << n;
    EXPECT_EQ(b, want_b) << rows << " rows of " << n;
  }
}

TEST_P(OpenclVsRef, JoinHalvesIsExact) {
  for (auto [rows, n] : {std::pair<int64_t, int64_t>{1, 1}, {3, 7}, {5, 128}, {512, 128}}) {
    const auto a = random(rows * n, 10), b = random(rows * n, 11);
    std::vector<float> out(rows * 2 * n), want(out.size());
    cl_->join_halves(a.data(), b.data(), rows, n, out.data());
    ref_.join_halves(a.data(), b.data(), rows, n, want.data());
    EXPECT_EQ(out, want) << rows << " rows of " << n;
  }
}

// The stored bytes are the reference's for every cache type pair, NaN, infinities and values
// that round to F16's extremes included.
TEST_P(OpenclVsRef, KvStoreWritesTheReferenceBytes) {
  for (auto [n_ctx, pos0, n_tok, n_kv, d] :
       {std::tuple<int64_t, int64_t, int64_t, int, int>{23, 4, 19, 3, 96}, {70, 69, 1, 2, 64}}) {
    for (DType kt : {DType::F16, DType::F32, DType::Q8_0})
      for (DType vt : {DType::F16, DType::Q8_0, DType::F32}) {
        SCOPED_TRACE(std::string(dtype_name(kt)) + "/" + std::string(dtype_name(vt)) + " tokens " +
                     std::to_string(n_tok));
        const int64_t row = int64_t(n_kv) * d;
        auto kf = random(n_tok * row, 31, 3.0f), vf = random(n_tok * row, 32, 3.0f);
        kf[5] = NAN, kf[17] = INFINITY, vf[0] = 3e-8f;
        if (n_tok > 1) kf[40] = -65520.0f, vf[9] = 65519.0f, vf[100] = -NAN;
        const uint64_t kb = row_bytes(kt, d) * n_kv * n_ctx, vb = row_bytes(vt, d) * n_kv * n_ctx;
        std::vector<uint8_t> k_got(kb, 0xAB), v_got(vb, 0xAB), k_want(kb, 0xAB), v_want(vb, 0xAB);
        const KvCacheView got{kt, vt, k_got.data(), v_got.data(), n_ctx, n_kv, d};
        const KvCacheView want{kt, vt, k_want.data(), v_want.data(), n_ctx, n_kv, d};
        cl_->kv_store(got, pos0, n_tok, kf.data(), vf.data());
        ref_.kv_store(want, pos0, n_tok, kf.data(), vf.data());
        EXPECT_EQ(k_got, k_want);
        EXPECT_EQ(v_got, v_want);
      }
  }
}

TEST_P(OpenclVsRef, Attention) {
  testing::expect_attention_matches(*cl_, ref_, [](DType) { return kAttentionTol; });
}

// The Qwen3.5-4B prompt shape (pp512): a group size picked by the driver overflowed PoCL's
// work-item stacks here.
TEST_P(OpenclVsRef, AttentionAtTheLargestPromptShape) {
  const int64_t n = 512, n_ctx = n + 3;
  const int n_head = 16, n_kv = 4, d = 256;
  const int64_t row = int64_t(n_kv) * d;
  std::vector<uint8_t> k(row_bytes(DType::F16, d) * n_kv * n_ctx), v(k.size());
  const KvCacheView kv{DType::F16, DType::F16, k.data(), v.data(), n_ctx, n_kv, d};
  const auto kf = random(n_ctx * row, 11), vf = random(n_ctx * row, 12);
  ref_.kv_store(kv, 0, n_ctx, kf.data(), vf.data());
  const auto q = random(n * n_head * d, 13, 2.0f);
  std::vector<float> got(q.size()), want(q.size());
  cl_->attention(q.data(), kv, 0, n, n_head, 1.0f / 16.0f, got.data());
  ref_.attention(q.data(), kv, 0, n, n_head, 1.0f / 16.0f, want.data());
  KZ_EXPECT_CLOSE(got, want, kAttentionTol);
}

// The convolution is the reference's operations in the reference's order: equal bits.
TEST_P(OpenclVsRef, SsmConvIsExact) {
  for (auto [channels, n_tok, d_conv] :
       {std::tuple<int64_t, int64_t, int>{1031, 6, 4}, {6144, 1, 4}, {100, 2, 4}, {33, 70, 3}}) {
    SCOPED_TRACE("channels " + std::to_string(channels) + " tokens " + std::to_string(n_tok));
    const auto x = random(n_tok * channels, 21), w = random(channels * d_conv, 22);
    auto s_got = random(channels * (d_conv - 1), 23), s_want = s_got;
    std::vector<float> got(n_tok * channels), want(got.size());
    cl_->ssm_conv(x.data(), n_tok, channels, d_conv, w.data(), s_got.data(), got.data());
    ref_.ssm_conv(x.data(), n_tok, channels, d_conv, w.data(), s_want.data(), want.data());
    EXPECT_EQ(got, want);
    EXPECT_EQ(s_got, s_want);
    cl_->forget_weights();
  }
}

TEST_P(OpenclVsRef, DeltaNetGates) {
  testing::expect_delta_net_gates_match(*cl_, ref_, kTranscendentalTol,
                                        [&] { cl_->forget_weights(); });
}

// Both forms of a prompt (the recurrence, the chunked form; decode is always the recurrence):
// token counts around the chunk of 32 included. `ref` runs the recurrence; the chunked form
// differs from it by float rounding only, as kernels/ref/delta_net_chunked.cpp does (within the
// same bound, tests/kernels/delta_net_test.cpp).
TEST_P(OpenclVsRef, GatedDeltaRule) {
  using opencl::DeltaRuleForm;
  for (DeltaRuleForm form : {DeltaRuleForm::kRecurrent, DeltaRuleForm::kChunked})
    for (auto [dims, n_tok] : {std::pair<DeltaNetDims, int64_t>{{2, 32, 4, 32}, 1},
                               {{2, 128, 4, 128}, 1},
                               {{1, 128, 3, 64}, 1},
                               {{2, 32, 4, 32}, 70},
                               {{16, 128, 16, 128}, 5},
                               {{2, 64, 4, 64}, 9},
                               {{1, 16, 2, 24}, 31},
                               {{1, 16, 2, 24}, 32},
                               {{1, 16, 2, 24}, 33},
                               {{2, 128, 4, 128}, 64},
                               {{16, 128, 32, 128}, 512}}) {        // the Qwen3.5-4B pp512 shape
      if (form == DeltaRuleForm::kChunked && n_tok == 1) continue;  // decode: the recurrence
      cl_->set_delta_rule_form(form);
      SCOPED_TRACE(std::string(form == DeltaRuleForm::kChunked ? "chunked" : "recurrent") +
                   " d_k " + std::to_string(dims.d_k) + " tokens " + std::to_string(n_tok));
      const testing::DeltaRuleCase c = testing::random_delta_rule_case(dims, n_tok);
      const testing::DeltaRuleResult got = testing::run_delta_rule(*cl_, c);
      const testing::DeltaRuleResult want = testing::run_delta_rule(ref_, c);
      KZ_EXPECT_CLOSE(got.out, want.out, kDeltaRuleTol);
      KZ_EXPECT_CLOSE(got.state, want.state, kDeltaRuleTol);
    }
}

// Weights are wrapped or uploaded once, not per call; an op whose output is outside shared
// memory is one synchronisation, as Backend::traffic() reports.
TEST_P(OpenclVsRef, WeightsAreWrappedOnce) {
  const Weights w = random_matrix(DType::Q4_0, 256, 40);
  const auto x = random(256 * 5, 1);
  std::vector<float> y(40 * 5);
  const opencl::TransferCounters before = cl_->counters();
  cl_->reset_traffic();
  for (int i = 0; i < 3; ++i) cl_->matmul(w.m, x.data(), 5, y.data());
  EXPECT_EQ(cl_->traffic().syncs, 3);
  const opencl::TransferCounters& after = cl_->counters();
  EXPECT_EQ(after.weight_bytes_wrapped + after.weight_bytes_uploaded - before.weight_bytes_wrapped -
                before.weight_bytes_uploaded,
            w.bytes.size());
  EXPECT_EQ(after.syncs - before.syncs, 3u);
  if (cl_->zero_copy()) {
    // x is not shared memory: copied at each call; y is wrapped in place.
    EXPECT_EQ(after.bytes_to_device - before.bytes_to_device, 3 * x.size() * sizeof(float));
    EXPECT_EQ(after.bytes_to_host, before.bytes_to_host);
  } else {
    EXPECT_EQ(after.bytes_to_host - before.bytes_to_host, 3 * y.size() * sizeof(float));
  }
}

TEST_P(OpenclVsRef, UnsupportedInputsAreOneLineErrors) {
  const Weights w = random_matrix(DType::Q4_1, 64, 2);
  std::vector<float> x(64), y(2);
  try {
    cl_->matmul(w.m, x.data(), 1, y.data());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("q4_1"), std::string::npos) << e.what();
  }
  const std::vector<int32_t> bad = {2};
  EXPECT_THROW(cl_->get_rows(w.m, bad, y.data()), Error);
  // Head sizes the attention kernel's 16-wide vectors cannot hold.
  std::vector<uint8_t> k(36 * 4 * 2), v(k.size());
  const KvCacheView kv{DType::F32, DType::F32, k.data(), v.data(), 2, 1, 36};
  std::vector<float> q(36), out(36);
  EXPECT_THROW(cl_->attention(q.data(), kv, 0, 1, 1, 1.0f, out.data()), Error);
}

INSTANTIATE_TEST_SUITE_P(Memory, OpenclVsRef,
                         ::testing::Values(opencl::MemoryMode::kAuto, opencl::MemoryMode::kCopy),
                         testing::memory_mode_name);

}  // namespace
}  // namespace kz
