// The ARM op kernels (kernel table `ops`, kernels/arm/arm_kernels.h) against the reference ops
// (kernels/ref), on lengths around the 8-element vector groups (tails), odd head sizes, GQA and
// F16 / F32 KV caches, and split (token, head) / head ranges as the backend's threads call them.
// They are ports of the x86 ops (kernels/x86/ops_avx2.h) operation for operation; the vector exp
// is also checked bit for bit against a scalar model of the x86 one.
#include <gtest/gtest.h>

#if !defined(__aarch64__)

TEST(ArmOps, NotAnArmBuild) {
  GTEST_SKIP() << "not an AArch64 build";
}

#else

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/cpu_features.h"
#include "delta_rule_check.h"
#include "kernel_checks.h"
#include "kernels/arm/arm_kernels.h"
#include "kernels/kernel_table.h"
#include "kernels/ref/ops.h"
#include "l2_norm_check.h"
#include "quant/quant.h"
#include "to_f16_check.h"

namespace kz {
namespace {

using testing::kExpRel;
using testing::kReorderedRel;
using testing::kSameOpsRel;

#define REQUIRE_NEON() \
  if (!cpu_features().neon) GTEST_SKIP() << "skipped (no neon)"

// n normal values from `seed` (no outlier).
std::vector<float> normal_floats(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  return testing::gaussian(n, rng, scale);
}

// x86::exp_f32x8 (kernels/x86/simd_avx2.h) for one lane.
float exp_model(float x) {
  x = std::min(x, 88.0f);
  x = std::max(x, -87.3365447504019f);
  const float fx = std::nearbyint(x * 1.44269504088896341f);
  x = std::fmaf(-fx, 0.693359375f, x);
  x = std::fmaf(-fx, -2.12194440e-4f, x);
  float y = 1.9875691500e-4f;
  y = std::fmaf(y, x, 1.3981999507e-3f);
  y = std::fmaf(y, x, 8.3334519073e-3f);
  y = std::fmaf(y, x, 4.1665795894e-2f);
  y = std::fmaf(y, x, 1.6666665459e-1f);
  y = std::fmaf(y, x, 5.0000001201e-1f);
  y = std::fmaf(y, x * x, x + 1.0f);
  const int32_t e = (static_cast<int32_t>(fx) + 127) << 23;
  float scale;
  std::memcpy(&scale, &e, sizeof(scale));
  return y * scale;
}

TEST(ArmOps, ElementwiseAndNormsWithTails) {
  REQUIRE_NEON();
  for (int64_t n = 1; n <= 41; n += (n < 20 ? 1 : 7)) {
    const std::string at = " n=" + std::to_string(n);
    const auto a = normal_floats(3 * n, uint32_t(n), 4.0f);
    const auto b = normal_floats(3 * n, uint32_t(n) + 1, 4.0f);
    std::vector<float> got(3 * n), want(3 * n);
    arm::rms_norm__neon(a.data(), b.data(), n, 3, 1e-6f, got.data());
    ref::rms_norm(a.data(), b.data(), n, 3, 1e-6f, want.data());
    testing::expect_near_rel(got, want, kSameOpsRel, "rms_norm" + at);
    arm::gated_rms_norm__neon(a.data(), b.data(), a.data(), n, 3, 1e-6f, got.data());
    ref::gated_rms_norm(a.data(), b.data(), a.data(), n, 3, 1e-6f, want.data());
    testing::expect_near_rel(got, want, kExpRel, "gated_rms_norm" + at);
    arm::swiglu__neon(a.data(), b.data(), 3 * n, got.data());
    ref::swiglu(a.data(), b.data(), 3 * n, want.data());
    testing::expect_near_rel(got, want, kExpRel, "swiglu" + at);
    got = a, want = a;
    arm::silu__neon(got.data(), 3 * n);
    ref::silu(want.data(), 3 * n);
    testing::expect_near_rel(got, want, kExpRel, "silu" + at);
    got = a, want = a;
    arm::mul_sigmoid__neon(got.data(), b.data(), 3 * n);
    ref::mul_sigmoid(want.data(), b.data(), 3 * n);
    testing::expect_near_rel(got, want, kExpRel, "mul_sigmoid" + at);
    got = a, want = a;
    arm::add__neon(got.data(), b.data(), 3 * n);
    ref::add(want.data(), b.data(), 3 * n);
    EXPECT_EQ(got, want) << "add" << at;
  }
}

TEST(ArmOps, ExpOpsFollowTheX86VectorExp) {
  REQUIRE_NEON();
  // Whole groups of 8 through the vector exp, the n % 8 tail through std::exp, as on x86.
  for (int64_t n : {5, 8, 16, 23, 1000}) {
    const auto x = normal_floats(n, uint32_t(n) + 7, 6.0f);
    std::vector<float> got = x, want(static_cast<size_t>(n));
    arm::silu__neon(got.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      const bool vector = i < n - n % 8;
      const float e = vector ? exp_model(0.0f - x[i]) : std::exp(-x[i]);
      want[i] = x[i] / (1.0f + e);
    }
    EXPECT_EQ(got, want) << "silu n=" << n;
  }
  // Extremes: clamped inputs, large negative arguments flushed towards 0.
  std::vector<float> x = {-100, -88.5f, -87, -20, -1e-30f, 0, 1e-30f, 20, 87, 88.5f, 100, 3};
  x.resize(16, 0.5f);
  std::vector<float> got = x;
  arm::silu__neon(got.data(), 16);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(got[i], x[i] / (1.0f + exp_model(0.0f - x[i]))) << x[i];
}

TEST(ArmOps, RopeIsBitExact) {
  REQUIRE_NEON();
  for (int n_rot : {2, 8, 14, 16, 24, 64, 128}) {
    const int head_dim = n_rot + 6, n_head = 3, n_tok = 2;
    const int32_t pos[] = {5, 4000};
    auto got = normal_floats(n_tok * n_head * head_dim, uint32_t(n_rot));
    auto want = got;
    arm::rope_neox__neon(got.data(), n_tok, n_head, head_dim, n_rot, pos, 10000.0f);
    ref::rope_neox(want.data(), n_tok, n_head, head_dim, n_rot, pos, 10000.0f);
    EXPECT_EQ(got, want) << "n_rot " << n_rot;
  }
}

TEST(ArmOps, AttentionOverPairRanges) {
  REQUIRE_NEON();
  struct Shape {
    int head_dim, n_head, n_kv_head;
    int64_t pos0, n_tok;
  };
  // Head sizes with and without 8- and 16-lane tails; GQA; 1..40 keys (key blocks of 16).
  const Shape kShapes[] = {{32, 4, 2, 0, 1}, {64, 8, 2, 5, 3},  {128, 2, 1, 20, 20},
                           {40, 3, 3, 0, 7}, {72, 4, 1, 33, 1}, {5, 2, 2, 2, 4}};
  uint32_t seed = 1;
  for (const Shape& sh : kShapes)
    for (DType type : {DType::F32, DType::F16}) {
      const std::string at = " head_dim " + std::to_string(sh.head_dim) + " heads " +
                             std::to_string(sh.n_head) + "/" + std::to_string(sh.n_kv_head) +
                             " pos0 " + std::to_string(sh.pos0) + " n_tok " +
                             std::to_string(sh.n_tok) + " " + std::string(dtype_name(type));
      const int64_t n_ctx = sh.pos0 + sh.n_tok, row = int64_t(sh.n_kv_head) * sh.head_dim;
      std::vector<uint8_t> kb(n_ctx * row * 4), vb(n_ctx * row * 4);
      const KvCacheView kv{type, type, kb.data(), vb.data(), n_ctx, sh.n_kv_head, sh.head_dim};
      const auto k = normal_floats(n_ctx * row, seed++), v = normal_floats(n_ctx * row, seed++);
      ref::kv_store(kv, 0, n_ctx, k.data(), v.data());
      const auto q = normal_floats(sh.n_tok * sh.n_head * sh.head_dim, seed++, 2.0f);
      std::vector<float> got(q.size(), -7.0f), want(q.size());
      const float scale = 1.0f / std::sqrt(float(sh.head_dim));
      // Two ranges of (token, head) pairs, as two threads would split them.
      const int64_t pairs = sh.n_tok * sh.n_head;
      arm::attention__neon(q.data(), kv, sh.pos0, sh.n_tok, sh.n_head, scale, got.data(), 0,
                           pairs / 2);
      arm::attention__neon(q.data(), kv, sh.pos0, sh.n_tok, sh.n_head, scale, got.data(), pairs / 2,
                           pairs);
      ref::attention(q.data(), kv, sh.pos0, sh.n_tok, sh.n_head, scale, want.data());
      testing::expect_near_rel(got, want, kReorderedRel, "attention" + at);
    }
}

// A prompt's tokens at once give the bits of one token per call (delta_rule_check.h).
TEST(ArmOps, DeltaRuleTokensAndHeadRanges) {
  REQUIRE_NEON();
  testing::check_delta_rule(arm::delta_rule__neon, kReorderedRel);
}

TEST(ArmOps, ToF16GivesTheConverterBits) {
  REQUIRE_NEON();
  testing::check_to_f16(arm::to_f16__neon);
}

TEST(ArmOps, L2NormGivesTheReferenceBits) {
  REQUIRE_NEON();
  testing::check_l2_norm(arm::l2_norm__neon);
}

TEST(ArmOps, TableTakesThemWithNeon) {
  CpuFeatures neon;
  neon.neon = true;
  const KernelTable t = build_kernel_table(neon);
  EXPECT_STREQ(t.ops.isa, "neon");
  EXPECT_EQ(t.ops.attention, &arm::attention__neon);
  EXPECT_EQ(t.ops.delta_rule, &arm::delta_rule__neon);
  EXPECT_EQ(t.ops.l2_norm, &arm::l2_norm__neon);
  EXPECT_EQ(t.ops.to_f16, &arm::to_f16__neon);
  EXPECT_EQ(build_kernel_table(CpuFeatures{}).ops.attention, nullptr);
}

}  // namespace
}  // namespace kz

#endif  // __aarch64__
