// The ARM matrix-product kernels follow the f32 order of the reference implementation's x86 AVX2
// kernels (kernels/arm/quant_dot.h, gemv_float_neon.cpp), as kernels/x86 does, so an ARM device
// and an x86 machine give a model the same bits. This scalar model of that order must give the
// ARM kernels' results bit for bit. (The quantized part is the model of
// x86_lane_order_test.cpp, which checks the x86 kernels against it.)
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
#include "kernels/arm/arm_kernels.h"
#include "kernels/ref/vec_dot.h"
#include "quant/blocks.h"
#include "quant/quant.h"
#include "testing/avx2_order_model.h"

namespace kz {
namespace {

using testing::avx2_order::model;

struct Case {
  DType type;
  bool dotprod;
  arm::GemvKernel* gemv;
};

const Case kCases[] = {
    {DType::F32, false, arm::gemv_f32_f32__neon},
    {DType::F16, false, arm::gemv_f16_f16__neon},
    {DType::BF16, false, arm::gemv_bf16_bf16__neon},
    {DType::Q4_0, false, arm::gemv_q4_0_q8_0__neon},
    {DType::Q8_0, false, arm::gemv_q8_0_q8_0__neon},
    {DType::Q4_K, false, arm::gemv_q4_K_q8_K__neon},
    {DType::Q5_K, false, arm::gemv_q5_K_q8_K__neon},
    {DType::Q6_K, false, arm::gemv_q6_K_q8_K__neon},
    {DType::Q4_0, true, arm::gemv_q4_0_q8_0__neon_dotprod},
    {DType::Q8_0, true, arm::gemv_q8_0_q8_0__neon_dotprod},
    {DType::Q4_K, true, arm::gemv_q4_K_q8_K__neon_dotprod},
    {DType::Q5_K, true, arm::gemv_q5_K_q8_K__neon_dotprod},
    {DType::Q6_K, true, arm::gemv_q6_K_q8_K__neon_dotprod},
};

std::vector<float> gaussian(int64_t n, std::mt19937& rng, float scale) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> x(static_cast<size_t>(n));
  for (auto& v : x) v = dist(rng);
  return x;
}

TEST(ArmLaneOrder, KernelsFollowReferenceAvx2Order) {
  const CpuFeatures& f = cpu_features();
  if (!f.neon) GTEST_SKIP() << "skipped (no neon)";
  std::mt19937 rng(5);
  for (const Case& c : kCases) {
    if (c.dotprod && !f.dotprod) continue;  // arm_kernels_test.cpp reports the skip
    const int bs = info(c.type).block_size;
    const std::vector<int64_t> lengths =
        bs == 1 ? std::vector<int64_t>{7, 32, 100, 1000} : std::vector<int64_t>{256, 768, 2048};
    for (int64_t n : lengths) {
      const int64_t rows = 5;
      const uint64_t rb = row_bytes(c.type, n);
      std::vector<uint8_t> w(rb * rows);
      for (int64_t r = 0; r < rows; ++r) {
        const std::vector<float> x = gaussian(n, rng, 0.5f);
        quantize_row(c.type, x.data(), w.data() + r * rb, n);
      }
      const DType at = ref::vec_dot_type(c.type);
      std::vector<uint8_t> act(row_bytes(at, n));
      const std::vector<float> x = gaussian(n, rng, 2.0f);
      ref::quantize_activation(at, x.data(), act.data(), n);
      std::vector<float> y(rows);
      c.gemv(w.data(), rb, rows, act.data(), n, y.data());
      for (int64_t r = 0; r < rows; ++r)
        EXPECT_EQ(y[r], model(c.type, w.data() + r * rb, act.data(), n))
            << dtype_name(c.type) << (c.dotprod ? " dotprod" : " neon") << " n=" << n << " row "
            << r;
    }
  }
}

}  // namespace
}  // namespace kz

#endif  // __aarch64__
