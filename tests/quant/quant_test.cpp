// Type table, dispatch errors, hand-built blocks and the activation formats Q8_1 / Q8_K (which
// quants.json does not cover).
#include "quant/quant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/half.h"
#include "quant/blocks.h"

namespace kz {
namespace {

const DType kSupported[] = {DType::F32,    DType::F16,   DType::BF16, DType::Q4_0, DType::Q4_1,
                            DType::Q5_0,   DType::Q5_1,  DType::Q8_0, DType::Q8_1, DType::Q2_K,
                            DType::Q3_K,   DType::Q4_K,  DType::Q5_K, DType::Q6_K, DType::Q8_K,
                            DType::IQ4_NL, DType::IQ4_XS};

std::vector<float> gaussian(int n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> x(n);
  for (auto& v : x) v = dist(rng);
  return x;
}

TEST(QuantTypes, BlockStructsMatchTypeTable) {
  EXPECT_EQ(info(DType::Q4_0).block_bytes, int(sizeof(BlockQ4_0)));
  EXPECT_EQ(info(DType::Q4_1).block_bytes, int(sizeof(BlockQ4_1)));
  EXPECT_EQ(info(DType::Q5_0).block_bytes, int(sizeof(BlockQ5_0)));
  EXPECT_EQ(info(DType::Q5_1).block_bytes, int(sizeof(BlockQ5_1)));
  EXPECT_EQ(info(DType::Q8_0).block_bytes, int(sizeof(BlockQ8_0)));
  EXPECT_EQ(info(DType::Q8_1).block_bytes, int(sizeof(BlockQ8_1)));
  EXPECT_EQ(info(DType::Q2_K).block_bytes, int(sizeof(BlockQ2K)));
  EXPECT_EQ(info(DType::Q3_K).block_bytes, int(sizeof(BlockQ3K)));
  EXPECT_EQ(info(DType::Q4_K).block_bytes, int(sizeof(BlockQ4K)));
  EXPECT_EQ(info(DType::Q5_K).block_bytes, int(sizeof(BlockQ5K)));
  EXPECT_EQ(info(DType::Q6_K).block_bytes, int(sizeof(BlockQ6K)));
  EXPECT_EQ(info(DType::Q8_K).block_bytes, int(sizeof(BlockQ8K)));
  EXPECT_EQ(info(DType::IQ4_NL).block_bytes, int(sizeof(BlockIQ4NL)));
  EXPECT_EQ(info(DType::IQ4_XS).block_bytes, int(sizeof(BlockIQ4XS)));
  EXPECT_EQ(row_bytes(DType::Q4_K, 4096), 16u * 144u);
  EXPECT_EQ(row_bytes(DType::Q8_0, 64), 68u);
  EXPECT_EQ(row_bytes(DType::BF16, 3), 6u);
}

TEST(QuantTypes, SupportedSetIsExact) {
  for (DType t : kSupported) {
    EXPECT_TRUE(can_dequantize(t)) << dtype_name(t);
    EXPECT_TRUE(can_quantize(t)) << dtype_name(t);
  }
  for (DType t : {DType::IQ2_XXS, DType::IQ3_S, DType::IQ1_M, DType::TQ1_0, DType::MXFP4,
                  DType::I32, DType::F64}) {
    EXPECT_FALSE(can_dequantize(t)) << dtype_name(t);
    EXPECT_FALSE(can_quantize(t)) << dtype_name(t);
  }
  EXPECT_FALSE(can_dequantize(static_cast<DType>(4)));
  EXPECT_FALSE(can_quantize(static_cast<DType>(999)));
}

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(QuantTypes, UnsupportedTypesAndBadLengthsThrowNamingTheType) {
  float buf[256] = {};
  uint8_t bytes[256] = {};
  EXPECT_NE(error_of([&] { dequantize_row(DType::IQ2_XXS, bytes, buf, 256); }).find("iq2_xxs"),
            std::string::npos);
  EXPECT_NE(error_of([&] { quantize_row(DType::TQ2_0, buf, bytes, 256); }).find("tq2_0"),
            std::string::npos);
  EXPECT_NE(error_of([&] { dequantize_row(static_cast<DType>(33), bytes, buf, 32); }).find("33"),
            std::string::npos);
  const std::string bad_len = error_of([&] { quantize_row(DType::Q4_0, buf, bytes, 48); });
  EXPECT_NE(bad_len.find("q4_0"), std::string::npos) << bad_len;
  EXPECT_NE(bad_len.find("48"), std::string::npos) << bad_len;
}

TEST(QuantBlocks, Q4_0HandBuilt) {
  BlockQ4_0 b{};
  b.d = fp32_to_fp16(0.5f);
  for (int j = 0; j < 16; ++j) b.qs[j] = static_cast<uint8_t>(j | ((15 - j) << 4));
  float y[32];
  dequantize_row(DType::Q4_0, &b, y, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], (j - 8) * 0.5f);
    EXPECT_EQ(y[j + 16], (7 - j) * 0.5f);
  }
}

TEST(QuantBlocks, Q4_0LargestMagnitudeMapsToZeroQuant) {
  std::vector<float> x = gaussian(32, 1);
  x[5] = -3.0f;
  BlockQ4_0 b;
  quantize_row(DType::Q4_0, x.data(), &b, 32);
  EXPECT_EQ(b.d, fp32_to_fp16(3.0f / 8));
  EXPECT_EQ(b.qs[5] & 0xF, 0);
}

// NaN and infinite inputs: the others keep their quants against the finite maximum; an infinity
// makes the scale infinite, every quant 0.
TEST(QuantBlocks, Q8_0NaNAndInfinityQuantizeToZero) {
  std::vector<float> x(32, 1.0f);
  x[3] = 127.0f;
  x[7] = std::nanf("");
  BlockQ8_0 b;
  quantize_row(DType::Q8_0, x.data(), &b, 32);
  EXPECT_EQ(b.d, fp32_to_fp16(1.0f));
  EXPECT_EQ(b.qs[3], 127);
  EXPECT_EQ(b.qs[7], 0);
  EXPECT_EQ(b.qs[0], 1);
  x[7] = INFINITY;
  quantize_row(DType::Q8_0, x.data(), &b, 32);
  EXPECT_TRUE(std::isinf(fp16_to_fp32(b.d)));
  for (int8_t q : b.qs) EXPECT_EQ(q, 0);
}

TEST(QuantBlocks, Q8_1SumFieldAndRoundTrip) {
  const std::vector<float> x = gaussian(96, 2);
  BlockQ8_1 b[3];
  quantize_row(DType::Q8_1, x.data(), b, 96);
  std::vector<float> y(96);
  dequantize_row(DType::Q8_1, b, y.data(), 96);
  for (int i = 0; i < 3; ++i) {
    float amax = 0;
    int sum = 0;
    for (int j = 0; j < 32; ++j) {
      amax = std::max(amax, std::fabs(x[32 * i + j]));
      sum += b[i].qs[j];
    }
    const float d = amax / 127;
    EXPECT_EQ(b[i].d, fp32_to_fp16(d));
    EXPECT_EQ(b[i].s, fp32_to_fp16(sum * d));
    // Quants use the unrounded d: error <= d/2 plus the fp16 rounding of d times |q| <= 127.
    const float dh = fp16_to_fp32(b[i].d);
    for (int j = 0; j < 32; ++j)
      EXPECT_LE(std::fabs(y[32 * i + j] - x[32 * i + j]), d / 2 + std::fabs(dh - d) * 127 + 1e-7f);
  }
  // Q8_0 shares the quants and the d field.
  BlockQ8_0 q0[3];
  quantize_row(DType::Q8_0, x.data(), q0, 96);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(q0[i].d, b[i].d);
    EXPECT_EQ(0, std::memcmp(q0[i].qs, b[i].qs, 32));
  }
}

TEST(QuantBlocks, Q8_KScaleSignBsumsAndRoundTrip) {
  std::vector<float> x = gaussian(512, 3);
  x[300] = 5.0f;  // extreme element of block 1 is positive -> d negative, quant -127
  std::vector<BlockQ8K> b(2);
  quantize_row(DType::Q8_K, x.data(), b.data(), 512);
  EXPECT_LT(b[1].d, 0.0f);
  EXPECT_EQ(b[1].qs[300 - 256], -127);
  EXPECT_FLOAT_EQ(b[1].d, -5.0f / 127);
  std::vector<float> y(512);
  dequantize_row(DType::Q8_K, b.data(), y.data(), 512);
  for (int i = 0; i < 2; ++i) {
    for (int g = 0; g < 16; ++g) {
      int sum = 0;
      for (int j = 0; j < 16; ++j) sum += b[i].qs[16 * g + j];
      EXPECT_EQ(b[i].bsums[g], sum);
    }
    for (int j = 0; j < 256; ++j)
      EXPECT_LE(std::fabs(y[256 * i + j] - x[256 * i + j]), std::fabs(b[i].d) * 0.5f * 1.0001f);
  }
  std::vector<float> zeros(256, 0.0f);
  quantize_row(DType::Q8_K, zeros.data(), b.data(), 256);
  EXPECT_EQ(b[0].d, 0.0f);
  for (int j = 0; j < 256; ++j) EXPECT_EQ(b[0].qs[j], 0);
}

TEST(QuantBlocks, AllZeroRowsRoundTripToZero) {
  const std::vector<float> zeros(512, 0.0f);
  for (DType t : kSupported) {
    std::vector<uint8_t> q(row_bytes(t, 512));
    std::vector<float> y(512, 1.0f);
    quantize_row(t, zeros.data(), q.data(), 512);
    dequantize_row(t, q.data(), y.data(), 512);
    for (int i = 0; i < 512; ++i) ASSERT_EQ(y[i], 0.0f) << dtype_name(t) << " element " << i;
  }
}

// Relative RMS error of a round trip on Gaussian data, against per-format budgets (bits per
// weight: more bits, less error). Catches layout slips a byte-exact fixture could miss on other
// lengths (1 and 3 super-blocks here).
TEST(QuantBlocks, RoundTripErrorWithinBudget) {
  struct Budget {
    DType type;
    double max_rel_rms;
  };
  const Budget budgets[] = {
      {DType::F32, 0.0},   {DType::F16, 4e-4},    {DType::BF16, 3e-3},  {DType::Q8_0, 1e-2},
      {DType::Q8_1, 1e-2}, {DType::Q8_K, 1.5e-2}, {DType::Q6_K, 2e-2},  {DType::Q5_0, 6e-2},
      {DType::Q5_1, 5e-2}, {DType::Q5_K, 5e-2},   {DType::Q4_0, 0.12},  {DType::Q4_1, 0.1},
      {DType::Q4_K, 8e-2}, {DType::IQ4_NL, 0.1},  {DType::IQ4_XS, 0.1}, {DType::Q3_K, 0.2},
      {DType::Q2_K, 0.45},
  };
  for (int n : {256, 768}) {
    const std::vector<float> x = gaussian(n, 7 + n, 0.02f);
    double norm = 0;
    for (float v : x) norm += double(v) * v;
    for (const Budget& b : budgets) {
      std::vector<uint8_t> q(row_bytes(b.type, n));
      std::vector<float> y(n);
      quantize_row(b.type, x.data(), q.data(), n);
      dequantize_row(b.type, q.data(), y.data(), n);
      double err = 0;
      for (int i = 0; i < n; ++i) err += (double(y[i]) - x[i]) * (double(y[i]) - x[i]);
      EXPECT_LE(std::sqrt(err / norm), b.max_rel_rms) << dtype_name(b.type) << " n=" << n;
      if (b.max_rel_rms > 0) {
        EXPECT_GT(err, 0.0) << dtype_name(b.type);
      }
      if (std::getenv("KZ_PRINT_ERRORS"))
        std::printf("%s n=%d rel rms %.5f\n", std::string(dtype_name(b.type)).c_str(), n,
                    std::sqrt(err / norm));
    }
  }
}

}  // namespace
}  // namespace kz
