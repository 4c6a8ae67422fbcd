// ARM64 kernels (kernels/arm/arm_kernels.h) against the reference dot products
// (kernels/ref/vec_dot.h), on rows of 1, 2, 7 and 16 blocks (float formats: lengths around the
// 32-element step), 1-17 rows, 1-7 activation rows for gemm with strided activations and
// outputs, quantized weights and weights of random bytes (every quant and scale bit pattern).
// A kernel whose instruction set the CPU (or KAZEIA_CPU_FEATURES, or qemu's -cpu model) lacks
// is skipped, naming the feature; on other architectures the whole file is one skipped test.
// arm_lane_order_test.cpp checks the exact f32 order; arm_i8mm_test.cpp the i8mm kernels' order
// on more shapes.
#include <gtest/gtest.h>

#if !defined(__aarch64__)

TEST(ArmKernels, NotAnArmBuild) {
  GTEST_SKIP() << "not an AArch64 build";
}

#else

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/cpu_features.h"
#include "base/half.h"
#include "kernel_checks.h"
#include "kernels/arm/arm_kernels.h"
#include "kernels/kernel_table.h"
#include "kernels/ref/vec_dot.h"
#include "quant/blocks.h"
#include "quant/quant.h"

namespace kz {
namespace {

// Named tolerance: the kernels add the reference's exact integer block sums (float formats: the
// same f32 products) in another f32 order (8 lanes, fused multiply-add), i.e. at most a few
// dozen f32 roundings of terms bounded by `magnitude` (below), each <= 2^-24 relative; 1e-5
// leaves a margin of several times that worst case and still catches any wrong quant, scale or
// min (which moves the result by at least one term's size).
constexpr double kSumOrderRelTol = 1e-5;

enum class Isa { kNeon, kDotProd, kI8mm };

bool has(Isa isa) {
  const CpuFeatures& f = cpu_features();
  switch (isa) {
    case Isa::kNeon:
      return f.neon;
    case Isa::kDotProd:
      return f.neon && f.dotprod;
    case Isa::kI8mm:  // its gemv uses vdotq_s32
      return f.neon && f.dotprod && f.i8mm;
  }
  return false;
}
const char* isa_name(Isa isa) {
  return isa == Isa::kNeon ? "neon" : isa == Isa::kDotProd ? "dotprod" : "i8mm";
}
#define REQUIRE_ISA(isa) \
  if (!has(isa)) GTEST_SKIP() << "skipped (no " << isa_name(isa) << ")"

struct ArmKernel {
  DType weight;
  Isa isa;
  arm::GemvKernel* gemv;
  arm::GemmKernel* gemm;  // may be null
  const char* name;
};

const ArmKernel kKernels[] = {
    {DType::F32, Isa::kNeon, arm::gemv_f32_f32__neon, nullptr, "gemv_f32_f32__neon"},
    {DType::F16, Isa::kNeon, arm::gemv_f16_f16__neon, nullptr, "gemv_f16_f16__neon"},
    {DType::BF16, Isa::kNeon, arm::gemv_bf16_bf16__neon, nullptr, "gemv_bf16_bf16__neon"},
    {DType::Q4_0, Isa::kNeon, arm::gemv_q4_0_q8_0__neon, arm::gemm_q4_0_q8_0_4x1__neon,
     "q4_0_q8_0__neon"},
    {DType::Q8_0, Isa::kNeon, arm::gemv_q8_0_q8_0__neon, arm::gemm_q8_0_q8_0_4x1__neon,
     "q8_0_q8_0__neon"},
    {DType::Q4_K, Isa::kNeon, arm::gemv_q4_K_q8_K__neon, arm::gemm_q4_K_q8_K_4x1__neon,
     "q4_K_q8_K__neon"},
    {DType::Q5_K, Isa::kNeon, arm::gemv_q5_K_q8_K__neon, arm::gemm_q5_K_q8_K_4x1__neon,
     "q5_K_q8_K__neon"},
    {DType::Q6_K, Isa::kNeon, arm::gemv_q6_K_q8_K__neon, arm::gemm_q6_K_q8_K_4x1__neon,
     "q6_K_q8_K__neon"},
    {DType::Q4_0, Isa::kDotProd, arm::gemv_q4_0_q8_0__neon_dotprod,
     arm::gemm_q4_0_q8_0_4x1__neon_dotprod, "q4_0_q8_0__neon_dotprod"},
    {DType::Q8_0, Isa::kDotProd, arm::gemv_q8_0_q8_0__neon_dotprod,
     arm::gemm_q8_0_q8_0_4x1__neon_dotprod, "q8_0_q8_0__neon_dotprod"},
    {DType::Q4_K, Isa::kDotProd, arm::gemv_q4_K_q8_K__neon_dotprod,
     arm::gemm_q4_K_q8_K_4x1__neon_dotprod, "q4_K_q8_K__neon_dotprod"},
    {DType::Q5_K, Isa::kDotProd, arm::gemv_q5_K_q8_K__neon_dotprod,
     arm::gemm_q5_K_q8_K_4x1__neon_dotprod, "q5_K_q8_K__neon_dotprod"},
    {DType::Q6_K, Isa::kDotProd, arm::gemv_q6_K_q8_K__neon_dotprod,
     arm::gemm_q6_K_q8_K_4x1__neon_dotprod, "q6_K_q8_K__neon_dotprod"},
    {DType::Q4_0, Isa::kI8mm, arm::gemv_q4_0_q8_0__neon_i8mm, arm::gemm_q4_0_q8_0_4x4__neon_i8mm,
     "q4_0_q8_0__neon_i8mm"},
    {DType::Q8_0, Isa::kI8mm, arm::gemv_q8_0_q8_0__neon_i8mm, arm::gemm_q8_0_q8_0_4x4__neon_i8mm,
     "q8_0_q8_0__neon_i8mm"},
};

std::vector<float> floats_with_outlier(int64_t n, std::mt19937& rng, float scale) {
  std::vector<float> x = testing::gaussian(n, rng, scale);
  if (n > 3) x[static_cast<size_t>(n / 3)] = 4 * scale;  // an outlier
  return x;
}

// Byte offsets of the fp16 scale fields of a block, which random bytes must not fill with
// infinities or NaNs.
std::vector<int> half_fields(DType t) {
  switch (t) {
    case DType::Q4_0:
    case DType::Q8_0:
      return {0};
    case DType::Q4_K:
    case DType::Q5_K:
      return {0, 2};
    case DType::Q6_K:
      return {208};
    default:
      return {};
  }
}

// n_rows weight rows of n elements: quantized from Gaussian floats, or (raw) random bytes with
// finite scales, which reach quants (-128 in Q8_0) and 6-bit scales a quantizer rarely emits.
std::vector<uint8_t> weight_rows_all_types(DType t, int64_t n_rows, int64_t n, bool raw,
                                           std::mt19937& rng) {
  const uint64_t rb = row_bytes(t, n);
  std::vector<uint8_t> w(rb * n_rows);
  const int bs = info(t).block_size, bb = info(t).block_bytes;
  if (raw && bs > 1) {
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_real_distribution<float> scale(0.001f, 0.02f);
    for (auto& b : w) b = static_cast<uint8_t>(byte(rng));
    for (uint64_t blk = 0; blk < w.size() / bb; ++blk)
      for (int off : half_fields(t)) {
        const uint16_t h = fp32_to_fp16(scale(rng));
        std::memcpy(&w[blk * bb + off], &h, sizeof(h));
      }
    return w;
  }
  for (int64_t r = 0; r < n_rows; ++r) {
    const std::vector<float> x = floats_with_outlier(n, rng, 0.05f);
    quantize_row(t, x.data(), w.data() + r * rb, n);
  }
  return w;
}

// An upper bound of the f32 terms the kernels add (see kSumOrderRelTol): Σ |w_e · a_e|, plus
// the min terms Σ |dmin · m · a_e| of Q4_K / Q5_K, which the kernels subtract separately.
double magnitude(DType t, const uint8_t* w, const uint8_t* act, int64_t n) {
  const DType at = ref::vec_dot_type(t);
  std::vector<float> wv(static_cast<size_t>(n)), av(static_cast<size_t>(n));
  dequantize_row(t, w, wv.data(), n);
  dequantize_row(at, act, av.data(), n);
  double sum = 0;
  for (int64_t e = 0; e < n; ++e) sum += std::fabs(double(wv[e]) * av[e]);
  if (t == DType::Q4_K || t == DType::Q5_K) {
    const int bb = info(t).block_bytes;
    for (int64_t e = 0; e < n; ++e) {
      const uint8_t* blk = w + (e / kQK_K) * bb;
      uint16_t dmin;
      std::memcpy(&dmin, blk + 2, sizeof(dmin));
      uint8_t sc, m;
      scale_min_k4(static_cast<int>(e % kQK_K) / 32, blk + 4, &sc, &m);
      sum += std::fabs(double(fp16_to_fp32(dmin)) * m * av[e]);
    }
  }
  return sum;
}

std::vector<uint8_t> activation_rows(DType t, int64_t n_act, int64_t n, uint64_t stride,
                                     std::mt19937& rng) {
  std::vector<uint8_t> a(stride * n_act);
  for (int64_t i = 0; i < n_act; ++i) {
    const std::vector<float> x = floats_with_outlier(n, rng, 1.5f);
    ref::quantize_activation(ref::vec_dot_type(t), x.data(), a.data() + i * stride, n);
  }
  return a;
}

std::vector<int64_t> arm_lengths(DType t) {
  const int bs = info(t).block_size;
  if (bs == 1) return {1, 7, 31, 32, 33, 64, 100, 1000};  // float formats: the 32-step tails
  return {bs, 2 * bs, 7 * bs, 16 * bs};
}

void check_gemv_against_reference(Isa isa) {
  const int64_t kRows[] = {1, 2, 3, 17};
  std::mt19937 rng(7);
  for (const ArmKernel& c : kKernels) {
    if (c.isa != isa) continue;
    for (int64_t n : arm_lengths(c.weight))
      for (int64_t n_rows : kRows)
        for (bool raw : {false, true}) {
          SCOPED_TRACE(std::string(c.name) + " n=" + std::to_string(n) +
                       " rows=" + std::to_string(n_rows) + (raw ? " random bytes" : ""));
          const uint64_t rb = row_bytes(c.weight, n);
          const std::vector<uint8_t> w = weight_rows_all_types(c.weight, n_rows, n, raw, rng);
          const uint64_t ab = row_bytes(ref::vec_dot_type(c.weight), n);
          const std::vector<uint8_t> a = activation_rows(c.weight, 1, n, ab, rng);
          std::vector<float> y(static_cast<size_t>(n_rows) + 1, -1.0f);  // +1: no overrun
          c.gemv(w.data(), rb, n_rows, a.data(), n, y.data());
          EXPECT_EQ(y[n_rows], -1.0f) << "wrote past the last row";
          for (int64_t r = 0; r < n_rows; ++r) {
            const float expected = ref::vec_dot(c.weight, w.data() + r * rb, a.data(), n);
            const double bound =
                kSumOrderRelTol * magnitude(c.weight, w.data() + r * rb, a.data(), n);
            EXPECT_NEAR(y[r], expected, bound) << "row " << r;
          }
        }
  }
}

TEST(ArmKernels, GemvNeonMatchesReference) {
  REQUIRE_ISA(Isa::kNeon);
  check_gemv_against_reference(Isa::kNeon);
}

TEST(ArmKernels, GemvDotProdMatchesReference) {
  REQUIRE_ISA(Isa::kDotProd);
  check_gemv_against_reference(Isa::kDotProd);
}

TEST(ArmKernels, GemvI8mmMatchesReference) {
  REQUIRE_ISA(Isa::kI8mm);
  check_gemv_against_reference(Isa::kI8mm);
}

TEST(ArmKernels, NeonAndDotProdAgreeBitForBit) {
  // Both add the same exact integer block sums with the same f32 operations.
  REQUIRE_ISA(Isa::kDotProd);
  std::mt19937 rng(11);
  for (const ArmKernel& dot : kKernels) {
    if (dot.isa != Isa::kDotProd) continue;
    const ArmKernel* base = nullptr;
    for (const ArmKernel& c : kKernels)
      if (c.isa == Isa::kNeon && c.weight == dot.weight) base = &c;
    ASSERT_NE(base, nullptr) << dot.name;
    const int64_t n = 7 * info(dot.weight).block_size, n_rows = 5;
    const std::vector<uint8_t> w = weight_rows_all_types(dot.weight, n_rows, n, true, rng);
    const std::vector<uint8_t> a =
        activation_rows(dot.weight, 1, n, row_bytes(ref::vec_dot_type(dot.weight), n), rng);
    std::vector<float> y0(n_rows), y1(n_rows);
    base->gemv(w.data(), row_bytes(dot.weight, n), n_rows, a.data(), n, y0.data());
    dot.gemv(w.data(), row_bytes(dot.weight, n), n_rows, a.data(), n, y1.data());
    for (int64_t r = 0; r < n_rows; ++r) EXPECT_EQ(y0[r], y1[r]) << dot.name << " row " << r;
  }
}

void check_gemm_equals_gemv(Isa isa) {
  const int64_t kRows[] = {1, 2, 3, 9}, kActs[] = {1, 2, 3, 4, 5, 7, 9};
  std::mt19937 rng(13);
  for (const ArmKernel& c : kKernels) {
    if (c.isa != isa || !c.gemm) continue;
    for (int64_t n : arm_lengths(c.weight))
      for (int64_t n_rows : kRows)
        for (int64_t n_act : kActs) {
          SCOPED_TRACE(std::string(c.name) + " n=" + std::to_string(n) +
                       " rows=" + std::to_string(n_rows) + " acts=" + std::to_string(n_act));
          const bool raw = (n_rows + n_act) % 2 == 0;
          const uint64_t rb = row_bytes(c.weight, n);
          const std::vector<uint8_t> w = weight_rows_all_types(c.weight, n_rows, n, raw, rng);
          // Strided activations and outputs: 64 bytes and 3 floats of padding per row.
          const uint64_t act_stride = row_bytes(ref::vec_dot_type(c.weight), n) + 64;
          const int64_t y_stride = n_rows + 3;
          const std::vector<uint8_t> a = activation_rows(c.weight, n_act, n, act_stride, rng);
          std::vector<float> y(static_cast<size_t>(y_stride * n_act), -1.0f);
          c.gemm(w.data(), rb, n_rows, a.data(), act_stride, n_act, n, y.data(), y_stride);
          for (int64_t t = 0; t < n_act; ++t) {
            std::vector<float> expected(static_cast<size_t>(n_rows));
            c.gemv(w.data(), rb, n_rows, a.data() + t * act_stride, n, expected.data());
            for (int64_t r = 0; r < n_rows; ++r)
              EXPECT_EQ(y[t * y_stride + r], expected[r]) << "act " << t << " row " << r;
            for (int64_t r = n_rows; r < y_stride; ++r)
              EXPECT_EQ(y[t * y_stride + r], -1.0f) << "wrote into the stride padding";
          }
        }
  }
}

TEST(ArmKernels, GemmNeonEqualsGemv) {
  REQUIRE_ISA(Isa::kNeon);
  check_gemm_equals_gemv(Isa::kNeon);
}

TEST(ArmKernels, GemmDotProdEqualsGemv) {
  REQUIRE_ISA(Isa::kDotProd);
  check_gemm_equals_gemv(Isa::kDotProd);
}

TEST(ArmKernels, GemmI8mmEqualsGemv) {
  REQUIRE_ISA(Isa::kI8mm);
  check_gemm_equals_gemv(Isa::kI8mm);
}

TEST(ArmKernels, QuantizeQ8_0IsBitIdenticalToReference) {
  REQUIRE_ISA(Isa::kNeon);
  std::mt19937 rng(17);
  for (int64_t n : {32, 64, 7 * 32, 4096}) {
    std::vector<float> x = floats_with_outlier(n, rng, 2.0f);
    // Ties: amax = 127 gives id = 1, so x.5 values round half to even; and an all-zero block.
    if (n >= 64) {
      x[0] = 127.0f;
      for (int i = 1; i < 16; ++i) x[i] = (i % 2 ? 1 : -1) * (static_cast<float>(i) + 0.5f);
      for (int i = 32; i < 64; ++i) x[i] = 0.0f;
    }
    std::vector<uint8_t> got(row_bytes(DType::Q8_0, n)), expected(got.size());
    arm::quantize_q8_0__neon(x.data(), got.data(), n);
    ref::quantize_activation(DType::Q8_0, x.data(), expected.data(), n);
    EXPECT_EQ(got, expected) << "n=" << n;
  }
}

// The table for each feature level the CPU has, built in-process (as KAZEIA_CPU_FEATURES would
// mask them): which kernel each level picks.
TEST(ArmKernels, TableChoosesByFeature) {
  const CpuFeatures cpu = cpu_features();
  auto entry = [](const KernelTable& t, DType type) -> const MatmulKernel& {
    return t.matmul[static_cast<uint32_t>(type)];
  };
  const KernelTable scalar = build_kernel_table(CpuFeatures{});
  EXPECT_STREQ(entry(scalar, DType::Q4_0).name, "ref");
  EXPECT_STREQ(entry(scalar, DType::F16).name, "ref");
  if (!cpu.neon) GTEST_SKIP() << "skipped (no neon)";

  CpuFeatures neon;
  neon.neon = true;
  const KernelTable base = build_kernel_table(neon);
  SCOPED_TRACE(describe(base));
  EXPECT_STREQ(entry(base, DType::F16).name, "f16_f16 neon");
  EXPECT_EQ(entry(base, DType::BF16).gemv, &arm::gemv_bf16_bf16__neon);
  EXPECT_STREQ(entry(base, DType::Q4_0).name, "q4_0_q8_0 neon");
  EXPECT_EQ(entry(base, DType::Q6_K).gemv, &arm::gemv_q6_K_q8_K__neon);
  EXPECT_EQ(entry(base, DType::Q6_K).gemm, &arm::gemm_q6_K_q8_K_4x1__neon);
  EXPECT_EQ(entry(base, DType::Q4_0).quantize, &arm::quantize_q8_0__neon);
  // A reference gemv still takes the NEON converter: its bits are the reference's.
  EXPECT_STREQ(entry(base, DType::IQ4_NL).name, "ref");
  EXPECT_EQ(entry(base, DType::IQ4_NL).quantize, &arm::quantize_q8_0__neon);

  if (!cpu.dotprod) return;
  CpuFeatures dot = neon;
  dot.dotprod = true;
  const KernelTable with_dot = build_kernel_table(dot);
  EXPECT_STREQ(entry(with_dot, DType::Q4_0).name, "q4_0_q8_0 neon-dotprod");
  EXPECT_EQ(entry(with_dot, DType::Q6_K).gemv, &arm::gemv_q6_K_q8_K__neon_dotprod);
  EXPECT_EQ(entry(with_dot, DType::Q8_0).gemm, &arm::gemm_q8_0_q8_0_4x1__neon_dotprod);
  EXPECT_EQ(entry(with_dot, DType::F32).gemv, &arm::gemv_f32_f32__neon);

  if (!cpu.i8mm) return;
  CpuFeatures mm = dot;
  mm.i8mm = true;
  const KernelTable with_mm = build_kernel_table(mm);
  EXPECT_STREQ(entry(with_mm, DType::Q4_0).name, "q4_0_q8_0 neon-i8mm");
  EXPECT_EQ(entry(with_mm, DType::Q8_0).gemm, &arm::gemm_q8_0_q8_0_4x4__neon_i8mm);
  EXPECT_EQ(entry(with_mm, DType::Q4_K).gemm, &arm::gemm_q4_K_q8_K_4x1__neon_dotprod);
}

}  // namespace
}  // namespace kz

#endif  // __aarch64__
