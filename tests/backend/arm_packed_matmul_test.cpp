// The cpu backend with the ARM i8mm table: with Matrix::derived the packed Q4_0 / Q8_0 kernels
// (kernels/arm/matmul_packed_i8mm.cpp) take matrices of a multiple of 4 rows and the row-major
// i8mm kernels the others; either way every output has the bits of the row-major kernels alone
// (no derived weights), for row counts on and off the group size, decode and prefill. Skipped
// where the CPU (or qemu's -cpu model, or KAZEIA_CPU_FEATURES) lacks i8mm or dotprod.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu_backend.h"
#include "base/cpu_features.h"
#include "kernels/kernel_table.h"
#include "quant/quant.h"

namespace kz {
namespace {

TEST(ArmPackedMatmul, BackendGivesRowMajorBitsForAnyRowCount) {
#if !defined(__aarch64__)
  GTEST_SKIP() << "not an AArch64 build";
#else
  if (!(cpu_features().neon && cpu_features().dotprod && cpu_features().i8mm))
    GTEST_SKIP() << "skipped (no i8mm)";
  CpuFeatures f;
  f.neon = f.dotprod = f.i8mm = true;
  const KernelTable table = build_kernel_table(f);
  CpuBackend cpu(2, &table);
  std::mt19937 rng(37);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  auto gaussian = [&](int64_t n, float scale) {
    std::vector<float> x(static_cast<size_t>(n));
    for (auto& v : x) v = scale * dist(rng);
    return x;
  };
  for (DType t : {DType::Q4_0, DType::Q8_0}) {
    ASSERT_EQ(table.matmul[static_cast<uint32_t>(t)].packed.rows, 4);
    for (int64_t rows : {4, 6, 37, 64, 133})
      for (int64_t n_tok : {1, 5}) {
        SCOPED_TRACE(std::string(dtype_name(t)) + " rows " + std::to_string(rows) + " tokens " +
                     std::to_string(n_tok));
        const int64_t cols = 512;
        const uint64_t rb = row_bytes(t, cols);
        std::vector<uint8_t> w(rb * rows);
        for (int64_t r = 0; r < rows; ++r)
          quantize_row(t, gaussian(cols, 0.05f).data(), w.data() + r * rb, cols);
        const std::vector<float> x = gaussian(cols * n_tok, 2.0f);
        Matrix m{t, cols, rows, w.data(), rb, "w", nullptr};
        std::vector<float> row_major(rows * n_tok), packed(rows * n_tok);
        cpu.matmul(m, x.data(), n_tok, row_major.data());
        m.derived = std::make_shared<DerivedWeights>();
        cpu.matmul(m, x.data(), n_tok, packed.data());
        EXPECT_EQ(packed, row_major);
      }
  }
#endif
}

}  // namespace
}  // namespace kz
