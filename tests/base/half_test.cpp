#include "base/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

namespace kz {
namespace {

TEST(Half, Fp16RoundTripsEveryFiniteValue) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t bits = static_cast<uint16_t>(h);
    if ((bits & 0x7c00) == 0x7c00 && (bits & 0x3ff)) continue;  // NaN payloads are not preserved
    EXPECT_EQ(fp32_to_fp16(fp16_to_fp32(bits)), bits) << std::hex << h;
  }
}

TEST(Half, Fp16RoundsToNearestEven) {
  EXPECT_EQ(fp32_to_fp16(1.0f), 0x3c00);
  // 1 + 2^-11 is halfway between 1 and the next fp16 (1 + 2^-10): ties go to even (1.0).
  EXPECT_EQ(fp32_to_fp16(1.0f + 0x1.0p-11f), 0x3c00);
  EXPECT_EQ(fp32_to_fp16(1.0f + 0x1.8p-10f), 0x3c02);  // 1.5 ulp -> 2 ulp (even)
  EXPECT_EQ(fp32_to_fp16(65520.0f), 0x7c00);           // rounds up past the largest finite
  EXPECT_EQ(fp32_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(fp32_to_fp16(0x1.0p-25f), 0x0000);  // halfway to the smallest subnormal
  EXPECT_EQ(fp32_to_fp16(0x1.8p-25f), 0x0001);
  EXPECT_EQ(fp32_to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(fp32_to_fp16(-NAN) & 0xfe00, 0xfe00);
}

TEST(Half, Bf16MatchesReferenceRounding) {
  EXPECT_EQ(fp32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(fp32_to_bf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie -> even
  EXPECT_EQ(fp32_to_bf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie -> even (up)
  EXPECT_EQ(fp32_to_bf16(std::bit_cast<float>(0x7f800001u)), 0x7fc0);  // NaN forced quiet
  EXPECT_EQ(bf16_to_fp32(0x3f80), 1.0f);
}

}  // namespace
}  // namespace kz
