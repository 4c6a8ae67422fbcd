// One Engine shared by several Sessions generating on several threads at once, as an app's JNI
// threads would: each answers exactly as it does alone; a cancel from another thread stops its
// session only; a session destroyed while others generate disturbs none of them. The engine (the
// mapped weights, the tokenizer, the template) is shared read-only; each session owns its state,
// devices and scratch.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "api/engine.h"
#include "testing/api_params.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

constexpr int kThreads = 4;

GenerateParams sampled(int max_tokens, uint64_t seed) {
  return testing::generate_params(max_tokens, 0.8f, seed);
}

SessionParams one_thread() {
  return testing::session_params(512, 1);
}

// Two turns of conversation i, the second reusing the first's prefix.
std::vector<GenerateResult> converse(const std::shared_ptr<Engine>& engine, int i) {
  Session s(engine, one_thread());
  std::vector<ChatMessage> h = {{"user", "Question number " + std::to_string(i), ""}};
  std::vector<GenerateResult> out;
  out.push_back(s.generate(h, sampled(12, 100 + i)));
  h.push_back({"assistant", out.back().text, ""});
  h.push_back({"user", "And then?", ""});
  out.push_back(s.generate(h, sampled(12, 200 + i)));
  return out;
}

class Concurrency : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { engine_ = Engine::load(testing::model_path(GetParam())); }
  std::shared_ptr<Engine> engine_;
};

TEST_P(Concurrency, SessionsOnThreadsAnswerAsAlone) {
  std::vector<std::vector<GenerateResult>> alone;
  for (int i = 0; i < kThreads; ++i) alone.push_back(converse(engine_, i));

  std::vector<std::vector<GenerateResult>> together(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] { together[i] = converse(engine_, i); });
  for (auto& t : threads) t.join();

  for (int i = 0; i < kThreads; ++i)
    for (size_t turn = 0; turn < alone[i].size(); ++turn) {
      EXPECT_FALSE(alone[i][turn].tokens.empty());
      EXPECT_EQ(together[i][turn].tokens, alone[i][turn].tokens) << "conversation " << i;
      EXPECT_EQ(together[i][turn].cached_tokens, alone[i][turn].cached_tokens);
    }
}

// A cancel from another thread while the session generates, and sessions destroyed while the
// others still generate.
TEST_P(Concurrency, CancelAndDestroyWhileOthersGenerate) {
  const std::vector<GenerateResult> want = converse(engine_, 7);
  // The victim's first piece of text waits until the cancel is sent, so the cancel lands while
  // it generates: it must stop before sampling another token.
  std::atomic<bool> started{false}, sent{false}, finished{false};
  auto victim = std::make_unique<Session>(engine_, one_thread());
  GenerateResult cancelled;
  std::thread generating([&] {
    const std::vector<ChatMessage> h = {{"user", "Tell a long story", ""}};
    cancelled = victim->generate(h, sampled(400, 1), [&](std::string_view) {
      started = true;
      while (!sent) std::this_thread::yield();
      return true;
    });
    finished = true;
  });
  std::vector<std::vector<GenerateResult>> others(2);
  std::thread other_a([&] { others[0] = converse(engine_, 7); });
  std::thread other_b([&] {
    for (int round = 0; round < 3; ++round) converse(engine_, round);  // made and destroyed
    others[1] = converse(engine_, 7);
  });
  while (!started && !finished) std::this_thread::yield();
  victim->cancel();
  sent = true;
  generating.join();
  victim.reset();
  other_a.join();
  other_b.join();
  EXPECT_EQ(cancelled.stop, StopReason::Cancelled);
  EXPECT_LT(cancelled.tokens.size(), 400u);
  for (const auto& got : others)
    for (size_t turn = 0; turn < want.size(); ++turn)
      EXPECT_EQ(got[turn].tokens, want[turn].tokens);
}

INSTANTIATE_TEST_SUITE_P(Models, Concurrency,
                         ::testing::Values("qwen3-tiny-q8_0", "qwen35-tiny-q4_0"),
                         [](const auto& info) { return testing::test_name(info.param); });

}  // namespace
}  // namespace kz
