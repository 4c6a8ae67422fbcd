// The FEAT_I8MM kernels (kernels/arm/gemm_i8mm.cpp): Q4_0 / Q8_0 weights x Q8_0 activations in
// the block-sum order. Every output of gemv and gemm must equal the scalar model of that order
// (testing/block_sum_order_model.h) bit for bit, over row and token counts that reach every
// register tile and tail (rows 1-17, tokens 1-9), row lengths of 1 to 129 blocks, strided
// activations and outputs; and it must lie within a derived bound of the exact (double) dot
// product of the dequantized rows. Skipped where the CPU (or qemu's -cpu model, or
// KAZEIA_CPU_FEATURES) lacks i8mm or dotprod: always on x86, and at scripts/test_arm.sh's levels
// below max.
#include <gtest/gtest.h>

#if !defined(__aarch64__)

TEST(ArmI8mm, NotAnArmBuild) {
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
#include "testing/block_sum_order_model.h"

namespace kz {
namespace {

using testing::ExactDot;

#define REQUIRE_I8MM()                                                         \
  if (!(cpu_features().neon && cpu_features().dotprod && cpu_features().i8mm)) \
  GTEST_SKIP() << "skipped (no i8mm)"

struct I8mmKernel {
  DType weight;
  arm::GemvKernel* gemv;
  arm::GemmKernel* gemm;
  const char* name;
};

const I8mmKernel kI8mmKernels[] = {
    {DType::Q4_0, arm::gemv_q4_0_q8_0__neon_i8mm, arm::gemm_q4_0_q8_0_4x4__neon_i8mm, "q4_0"},
    {DType::Q8_0, arm::gemv_q8_0_q8_0__neon_i8mm, arm::gemm_q8_0_q8_0_4x4__neon_i8mm, "q8_0"},
};

const int64_t kLengths[] = {32, 64, 96, 256, 1024, 4096 + 32};
const int64_t kRows[] = {1, 2, 3, 4, 5, 7, 8, 9, 17};
const int64_t kTokens[] = {1, 2, 3, 4, 5, 7, 8, 9};

// n_act Q8_0 activation rows, stride bytes apart (the padding left at 0xAB).
std::vector<uint8_t> activation_rows(int64_t n_act, int64_t n, uint64_t stride, std::mt19937& rng) {
  std::vector<uint8_t> a(stride * n_act, 0xAB);
  for (int64_t t = 0; t < n_act; ++t) {
    const std::vector<float> x = testing::gaussian(n, rng, 1.5f);
    ref::quantize_activation(DType::Q8_0, x.data(), a.data() + t * stride, n);
  }
  return a;
}

// The exact dot product of the dequantized rows (each w_e · a_e is exact in double, and so is
// their sum to far below f32 precision), and Σ |w_e · a_e|.
ExactDot exact_dot(DType t, const uint8_t* w, const uint8_t* a, int64_t n) {
  std::vector<float> wv(static_cast<size_t>(n)), av(static_cast<size_t>(n));
  dequantize_row(t, w, wv.data(), n);
  dequantize_row(DType::Q8_0, a, av.data(), n);
  ExactDot e;
  for (int64_t i = 0; i < n; ++i) {
    e.value += double(wv[i]) * av[i];
    e.magnitude += std::fabs(double(wv[i]) * av[i]);
  }
  return e;
}

// The block-sum order rounds once per block for d_w · d_a (relative 2^-24 of that block's term)
// and once per fused multiply-add (2^-24 of the running sum, itself <= Σ |terms|): with nb
// blocks, |result - exact| <= (nb + 1) · 2^-24 · Σ |w_e · a_e| to first order; one more
// unit covers the higher-order terms. A wrong quant, scale or block moves the result by a whole
// term, far past this.
double error_bound(int64_t n, double magnitude) {
  return double(n / kQK + 2) * std::ldexp(1.0, -24) * magnitude;
}

TEST(ArmI8mm, GemvAndGemmFollowBlockSumModel) {
  REQUIRE_I8MM();
  std::mt19937 rng(23);
  for (const I8mmKernel& k : kI8mmKernels)
    for (int64_t n : kLengths)
      for (int64_t n_rows : kRows)
        for (int64_t n_tok : kTokens) {
          SCOPED_TRACE(std::string(k.name) + " n=" + std::to_string(n) +
                       " rows=" + std::to_string(n_rows) + " tokens=" + std::to_string(n_tok));
          const bool raw = (n_rows + n_tok) % 2 == 1;
          const uint64_t rb = row_bytes(k.weight, n);
          const std::vector<uint8_t> w = testing::weight_rows(k.weight, n_rows, n, raw, rng);
          // Strided activations and outputs: 32 bytes and 3 floats of padding per row.
          const uint64_t act_stride = row_bytes(DType::Q8_0, n) + 32;
          const int64_t y_stride = n_rows + 3;
          const std::vector<uint8_t> a = activation_rows(n_tok, n, act_stride, rng);

          std::vector<float> y(static_cast<size_t>(y_stride * n_tok), -1.0f);
          k.gemm(w.data(), rb, n_rows, a.data(), act_stride, n_tok, n, y.data(), y_stride);
          for (int64_t t = 0; t < n_tok; ++t) {
            const uint8_t* at = a.data() + t * act_stride;
            std::vector<float> yv(static_cast<size_t>(n_rows) + 1, -1.0f);  // +1: no overrun
            k.gemv(w.data(), rb, n_rows, at, n, yv.data());
            EXPECT_EQ(yv[n_rows], -1.0f) << "gemv wrote past the last row";
            for (int64_t r = 0; r < n_rows; ++r) {
              const uint8_t* wr = w.data() + r * rb;
              const float expected = testing::block_sum_order::model(k.weight, wr, at, n);
              EXPECT_EQ(yv[r], expected) << "gemv, token " << t << " row " << r;
              EXPECT_EQ(y[t * y_stride + r], expected) << "gemm, token " << t << " row " << r;
              EXPECT_EQ(y[t * y_stride + r], yv[r]) << "gemm != gemv, token " << t << " row " << r;
              const ExactDot e = exact_dot(k.weight, wr, at, n);
              EXPECT_NEAR(yv[r], e.value, error_bound(n, e.magnitude))
                  << "token " << t << " row " << r;
            }
            for (int64_t r = n_rows; r < y_stride; ++r)
              EXPECT_EQ(y[t * y_stride + r], -1.0f) << "gemm wrote into the stride padding";
          }
        }
}

// The reference's own dot product (kernels/ref/vec_dot.h) adds the same exact block sums in
// yet another order; both are within error_bound of the exact result, so within twice it of
// each other.
TEST(ArmI8mm, GemvAgreesWithReferenceWithinRounding) {
  REQUIRE_I8MM();
  std::mt19937 rng(29);
  for (const I8mmKernel& k : kI8mmKernels)
    for (int64_t n : kLengths) {
      SCOPED_TRACE(std::string(k.name) + " n=" + std::to_string(n));
      const int64_t n_rows = 9;
      const uint64_t rb = row_bytes(k.weight, n);
      const std::vector<uint8_t> w = testing::weight_rows(k.weight, n_rows, n, false, rng);
      const std::vector<uint8_t> a = activation_rows(1, n, row_bytes(DType::Q8_0, n), rng);
      std::vector<float> y(static_cast<size_t>(n_rows));
      k.gemv(w.data(), rb, n_rows, a.data(), n, y.data());
      for (int64_t r = 0; r < n_rows; ++r) {
        const float expected = ref::vec_dot(k.weight, w.data() + r * rb, a.data(), n);
        const ExactDot e = exact_dot(k.weight, w.data() + r * rb, a.data(), n);
        EXPECT_NEAR(y[r], expected, 2 * error_bound(n, e.magnitude)) << "row " << r;
      }
    }
}

// The kernel table takes these kernels only with i8mm and dotprod both reported; masking i8mm
// off (KAZEIA_CPU_FEATURES=neon,dotprod, or a core without it) keeps the dotprod kernels.
TEST(ArmI8mm, TableTakesI8mmKernelsOnlyWithI8mm) {
  REQUIRE_I8MM();
  auto entry = [](const KernelTable& t, DType type) -> const MatmulKernel& {
    return t.matmul[static_cast<uint32_t>(type)];
  };
  CpuFeatures f;
  f.neon = f.dotprod = f.i8mm = true;
  const KernelTable with = build_kernel_table(f);
  SCOPED_TRACE(describe(with));
  EXPECT_EQ(entry(with, DType::Q4_0).gemv, &arm::gemv_q4_0_q8_0__neon_i8mm);
  EXPECT_EQ(entry(with, DType::Q4_0).gemm, &arm::gemm_q4_0_q8_0_4x4__neon_i8mm);
  EXPECT_STREQ(entry(with, DType::Q8_0).name, "q8_0_q8_0 neon-i8mm");
  EXPECT_EQ(entry(with, DType::Q8_0).gemm, &arm::gemm_q8_0_q8_0_4x4__neon_i8mm);
  EXPECT_EQ(entry(with, DType::Q8_0).quantize, &arm::quantize_q8_0__neon);
  // Other types keep their dotprod kernels.
  EXPECT_EQ(entry(with, DType::Q6_K).gemv, &arm::gemv_q6_K_q8_K__neon_dotprod);

  f.i8mm = false;
  const KernelTable without = build_kernel_table(f);
  EXPECT_EQ(entry(without, DType::Q4_0).gemv, &arm::gemv_q4_0_q8_0__neon_dotprod);
  EXPECT_EQ(entry(without, DType::Q8_0).gemm, &arm::gemm_q8_0_q8_0_4x1__neon_dotprod);

  f.i8mm = true;
  f.dotprod = false;  // the i8mm gemv needs vdotq_s32
  const KernelTable no_dot = build_kernel_table(f);
  EXPECT_EQ(entry(no_dot, DType::Q4_0).gemv, &arm::gemv_q4_0_q8_0__neon);
}

}  // namespace
}  // namespace kz

#endif  // __aarch64__
