// Session::warm_up: one token through the session's decode device on a scratch state reports
// every layer in order and changes nothing of the conversation (the same answers as a session
// never warmed up, nothing cached from it).
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "api/engine.h"
#include "testing/api_params.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

class WarmUp : public ::testing::TestWithParam<const char*> {};

TEST_P(WarmUp, ReportsEachLayerAndLeavesTheConversationAlone) {
  auto engine = Engine::load(testing::model_path(GetParam()));
  const SessionParams sp = testing::session_params(256, 2);
  Session warm(engine, sp), cold(engine, sp);
  std::vector<std::pair<int64_t, int64_t>> calls;
  warm.warm_up([&](int64_t done, int64_t total) { calls.emplace_back(done, total); });

  const int64_t n_layer = engine->model().info().n_layer;
  ASSERT_EQ(int64_t(calls.size()), n_layer + 1);
  for (int64_t i = 0; i < n_layer; ++i) EXPECT_EQ(calls[i], std::make_pair(i, n_layer + 1));
  EXPECT_EQ(calls.back(), std::make_pair(n_layer + 1, n_layer + 1));

  const std::vector<ChatMessage> history = {{"user", "Hello there!", ""}};
  const GenerateResult a = warm.generate(history, testing::generate_params(12));
  const GenerateResult b = cold.generate(history, testing::generate_params(12));
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.cached_tokens, 0);
}

INSTANTIATE_TEST_SUITE_P(Models, WarmUp, ::testing::Values("qwen3-tiny-q8_0", "qwen35-tiny-q4_0"),
                         [](const auto& info) { return testing::test_name(info.param); });

}  // namespace
}  // namespace kz
