// The packed Q6_K kernels (kernel_table.h: PackedMatmul; x86/packed_q6_k_blocks.h) of every
// variant (x86_test_util.h: AVX2 in groups of 8 rows, AVX-512 VNNI in 16): every output is the Q6_K
// dot product (computed here exactly, in double, from the file's blocks and the reference's Q8_K
// activations) to within f32 rounding, gemm equals gemv bit for bit, the VNNI variants give
// AVX2's bits, and extreme quants and scales do not saturate.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "base/half.h"
#include "kernel_checks.h"
#include "kernels/ref/vec_dot.h"
#include "quant/blocks.h"
#include "x86_test_util.h"

namespace kz {
namespace {

using testing::ExactDot;

using testing::Variant;

// Row r's dot product with a Q8_K row, exactly, and the sum of its terms' magnitudes.
ExactDot exact_dot(const uint8_t* w_row, const std::vector<uint8_t>& q8k, int64_t n) {
  const auto* w = reinterpret_cast<const BlockQ6K*>(w_row);
  const auto* a = reinterpret_cast<const BlockQ8K*>(q8k.data());
  ExactDot e;
  for (int64_t b = 0; b < n / kQK_K; ++b) {
    int64_t isum = 0;
    for (int i = 0; i < kQK_K; ++i) {  // spec/quants.md §4.5
      const int h = i / 128, g = (i % 128) / 32, l = i % 32;
      const uint8_t byte = w[b].ql[64 * h + l + 32 * (g % 2)];
      const int low = g < 2 ? byte & 0xF : byte >> 4;
      const int high = (w[b].qh[32 * h + l] >> (2 * g)) & 3;
      isum += int64_t(w[b].scales[i / 16]) * ((low | high << 4) - 32) * a[b].qs[i];
    }
    const double dd = double(fp16_to_fp32(w[b].d)) * a[b].d;
    e.value += dd * double(isum);
    e.magnitude += std::abs(dd * double(isum));
  }
  return e;
}

// The packed matrix, and the exact value of each output.
struct PackedQ6K : testing::PackedMatrix {
  PackedQ6K(const KernelTable& table, std::vector<uint8_t> weights, int64_t rows_, int64_t n_)
      : PackedMatrix(table, DType::Q6_K, std::move(weights), rows_, n_) {}
  std::vector<uint8_t> q8k(const float* x) const {
    std::vector<uint8_t> a(row_bytes(DType::Q8_K, n));
    ref::quantize_activation(DType::Q8_K, x, a.data(), n);
    return a;
  }
  void expect_exact(float got, int64_t r, const std::vector<uint8_t>& q8k) const {
    const ExactDot e = exact_dot(w.data() + r * rb(), q8k, n);
    // f32 products and one f32 accumulator over n / 256 super-blocks, each term converted to f32.
    const double bound = 1e-6 * double(n / kQK_K + 2) * e.magnitude;
    EXPECT_NEAR(got, e.value, bound) << "row " << r << " n " << n;
  }
};

class X86PackedQ6K : public ::testing::TestWithParam<Variant> {};

TEST_P(X86PackedQ6K, GemvIsTheDotProductAndGemmEqualsGemv) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  const auto avx2_table = testing::table_for(Variant::kAvx2);
  const int64_t group = table.matmul[static_cast<uint32_t>(DType::Q6_K)].packed.rows;
  ASSERT_EQ(group, testing::k_quant_group_rows(GetParam()));
  for (int64_t rows : {group, 2 * group, 5 * group}) {
    for (int64_t n : {256, 512, 3 * 256, 17 * 256}) {
      SCOPED_TRACE("rows " + std::to_string(rows) + " n " + std::to_string(n));
      const auto w = testing::random_matrix(DType::Q6_K, rows, n, uint32_t(rows + n));
      const PackedQ6K pk(table, w, rows, n), avx2(*avx2_table, w, rows, n);
      const int64_t max_tok = 11;
      const auto x = testing::random_floats(n * max_tok, uint32_t(n) + 5, 2.0f);
      std::vector<uint8_t> acts(pk.act_row() * max_tok);
      std::vector<float> gemv_y(max_tok * rows);
      for (int64_t i = 0; i < max_tok; ++i) {
        const auto a = pk.act(x.data() + i * n);
        std::memcpy(acts.data() + i * pk.act_row(), a.data(), a.size());
        pk.p.gemv(pk.packed.data(), pk.rb(), rows, a.data(), n, gemv_y.data() + i * rows);
        const auto q8k = pk.q8k(x.data() + i * n);
        for (int64_t r = 0; r < rows; ++r) pk.expect_exact(gemv_y[i * rows + r], r, q8k);
        std::vector<float> avx2_y(rows);
        avx2.p.gemv(avx2.packed.data(), avx2.rb(), rows, avx2.act(x.data() + i * n).data(), n,
                    avx2_y.data());
        for (int64_t r = 0; r < rows; ++r)
          ASSERT_EQ(gemv_y[i * rows + r], avx2_y[r]) << "token " << i << " row " << r;
      }
      // gemm on 1..9 tokens (every tail of its token groups) and more, from the second row
      // group on when there is one.
      for (int64_t n_tok : {1, 2, 3, 4, 5, 6, 7, 8, 9, 11}) {
        const int64_t r0 = rows > group ? group : 0;
        std::vector<float> y(n_tok * rows, -1.0f);
        pk.p.gemm(pk.packed.data() + r0 * pk.rb(), pk.rb(), rows - r0, acts.data(), pk.act_row(),
                  n_tok, n, y.data() + r0, rows);
        for (int64_t i = 0; i < n_tok; ++i)
          for (int64_t r = r0; r < rows; ++r)
            ASSERT_EQ(y[i * rows + r], gemv_y[i * rows + r])
                << n_tok << " tokens, token " << i << " row " << r;
      }
    }
  }
}

// Quants of 0 and 63 (-32 and 31) with scales of -128 and 127 against activations of +-128 and
// +-127: no int16 pair sum may saturate, which random rows never reach.
TEST_P(X86PackedQ6K, ExtremeQuantsDoNotSaturate) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  const int64_t rows = testing::k_quant_group_rows(GetParam()), n = 512;
  std::vector<uint8_t> w(row_bytes(DType::Q6_K, n) * rows);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t b = 0; b < n / kQK_K; ++b) {
      auto& blk = reinterpret_cast<BlockQ6K*>(w.data() + r * row_bytes(DType::Q6_K, n))[b];
      blk.d = fp32_to_fp16(0.5f);
      for (int s = 0; s < 16; ++s) blk.scales[s] = int8_t((r / 2) % 2 ? 127 : -128);
      std::memset(blk.ql, r % 2 ? 0xFF : 0x00, sizeof blk.ql);
      std::memset(blk.qh, r % 2 ? 0xFF : 0x00, sizeof blk.qh);
    }
  // The table outlives both matrices (PackedMatrix keeps a reference to its kernels).
  const std::optional<KernelTable> avx2_table = testing::table_for(Variant::kAvx2);
  ASSERT_TRUE(avx2_table.has_value());
  const PackedQ6K pk(table, w, rows, n), avx2(*avx2_table, w, rows, n);
  for (float sign : {1.0f, -1.0f}) {
    std::vector<float> x(n, sign);
    x[7] = -2 * sign;  // the extreme maps to -128 (or 127): both ends occur
    const auto a = pk.act(x.data());
    const auto q8k = pk.q8k(x.data());
    std::vector<float> y(rows), avx2_y(rows);
    pk.p.gemv(pk.packed.data(), pk.rb(), rows, a.data(), n, y.data());
    avx2.p.gemv(avx2.packed.data(), avx2.rb(), rows, avx2.act(x.data()).data(), n, avx2_y.data());
    for (int64_t r = 0; r < rows; ++r) {
      pk.expect_exact(y[r], r, q8k);
      EXPECT_EQ(y[r], avx2_y[r]) << "row " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, X86PackedQ6K,
                         ::testing::Values(Variant::kAvx2, Variant::kAvx512Vnni),
                         [](const auto& info) { return testing::level_name(info.param); });

}  // namespace
}  // namespace kz
