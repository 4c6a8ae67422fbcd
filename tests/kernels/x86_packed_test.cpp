// The packed Q4_0 / Q8_0 kernels (kernel_table.h: PackedMatmul; x86/packed_q8_0_blocks.h) of
// the AVX2 table (groups of 8 rows) and the AVX-512 VNNI table (16 rows): their activation
// blocks carry the reference converter's quants, every output follows the block-sum order of
// testing/block_sum_order_model.h bit for bit, and gemm equals gemv.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <vector>

#include "base/half.h"
#include "quant/blocks.h"
#include "testing/block_sum_order_model.h"
#include "x86_test_util.h"

namespace kz {
namespace {

using testing::level_name;
using testing::Variant;

// The packed activation block: the Q8_0 scale as f32, the weights' zero point times the quants'
// sum, the quants.
struct ActBlock {
  float d;
  int32_t offset;
  int8_t qs[kQK];
};

// What the activation blocks' offset multiplies the quants' sum by: the zero point of the
// packed weights (Q8_0 is stored unsigned for the dot-product instruction; AVX2's signed Q8_0
// ignores the offset and shares Q4_0's converter).
int32_t zero_point(Variant v, DType t) {
  return t == DType::Q8_0 && v != Variant::kAvx2 ? 128 : 8;
}

// The packed matrix, and the block-sum model of each output.
struct Packed : testing::PackedMatrix {
  const MatmulKernel& k;

  Packed(const KernelTable& table, DType t, std::vector<uint8_t> weights, int64_t rows_, int64_t n_)
      : PackedMatrix(table, t, std::move(weights), rows_, n_),
        k(table.matmul[static_cast<uint32_t>(t)]) {}
  // The Q8_0 row the model multiplies with: the standard converter's bytes.
  std::vector<uint8_t> q8_0(const float* x) const {
    std::vector<uint8_t> a(row_bytes(DType::Q8_0, n));
    k.quantize(x, a.data(), n);
    return a;
  }
  float model(int64_t r, const std::vector<uint8_t>& q8) const {
    return testing::block_sum_order::model(type, w.data() + r * rb(), q8.data(), n);
  }
};

class X86Packed : public ::testing::TestWithParam<Variant> {};

TEST_P(X86Packed, TableHasTheVariantsKernels) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  const std::string isa = std::string(" ") + level_name(GetParam());
  for (DType t : {DType::Q4_0, DType::Q8_0, DType::Q4_K})
    EXPECT_NE(std::string(table.matmul[static_cast<uint32_t>(t)].packed.name).find(isa),
              std::string::npos)
        << dtype_name(t) << ": " << table.matmul[static_cast<uint32_t>(t)].packed.name;
}

TEST_P(X86Packed, ActivationBlocksCarryTheConverterQuantsAndSums) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  for (DType t : {DType::Q4_0, DType::Q8_0}) {
    const PackedMatmul& p = table.matmul[static_cast<uint32_t>(t)].packed;
    ASSERT_EQ(p.act_block_bytes, sizeof(ActBlock));
    for (int64_t n : {32, 96, 4128}) {
      const auto x = testing::random_floats(n, uint32_t(n), 3.0f);
      std::vector<uint8_t> a(n / kQK * sizeof(ActBlock)), q(row_bytes(DType::Q8_0, n));
      p.quantize(x.data(), a.data(), n);
      table.matmul[static_cast<uint32_t>(t)].quantize(x.data(), q.data(), n);
      for (int64_t b = 0; b < n / kQK; ++b) {
        SCOPED_TRACE(std::string(dtype_name(t)) + " n=" + std::to_string(n) + " block " +
                     std::to_string(b));
        ActBlock ab;
        std::memcpy(&ab, a.data() + b * sizeof(ActBlock), sizeof ab);
        const auto& qb = reinterpret_cast<const BlockQ8_0*>(q.data())[b];
        EXPECT_EQ(ab.d, fp16_to_fp32(qb.d));
        EXPECT_EQ(std::memcmp(ab.qs, qb.qs, kQK), 0);
        int32_t sum = 0;
        for (int8_t v : qb.qs) sum += v;
        EXPECT_EQ(ab.offset, zero_point(GetParam(), t) * sum);
      }
    }
  }
}

TEST_P(X86Packed, GemvAndGemmFollowBlockSumOrderBitForBit) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  for (DType t : {DType::Q4_0, DType::Q8_0}) {
    // Groups of 8 rows; AVX-512's: 16.
    const int64_t group = table.matmul[static_cast<uint32_t>(t)].packed.rows;
    ASSERT_EQ(group, GetParam() == Variant::kAvx512Vnni ? 16 : 8);
    for (int64_t rows : {group, 2 * group, 5 * group}) {
      for (int64_t n : {32, 64, 96, 256, 1024, 4128}) {
        SCOPED_TRACE(std::string(dtype_name(t)) + " rows " + std::to_string(rows) + " n " +
                     std::to_string(n));
        const Packed pk(table, t, testing::random_matrix(t, rows, n, uint32_t(rows + n)), rows, n);
        const int64_t max_tok = 50;
        const auto x = testing::random_floats(n * max_tok, uint32_t(n) + 5, 2.0f);
        std::vector<uint8_t> acts(pk.act_row() * max_tok);
        std::vector<std::vector<uint8_t>> q8(max_tok);
        for (int64_t i = 0; i < max_tok; ++i) {
          const auto a = pk.act(x.data() + i * n);
          std::memcpy(acts.data() + i * pk.act_row(), a.data(), a.size());
          q8[i] = pk.q8_0(x.data() + i * n);
        }
        // gemv, per token, against the model.
        std::vector<float> y(rows);
        for (int64_t i = 0; i < max_tok; ++i) {
          pk.p.gemv(pk.packed.data(), row_bytes(t, n), rows, acts.data() + i * pk.act_row(), n,
                    y.data());
          for (int64_t r = 0; r < rows; ++r)
            ASSERT_EQ(y[r], pk.model(r, q8[i])) << "token " << i << " row " << r;
        }
        // gemm on 1..9 tokens (every tail of its token groups) and on many groups, from the
        // second row group on, against the model.
        for (int64_t n_tok : {1, 2, 3, 4, 5, 6, 7, 8, 9, 26, 50}) {
          const int64_t r0 = rows > group ? group : 0;
          std::vector<float> ym(n_tok * rows, -1.0f);
          pk.p.gemm(pk.packed.data() + r0 * row_bytes(t, n), row_bytes(t, n), rows - r0,
                    acts.data(), pk.act_row(), n_tok, n, ym.data(), rows);
          for (int64_t i = 0; i < n_tok; ++i)
            for (int64_t r = 0; r < rows - r0; ++r)
              ASSERT_EQ(ym[i * rows + r], pk.model(r0 + r, q8[i]))
                  << n_tok << " tokens, token " << i << " row " << r0 + r;
        }
      }
    }
  }
}

// Extreme quants: no int16 pair sum may saturate (Q8_0 weights of -128 and activations of
// +-127; Q4_0 nibbles of 0 and 15), which the random rows above never reach.
TEST_P(X86Packed, ExtremeQuantsDoNotSaturate) {
  KZ_TABLE_OR_SKIP(GetParam(), table);
  const int64_t n = 64;
  for (DType t : {DType::Q4_0, DType::Q8_0}) {
    const int64_t rows = table.matmul[static_cast<uint32_t>(t)].packed.rows;
    std::vector<uint8_t> w(row_bytes(t, n) * rows);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t b = 0; b < n / kQK; ++b) {
        uint8_t* blk = w.data() + r * row_bytes(t, n) + b * row_bytes(t, kQK);
        const uint16_t d = fp32_to_fp16(0.25f);
        std::memcpy(blk, &d, 2);
        // Row parity picks the extreme: all-high or all-low quants.
        const uint8_t q = t == DType::Q8_0 ? uint8_t(r % 2 ? 0x80 : 0x7F) : (r % 2 ? 0xFF : 0x00);
        std::memset(blk + 2, q, row_bytes(t, kQK) - 2);
      }
    const Packed pk(table, t, w, rows, n);
    for (float sign : {1.0f, -1.0f}) {
      const std::vector<float> x(n, sign);  // quantizes to +-127 everywhere
      const auto a = pk.act(x.data());
      const auto q8 = pk.q8_0(x.data());
      std::vector<float> y(rows);
      pk.p.gemv(pk.packed.data(), row_bytes(t, n), rows, a.data(), n, y.data());
      for (int64_t r = 0; r < rows; ++r)
        EXPECT_EQ(y[r], pk.model(r, q8)) << dtype_name(t) << " row " << r << " sign " << sign;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, X86Packed,
                         ::testing::Values(Variant::kAvx2, Variant::kAvx512Vnni),
                         [](const auto& info) { return level_name(info.param); });

}  // namespace
}  // namespace kz
