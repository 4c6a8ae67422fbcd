// The x86 op kernels (kernel table `ops`, kernels/x86/ops_avx2.h) called directly against the
// reference ops (kernels/ref), on lengths around the 8-lane vectors (tails) and odd head sizes.
// The backend-level comparison at model shapes is tests/backend/cpu_backend_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "delta_rule_check.h"
#include "kernel_checks.h"
#include "kernels/ref/ops.h"
#include "l2_norm_check.h"
#include "to_f16_check.h"
#include "x86_test_util.h"

namespace kz {
namespace {

using testing::kExpRel;
using testing::kReorderedRel;
using testing::kSameOpsRel;

using testing::X86Level;

class X86Ops : public ::testing::TestWithParam<X86Level> {};

TEST_P(X86Ops, ElementwiseAndNormsWithTails) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  const OpKernels& k = table.ops;
  ASSERT_TRUE(k.rms_norm && k.swiglu && k.silu && k.add && k.mul_sigmoid && k.gated_rms_norm);
  for (int64_t n = 1; n <= 41; n += (n < 20 ? 1 : 7)) {
    const auto a = testing::random_floats(3 * n, uint32_t(n), 4.0f);
    const auto b = testing::random_floats(3 * n, uint32_t(n) + 1, 4.0f);
    std::vector<float> got(3 * n), want(3 * n);
    k.rms_norm(a.data(), b.data(), n, 3, 1e-6f, got.data());
    ref::rms_norm(a.data(), b.data(), n, 3, 1e-6f, want.data());
    testing::expect_near_rel(got, want, kSameOpsRel, "rms_norm n=" + std::to_string(n));
    k.gated_rms_norm(a.data(), b.data(), a.data(), n, 3, 1e-6f, got.data());
    ref::gated_rms_norm(a.data(), b.data(), a.data(), n, 3, 1e-6f, want.data());
    testing::expect_near_rel(got, want, kExpRel, "gated_rms_norm n=" + std::to_string(n));
    k.swiglu(a.data(), b.data(), 3 * n, got.data());
    ref::swiglu(a.data(), b.data(), 3 * n, want.data());
    testing::expect_near_rel(got, want, kExpRel, "swiglu n=" + std::to_string(n));
    got = a, want = a;
    k.silu(got.data(), 3 * n);
    ref::silu(want.data(), 3 * n);
    testing::expect_near_rel(got, want, kExpRel, "silu n=" + std::to_string(n));
    got = a, want = a;
    k.mul_sigmoid(got.data(), b.data(), 3 * n);
    ref::mul_sigmoid(want.data(), b.data(), 3 * n);
    testing::expect_near_rel(got, want, kExpRel, "mul_sigmoid n=" + std::to_string(n));
    got = a, want = a;
    k.add(got.data(), b.data(), 3 * n);
    ref::add(want.data(), b.data(), 3 * n);
    EXPECT_EQ(got, want) << "add n=" << n;
  }
}

TEST_P(X86Ops, RopeIsBitExact) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  for (int n_rot : {2, 8, 14, 16, 24, 64, 128}) {
    const int head_dim = n_rot + 6, n_head = 3, n_tok = 2;
    const int32_t pos[] = {5, 4000};
    auto got = testing::random_floats(n_tok * n_head * head_dim, uint32_t(n_rot));
    auto want = got;
    table.ops.rope_neox(got.data(), n_tok, n_head, head_dim, n_rot, pos, 10000.0f);
    ref::rope_neox(want.data(), n_tok, n_head, head_dim, n_rot, pos, 10000.0f);
    EXPECT_EQ(got, want) << "n_rot " << n_rot;
  }
}

TEST_P(X86Ops, AttentionOverPairRanges) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  for (DType type : {DType::F32, DType::F16}) {
    for (int d : {8, 12, 40, 128}) {
      const int n_head = 4, n_kv = 2;
      const int64_t n_ctx = 35, n_tok = 3, pos0 = n_ctx - n_tok, row = int64_t(n_kv) * d;
      std::vector<uint8_t> kb(n_ctx * row * 4), vb(n_ctx * row * 4);
      const KvCacheView kv{type, type, kb.data(), vb.data(), n_ctx, n_kv, d};
      ref::kv_store(kv, 0, n_ctx, testing::random_floats(n_ctx * row, 1).data(),
                    testing::random_floats(n_ctx * row, 2).data());
      const auto q = testing::random_floats(n_tok * n_head * d, 3, 2.0f);
      std::vector<float> got(q.size()), want(q.size());
      const float scale = 1.0f / std::sqrt(float(d));
      // Two ranges of (token, head) pairs, as two threads would split them.
      table.ops.attention(q.data(), kv, pos0, n_tok, n_head, scale, got.data(), 0, 5);
      table.ops.attention(q.data(), kv, pos0, n_tok, n_head, scale, got.data(), 5, n_tok * n_head);
      ref::attention(q.data(), kv, pos0, n_tok, n_head, scale, want.data());
      testing::expect_near_rel(got, want, kReorderedRel, "attention n=" + std::to_string(d));
    }
  }
}

// A prompt's tokens at once give the bits of one token per call (delta_rule_check.h).
TEST_P(X86Ops, DeltaRuleTokensAndHeadRanges) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  testing::check_delta_rule(table.ops.delta_rule, kReorderedRel);
}

// The AVX-512 table's element-wise ops give the AVX2 ones' bits: lengths around 8 and 16 (the
// last group of 8 in a masked vector, then AVX2's scalar tail).
TEST(X86Elementwise, Avx512GivesTheAvx2Bits) {
  const auto avx2_features = testing::features_for(X86Level::kAvx2);
  const auto avx512_features = testing::features_for(X86Level::kAvx512Vnni);
  if (!avx512_features) GTEST_SKIP() << "no avx512vnni";
  const OpKernels k2 = build_kernel_table(*avx2_features).ops;
  const OpKernels k16 = build_kernel_table(*avx512_features).ops;
  ASSERT_NE(k2.silu, k16.silu);
  for (int64_t n = 1; n <= 50; n += (n < 34 ? 1 : 8)) {
    SCOPED_TRACE("n " + std::to_string(n));
    auto a = testing::random_floats(3 * n, uint32_t(n), 12.0f);
    a[0] = 100.0f, a[1 % a.size()] = -100.0f;  // the exponential's clamps
    const auto b = testing::random_floats(3 * n, uint32_t(n) + 1, 12.0f);
    const auto w = testing::random_floats(n, uint32_t(n) + 2, 2.0f);
    std::vector<float> got(3 * n), want(3 * n);
    k16.swiglu(a.data(), b.data(), 3 * n, got.data());
    k2.swiglu(a.data(), b.data(), 3 * n, want.data());
    ASSERT_EQ(got, want) << "swiglu";
    k16.gated_rms_norm(a.data(), b.data(), w.data(), n, 3, 1e-6f, got.data());
    k2.gated_rms_norm(a.data(), b.data(), w.data(), n, 3, 1e-6f, want.data());
    ASSERT_EQ(got, want) << "gated_rms_norm";
    got = a, want = a;
    k16.silu(got.data(), 3 * n);
    k2.silu(want.data(), 3 * n);
    ASSERT_EQ(got, want) << "silu";
    got = a, want = a;
    k16.mul_sigmoid(got.data(), b.data(), 3 * n);
    k2.mul_sigmoid(want.data(), b.data(), 3 * n);
    ASSERT_EQ(got, want) << "mul_sigmoid";
  }
}

// Two state rows per 16-lane vector give AVX2's 8-lane bits: d_k below, at and past 8 with tails,
// d_v with and without rows left over after the groups of 8 (run one at a time).
TEST(X86DeltaRule, Avx512GivesTheAvx2Bits) {
  const auto avx2_features = testing::features_for(X86Level::kAvx2);
  const auto avx512_features = testing::features_for(X86Level::kAvx512Vnni);
  if (!avx512_features) GTEST_SKIP() << "no avx512vnni";
  const KernelTable avx2 = build_kernel_table(*avx2_features);
  const KernelTable avx512 = build_kernel_table(*avx512_features);
  ASSERT_NE(avx2.ops.delta_rule, avx512.ops.delta_rule);
  uint32_t seed = 1;
  for (DeltaNetDims dims :
       {DeltaNetDims{1, 4, 1, 3}, DeltaNetDims{2, 8, 4, 8}, DeltaNetDims{1, 20, 3, 13},
        DeltaNetDims{1, 16, 2, 24}, DeltaNetDims{2, 128, 4, 128}, DeltaNetDims{1, 132, 2, 17}}) {
    for (int64_t n_tok : {1, 5, 17, 33}) {
      SCOPED_TRACE("d_k " + std::to_string(dims.d_k) + " d_v " + std::to_string(dims.d_v) +
                   " tokens " + std::to_string(n_tok));
      const auto qkv = testing::random_floats(dims.conv_dim() * n_tok, ++seed);
      auto g = testing::random_floats(dims.n_v * n_tok, ++seed, 0.5f);
      auto beta = testing::random_floats(g.size(), ++seed);
      for (size_t i = 0; i < g.size(); ++i) {
        g[i] = -std::fabs(g[i]);
        beta[i] = 1.0f / (1.0f + std::exp(-beta[i]));
      }
      auto s2 = testing::random_floats(dims.state_floats(), ++seed, 0.2f), s16 = s2;
      std::vector<float> o2(dims.value_dim() * n_tok), o16(o2.size());
      avx2.ops.delta_rule(dims, n_tok, qkv.data(), g.data(), beta.data(), 1e-6f, s2.data(),
                          o2.data(), 0, dims.n_v);
      avx512.ops.delta_rule(dims, n_tok, qkv.data(), g.data(), beta.data(), 1e-6f, s16.data(),
                            o16.data(), 0, dims.n_v);
      ASSERT_EQ(o16, o2);
      ASSERT_EQ(s16, s2);
    }
  }
}

TEST_P(X86Ops, ToF16GivesTheConverterBits) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  ASSERT_NE(table.ops.to_f16, nullptr);
  testing::check_to_f16(table.ops.to_f16);
}

TEST_P(X86Ops, L2NormGivesTheReferenceBits) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  ASSERT_NE(table.ops.l2_norm, nullptr);
  testing::check_l2_norm(table.ops.l2_norm);
}

INSTANTIATE_TEST_SUITE_P(Levels, X86Ops, ::testing::Values(X86Level::kAvx2, X86Level::kAvx512Vnni),
                         [](const auto& info) { return testing::level_name(info.param); });

}  // namespace
}  // namespace kz
