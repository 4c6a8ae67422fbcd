// Reference dot products (kernels/ref/vec_dot.h): for every weight type and rows of 1, 2 and 7
// blocks, vec_dot equals the dot product of the dequantized operands up to f32 rounding, and the
// activation formats round trip within their quantization step.
#include "kernels/ref/vec_dot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/half.h"
#include "kernel_checks.h"
#include "quant/blocks.h"
#include "quant/quant.h"

namespace kz {
namespace {

// Named tolerance: the kernels sum at most a few thousand f32-rounded block terms; 1e-5 of the
// sum of |terms| leaves ~100x margin over f32 rounding while catching any wrong quant or scale.
constexpr double kDotRelTol = 1e-5;

const DType kWeights[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q4_0,   DType::Q4_1,
                          DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::IQ4_NL, DType::Q2_K,
                          DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K,   DType::IQ4_XS};

std::vector<float> random_row(int64_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::vector<float> x = testing::gaussian(n, rng, scale);
  if (n > 3) x[static_cast<size_t>(n / 3)] = 4 * scale;  // an outlier
  return x;
}

struct Encoded {
  std::vector<uint8_t> bytes;
  std::vector<float> values;  // dequantized
};

Encoded encode(DType t, const std::vector<float>& x) {
  const auto n = static_cast<int64_t>(x.size());
  Encoded e{std::vector<uint8_t>(row_bytes(t, n)), std::vector<float>(x.size())};
  quantize_row(t, x.data(), e.bytes.data(), n);
  dequantize_row(t, e.bytes.data(), e.values.data(), n);
  return e;
}

// Q4_1 / Q5_1 x Q8_1 use the activation block's stored sum s = fp16(d_a * sum q_a) for the min
// term where the dequantized product has fp16(d_a) * sum q_a: the exact value of the kernel's
// arithmetic adds m * (s - d_a * sum q_a) per block.
template <class WeightBlock>
double q8_1_sum_correction(const std::vector<uint8_t>& w, const std::vector<uint8_t>& a) {
  const auto* wb = reinterpret_cast<const WeightBlock*>(w.data());
  const auto* ab = reinterpret_cast<const BlockQ8_1*>(a.data());
  double corr = 0;
  for (size_t b = 0; b < a.size() / sizeof(BlockQ8_1); ++b) {
    int sum = 0;
    for (int j = 0; j < 32; ++j) sum += ab[b].qs[j];
    corr += double(fp16_to_fp32(wb[b].m)) *
            (double(fp16_to_fp32(ab[b].s)) - double(fp16_to_fp32(ab[b].d)) * sum);
  }
  return corr;
}

std::vector<int64_t> lengths(DType w) {
  const int bs = info(w).block_size;
  if (bs == 1) return {1, 7, 37, 256, 1000};  // float formats: lane tails too
  return {bs, 2 * bs, 7 * bs};
}

TEST(VecDotRef, MatchesDequantizedDotProduct) {
  uint32_t seed = 1;
  for (DType w : kWeights) {
    const DType act = ref::vec_dot_type(w);
    for (int64_t n : lengths(w)) {
      const std::vector<float> wx = random_row(n, seed++, 0.05f), ax = random_row(n, seed++, 1.5f);
      const Encoded we = encode(w, wx);
      Encoded ae{std::vector<uint8_t>(row_bytes(act, n)),
                 std::vector<float>(static_cast<size_t>(n))};
      ref::quantize_activation(act, ax.data(), ae.bytes.data(), n);
      dequantize_row(act, ae.bytes.data(), ae.values.data(), n);

      double expected = 0, abs_sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double t = double(we.values[i]) * ae.values[i];
        expected += t;
        abs_sum += std::fabs(t);
      }
      if (w == DType::Q4_1) expected += q8_1_sum_correction<BlockQ4_1>(we.bytes, ae.bytes);
      if (w == DType::Q5_1) expected += q8_1_sum_correction<BlockQ5_1>(we.bytes, ae.bytes);

      const float got = ref::vec_dot(w, we.bytes.data(), ae.bytes.data(), n);
      EXPECT_NEAR(got, expected, kDotRelTol * abs_sum + 1e-30)
          << dtype_name(w) << " x " << dtype_name(act) << " n=" << n;
      EXPECT_GT(abs_sum, 0.0) << dtype_name(w) << " n=" << n;
    }
  }
}

TEST(VecDotRef, ExactOnSmallIntegers) {
  // Integer-valued f32 rows: every product and partial sum is exact.
  std::vector<float> x(19), y(19);
  double expected = 0;
  for (int i = 0; i < 19; ++i) {
    x[i] = float(i - 9);
    y[i] = float(2 * i + 1);
    expected += double(x[i]) * y[i];
  }
  EXPECT_EQ(ref::vec_dot(DType::F32, x.data(), y.data(), 19), float(expected));
  // Q8_0 x Q8_0 with d = 1 (quants are the values): sum of q_w * q_a exactly.
  BlockQ8_0 wb{}, ab{};
  wb.d = ab.d = fp32_to_fp16(1.0f);
  int sum = 0;
  for (int j = 0; j < 32; ++j) {
    wb.qs[j] = static_cast<int8_t>(j - 16);
    ab.qs[j] = static_cast<int8_t>(3 - j);
    sum += (j - 16) * (3 - j);
  }
  EXPECT_EQ(ref::vec_dot(DType::Q8_0, &wb, &ab, 32), float(sum));
  EXPECT_EQ(ref::vec_dot(DType::Q8_0, &wb, &ab, 0), 0.0f);
}

TEST(VecDotRef, ActivationFormatsPerWeightType) {
  EXPECT_EQ(ref::vec_dot_type(DType::F32), DType::F32);
  EXPECT_EQ(ref::vec_dot_type(DType::F16), DType::F16);
  EXPECT_EQ(ref::vec_dot_type(DType::BF16), DType::BF16);
  for (DType t : {DType::Q4_0, DType::Q5_0, DType::Q8_0, DType::IQ4_NL})
    EXPECT_EQ(ref::vec_dot_type(t), DType::Q8_0) << dtype_name(t);
  for (DType t : {DType::Q4_1, DType::Q5_1}) EXPECT_EQ(ref::vec_dot_type(t), DType::Q8_1);
  for (DType t : {DType::Q2_K, DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::IQ4_XS})
    EXPECT_EQ(ref::vec_dot_type(t), DType::Q8_K) << dtype_name(t);
}

TEST(VecDotRef, UnsupportedTypesAndLengthsThrow) {
  uint8_t buf[1024] = {};
  try {
    ref::vec_dot(DType::IQ2_XS, buf, buf, 256);
    ADD_FAILURE() << "expected kz::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("iq2_xs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ref::vec_dot_type(DType::Q8_K), Error);
  EXPECT_THROW(ref::vec_dot(DType::Q4_K, buf, buf, 128), Error);  // not a multiple of 256
  float x[32] = {};
  EXPECT_THROW(ref::quantize_activation(DType::Q4_0, x, buf, 32), Error);
}

// |dequant(quantize_activation(x)) - x| per element, against each format's step.
TEST(VecDotRef, ActivationRoundTrip) {
  const int64_t n = 512;
  const std::vector<float> x = random_row(n, 99, 2.0f);
  for (DType act : {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q8_1, DType::Q8_K}) {
    std::vector<uint8_t> q(row_bytes(act, n));
    std::vector<float> y(n);
    ref::quantize_activation(act, x.data(), q.data(), n);
    dequantize_row(act, q.data(), y.data(), n);
    const int bs = info(act).block_size;
    for (int64_t b = 0; b < n / bs; ++b) {
      float amax = 0;
      for (int j = 0; j < bs; ++j) amax = std::max(amax, std::fabs(x[b * bs + j]));
      for (int j = 0; j < bs; ++j) {
        const int64_t i = b * bs + j;
        double bound = 0;
        switch (act) {
          case DType::F16:
            bound = std::fabs(x[i]) * 0x1.0p-11;
            break;
          case DType::BF16:
            bound = std::fabs(x[i]) * 0x1.0p-8;
            break;
          case DType::Q8_K:
            bound = amax / 127.0 * 0.5 * (1 + 1e-6);
            break;
          case DType::Q8_0:
          case DType::Q8_1: {
            // Quants use the f32 scale d; the stored fp16(d) adds |q| * |fp16(d) - d|.
            const float d = amax / 127;
            bound = d / 2 + 127 * std::fabs(double(fp16_to_fp32(fp32_to_fp16(d))) - d) + 1e-7;
            break;
          }
          default:
            break;  // F32: exact
        }
        ASSERT_LE(std::fabs(double(y[i]) - x[i]), bound) << dtype_name(act) << " element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace kz
