// x86 matrix-product kernels (kernels/x86) against the reference dot products
// (kernels/ref/vec_dot.h), for every accelerated weight type and ISA level, over shapes with
// K below / at / above / at multiples of the block, row counts past the register tiles, and 1..7
// tokens for gemm. Levels the CPU lacks are skipped.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/ref/vec_dot.h"
#include "quant/blocks.h"
#include "x86_test_util.h"

namespace kz {
namespace {

using testing::X86Level;

// The fast kernels add the same f32-rounded block terms as the reference in another order
// (8 lanes, FMA); 2e-5 of sum |w*a| is ~100x the f32 rounding of a few hundred terms.
constexpr double kFastDotRelTol = 2e-5;

const DType kWeightTypes[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q4_0,
                              DType::Q8_0, DType::Q4_K, DType::Q5_K, DType::Q6_K};

// Row lengths per block size: below/at/above/multiples of the kernels' 32-element steps.
std::vector<int64_t> matmul_lengths(DType t) {
  const int bs = info(t).block_size;
  if (bs == 256) return {256, 512, 768, 2304};
  if (bs == 32) return {32, 64, 96, 224, 1024, 1056};
  return {1, 7, 8, 31, 32, 33, 64, 100, 256, 1000};
}
const int64_t kRowCounts[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33};

struct Problem {
  DType type;
  int64_t n, rows, n_tok;
  std::vector<uint8_t> w;
  std::vector<float> x;  // [n_tok][n]
  std::vector<uint8_t> act;
  uint64_t act_row = 0;
};

Problem make_problem(const KernelTable& table, DType t, int64_t n, int64_t rows, int64_t n_tok,
                     uint32_t seed) {
  Problem p{t, n, rows, n_tok, testing::random_matrix(t, rows, n, seed), {}, {}, 0};
  const MatmulKernel& k = table.matmul[static_cast<uint32_t>(t)];
  p.act_row = row_bytes(k.act_type, n);
  p.act.resize(p.act_row * n_tok);
  for (int64_t i = 0; i < n_tok; ++i) {
    auto xi = testing::random_floats(n, seed * 31 + uint32_t(i), 2.0f);
    p.x.insert(p.x.end(), xi.begin(), xi.end());
    k.quantize(xi.data(), p.act.data() + i * p.act_row, n);
  }
  return p;
}

// sum |w_i * a_i| of the dequantized operands, the scale of the rounding error.
double abs_dot(DType t, DType act_type, const uint8_t* w, const uint8_t* a, int64_t n) {
  std::vector<float> wf(n), af(n);
  dequantize_row(t, w, wf.data(), n);
  dequantize_row(act_type, a, af.data(), n);
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += std::fabs(double(wf[i]) * af[i]);
  return s;
}

class X86Matmul : public ::testing::TestWithParam<X86Level> {};

TEST_P(X86Matmul, ActivationConverterMatchesReferenceBytes) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  for (DType t : kWeightTypes) {
    const MatmulKernel& k = table.matmul[static_cast<uint32_t>(t)];
    for (int64_t n : matmul_lengths(t)) {
      const auto x = testing::random_floats(n, uint32_t(n) + 5, 3.0f);
      std::vector<uint8_t> fast(row_bytes(k.act_type, n)), ref(fast.size());
      k.quantize(x.data(), fast.data(), n);
      ref::quantize_activation(k.act_type, x.data(), ref.data(), n);
      EXPECT_EQ(0, std::memcmp(fast.data(), ref.data(), fast.size()))
          << dtype_name(t) << " n=" << n;
    }
  }
}

TEST_P(X86Matmul, GemvMatchesReferenceDot) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  for (DType t : kWeightTypes) {
    const MatmulKernel& k = table.matmul[static_cast<uint32_t>(t)];
    ASSERT_NE(std::string(k.name), "ref") << dtype_name(t) << " has no x86 kernel";
    for (int64_t n : matmul_lengths(t)) {
      for (int64_t rows : kRowCounts) {
        Problem p = make_problem(table, t, n, rows, 1, uint32_t(n * 7 + rows));
        const uint64_t rb = row_bytes(t, n);
        std::vector<float> y(rows, NAN);
        k.gemv(p.w.data(), rb, rows, p.act.data(), n, y.data());
        for (int64_t r = 0; r < rows; ++r) {
          const double want = ref::vec_dot(t, p.w.data() + r * rb, p.act.data(), n);
          const double scale = abs_dot(t, k.act_type, p.w.data() + r * rb, p.act.data(), n);
          ASSERT_NEAR(y[r], want, kFastDotRelTol * scale + 1e-30)
              << k.name << " n=" << n << " rows=" << rows << " row " << r;
        }
      }
    }
  }
}

// gemm is gemv for several tokens at once: the same bits, whatever the tile.
TEST_P(X86Matmul, GemmEqualsGemvBitForBit) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  for (DType t : kWeightTypes) {
    const MatmulKernel& k = table.matmul[static_cast<uint32_t>(t)];
    if (!k.gemm) continue;
    for (int64_t n : matmul_lengths(t)) {
      for (int64_t rows : {1, 2, 3, 5, 16, 17}) {
        for (int64_t n_tok = 1; n_tok <= 7; ++n_tok) {
          Problem p = make_problem(table, t, n, rows, n_tok, uint32_t(n + rows * 13 + n_tok));
          const uint64_t rb = row_bytes(t, n);
          const int64_t stride = rows + 3;  // a strided output
          std::vector<float> y(n_tok * stride, NAN), want(n_tok * rows);
          k.gemm(p.w.data(), rb, rows, p.act.data(), p.act_row, n_tok, n, y.data(), stride);
          for (int64_t i = 0; i < n_tok; ++i)
            k.gemv(p.w.data(), rb, rows, p.act.data() + i * p.act_row, n, want.data() + i * rows);
          for (int64_t i = 0; i < n_tok; ++i)
            for (int64_t r = 0; r < rows; ++r)
              ASSERT_EQ(y[i * stride + r], want[i * rows + r])
                  << k.name << " n=" << n << " rows=" << rows << " tokens=" << n_tok;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, X86Matmul,
                         ::testing::Values(X86Level::kAvx2, X86Level::kAvx512Vnni),
                         [](const auto& info) { return testing::level_name(info.param); });

}  // namespace
}  // namespace kz
