// Limits of the engine API: a history longer than the context (SessionParams::context_overflow,
// api/context_fit.h), NUL bytes, an empty history and absurd session parameters, each a one-line
// kz::Error that leaves the session as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "api/engine.h"
#include "base/error.h"
#include "testing/api_params.h"
#include "testing/reference_logits.h"
#include "text/tokenizer.h"

namespace kz {
namespace {

constexpr int kMaxTokens = 8;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A system message, `turns` user/assistant pairs and a last question.
std::vector<ChatMessage> long_history(int turns) {
  std::vector<ChatMessage> h = {{"system", "You answer in one short sentence.", ""}};
  for (int i = 0; i < turns; ++i) {
    h.push_back({"user", "Question " + std::to_string(i) + ": what is " + std::to_string(i) +
                             " plus " + std::to_string(i) + "?"});
    h.push_back({"assistant", "It is " + std::to_string(2 * i) + ", as anyone can count."});
  }
  h.push_back({"user", "And what was the first question?"});
  return h;
}

// The system message and the messages from `first` on.
std::vector<ChatMessage> keeping_from(const std::vector<ChatMessage>& h, size_t first) {
  std::vector<ChatMessage> kept = {h[0]};
  kept.insert(kept.end(), h.begin() + first, h.end());
  return kept;
}

class Limits : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { engine_ = Engine::load(testing::model_path(GetParam())); }
  int64_t prompt_size(const std::vector<ChatMessage>& h) const {
    return int64_t(engine_->encode_chat(h, testing::generate_params(kMaxTokens)).size());
  }
  SessionParams params(int64_t n_ctx, ContextOverflow policy) const {
    SessionParams p = testing::session_params(n_ctx, 1);
    p.context_overflow = policy;
    return p;
  }
  std::shared_ptr<Engine> engine_;
};

TEST_P(Limits, AHistoryPastTheContextIsAnErrorNamingTheSizes) {
  const std::vector<ChatMessage> h = long_history(12);
  const int64_t n = prompt_size(h);
  const int64_t n_ctx = n / 2;
  Session s(engine_, params(n_ctx, ContextOverflow::Error));
  const std::string e = error_of([&] { s.generate(h, testing::generate_params(kMaxTokens)); });
  EXPECT_EQ(e, cat("context overflow: the prompt is ", n, " tokens but the context holds ", n_ctx,
                   " (at most ", n_ctx - 1, " prompt tokens, to leave room to generate)"));
  EXPECT_TRUE(s.tokens().empty());
}

// The fewest whole turns are dropped: the prompt leaves max_tokens free, one turn fewer would
// not, and the answer is the one a session gives to the shortened history itself.
TEST_P(Limits, DroppingTheOldestTurnsKeepsTheSystemMessageAndTheLastTurns) {
  const std::vector<ChatMessage> h = long_history(12);
  const int64_t n_ctx = prompt_size(h) / 2;
  Session s(engine_, params(n_ctx, ContextOverflow::DropOldestTurns));
  const GenerateResult r = s.generate(h, testing::generate_params(kMaxTokens));
  ASSERT_GT(r.dropped_messages, 0);
  EXPECT_EQ(r.dropped_messages % 2, 0) << "whole user/assistant turns";
  const size_t first = 1 + size_t(r.dropped_messages);
  const std::vector<ChatMessage> kept = keeping_from(h, first);
  EXPECT_EQ(r.prompt_tokens, prompt_size(kept));
  EXPECT_LE(r.prompt_tokens + kMaxTokens, n_ctx);
  EXPECT_GT(prompt_size(keeping_from(h, first - 2)) + kMaxTokens, n_ctx);

  Session plain(engine_, params(n_ctx, ContextOverflow::Error));
  const GenerateResult expected = plain.generate(kept, testing::generate_params(kMaxTokens));
  EXPECT_EQ(r.tokens, expected.tokens);
  EXPECT_EQ(r.stop, expected.stop);
  EXPECT_EQ(expected.dropped_messages, 0);
}

// The same history drops the same turns: a regenerated answer recomputes one token, and the next
// turn, which drops more, still reuses the system message.
TEST_P(Limits, DroppedTurnsAreDeterministicAndThePrefixIsReused) {
  std::vector<ChatMessage> h = long_history(12);
  const int64_t n_ctx = prompt_size(h) / 2;
  Session s(engine_, params(n_ctx, ContextOverflow::DropOldestTurns));
  const GenerateResult a = s.generate(h, testing::generate_params(kMaxTokens));
  const GenerateResult b = s.generate(h, testing::generate_params(kMaxTokens));
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.dropped_messages, b.dropped_messages);
  EXPECT_EQ(b.cached_tokens, b.prompt_tokens - 1);

  h.push_back({"assistant", a.text});
  h.push_back({"user", "Say it again, please, in other words than before."});
  const GenerateResult c = s.generate(h, testing::generate_params(kMaxTokens));
  EXPECT_GE(c.dropped_messages, a.dropped_messages);
  const std::vector<int32_t> kept = engine_->encode_chat(
      keeping_from(h, 1 + size_t(c.dropped_messages)), testing::generate_params(kMaxTokens));
  const int32_t im_start = engine_->tokenizer().find_token("<|im_start|>");
  const auto second_turn = std::find(kept.begin() + 1, kept.end(), im_start) - kept.begin();
  EXPECT_GE(c.cached_tokens, second_turn) << "the system message is reused";
  EXPECT_EQ(c.prompt_tokens, int64_t(kept.size()));
}

TEST_P(Limits, ALastTurnPastTheContextFailsEvenWhenDroppingTurns) {
  std::vector<ChatMessage> h = long_history(2);
  h.back().content = std::string(4000, 'z');
  const std::vector<ChatMessage> last = keeping_from(h, h.size() - 1);
  Session s(engine_, params(64, ContextOverflow::DropOldestTurns));
  EXPECT_EQ(error_of([&] { s.generate(h, testing::generate_params(kMaxTokens)); }),
            cat("context overflow: the prompt is ", prompt_size(last),
                " tokens but the context holds 64 (at most 63 prompt tokens, to leave room to "
                "generate), after dropping the 4 oldest messages it could"));
  EXPECT_TRUE(s.tokens().empty());
}

TEST_P(Limits, NulBytesAndAnEmptyHistoryAreRefused) {
  Session s(engine_, params(256, ContextOverflow::Error));
  const std::vector<ChatMessage> nul = {{"system", "Be brief."},
                                        {"user", std::string("one\0two", 7)}};
  EXPECT_EQ(error_of([&] { s.generate(nul, testing::generate_params(2)); }), "message 1: NUL byte");
  ChatMessage reasoning("assistant", "ok", std::string("\0", 1));
  const std::vector<ChatMessage> nul_reasoning = {{"user", "hi"}, reasoning, {"user", "go"}};
  EXPECT_EQ(error_of([&] { s.generate(nul_reasoning, testing::generate_params(2)); }),
            "message 1: NUL byte");
  EXPECT_EQ(error_of([&] { s.generate(std::vector<ChatMessage>{}, testing::generate_params(2)); }),
            "render_chat: no messages");
  EXPECT_TRUE(s.tokens().empty());
}

TEST_P(Limits, AbsurdSessionAndGenerationParametersAreOneLineErrors) {
  auto session_error = [&](SessionParams p) { return error_of([&] { Session(engine_, p); }); };
  SessionParams p = params(256, ContextOverflow::Error);
  p.n_ctx = 0;
  EXPECT_EQ(session_error(p), "context size must be at least 1, got 0");
  p = params(256, ContextOverflow::Error);
  p.n_threads = 1000000000;
  EXPECT_EQ(session_error(p), "invalid thread count 1000000000 (expected 1 to 256)");

  Session s(engine_, params(256, ContextOverflow::Error));
  const std::vector<ChatMessage> h = {{"user", "hi"}};
  auto generate_error = [&](GenerateParams g) { return error_of([&] { s.generate(h, g); }); };
  GenerateParams g = testing::generate_params(-1);
  EXPECT_EQ(generate_error(g), "invalid max_tokens -1");
  g = testing::generate_params(2);
  g.sampling.top_p = 2;
  EXPECT_EQ(generate_error(g), "SamplingParams.top_p must be in (0, 1] (got 2)");
  g = testing::generate_params(2, -1);
  EXPECT_EQ(generate_error(g), "SamplingParams.temperature must be finite and >= 0 (got -1)");
  g = testing::generate_params(2);
  g.sampling.top_k = -5;
  EXPECT_EQ(generate_error(g), "SamplingParams.top_k must be >= 0 (got -5)");
  EXPECT_TRUE(s.tokens().empty());
}

INSTANTIATE_TEST_SUITE_P(Models, Limits, ::testing::Values("qwen3-tiny-q8_0", "qwen35-tiny-q4_0"),
                         [](const auto& info) { return testing::test_name(info.param); });

}  // namespace
}  // namespace kz
