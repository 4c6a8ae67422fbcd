// The ARM matrix-product kernels of the neon and dotprod levels follow the f32 order of the
// reference implementation's x86 AVX2 kernels (kernels/arm/quant_dot.h, gemv_float_neon.cpp), as
// kernels/x86 does, so an ARM device and an x86 machine give a model the same bits. This scalar
// model of that order must give those kernels' results bit for bit. (The quantized part is the
// model of x86_lane_order_test.cpp, which checks the x86 kernels against it.) The i8mm level's
// Q4_0 / Q8_0 kernels follow the block-sum order instead (kernels/arm/gemm_i8mm.cpp,
// testing/block_sum_order_model.h); the last test checks that the kernel table of the running
// level follows the order expected of it.
#include <gtest/gtest.h>

#if !defined(__aarch64__)

TEST(ArmLaneOrder, NotAnArmBuild) {
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
#include "testing/avx2_order_model.h"
#include "testing/block_sum_order_model.h"

namespace kz {
namespace {

using OrderModel = float(DType, const uint8_t*, const uint8_t*, int64_t);

enum class Level { kNeon, kDotProd, kI8mm };

bool has(Level level) {
  const CpuFeatures& f = cpu_features();
  switch (level) {
    case Level::kNeon:
      return f.neon;
    case Level::kDotProd:
      return f.neon && f.dotprod;
    case Level::kI8mm:
      return f.neon && f.dotprod && f.i8mm;
  }
  return false;
}
const char* level_name(Level level) {
  return level == Level::kNeon ? "neon" : level == Level::kDotProd ? "dotprod" : "i8mm";
}

struct LaneCase {
  DType type;
  Level level;
  arm::GemvKernel* gemv;
  OrderModel* model;
};

OrderModel* const kAvx2 = testing::avx2_order::model;
OrderModel* const kBlockSum = testing::block_sum_order::model;

// The order a kernel of the table follows, given the features the table was built for.
OrderModel* expected_model(DType type, const CpuFeatures& f) {
  const bool i8mm = f.neon && f.dotprod && f.i8mm;
  return i8mm && (type == DType::Q4_0 || type == DType::Q8_0) ? kBlockSum : kAvx2;
}

const LaneCase kCases[] = {
    {DType::F32, Level::kNeon, arm::gemv_f32_f32__neon, kAvx2},
    {DType::F16, Level::kNeon, arm::gemv_f16_f16__neon, kAvx2},
    {DType::BF16, Level::kNeon, arm::gemv_bf16_bf16__neon, kAvx2},
    {DType::Q4_0, Level::kNeon, arm::gemv_q4_0_q8_0__neon, kAvx2},
    {DType::Q8_0, Level::kNeon, arm::gemv_q8_0_q8_0__neon, kAvx2},
    {DType::Q4_K, Level::kNeon, arm::gemv_q4_K_q8_K__neon, kAvx2},
    {DType::Q5_K, Level::kNeon, arm::gemv_q5_K_q8_K__neon, kAvx2},
    {DType::Q6_K, Level::kNeon, arm::gemv_q6_K_q8_K__neon, kAvx2},
    {DType::Q4_0, Level::kDotProd, arm::gemv_q4_0_q8_0__neon_dotprod, kAvx2},
    {DType::Q8_0, Level::kDotProd, arm::gemv_q8_0_q8_0__neon_dotprod, kAvx2},
    {DType::Q4_K, Level::kDotProd, arm::gemv_q4_K_q8_K__neon_dotprod, kAvx2},
    {DType::Q5_K, Level::kDotProd, arm::gemv_q5_K_q8_K__neon_dotprod, kAvx2},
    {DType::Q6_K, Level::kDotProd, arm::gemv_q6_K_q8_K__neon_dotprod, kAvx2},
    {DType::Q4_0, Level::kI8mm, arm::gemv_q4_0_q8_0__neon_i8mm, kBlockSum},
    {DType::Q8_0, Level::kI8mm, arm::gemv_q8_0_q8_0__neon_i8mm, kBlockSum},
};

// n-element weight rows and one activation row of the type's activation format.
struct Operands {
  uint64_t rb;
  std::vector<uint8_t> w, act;
};
Operands operands(DType type, int64_t rows, int64_t n, std::mt19937& rng) {
  Operands o{row_bytes(type, n), {}, {}};
  o.w.resize(o.rb * rows);
  for (int64_t r = 0; r < rows; ++r) {
    const std::vector<float> x = testing::gaussian(n, rng, 0.5f);
    quantize_row(type, x.data(), o.w.data() + r * o.rb, n);
  }
  const DType at = ref::vec_dot_type(type);
  o.act.resize(row_bytes(at, n));
  const std::vector<float> x = testing::gaussian(n, rng, 2.0f);
  ref::quantize_activation(at, x.data(), o.act.data(), n);
  return o;
}

std::vector<int64_t> lane_order_lengths(DType type) {
  return info(type).block_size == 1 ? std::vector<int64_t>{7, 32, 100, 1000}
                                    : std::vector<int64_t>{256, 768, 2048};
}

TEST(ArmLaneOrder, KernelsFollowTheirOrderModel) {
  if (!has(Level::kNeon)) GTEST_SKIP() << "skipped (no neon)";
  std::mt19937 rng(5);
  for (const LaneCase& c : kCases) {
    if (!has(c.level)) continue;  // arm_kernels_test.cpp reports the skip
    for (int64_t n : lane_order_lengths(c.type)) {
      const int64_t rows = 5;
      const Operands o = operands(c.type, rows, n, rng);
      std::vector<float> y(rows);
      c.gemv(o.w.data(), o.rb, rows, o.act.data(), n, y.data());
      for (int64_t r = 0; r < rows; ++r)
        EXPECT_EQ(y[r], c.model(c.type, o.w.data() + r * o.rb, o.act.data(), n))
            << dtype_name(c.type) << " " << level_name(c.level) << " n=" << n << " row " << r;
    }
  }
}

// What the cpu backend runs: the kernel table of this process's features (qemu's CPU model,
// KAZEIA_CPU_FEATURES). Q4_0 / Q8_0 follow the block-sum order at the i8mm level, every other
// accelerated entry the AVX2 order; a table that picked the wrong level's kernel fails here.
TEST(ArmLaneOrder, TableFollowsTheOrderOfItsLevel) {
  const KernelTable& table = kernel_table();
  if (!table.features.neon) GTEST_SKIP() << "skipped (no neon)";
  SCOPED_TRACE(describe(table));
  std::mt19937 rng(31);
  for (const LaneCase& c : kCases) {
    if (c.level != Level::kNeon) continue;  // one check per type
    const MatmulKernel& k = table.matmul[static_cast<uint32_t>(c.type)];
    OrderModel* model = expected_model(c.type, table.features);
    for (int64_t n : lane_order_lengths(c.type)) {
      const int64_t rows = 5, n_tok = 3;
      const Operands o = operands(c.type, rows, n, rng);
      std::vector<float> y(rows), yg(rows * n_tok);
      k.gemv(o.w.data(), o.rb, rows, o.act.data(), n, y.data());
      // gemm on 3 copies of the activation row: every token's output must be gemv's.
      if (k.gemm) {
        std::vector<uint8_t> acts;
        for (int t = 0; t < n_tok; ++t) acts.insert(acts.end(), o.act.begin(), o.act.end());
        k.gemm(o.w.data(), o.rb, rows, acts.data(), o.act.size(), n_tok, n, yg.data(), rows);
      }
      for (int64_t r = 0; r < rows; ++r) {
        const float expected = model(c.type, o.w.data() + r * o.rb, o.act.data(), n);
        EXPECT_EQ(y[r], expected) << k.name << " n=" << n << " row " << r;
        for (int t = 0; k.gemm && t < n_tok; ++t)
          EXPECT_EQ(yg[t * rows + r], expected) << k.name << " gemm n=" << n << " token " << t;
      }
    }
  }
}

}  // namespace
}  // namespace kz

#endif  // __aarch64__
