// The engine API end to end on fixture models with their real chat templates: multi-turn chat
// with prefix reuse gives the same answers as recomputing the history, saved states continue
// identically, and bad inputs fail clearly without changing the session.
#include "api/engine.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "base/error.h"
#include "testing/api_params.h"
#include "testing/files.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

using testing::temp_path;

GenerateParams greedy(int max_tokens) {
  return testing::generate_params(max_tokens);
}

SessionParams small_session() {
  return testing::session_params(1024, 2);
}

struct Case {
  std::string model, backend;
};

class SessionApi : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    engine_ = Engine::load(testing::model_path(GetParam().model));
    params_ = small_session();
    params_.backend = GetParam().backend;
  }
  std::shared_ptr<Engine> engine_;
  SessionParams params_;
};

// Five turns; each turn's answer is appended to the history as the app would.
TEST_P(SessionApi, PrefixReuseGivesTheSameAnswersAsRecomputing) {
  Session reuse(engine_, params_), scratch(engine_, params_);
  std::vector<ChatMessage> history = {{"system", "You are terse.", ""}};
  const char* questions[] = {"Hi there", "What is 2+2?", "And 3+3?", "Tell me a story", "Thanks!"};
  auto no_reuse = greedy(12);
  no_reuse.reuse_prefix = false;
  for (int turn = 0; turn < 5; ++turn) {
    history.push_back({"user", questions[turn], ""});
    const GenerateResult a = reuse.generate(history, greedy(12));
    const GenerateResult b = scratch.generate(history, no_reuse);
    EXPECT_EQ(a.tokens, b.tokens) << "turn " << turn;
    EXPECT_EQ(a.text, b.text);
    EXPECT_EQ(a.prompt_tokens, b.prompt_tokens);
    EXPECT_EQ(b.cached_tokens, 0);
    if (turn > 0) {
      EXPECT_GT(a.cached_tokens, 0) << "turn " << turn;
    }
    EXPECT_EQ(a.cached_tokens + a.prefill_tokens, a.prompt_tokens);
    history.push_back({"assistant", a.text, ""});
  }
}

TEST_P(SessionApi, RegeneratedAnswerRecomputesOneToken) {
  Session s(engine_, params_);
  const std::vector<ChatMessage> h = {{"user", "Write something", ""}};
  const GenerateResult a = s.generate(h, greedy(8));
  const GenerateResult b = s.generate(h, greedy(8));
  EXPECT_EQ(b.prefill_tokens, 1);
  EXPECT_EQ(a.tokens, b.tokens);
}

TEST_P(SessionApi, SavedStateContinuesIdentically) {
  Session a(engine_, params_), b(engine_, params_);
  std::vector<ChatMessage> h = {{"user", "First question", ""}};
  const GenerateResult first = a.generate(h, greedy(6));
  const auto image = a.save_state();
  b.load_state(image);
  EXPECT_EQ(b.tokens(), a.tokens());
  h.push_back({"assistant", first.text, ""});
  h.push_back({"user", "Second question", ""});
  const GenerateResult ra = a.generate(h, greedy(10));
  const GenerateResult rb = b.generate(h, greedy(10));
  EXPECT_EQ(ra.tokens, rb.tokens);
  EXPECT_EQ(ra.cached_tokens, rb.cached_tokens);
  EXPECT_GT(rb.cached_tokens, 0);

  const std::string path = temp_path("state.bin");
  a.save_state_file(path);
  Session c(engine_, params_);
  c.load_state_file(path);
  EXPECT_EQ(c.tokens(), a.tokens());
  std::remove(path.c_str());
}

TEST_P(SessionApi, AnEmptySessionSavesAndLoads) {
  Session a(engine_, params_), b(engine_, params_);
  const std::vector<ChatMessage> first = {{"user", "First question", ""}};
  const std::vector<ChatMessage> hello = {{"user", "Hello", ""}};
  b.generate(first, greedy(2));
  b.load_state(a.save_state());
  EXPECT_TRUE(b.tokens().empty());
  const GenerateResult ra = a.generate(hello, greedy(4));
  const GenerateResult rb = b.generate(hello, greedy(4));
  EXPECT_EQ(ra.tokens, rb.tokens);
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A save that fails leaves the previous file as it was (it used to be rewritten in place, so a
// full disk left a truncated file), with the reason in the error.
TEST_P(SessionApi, AFailedSaveKeepsThePreviousFile) {
  Session a(engine_, params_);
  std::vector<ChatMessage> h = {{"user", "First question", ""}};
  a.generate(h, greedy(4));
  const std::string path = temp_path("state_kept.bin");
  a.save_state_file(path);
  const std::string saved = file_bytes(path);
  ASSERT_FALSE(saved.empty());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp" + std::to_string(::getpid())));

  h.push_back({"assistant", "An answer", ""});
  h.push_back({"user", "Second question", ""});
  a.generate(h, greedy(4));
  // The temporary file's name taken by a folder: the save fails as a full disk would, late.
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  std::filesystem::create_directory(tmp);
  try {
    a.save_state_file(path);
    ADD_FAILURE() << "the save did not fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": cannot write state file: Is a directory"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(file_bytes(path), saved);
  std::filesystem::remove(tmp);

  EXPECT_THROW(a.save_state_file("/dev/full"), Error);  // not replaced: not a regular file
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
  EXPECT_THROW(a.save_state_file(::testing::TempDir() + "/no/such/folder/state.bin"), Error);
  std::remove(path.c_str());
}

TEST_P(SessionApi, BadStateImagesAreRefusedAndLeaveTheSessionUntouched) {
  Session a(engine_, params_), b(engine_, params_);
  a.generate(std::vector<ChatMessage>{{"user", "Hello", ""}}, greedy(4));
  b.generate(std::vector<ChatMessage>{{"user", "Other", ""}}, greedy(4));
  const auto before = b.tokens();
  auto image = a.save_state();
  auto expect_refused = [&](std::span<const uint8_t> bytes, const std::string& what) {
    try {
      b.load_state(bytes);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
    EXPECT_EQ(b.tokens(), before);
  };
  expect_refused(std::span(image).first(image.size() / 2), "truncated");
  expect_refused(std::span(image).first(5), "truncated");
  auto corrupted = image;
  corrupted[corrupted.size() / 3] ^= 0x40;
  expect_refused(corrupted, "checksum");
  auto bad_magic = image;
  bad_magic[0] = 'X';
  expect_refused(bad_magic, "bad magic");

  const bool is_qwen35 = GetParam().model.find("qwen35") != std::string::npos;
  auto other =
      Engine::load(testing::model_path(is_qwen35 ? "qwen3-tiny-q8_0" : "qwen35-tiny-q4_0"));
  Session foreign(other, params_);
  foreign.generate(std::vector<ChatMessage>{{"user", "Hello", ""}}, greedy(2));
  expect_refused(foreign.save_state(), "another model");
}

TEST_P(SessionApi, BadInputsGiveClearErrors) {
  Session s(engine_, params_);
  auto expect_error = [&](std::vector<ChatMessage> h, const std::string& what) {
    try {
      s.generate(h, greedy(2));
      ADD_FAILURE() << "accepted: " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error({{"user", "bad \xff utf-8", ""}}, "invalid UTF-8");
  expect_error({{"wizard", "hi", ""}}, "unknown role 'wizard'");
  SessionParams tiny = params_;
  tiny.n_ctx = 8;
  Session small(engine_, tiny);
  try {
    small.generate(std::vector<ChatMessage>{{"user", std::string(200, 'a'), ""}}, greedy(2));
    ADD_FAILURE() << "context overflow accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("context overflow"), std::string::npos) << e.what();
  }
  SessionParams bad = params_;
  bad.k_type = "q3";
  EXPECT_THROW(Session(engine_, bad), Error);
}

TEST_P(SessionApi, CallbackCancelsAndStopStringsCut) {
  Session s(engine_, params_);
  const std::vector<ChatMessage> h = {{"user", "Go on", ""}};
  int pieces = 0;
  const GenerateResult r =
      s.generate(h, greedy(50), [&](std::string_view) { return ++pieces < 3; });
  EXPECT_EQ(r.stop, StopReason::Cancelled);
  EXPECT_EQ(pieces, 3);

  GenerateParams p = greedy(40);
  const GenerateResult full = s.generate(h, p);
  ASSERT_GE(full.text.size(), 4u);
  p.stop = {full.text.substr(2, 2)};
  const GenerateResult cut = s.generate(h, p);
  EXPECT_EQ(cut.stop, StopReason::StopString);
  EXPECT_EQ(cut.text, full.text.substr(0, full.text.find(p.stop[0])));
}

INSTANTIATE_TEST_SUITE_P(Models, SessionApi,
                         ::testing::Values(Case{"qwen3-tiny-q8_0", "cpu"},
                                           Case{"qwen35-tiny-q4_0", "cpu"}),
                         [](const auto& info) {
                           return testing::test_name(info.param.model + "_" + info.param.backend);
                         });

}  // namespace
}  // namespace kz
