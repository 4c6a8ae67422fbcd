// Prefix reuse must give the same numbers as computing the whole history from scratch, for a
// dense model (KV truncation) and a hybrid one (recurrent checkpoints).
#include "runtime/sequence.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "backend/factory.h"
#include "base/error.h"
#include "testing/metrics.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

std::vector<int32_t> random_tokens(size_t n, uint32_t seed, int32_t n_vocab = 1019) {
  std::mt19937 rng(seed);
  std::vector<int32_t> t(n);
  for (auto& x : t) x = int32_t(rng() % uint32_t(n_vocab));
  return t;
}

using testing::rel_rms;

// Differences come only from evaluating in other batch splits (chunk boundaries of the delta
// rule move): float rounding. The cases run where rounding is not amplified: the cpu backend on
// F32 models (f32 activations) and the ref backend on quantized ones. (With 8-bit activations a
// last-bit difference can flip a rounding, which these random models amplify to ~1e-2.)
constexpr double kSameComputation = 1e-4;

struct ReuseParam {
  std::string model, backend;
};

class PrefixReuse : public ::testing::TestWithParam<ReuseParam> {
 protected:
  void SetUp() override {
    model_ = Model::load(testing::model_path(GetParam().model));
    backend_ = make_backend(GetParam().backend, 2);
  }
  bool hybrid() const { return GetParam().model.find("qwen35") != std::string::npos; }
  // Bytes of one checkpoint: the model's recurrent state.
  uint64_t checkpoint_size() const {
    return Sequence(*model_, 512, DType::F32, DType::F32, {}).state().fixed_bytes();
  }

  std::vector<float> from_scratch(std::span<const int32_t> tokens) {
    Sequence seq(*model_, 512, DType::F32, DType::F32, {});
    Scratch s;
    std::vector<float> logits;
    seq.append(*backend_, s, tokens, {}, logits);
    return logits;
  }

  // Evaluates `first`, then resumes with `second` and returns its logits and the reused count.
  std::pair<std::vector<float>, int64_t> reused(std::span<const int32_t> first,
                                                std::span<const int32_t> second,
                                                std::vector<int64_t> boundaries,
                                                CheckpointPolicy policy = {}) {
    Sequence seq(*model_, 512, DType::F32, DType::F32, policy);
    Scratch s;
    std::vector<float> logits;
    seq.append(*backend_, s, first, boundaries, logits);
    seq.checkpoint();
    const int64_t kept = seq.resume(second);
    EXPECT_EQ(seq.n_past(), kept);
    seq.append(*backend_, s, second.subspan(kept), boundaries, logits);
    EXPECT_EQ(seq.tokens(), std::vector<int32_t>(second.begin(), second.end()));
    return {logits, kept};
  }

  std::unique_ptr<Model> model_;
  std::unique_ptr<Backend> backend_;
};

TEST_P(PrefixReuse, ContinuationReusesEverything) {
  const auto all = random_tokens(150, 1);
  const auto first = std::span(all).first(100);
  auto [logits, kept] = reused(first, all, {});
  EXPECT_EQ(kept, 100);
  EXPECT_LE(rel_rms(logits, from_scratch(all)), kSameComputation);
}

TEST_P(PrefixReuse, EditInTheMiddleResumesFromBeforeTheEdit) {
  const auto a = random_tokens(140, 2);
  auto b = a;
  for (size_t i = 70; i < b.size(); ++i) b[i] = (b[i] + 7) % 1019;
  auto [logits, kept] = reused(a, b, {20, 60, 100});
  EXPECT_LE(kept, 70);
  // Recurrent layers resume from the last checkpoint before the edit; attention caches
  // truncate anywhere.
  EXPECT_EQ(kept, hybrid() ? 60 : 70);
  EXPECT_LE(rel_rms(logits, from_scratch(b)), kSameComputation);
}

TEST_P(PrefixReuse, SameHistoryRecomputesOnlyTheLastToken) {
  const auto a = random_tokens(90, 3);
  auto [logits, kept] = reused(a, a, {89});
  EXPECT_EQ(kept, 89);
  EXPECT_LE(rel_rms(logits, from_scratch(a)), kSameComputation);
}

TEST_P(PrefixReuse, IntervalCheckpointsWithinBudget) {
  const auto a = random_tokens(300, 4);
  auto b = a;
  b[250] = (b[250] + 1) % 1019;
  auto [logits, kept] = reused(a, b, {}, CheckpointPolicy{64, 1ull << 30});
  EXPECT_EQ(kept, hybrid() ? 192 : 250);
  EXPECT_LE(rel_rms(logits, from_scratch(b)), kSameComputation);

  Sequence seq(*model_, 512, DType::F32, DType::F32, CheckpointPolicy{16, 1});
  Scratch s;
  std::vector<float> l;
  seq.append(*backend_, s, a, {}, l);
  EXPECT_LE(seq.checkpoint_count(), 1u);  // a 1-byte budget keeps only the newest
}

// Checkpoints dropped by a reset or a diverging history leave their buffers for the next ones
// (fresh memory costs page faults), and kept buffers and checkpoints stay within the budget.
TEST_P(PrefixReuse, DroppedCheckpointBuffersAreReused) {
  if (!hybrid()) GTEST_SKIP() << "no recurrent layers";
  const auto a = random_tokens(200, 8);
  const std::vector<int64_t> boundaries = {40, 80, 120};
  const uint64_t one = checkpoint_size();
  const CheckpointPolicy policy{0, 3 * one};
  Sequence seq(*model_, 512, DType::F32, DType::F32, policy);
  Scratch s;
  std::vector<float> logits;
  seq.append(*backend_, s, a, boundaries, logits);
  ASSERT_EQ(seq.checkpoint_count(), 3u);
  std::vector<const float*> buffers;
  for (const Checkpoint& c : seq.checkpoints()) buffers.push_back(c.recur.floats().data());

  seq.reset();
  EXPECT_EQ(seq.checkpoint_count(), 0u);
  EXPECT_EQ(seq.spare_bytes(), 3 * one);
  seq.append(*backend_, s, a, boundaries, logits);
  ASSERT_EQ(seq.checkpoint_count(), 3u);
  EXPECT_EQ(seq.spare_bytes(), 0u);
  for (const Checkpoint& c : seq.checkpoints())
    EXPECT_NE(std::find(buffers.begin(), buffers.end(), c.recur.floats().data()), buffers.end());
  EXPECT_LE(rel_rms(logits, from_scratch(a)), kSameComputation);

  // A history diverging at 100 drops the checkpoint at 120; the end-of-prompt one does not fit.
  auto b = a;
  b[100] = (b[100] + 1) % 1019;
  EXPECT_EQ(seq.resume(b), 80);
  EXPECT_EQ(seq.spare_bytes(), one);
  seq.append(*backend_, s, std::span(b).subspan(80), boundaries, logits);
  seq.checkpoint();
  EXPECT_LE(seq.checkpoint_bytes() + seq.spare_bytes(), policy.budget_bytes);
  EXPECT_LE(rel_rms(logits, from_scratch(b)), kSameComputation);
}

// After a turn, as many buffers as it took checkpoints are made ready for the next turn, within
// the budget; the next turn then takes them instead of fresh memory.
TEST_P(PrefixReuse, PreparedBuffersServeTheNextTurnsCheckpoints) {
  if (!hybrid()) GTEST_SKIP() << "no recurrent layers";
  const auto a = random_tokens(200, 9);
  const uint64_t one = checkpoint_size();
  const CheckpointPolicy policy{0, 5 * one};
  Sequence seq(*model_, 512, DType::F32, DType::F32, policy);
  Scratch s;
  std::vector<float> logits;
  const std::vector<int64_t> first_turn = {40, 80};
  seq.append(*backend_, s, std::span(a).first(100), first_turn, logits);
  seq.checkpoint();  // 3 taken
  seq.prepare_checkpoint_buffers();
  EXPECT_EQ(seq.spare_bytes(), 2 * one);  // 3 taken, but only 2 more fit in the budget
  seq.prepare_checkpoint_buffers();       // none taken since: nothing more
  EXPECT_EQ(seq.spare_bytes(), 2 * one);

  const std::vector<int64_t> second_turn = {140, 180};
  seq.append(*backend_, s, std::span(a).subspan(100), second_turn, logits);
  EXPECT_EQ(seq.spare_bytes(), 0u);
  EXPECT_EQ(seq.checkpoint_count(), 5u);
  EXPECT_LE(rel_rms(logits, from_scratch(a)), kSameComputation);
  // Resuming from the newest checkpoint gives the same numbers as computing from scratch.
  auto b = a;
  b[190] = (b[190] + 1) % 1019;
  EXPECT_EQ(seq.resume(b), 180);
  seq.append(*backend_, s, std::span(b).subspan(180), {}, logits);
  EXPECT_LE(rel_rms(logits, from_scratch(b)), kSameComputation);
}

// append() checkpoints inside a batch without splitting it (and across the model's 512-token
// batches, at the edge between two and after it): each checkpoint holds the recurrent state of
// evaluating exactly its prefix.
TEST_P(PrefixReuse, CheckpointsInsideABatchHoldThePrefixState) {
  const auto a = random_tokens(600, 7);
  const CheckpointPolicy boundaries_only{0, 1ull << 30};
  Sequence seq(*model_, 700, DType::F32, DType::F32, boundaries_only);
  Scratch s;
  std::vector<float> logits;
  const std::vector<int64_t> boundaries = {100, 512, 530};
  seq.append(*backend_, s, a, boundaries, logits);
  ASSERT_EQ(seq.checkpoint_count(), hybrid() ? 3u : 0u);
  const auto floats = [](std::span<const float> v) {
    return std::vector<float>(v.begin(), v.end());
  };
  for (const Checkpoint& c : seq.checkpoints()) {
    SCOPED_TRACE(c.n_past);
    Sequence prefix(*model_, 700, DType::F32, DType::F32, boundaries_only);
    prefix.append(*backend_, s, std::span(a).first(c.n_past), {}, logits);
    ASSERT_EQ(c.recur.size(), prefix.state().recur.size());
    for (size_t i = 0; i < c.recur.size(); ++i) {
      EXPECT_LE(rel_rms(floats(c.recur.conv(i)), floats(prefix.state().recur.conv(i))),
                kSameComputation);
      EXPECT_LE(rel_rms(floats(c.recur.ssm(i)), floats(prefix.state().recur.ssm(i))),
                kSameComputation);
    }
  }
}

TEST_P(PrefixReuse, SnapshotsOutsideTheBatchAreRefused) {
  SequenceState st = model_->new_state(64, DType::F32, DType::F32);
  Scratch s;
  std::vector<float> logits;
  const auto a = random_tokens(10, 8);
  std::vector<Checkpoint> past_the_end = {{11, st.recur}};
  EXPECT_THROW(model_->eval(*backend_, st, s, a, false, logits, nullptr, past_the_end), Error);
  std::vector<Checkpoint> out_of_order = {{5, st.recur}, {5, st.recur}};
  EXPECT_THROW(model_->eval(*backend_, st, s, a, false, logits, nullptr, out_of_order), Error);
  EXPECT_EQ(st.n_past, 0);
}

// Speculative verification: evaluating the next token and 5 drafts in one batch, then keeping
// the first n, leaves the sequence as if only those n had been evaluated: the same tokens, and
// the same logits for whatever comes next (for every n, 0 through all).
TEST_P(PrefixReuse, KeepVerifiedRollsBackToAnyPrefix) {
  const auto prompt = random_tokens(40, 5);
  const auto batch = random_tokens(6, 6);
  const int32_t after = 17;
  for (int64_t n = 0; n <= int64_t(batch.size()); ++n) {
    SCOPED_TRACE(n);
    Sequence seq(*model_, 512, DType::F32, DType::F32, {});
    Scratch s;
    std::vector<float> logits;
    seq.append(*backend_, s, prompt, {}, logits);
    seq.verify(*backend_, s, batch, logits);
    EXPECT_EQ(logits.size(), batch.size() * model_->info().n_vocab);
    seq.keep_verified(*backend_, s, n);
    std::vector<int32_t> kept(prompt);
    kept.insert(kept.end(), batch.begin(), batch.begin() + n);
    EXPECT_EQ(seq.tokens(), kept);
    EXPECT_EQ(seq.n_past(), int64_t(kept.size()));
    EXPECT_EQ(seq.rollback_bytes() > 0, hybrid());
    seq.append(*backend_, s, std::span(&after, 1), {}, logits);
    kept.push_back(after);
    EXPECT_LE(rel_rms(logits, from_scratch(kept)), kSameComputation);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, PrefixReuse,
                         ::testing::Values(ReuseParam{"qwen3-tiny-f32", "cpu"},
                                           ReuseParam{"qwen35-tiny-f32", "cpu"},
                                           ReuseParam{"qwen3-tiny-q8_0", "ref"},
                                           ReuseParam{"qwen35-tiny-q4_0", "ref"}),
                         [](const auto& info) {
                           return testing::test_name(info.param.model + "_" + info.param.backend);
                         });

}  // namespace
}  // namespace kz
