// The packed Q4_K and Q5_K kernels (kernel_table.h: PackedMatmul; x86/packed_q4_k_blocks.h) of
// every variant (x86_test_util.h: AVX2 in groups of 8 rows, AVX-512 VNNI in 16): every output is
// the Q4_K / Q5_K dot product (computed here exactly, in double, from the file's blocks and the
// reference's Q8_K activations) to within f32 rounding, gemm equals gemv bit for bit, the VNNI
// variants give AVX2's bits, and extreme quants do not saturate.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
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

// The fields of a Q4_K or Q5_K super-block (Q4_K: no fifth bits).
struct KBlock {
  uint16_t d, dmin;
  const uint8_t *scales, *qs, *qh;
};
KBlock k_block(DType t, const uint8_t* row, int64_t b) {
  if (t == DType::Q5_K) {
    const BlockQ5K& q = reinterpret_cast<const BlockQ5K*>(row)[b];
    return {q.d, q.dmin, q.scales, q.qs, q.qh};
  }
  const BlockQ4K& q = reinterpret_cast<const BlockQ4K*>(row)[b];
  return {q.d, q.dmin, q.scales, q.qs, nullptr};
}

// Row r's dot product with a Q8_K row, exactly, and the sum of its terms' magnitudes.
ExactDot exact_dot(DType t, const uint8_t* w_row, const std::vector<uint8_t>& q8k, int64_t n) {
  const auto* a = reinterpret_cast<const BlockQ8K*>(q8k.data());
  ExactDot e;
  for (int64_t b = 0; b < n / kQK_K; ++b) {
    const KBlock w = k_block(t, w_row, b);
    uint8_t sc[8], m[8];
    for (int s = 0; s < 8; ++s) {  // spec/quants.md §4.1
      const uint8_t* p = w.scales;
      sc[s] = s < 4 ? p[s] & 63 : uint8_t((p[s + 4] & 0xF) | ((p[s - 4] >> 6) << 4));
      m[s] = s < 4 ? p[s + 4] & 63 : uint8_t((p[s + 4] >> 4) | ((p[s] >> 6) << 4));
    }
    int64_t isum = 0, imin = 0;
    for (int s = 0; s < 8; ++s) {
      int64_t sumi = 0, sum_a = 0;
      for (int e = 0; e < 32; ++e) {
        const int idx = 32 * s + e;  // chunk s / 2: low nibbles for even s, high for odd
        const uint8_t byte = w.qs[32 * (s / 2) + e];
        const int fifth = w.qh ? (w.qh[e] >> s & 1) << 4 : 0;  // §4.4
        const int q = (s % 2 ? byte >> 4 : byte & 0xF) | fifth;
        sumi += q * a[b].qs[idx];
        sum_a += a[b].qs[idx];
      }
      isum += sc[s] * sumi;
      imin += m[s] * sum_a;
    }
    const double dd = double(fp16_to_fp32(w.d)) * a[b].d;
    const double dm = double(fp16_to_fp32(w.dmin)) * a[b].d;
    e.value += dd * double(isum) - dm * double(imin);
    e.magnitude += std::abs(dd * double(isum)) + std::abs(dm * double(imin));
  }
  return e;
}

// The packed matrix, and the exact value of each output.
struct PackedK : testing::PackedMatrix {
  PackedK(const KernelTable& table, DType t, std::vector<uint8_t> weights, int64_t rows_,
          int64_t n_)
      : PackedMatrix(table, t, std::move(weights), rows_, n_) {}
  std::vector<uint8_t> q8k(const float* x) const {
    std::vector<uint8_t> a(row_bytes(DType::Q8_K, n));
    ref::quantize_activation(DType::Q8_K, x, a.data(), n);
    return a;
  }
  void expect_exact(float got, int64_t r, const std::vector<uint8_t>& q8k) const {
    const ExactDot e = exact_dot(type, w.data() + r * rb(), q8k, n);
    // f32 products and one f32 accumulator over n / 256 super-blocks, two terms each.
    const double bound = 1e-6 * double(n / kQK_K + 2) * e.magnitude;
    EXPECT_NEAR(got, e.value, bound) << "row " << r << " n " << n;
  }
};

class X86PackedQ4K : public ::testing::TestWithParam<std::tuple<Variant, DType>> {};

TEST_P(X86PackedQ4K, GemvIsTheDotProductAndGemmEqualsGemv) {
  const auto [variant, type] = GetParam();
  KZ_TABLE_OR_SKIP(variant, table);
  const auto avx2_table = testing::table_for(Variant::kAvx2);
  const int64_t group = table.matmul[static_cast<uint32_t>(type)].packed.rows;
  ASSERT_EQ(group, testing::k_quant_group_rows(variant));
  for (int64_t rows : {group, 2 * group, 5 * group}) {
    for (int64_t n : {256, 512, 3 * 256, 17 * 256}) {
      SCOPED_TRACE("rows " + std::to_string(rows) + " n " + std::to_string(n));
      const auto w = testing::random_matrix(type, rows, n, uint32_t(rows + n));
      const PackedK pk(table, type, w, rows, n), avx2(*avx2_table, type, w, rows, n);
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
        avx2.p.gemv(avx2.packed.data(), avx2.rb(), rows, a.data(), n, avx2_y.data());
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

// All-15 (Q5_K: 31) and all-0 quants with the largest scales and mins against activations of
// +-128 and +-127: no int16 pair sum may saturate, which random rows never reach.
template <class Block>
void fill_extreme(std::vector<uint8_t>& w, int64_t rows, int64_t n, DType t) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t b = 0; b < n / kQK_K; ++b) {
      auto& blk = reinterpret_cast<Block*>(w.data() + r * row_bytes(t, n))[b];
      blk.d = fp32_to_fp16(0.5f);
      blk.dmin = fp32_to_fp16(0.25f);
      std::memset(blk.scales, 0xFF, sizeof blk.scales);  // every scale and min 63
      std::memset(blk.qs, r % 2 ? 0xFF : 0x00, sizeof blk.qs);
      if constexpr (std::is_same_v<Block, BlockQ5K>)
        std::memset(blk.qh, r % 2 ? 0xFF : 0x00, sizeof blk.qh);
    }
}

TEST_P(X86PackedQ4K, ExtremeQuantsDoNotSaturate) {
  const auto [variant, type] = GetParam();
  KZ_TABLE_OR_SKIP(variant, table);
  const int64_t rows = testing::k_quant_group_rows(variant), n = 512;
  std::vector<uint8_t> w(row_bytes(type, n) * rows);
  if (type == DType::Q5_K)
    fill_extreme<BlockQ5K>(w, rows, n, type);
  else
    fill_extreme<BlockQ4K>(w, rows, n, type);
  // The table outlives both matrices (PackedMatrix keeps a reference to its kernels).
  const std::optional<KernelTable> avx2_table = testing::table_for(Variant::kAvx2);
  ASSERT_TRUE(avx2_table.has_value());
  const PackedK pk(table, type, w, rows, n), avx2(*avx2_table, type, w, rows, n);
  for (float sign : {1.0f, -1.0f}) {
    std::vector<float> x(n, sign);
    x[7] = -2 * sign;  // the extreme maps to -128 (or 127): both ends occur
    const auto a = pk.act(x.data());
    const auto q8k = pk.q8k(x.data());
    std::vector<float> y(rows), avx2_y(rows);
    pk.p.gemv(pk.packed.data(), pk.rb(), rows, a.data(), n, y.data());
    avx2.p.gemv(avx2.packed.data(), avx2.rb(), rows, a.data(), n, avx2_y.data());
    for (int64_t r = 0; r < rows; ++r) {
      pk.expect_exact(y[r], r, q8k);
      EXPECT_EQ(y[r], avx2_y[r]) << "row " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, X86PackedQ4K,
                         ::testing::Combine(::testing::Values(Variant::kAvx2, Variant::kAvx512Vnni),
                                            ::testing::Values(DType::Q4_K, DType::Q5_K)),
                         [](const auto& info) {
                           return std::string(testing::level_name(std::get<0>(info.param))) + "_" +
                                  std::string(dtype_name(std::get<1>(info.param)));
                         });

}  // namespace
}  // namespace kz
