// The x86 quantized dot products reproduce the summation order of the reference's AVX2 kernels
// (ggml-cpu/arch/x86/quants.c), which the fixtures' ref.json were computed with: the scalar
// model of that order (testing/avx2_order_model.h) must give the kernels' results bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "base/half.h"
#include "quant/blocks.h"
#include "testing/avx2_order_model.h"
#include "x86_test_util.h"

namespace kz {
namespace {

using testing::X86Level;
using testing::avx2_order::model;

class X86LaneOrder : public ::testing::TestWithParam<X86Level> {};

TEST_P(X86LaneOrder, QuantizedDotsFollowReferenceAvx2Order) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  for (DType t : {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K}) {
    const MatmulKernel& k = table.matmul[static_cast<uint32_t>(t)];
    for (int64_t n : {256, 768, 2048}) {
      const int64_t rows = 5;
      const auto w = testing::random_matrix(t, rows, n, uint32_t(n) + 11);
      const auto x = testing::random_floats(n, uint32_t(n) + 3, 2.0f);
      std::vector<uint8_t> act(row_bytes(k.act_type, n));
      k.quantize(x.data(), act.data(), n);
      std::vector<float> y(rows);
      k.gemv(w.data(), row_bytes(t, n), rows, act.data(), n, y.data());
      for (int64_t r = 0; r < rows; ++r)
        EXPECT_EQ(y[r], model(t, w.data() + r * row_bytes(t, n), act.data(), n))
            << k.name << " n=" << n << " row " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, X86LaneOrder,
                         ::testing::Values(X86Level::kAvx2, X86Level::kAvx512Vnni),
                         [](const auto& info) { return testing::level_name(info.param); });

}  // namespace
}  // namespace kz
