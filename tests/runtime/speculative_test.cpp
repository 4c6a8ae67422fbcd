// Speculative decoding's pieces: prompt-lookup drafts, and verification that accepts exactly
// the drafts the model itself would have produced.
#include "runtime/speculative.h"

#include <gtest/gtest.h>

#include "backend/factory.h"
#include "base/error.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

// The whole sequence as history + next, as the decode loop passes it.
std::vector<int32_t> draft(std::vector<int32_t> tokens, int max_tokens) {
  if (tokens.empty()) return {};
  const int32_t next = tokens.back();
  tokens.pop_back();
  return ngram_draft(tokens, next, max_tokens);
}

TEST(NgramDraft, ContinuesTheMostRecentEarlierOccurrence) {
  const std::vector<int32_t> h{1, 2, 3, 9, 8, 1, 2, 3, 7, 6, 5, 1, 2, 3};
  EXPECT_EQ(draft(h, 4), (std::vector<int32_t>{7, 6, 5, 1}));
  EXPECT_EQ(draft(h, 1), (std::vector<int32_t>{7}));
  // The continuation stops at the end of the history.
  const std::vector<int32_t> short_tail{4, 5, 6, 4, 5, 6};
  EXPECT_EQ(draft(short_tail, 8), (std::vector<int32_t>{4, 5, 6}));
}

TEST(NgramDraft, FallsBackToShorterNgramsThenNothing) {
  EXPECT_EQ(draft(std::vector<int32_t>{5, 6, 7, 0, 6, 7}, 3), (std::vector<int32_t>{0, 6, 7}));
  EXPECT_TRUE(draft(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, 3).empty());
  EXPECT_TRUE(draft(std::vector<int32_t>{7, 7}, 3).empty());
  EXPECT_TRUE(draft(std::vector<int32_t>{}, 3).empty());
}

TEST(SpeculativeParams, BadValuesNameTheArgument) {
  EXPECT_EQ(parse_draft_source("mtp", "--spec"), DraftSource::Mtp);
  EXPECT_THROW(parse_draft_source("eagle", "--spec"), Error);
  EXPECT_THROW(check_max_draft(0, "--draft"), Error);
  EXPECT_THROW(check_max_draft(kMaxDraft + 1, "--draft"), Error);
  try {
    parse_draft_source("x", "--spec");
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--spec: unknown draft source 'x' (none, ngram, mtp, replay)");
  }
}

class VerifyDrafts : public ::testing::TestWithParam<std::string> {};

// Greedy: with the model's own continuation as drafts and a wrong token at position j, exactly
// j drafts are accepted and the next token is the model's own; all right, all accepted.
TEST_P(VerifyDrafts, AcceptsTheLongestPrefixTheModelAgreesWith) {
  const auto model = Model::load(testing::model_path(GetParam()));
  const auto backend = make_backend("cpu", 2);
  const std::vector<int32_t> prompt{11, 300, 25, 7, 900, 31, 64, 2, 500, 41};
  SamplingParams greedy;
  greedy.temperature = 0.0f;
  const int n_vocab = int(model->info().n_vocab);

  // The model's own greedy continuation, one token at a time.
  std::vector<int32_t> own;
  {
    Sequence seq(*model, 256, DType::F32, DType::F32, {});
    Scratch s;
    std::vector<float> logits;
    seq.append(*backend, s, prompt, {}, logits);
    Sampler sampler(greedy, n_vocab);
    for (int i = 0; i < 7; ++i) {
      own.push_back(sampler.sample(logits));
      seq.append(*backend, s, std::span(&own.back(), 1), {}, logits);
    }
  }
  const int k = 5;  // drafts after own[0]: own[1..5], the model's next token own[6]
  for (int wrong = 0; wrong <= k; ++wrong) {
    SCOPED_TRACE(wrong);
    std::vector<int32_t> drafts(own.begin() + 1, own.begin() + 1 + k);
    if (wrong < k) drafts[wrong] = (drafts[wrong] + 1) % n_vocab;
    Sequence seq(*model, 256, DType::F32, DType::F32, {});
    Scratch s;
    std::vector<float> logits;
    seq.append(*backend, s, prompt, {}, logits);
    Sampler sampler(greedy, n_vocab);
    const Verified v = verify_drafts(seq, *backend, s, sampler, own[0], drafts, logits);
    EXPECT_EQ(v.accepted, wrong);
    ASSERT_EQ(v.tokens.size(), size_t(wrong + 1));
    EXPECT_EQ(v.tokens, std::vector<int32_t>(own.begin() + 1, own.begin() + 2 + wrong));
  }
}

INSTANTIATE_TEST_SUITE_P(Models, VerifyDrafts,
                         ::testing::Values("qwen3-tiny-f32", "qwen35-tiny-f32"),
                         [](const auto& info) { return testing::test_name(info.param); });

}  // namespace
}  // namespace kz
