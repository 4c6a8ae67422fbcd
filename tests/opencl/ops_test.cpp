// Every OpenclBackend op against RefBackend (the oracle) on random inputs of model shapes and
// edge sizes: tails, one token, token counts around the matrix kernel's 128-token tile and
// the gemv/gemm switch (4 tokens), odd row counts (the tile has 64 rows), every weight and cache
// type, GQA ratios. Each op runs with zero copy (where the device has unified memory) and with
// copies.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "opencl_op_test.h"
#include "testing/backend_conformance.h"

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
  testing::expect_matmul_matches(
      *cl_, ref_, kMatrixTypes, [](DType) { return kMatmulTol; }, [&] { cl_->forget_weights(); },
      // around the 64-row, 128-token tile and the gemv/gemm switch at 4 tokens
      {{512, 64, 3}, {256, 64, 63}, {256, 70, 128}, {512, 33, 129}});
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

TEST_P(OpenclVsRef, GetRowsIsExact) {
  testing::expect_get_rows_exact(*cl_, ref_, kMatrixTypes, [&] { cl_->forget_weights(); });
  // F16 rows that are not whole 32-column chunks.
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

TEST_P(OpenclVsRef, RmsNormInPlace) {
  testing::expect_rms_norm_in_place_matches(*cl_, ref_, kNormTol);
}

TEST_P(OpenclVsRef, RopeNeox) {
  testing::expect_rope_matches(*cl_, ref_, kTranscendentalTol);
}

TEST_P(OpenclVsRef, Elementwise) {
  testing::expect_elementwise_matches(*cl_, ref_, kTranscendentalTol);
}

TEST_P(OpenclVsRef, SplitHalvesIsExact) {
  testing::expect_split_halves_exact(*cl_, ref_);
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

TEST_P(OpenclVsRef, KvStoreWritesTheReferenceBytes) {
  testing::expect_kv_store_matches(*cl_, ref_, 0);  // every byte, Q8_0's included
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
  testing::expect_ssm_conv_matches(*cl_, ref_, 0, [&] { cl_->forget_weights(); });
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
      SCOPED_TRACE(form == DeltaRuleForm::kChunked ? "chunked" : "recurrent");
      testing::expect_delta_rule_matches(*cl_, ref_, dims, n_tok, kDeltaRuleTol);
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
