#include "sampling/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/error.h"

namespace kz {
namespace {

SamplingParams plain(float temperature, uint64_t seed = 1) {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = 0;
  p.top_p = 1.0f;
  p.min_p = 0.0f;
  p.seed = seed;
  return p;
}

std::vector<int> histogram(Sampler& s, const std::vector<float>& logits, int draws) {
  std::vector<int> counts(logits.size(), 0);
  for (int i = 0; i < draws; ++i) ++counts[s.sample(logits)];
  return counts;
}

TEST(Sampler, GreedyIsArgmaxLowestIndexOnTies) {
  Sampler s(plain(0.0f), 6);
  EXPECT_EQ(s.sample(std::vector<float>{0.1f, 3.0f, -2.0f, 2.9f, 0.0f, 1.0f}), 1);
  EXPECT_EQ(s.sample(std::vector<float>{0.0f, 5.0f, 1.0f, 5.0f, 5.0f, -1.0f}), 1);
  EXPECT_EQ(s.sample(std::vector<float>{-INFINITY, -3.0f, -3.0f, -INFINITY, -4.0f, -5.0f}), 1);
}

TEST(Sampler, TopKOneIsGreedy) {
  SamplingParams p = plain(1.5f, 7);
  p.top_k = 1;
  Sampler s(p, 5);
  const std::vector<float> logits{1.0f, 2.0f, 2.0f, 0.5f, 1.9f};
  for (int i = 0; i < 200; ++i) EXPECT_EQ(s.sample(logits), 1);
}

TEST(Sampler, SameSeedSameSequenceDifferentSeedDiffers) {
  std::vector<float> logits(1000);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(0.37f * i) * 3.0f;
  SamplingParams p;  // defaults: top-k 40, top-p 0.95, min-p 0.05
  p.temperature = 1.0f;
  p.seed = 1234;
  auto run = [&](uint64_t seed) {
    p.seed = seed;
    Sampler s(p, static_cast<int>(logits.size()));
    std::vector<int32_t> out;
    for (int i = 0; i < 64; ++i) out.push_back(s.sample(logits));
    return out;
  };
  EXPECT_EQ(run(1234), run(1234));
  EXPECT_NE(run(1234), run(1235));

  Sampler s(p, static_cast<int>(logits.size()));
  const int32_t first = s.sample(logits);
  s.sample(logits);
  s.reset();
  EXPECT_EQ(s.sample(logits), first);
}

TEST(Sampler, FrequenciesMatchSoftmaxOverTemperature) {
  const std::vector<float> logits{1.0f, 0.0f, 2.0f, -0.5f};
  const float temperature = 0.7f;
  Sampler s(plain(temperature, 42), 4);
  const int draws = 20000;
  const std::vector<int> counts = histogram(s, logits, draws);
  double z = 0.0;
  for (float l : logits) z += std::exp(l / temperature);
  for (size_t i = 0; i < logits.size(); ++i) {
    const double expected = std::exp(logits[i] / temperature) / z;
    const double sigma = std::sqrt(expected * (1.0 - expected) / draws);
    EXPECT_NEAR(double(counts[i]) / draws, expected, 4.0 * sigma + 1e-4) << "token " << i;
  }
}

// Speculative sampling against a one-hot draft must leave the output distribution unchanged:
// whatever the draft (likely, unlikely, or outside the kept candidates), the frequencies of
// sample_against() follow the softmax. Pearson's chi-square over the tokens, df = 3, against its
// 0.999 quantile (16.27): a correct sampler fails one draft in a thousand by chance; the seeds
// are fixed, so the test is deterministic.
TEST(Sampler, SampleAgainstADraftKeepsTheDistribution) {
  const std::vector<float> logits{1.0f, 0.0f, 2.0f, -0.5f, -9.0f};
  const float temperature = 0.9f;
  SamplingParams p = plain(temperature, 99);
  p.top_k = 4;  // token 4 is never a candidate
  double z = 0.0;
  for (int i = 0; i < 4; ++i) z += std::exp(logits[i] / temperature);
  const int draws = 20000;
  for (int32_t draft : {2, 0, 3, 4}) {
    Sampler s(p, 5);
    std::vector<int> counts(5, 0);
    for (int i = 0; i < draws; ++i) ++counts[s.sample_against(logits, draft)];
    EXPECT_EQ(counts[4], 0) << "draft " << draft;
    double chi2 = 0.0;
    for (int i = 0; i < 4; ++i) {
      const double expected = draws * std::exp(logits[i] / temperature) / z;
      chi2 += (counts[i] - expected) * (counts[i] - expected) / expected;
    }
    EXPECT_LT(chi2, 16.27) << "draft " << draft;
  }
}

TEST(Sampler, SampleAgainstIsGreedyAtTemperatureZero) {
  Sampler s(plain(0.0f), 4);
  const std::vector<float> logits{0.5f, 2.0f, 1.0f, -1.0f};
  EXPECT_EQ(s.sample_against(logits, 1), 1);
  EXPECT_EQ(s.sample_against(logits, 2), 1);
}

// Probabilities at T = 1: {0.5, 0.3, 0.15, 0.05}.
const std::vector<float> kFour{std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};

TEST(Sampler, TopPKeepsSmallestPrefixReachingP) {
  SamplingParams p = plain(1.0f, 3);
  p.top_p = 0.7f;  // 0.5 < 0.7 <= 0.8: tokens 0 and 1 only
  Sampler s(p, 4);
  const std::vector<int> counts = histogram(s, kFour, 5000);
  EXPECT_GT(counts[0], 0);
  EXPECT_GT(counts[1], 0);
  EXPECT_EQ(counts[2], 0);
  EXPECT_EQ(counts[3], 0);
}

TEST(Sampler, MinPDropsTokensBelowFractionOfBest) {
  SamplingParams p = plain(1.0f, 4);
  p.min_p = 0.2f;  // threshold 0.1: token 3 (0.05) goes, token 2 (0.15) stays
  Sampler s(p, 4);
  const std::vector<int> counts = histogram(s, kFour, 5000);
  EXPECT_GT(counts[2], 0);
  EXPECT_EQ(counts[3], 0);
}

TEST(Sampler, TopPThenMinPKeepsTheShorterPrefix) {
  SamplingParams p = plain(2.0f, 5);  // a high temperature would revive excluded tokens
  p.top_p = 0.9f;                     // keeps tokens 0..2
  p.min_p = 0.5f;                     // threshold 0.25: keeps 0 and 1
  p.top_k = 3;
  Sampler s(p, 4);
  const std::vector<int> counts = histogram(s, kFour, 5000);
  EXPECT_GT(counts[0], 0);
  EXPECT_GT(counts[1], 0);
  EXPECT_EQ(counts[2] + counts[3], 0);
}

TEST(Sampler, RepeatPenaltyDividesPositiveAndMultipliesNegative) {
  SamplingParams p = plain(0.0f);
  p.repeat_penalty = 1.2f;
  Sampler s(p, 3);
  s.accept(0);
  EXPECT_EQ(s.sample(std::vector<float>{2.0f, 1.9f, 0.0f}), 1);     // 2.0 / 1.2 < 1.9
  EXPECT_EQ(s.sample(std::vector<float>{-1.0f, -1.1f, -5.0f}), 1);  // -1.0 * 1.2 < -1.1
  EXPECT_EQ(s.sample(std::vector<float>{3.0f, 1.9f, 0.0f}), 0);     // 3.0 / 1.2 > 1.9
}

TEST(Sampler, PresencePenaltyOncePerDistinctToken) {
  SamplingParams p = plain(0.0f);
  p.presence_penalty = 0.5f;
  Sampler s(p, 3);
  for (int i = 0; i < 3; ++i) s.accept(0);
  EXPECT_EQ(s.sample(std::vector<float>{1.0f, 0.8f, 0.0f}), 1);  // 0.5 < 0.8
  EXPECT_EQ(s.sample(std::vector<float>{1.0f, 0.4f, 0.0f}), 0);  // not 1.0 - 3 * 0.5
}

TEST(Sampler, PenaltyWindowForgetsOldTokens) {
  SamplingParams p = plain(0.0f);
  p.repeat_penalty = 2.0f;
  p.repeat_last_n = 2;
  Sampler s(p, 4);
  const std::vector<float> logits{2.0f, 1.5f, 0.0f, 0.0f};
  s.accept(0);
  EXPECT_EQ(s.sample(logits), 1);
  s.accept(2);
  s.accept(3);  // token 0 has left the window
  EXPECT_EQ(s.sample(logits), 0);
  s.accept(0);
  s.reset();  // reset empties the window
  EXPECT_EQ(s.sample(logits), 0);
}

TEST(Sampler, InvalidParametersNameTheParameter) {
  auto error_of = [](SamplingParams p, int n_vocab = 10) -> std::string {
    try {
      Sampler s(p, n_vocab);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  SamplingParams p;
  EXPECT_EQ(error_of(p), "");
  EXPECT_NE(error_of(p, 0).find("n_vocab"), std::string::npos);
  p.temperature = -0.1f;
  EXPECT_NE(error_of(p).find("temperature"), std::string::npos);
  p = {};
  p.top_p = 0.0f;
  EXPECT_NE(error_of(p).find("top_p"), std::string::npos);
  p.top_p = 1.5f;
  EXPECT_NE(error_of(p).find("top_p"), std::string::npos);
  p = {};
  p.top_k = -1;
  EXPECT_NE(error_of(p).find("top_k"), std::string::npos);
  p = {};
  p.min_p = -0.5f;
  EXPECT_NE(error_of(p).find("min_p"), std::string::npos);
  p = {};
  p.repeat_penalty = 0.0f;
  EXPECT_NE(error_of(p).find("repeat_penalty"), std::string::npos);
  p = {};
  p.repeat_last_n = -1;
  EXPECT_NE(error_of(p).find("repeat_last_n"), std::string::npos);
  p = {};
  p.presence_penalty = NAN;
  EXPECT_NE(error_of(p).find("presence_penalty"), std::string::npos);

  Sampler s(SamplingParams{}, 10);
  EXPECT_THROW(s.sample(std::vector<float>(9, 0.0f)), Error);
  EXPECT_THROW(s.accept(10), Error);
  EXPECT_THROW(s.accept(-1), Error);
}

}  // namespace
}  // namespace kz
