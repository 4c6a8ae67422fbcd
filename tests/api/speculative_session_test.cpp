// Speculative decoding through the session API: greedy output identical token for token to
// plain decoding, for every draft source and draft length, with F16 and Q8_0 caches, across a
// prefix-reuse turn and a saved state; rejections forced at every position; and with sampling,
// the same distribution of tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "api/engine.h"
#include "testing/api_params.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

struct SpecCase {
  std::string model;
  DraftSource source;
  std::string cache;  // K and V cache type
};

std::string case_name(const SpecCase& c) {
  return testing::test_name(c.model + "_" + std::string(draft_source_name(c.source)) + "_" +
                            c.cache);
}

class SpeculativeSession : public ::testing::TestWithParam<SpecCase> {
 protected:
  void SetUp() override {
    engine_ = Engine::load(testing::model_path(GetParam().model));
    params_ = testing::session_params(1024, 2);
    params_.k_type = params_.v_type = GetParam().cache;
  }
  GenerateParams plain(int max_tokens) const { return testing::generate_params(max_tokens); }
  GenerateParams speculative(int max_tokens, int k) const {
    GenerateParams p = plain(max_tokens);
    p.speculative.source = GetParam().source;
    p.speculative.max_draft = k;
    return p;
  }
  std::shared_ptr<Engine> engine_;
  SessionParams params_;
};

// Two turns (the second reuses the first's prefix), then a third in a session restored from a
// state saved after the second: the same tokens as plain decoding at every turn.
TEST_P(SpeculativeSession, GreedyOutputIsIdenticalToPlainDecoding) {
  for (int k : {1, 2, 3, 5, 8}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    Session base(engine_, params_), spec(engine_, params_);
    std::vector<ChatMessage> history = {
        {"user", "one two three four, one two three four, one two three four", ""}};
    int64_t drafted = 0;
    for (int turn = 0; turn < 2; ++turn) {
      const GenerateResult a = base.generate(history, plain(24));
      const GenerateResult b = spec.generate(history, speculative(24, k));
      EXPECT_EQ(b.tokens, a.tokens) << "turn " << turn;
      EXPECT_EQ(b.text, a.text);
      EXPECT_EQ(b.cached_tokens, a.cached_tokens);
      EXPECT_LE(b.speculative.accepted, b.speculative.drafted);
      drafted += b.speculative.drafted;
      history.push_back({"assistant", a.text, ""});
      history.push_back({"user", "again: one two three four", ""});
    }
    if (GetParam().source == DraftSource::Mtp) {
      EXPECT_GT(drafted, 0);  // the MTP layer always drafts
    }
    Session restored(engine_, params_);
    restored.load_state(spec.save_state());
    EXPECT_EQ(restored.tokens(), base.tokens());
    const GenerateResult a = base.generate(history, plain(16));
    const GenerateResult c = restored.generate(history, speculative(16, k));
    EXPECT_EQ(c.tokens, a.tokens) << "after a restored state";
    EXPECT_GT(c.cached_tokens, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, SpeculativeSession,
                         ::testing::Values(SpecCase{"qwen3-tiny-q8_0", DraftSource::Ngram, "f16"},
                                           SpecCase{"qwen3-tiny-q8_0", DraftSource::Ngram, "q8_0"},
                                           SpecCase{"qwen35-tiny-q4_0", DraftSource::Ngram, "f16"},
                                           SpecCase{"qwen35-tiny-q4_0", DraftSource::Ngram, "q8_0"},
                                           SpecCase{"qwen35-tiny-mtp-f32", DraftSource::Mtp, "f16"},
                                           SpecCase{"qwen35-tiny-mtp-f32", DraftSource::Mtp,
                                                    "q8_0"}),
                         [](const auto& info) { return case_name(info.param); });

// Replayed drafts: the model's own continuation is accepted in full, in fewer passes than
// tokens; with one token changed at position j (a draft, unless j falls on a token the model
// produces itself after a pass), the output never changes.
class ReplayedDrafts : public ::testing::TestWithParam<std::string> {};

TEST_P(ReplayedDrafts, RejectionsAtEveryPositionLeaveTheOutputUnchanged) {
  const auto engine = Engine::load(testing::model_path(GetParam()));
  const SessionParams sp = testing::session_params(512, 2);
  const std::vector<ChatMessage> history = {{"user", "Count with me", ""}};
  const int n = 12;
  Session base(engine, sp);
  const GenerateResult want = base.generate(history, testing::generate_params(n));
  ASSERT_EQ(int(want.tokens.size()), n);
  for (int k : {1, 4, 8}) {
    GenerateParams p = testing::generate_params(n);
    p.speculative.source = DraftSource::Replay;
    p.speculative.max_draft = k;
    p.speculative.replay = want.tokens;
    Session s(engine, sp);
    const GenerateResult all = s.generate(history, p);
    EXPECT_EQ(all.tokens, want.tokens) << "k = " << k;
    EXPECT_EQ(all.speculative.accepted, all.speculative.drafted) << "k = " << k;
    EXPECT_LE(all.speculative.passes, (n - 1 + k) / (k + 1)) << "k = " << k;
    int rejected_runs = 0;
    for (int wrong = 1; wrong < n; ++wrong) {
      p.speculative.replay = want.tokens;
      p.speculative.replay[wrong] =
          (want.tokens[wrong] + 1) % int32_t(engine->model().info().n_vocab);
      Session r(engine, sp);
      const GenerateResult got = r.generate(history, p);
      EXPECT_EQ(got.tokens, want.tokens) << "k = " << k << ", wrong draft at " << wrong;
      if (got.speculative.accepted < got.speculative.drafted) ++rejected_runs;
    }
    // Every position is a draft position for some k; at k = 8 all but the pass-final ones are.
    EXPECT_GE(rejected_runs, (n - 1) * k / (k + 1) - 1) << "k = " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ReplayedDrafts,
                         ::testing::Values("qwen3-tiny-q8_0", "qwen35-tiny-q4_0"),
                         [](const auto& info) { return testing::test_name(info.param); });

// Sampling: the second generated token (the first one decided by verification against a draft)
// has the same distribution with speculation as without, over 600 seeds each. Two-sample
// chi-square over the 8 most frequent tokens plus "other" (df = 8) against its 0.999 quantile,
// 26.12: a correct implementation fails one seed set in a thousand by chance; the seeds are
// fixed, so the test is deterministic.
TEST(SpeculativeSampling, KeepsTheDistributionOfTokens) {
  const auto engine = Engine::load(testing::model_path("qwen3-tiny-q8_0"));
  const SessionParams sp = testing::session_params(256, 1);
  const std::vector<ChatMessage> history = {{"user", "Say something", ""}};
  Session greedy_session(engine, sp);
  const GenerateResult greedy = greedy_session.generate(history, testing::generate_params(3));
  const int runs = 600;
  auto second_tokens = [&](bool speculate) {
    std::map<int32_t, int> counts;
    Session s(engine, sp);
    for (int seed = 0; seed < runs; ++seed) {
      GenerateParams p = testing::generate_params(3, 0.7f, 1000 + seed);
      p.sampling.top_k = 8;
      if (speculate) {
        p.speculative.source = DraftSource::Replay;
        p.speculative.max_draft = 2;
        p.speculative.replay = greedy.tokens;
      }
      ++counts[s.generate(history, p).tokens.at(1)];
    }
    return counts;
  };
  const auto a = second_tokens(false), b = second_tokens(true);
  std::vector<std::pair<int, int32_t>> by_count;
  for (const auto& [token, count] : a) by_count.push_back({count, token});
  std::sort(by_count.rbegin(), by_count.rend());
  std::vector<std::pair<double, double>> bins;  // (count without, count with)
  double other_a = runs, other_b = runs;
  for (size_t i = 0; i < std::min<size_t>(8, by_count.size()); ++i) {
    const int32_t t = by_count[i].second;
    const double ca = a.count(t) ? a.at(t) : 0, cb = b.count(t) ? b.at(t) : 0;
    bins.push_back({ca, cb});
    other_a -= ca;
    other_b -= cb;
  }
  bins.push_back({other_a, other_b});
  double chi2 = 0;  // equal sample sizes: sum (a - b)^2 / (a + b)
  for (auto [ca, cb] : bins)
    if (ca + cb > 0) chi2 += (ca - cb) * (ca - cb) / (ca + cb);
  EXPECT_LT(chi2, 26.12);
  EXPECT_GE(bins.size(), 3u);  // the test means something only if tokens vary
}

}  // namespace
}  // namespace kz
