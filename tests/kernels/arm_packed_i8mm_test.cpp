// The packed FEAT_I8MM kernels (kernel_table.h: PackedMatmul; kernels/arm/packed_i8mm.h): weights
// in groups of 4 interleaved rows. Q4_0 / Q8_0 (matmul_packed_i8mm.cpp): every output of gemv
// and gemm equals the block-sum model (testing/block_sum_order_model.h) and the row-major i8mm
// kernels bit for bit, over every tile and tail (tokens 1-9, 15-17, 26, 27), row lengths of 1 to
// 129 blocks, strided outputs and a first group past row 0; extreme quants (matrices of other row
// counts: tests/backend/arm_packed_matmul_test.cpp). Q4_K / Q5_K / Q6_K
// (matmul_packed_q4_k_i8mm.cpp, matmul_packed_q6_k_i8mm.cpp): every output equals a scalar model
// of x86's packed K-quant order, from the reference's Q8_K activations, over the tails of the 4-
// and 8-token tiles (tokens 1-9, 15-17, 26, 27). Skipped where the CPU (or qemu's -cpu model, or
// KAZEIA_CPU_FEATURES) lacks i8mm or dotprod.
#include <gtest/gtest.h>

#if !defined(__aarch64__)

TEST(ArmPackedI8mm, NotAnArmBuild) {
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

#define REQUIRE_I8MM()                                                         \
  if (!(cpu_features().neon && cpu_features().dotprod && cpu_features().i8mm)) \
  GTEST_SKIP() << "skipped (no i8mm)"

const KernelTable& i8mm_table() {
  static const KernelTable table = [] {
    CpuFeatures f;
    f.neon = f.dotprod = f.i8mm = true;
    return build_kernel_table(f);
  }();
  return table;
}
const MatmulKernel& entry(DType t) {
  return i8mm_table().matmul[static_cast<uint32_t>(t)];
}

TEST(ArmPackedI8mm, TableTakesPackedKernelsOnlyWithI8mm) {
  REQUIRE_I8MM();
  for (DType t : {DType::Q4_0, DType::Q8_0}) {
    const PackedMatmul& p = entry(t).packed;
    EXPECT_EQ(p.rows, 4);
    EXPECT_EQ(p.quantize, nullptr);
    EXPECT_EQ(p.quantize_pair, &arm::quantize_q8_0_pair__neon);
    EXPECT_EQ(p.act_block_bytes, arm::kPackedQ8_0ActBlockBytes);
    EXPECT_NE(std::string(p.name).find("neon-i8mm"), std::string::npos) << p.name;
  }
  EXPECT_EQ(entry(DType::Q4_0).packed.gemm, &arm::gemm_q4_0x4_q8_0__neon_i8mm);
  EXPECT_EQ(entry(DType::Q8_0).packed.gemv, &arm::gemv_q8_0x4_q8_0__neon_i8mm);
  CpuFeatures f;
  f.neon = f.dotprod = true;  // the dotprod level keeps the AVX2 order: no packed forms
  const KernelTable dotprod = build_kernel_table(f);
  for (DType t : {DType::Q4_0, DType::Q8_0})
    EXPECT_EQ(dotprod.matmul[static_cast<uint32_t>(t)].packed.rows, 0) << dtype_name(t);
}

TEST(ArmPackedI8mm, Q4_0AndQ8_0FollowBlockSumModelBitForBit) {
  REQUIRE_I8MM();
  std::mt19937 rng(31);
  for (DType t : {DType::Q4_0, DType::Q8_0}) {
    const MatmulKernel& k = entry(t);
    const PackedMatmul& p = k.packed;
    for (int64_t rows : {4, 8, 12, 20}) {
      for (int64_t n : {32, 64, 96, 256, 1024, 4096 + 32}) {
        SCOPED_TRACE(std::string(dtype_name(t)) + " rows " + std::to_string(rows) + " n " +
                     std::to_string(n));
        const uint64_t rb = row_bytes(t, n), ab = row_bytes(DType::Q8_0, n);
        const std::vector<uint8_t> w = testing::weight_rows(t, rows, n, rows % 8 == 4, rng);
        std::vector<uint8_t> packed(w.size());
        p.pack(w.data(), rb, rows, n, packed.data());
        // Each token row-major (the model's and the row-major kernels' activations) and in pairs
        // (the packed kernels'), the last one with itself; a lone token's pair for gemv.
        const int64_t max_tok = 27;
        std::vector<std::vector<float> > x;
        for (int64_t i = 0; i < max_tok; ++i) x.push_back(testing::gaussian(n, rng, 1.5f));
        const uint64_t pb = n / kQK * p.act_block_bytes;
        std::vector<uint8_t> acts(ab * max_tok), pairs(pb * (max_tok + 1)), lone(2 * pb);
        for (int64_t i = 0; i < max_tok; ++i) k.quantize(x[i].data(), acts.data() + i * ab, n);
        for (int64_t i = 0; i < max_tok; i += 2)
          p.quantize_pair(x[i].data(), x[std::min(i + 1, max_tok - 1)].data(),
                          pairs.data() + i * pb, n);
        std::vector<float> want(rows * max_tok), row_major(rows * max_tok);
        for (int64_t i = 0; i < max_tok; ++i)
          for (int64_t r = 0; r < rows; ++r)
            want[i * rows + r] =
                testing::block_sum_order::model(t, w.data() + r * rb, acts.data() + i * ab, n);
        k.gemm(w.data(), rb, rows, acts.data(), ab, max_tok, n, row_major.data(), rows);
        ASSERT_EQ(row_major, want) << "the row-major i8mm kernels left the block-sum order";
        // gemv per token, 3 floats of padding after the last row that it must not touch.
        for (int64_t i = 0; i < max_tok; ++i) {
          std::vector<float> y(rows + 3, -1.0f);
          p.quantize_pair(x[i].data(), x[i].data(), lone.data(), n);
          p.gemv(packed.data(), rb, rows, lone.data(), n, y.data());
          for (int64_t r = 0; r < rows; ++r)
            ASSERT_EQ(y[r], want[i * rows + r]) << "gemv, token " << i << " row " << r;
          ASSERT_EQ(y[rows], -1.0f) << "gemv wrote past the last row";
        }
        // gemm on every tail of its 8-token tiles and on several tiles, from the second group
        // on where there is one, into rows + 2 strided outputs.
        for (int64_t n_tok : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 26, 27}) {
          const int64_t r0 = rows > 4 ? 4 : 0, y_stride = rows + 2;
          std::vector<float> y(y_stride * n_tok, -1.0f);
          p.gemm(packed.data() + r0 * rb, rb, rows - r0, pairs.data(), pb, n_tok, n, y.data() + r0,
                 y_stride);
          for (int64_t i = 0; i < n_tok; ++i)
            for (int64_t r = 0; r < y_stride; ++r) {
              const float expected = r >= r0 && r < rows ? want[i * rows + r] : -1.0f;
              ASSERT_EQ(y[i * y_stride + r], expected)
                  << n_tok << " tokens, token " << i << " row " << r;
            }
        }
      }
    }
  }
}

// Q8_0 weights of -128 and +127 and Q4_0 nibbles 0 and 15 against activations of +-127: the
// largest products the operands and the 16-times Q4_0 sums can hold.
TEST(ArmPackedI8mm, ExtremeQuants) {
  REQUIRE_I8MM();
  const int64_t rows = 4, n = 128;
  for (DType t : {DType::Q4_0, DType::Q8_0}) {
    const PackedMatmul& p = entry(t).packed;
    const uint64_t rb = row_bytes(t, n), bb = row_bytes(t, kQK);
    std::vector<uint8_t> w(rb * rows);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t b = 0; b < n / kQK; ++b) {
        uint8_t* blk = w.data() + r * rb + b * bb;
        const uint16_t d = fp32_to_fp16(0.25f);
        std::memcpy(blk, &d, 2);
        const uint8_t q = t == DType::Q8_0 ? uint8_t(r % 2 ? 0x80 : 0x7F) : (r % 2 ? 0xFF : 0x00);
        std::memset(blk + 2, q, bb - 2);
      }
    std::vector<uint8_t> packed(w.size()), a(row_bytes(DType::Q8_0, n));
    std::vector<uint8_t> pair(2 * n / kQK * p.act_block_bytes);
    p.pack(w.data(), rb, rows, n, packed.data());
    for (float sign : {1.0f, -1.0f}) {
      const std::vector<float> x(n, sign);  // quantizes to +-127 everywhere
      entry(t).quantize(x.data(), a.data(), n);
      p.quantize_pair(x.data(), x.data(), pair.data(), n);
      std::vector<float> y(rows);
      p.gemv(packed.data(), rb, rows, pair.data(), n, y.data());
      for (int64_t r = 0; r < rows; ++r)
        EXPECT_EQ(y[r], testing::block_sum_order::model(t, w.data() + r * rb, a.data(), n))
            << dtype_name(t) << " row " << r << " sign " << sign;
    }
  }
}

// The order of the packed K-quant kernels (x86/packed_q4_k_blocks.h) in scalar code, from the
// file's blocks and the reference's Q8_K row: per super-block the exact isum and imin, then
// acc = fma(float(isum), d_w * d_a, acc), acc = fma(float(imin), dmin_w * -d_a, acc).
float packed_k_model(DType t, const uint8_t* w_row, const BlockQ8K* a, int64_t n) {
  const uint64_t bb = row_bytes(t, kQK_K);
  float acc = 0;
  for (int64_t b = 0; b < n / kQK_K; ++b) {
    const uint8_t* blk = w_row + b * bb;
    uint16_t d, dmin;
    std::memcpy(&d, blk, 2);
    std::memcpy(&dmin, blk + 2, 2);
    const uint8_t* p = blk + 4;                                 // 12 scale bytes
    const uint8_t* qh = t == DType::Q5_K ? blk + 16 : nullptr;  // 32 bytes of fifth bits
    const uint8_t* qs = blk + (qh ? 48 : 16);
    int64_t isum = 0, imin = 0;
    for (int s = 0; s < 8; ++s) {  // spec/quants.md §4.1
      const int sc = s < 4 ? p[s] & 63 : (p[s + 4] & 0xF) | ((p[s - 4] >> 6) << 4);
      const int m = s < 4 ? p[s + 4] & 63 : (p[s + 4] >> 4) | ((p[s] >> 6) << 4);
      int64_t sumi = 0;
      for (int e = 0; e < 32; ++e) {
        const uint8_t byte = qs[32 * (s / 2) + e];
        const int q = (s % 2 ? byte >> 4 : byte & 0xF) + (qh ? ((qh[e] >> s) & 1) << 4 : 0);
        sumi += q * a[b].qs[32 * s + e];
      }
      isum += sc * sumi;
      imin += m * (a[b].bsums[2 * s] + a[b].bsums[2 * s + 1]);
    }
    acc = std::fma(float(isum), fp16_to_fp32(d) * a[b].d, acc);
    acc = std::fma(float(imin), fp16_to_fp32(dmin) * -a[b].d, acc);
  }
  return acc;
}

// x86's packed Q6_K order (x86/packed_q6_k_blocks.h) in scalar code: per super-block the exact
// isum = sum_s sc_s * sum_e (q_e - 32) * a_e over 16-element sub-blocks s, then
// acc = fma(float(isum), d_w * d_a, acc).
float packed_q6_k_model(const uint8_t* w_row, const BlockQ8K* a, int64_t n) {
  const auto* w = reinterpret_cast<const BlockQ6K*>(w_row);
  float acc = 0;
  for (int64_t b = 0; b < n / kQK_K; ++b) {
    int64_t isum = 0;
    for (int s = 0; s < 16; ++s) {
      int64_t sumi = 0;
      for (int e = 16 * s; e < 16 * s + 16; ++e) {  // spec/quants.md: e = 128h + 32g + l
        const int h = e / 128, g = e % 128 / 32, l = e % 32;
        const uint8_t byte = w[b].ql[64 * h + 32 * (g % 2) + l];
        const int q = (g < 2 ? byte & 0xF : byte >> 4) | ((w[b].qh[32 * h + l] >> 2 * g) & 3) << 4;
        sumi += (q - 32) * a[b].qs[e];
      }
      isum += w[b].scales[s] * sumi;
    }
    acc = std::fma(float(isum), fp16_to_fp32(w[b].d) * a[b].d, acc);
  }
  return acc;
}

TEST(ArmPackedI8mm, K_QuantsFollowPackedKOrderBitForBit) {
  REQUIRE_I8MM();
  std::mt19937 rng(41);
  for (DType t : {DType::Q4_K, DType::Q5_K, DType::Q6_K}) {
    const PackedMatmul& p = entry(t).packed;
    ASSERT_EQ(p.rows, 4) << dtype_name(t);
    ASSERT_EQ(p.act_block_bytes, arm::kPackedQ8KActBlockBytes);
    ASSERT_EQ(p.quantize_pair, &arm::quantize_q8_K_pair__neon);
    for (int64_t rows : {4, 8, 12}) {
      for (int64_t n : {256, 512, 1024, 4096}) {
        SCOPED_TRACE(std::string(dtype_name(t)) + " rows " + std::to_string(rows) + " n " +
                     std::to_string(n));
        const uint64_t rb = row_bytes(t, n), ab = n / kQK * p.act_block_bytes;
        // Raw bytes reach 6-bit scales and mins of 63, Q6_K scales of -128, every quant and
        // every fifth or sixth bit; the fp16 scales (Q4_K / Q5_K: d, dmin first; Q6_K: d last)
        // are set finite.
        std::vector<uint8_t> w(rb * rows);
        if (rows == 8) {
          std::uniform_int_distribution<int> byte(0, 255);
          std::uniform_real_distribution<float> scale(-0.02f, 0.02f);
          for (auto& v : w) v = static_cast<uint8_t>(byte(rng));
          const uint64_t bb = row_bytes(t, kQK_K);
          for (uint64_t blk = 0; blk < w.size() / bb; ++blk)
            for (uint64_t at :
                 t == DType::Q6_K ? std::vector<uint64_t>{bb - 2} : std::vector<uint64_t>{0, 2}) {
              const uint16_t h = fp32_to_fp16(scale(rng));
              std::memcpy(&w[blk * bb + at], &h, 2);
            }
        } else {
          w = testing::weight_rows(t, rows, n, false, rng);
        }
        std::vector<uint8_t> packed(w.size());
        p.pack(w.data(), rb, rows, n, packed.data());
        // Tokens in pairs, the last one with itself; a lone token's pair for gemv.
        const int64_t max_tok = 27;
        std::vector<std::vector<float> > x;
        std::vector<uint8_t> acts(ab * (max_tok + 1)), lone(2 * ab);
        std::vector<float> want(rows * max_tok);
        for (int64_t i = 0; i < max_tok; ++i) {
          x.push_back(testing::gaussian(n, rng, 1.5f));
          std::vector<BlockQ8K> q8k(n / kQK_K);
          ref::quantize_activation(DType::Q8_K, x[i].data(), q8k.data(), n);
          for (int64_t r = 0; r < rows; ++r)
            want[i * rows + r] = t == DType::Q6_K
                                     ? packed_q6_k_model(w.data() + r * rb, q8k.data(), n)
                                     : packed_k_model(t, w.data() + r * rb, q8k.data(), n);
        }
        for (int64_t i = 0; i < max_tok; i += 2)
          p.quantize_pair(x[i].data(), x[std::min(i + 1, max_tok - 1)].data(), acts.data() + i * ab,
                          n);
        for (int64_t i = 0; i < max_tok; ++i) {
          std::vector<float> y(rows + 3, -1.0f);
          p.quantize_pair(x[i].data(), x[i].data(), lone.data(), n);
          p.gemv(packed.data(), rb, rows, lone.data(), n, y.data());
          for (int64_t r = 0; r < rows; ++r)
            ASSERT_EQ(y[r], want[i * rows + r]) << "gemv, token " << i << " row " << r;
          ASSERT_EQ(y[rows], -1.0f) << "gemv wrote past the last row";
        }
        for (int64_t n_tok : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 26, 27}) {
          const int64_t r0 = rows > 4 ? 4 : 0, y_stride = rows + 2;
          std::vector<float> y(y_stride * n_tok, -1.0f);
          p.gemm(packed.data() + r0 * rb, rb, rows - r0, acts.data(), ab, n_tok, n, y.data() + r0,
                 y_stride);
          for (int64_t i = 0; i < n_tok; ++i)
            for (int64_t r = 0; r < y_stride; ++r) {
              const float expected = r >= r0 && r < rows ? want[i * rows + r] : -1.0f;
              ASSERT_EQ(y[i * y_stride + r], expected)
                  << n_tok << " tokens, token " << i << " row " << r;
            }
        }
      }
    }
  }
}

}  // namespace
}  // namespace kz

#endif  // __aarch64__
