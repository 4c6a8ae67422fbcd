// kazeia bench's machine-readable output and its device placement: -o json is one JSON array that
// holds the pp/tg rows and, with --spec and --chat, their rows too (scripts/dashboard.py reads
// nothing else); --profile says which backend ran each op; --device-layers is checked.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "testing/cli_runner.h"
#include "testing/reference_logits.h"

namespace {

using kz::testing::expect_error;
using kz::testing::kazeia;

using kz::testing::kTiny35;

TEST(BenchJson, OneArrayWithSpeculativeAndChatRows) {
  const kz::testing::CliResult r = kazeia("bench -m " + kTiny35 +
                                          " -t 1 -p 8 -n 8 -r 1 --spec replay --draft 2 "
                                          "--chat 2 --chat-tokens 16 -o json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);  // nothing after the array
  ASSERT_TRUE(j.is_array());
  int pp = 0, tg = 0, spec = 0, chat = 0;
  for (const auto& row : j) {
    EXPECT_EQ(row.at("model"), "qwen35-tiny-q4_0.gguf");
    const std::string test = row.at("test");
    if (test == "pp8") {
      ++pp;
      EXPECT_GT(row.at("tok_s").get<double>(), 0);
      EXPECT_GT(row.at("ttft_ms").get<double>(), 0);
    } else if (test == "tg8") {
      ++tg;
    } else if (test == "spec") {
      ++spec;
      EXPECT_EQ(row.at("source"), "replay");
      EXPECT_EQ(row.at("draft"), 2);
      EXPECT_DOUBLE_EQ(row.at("accepted_pct").get<double>(), 100.0);   // replay: all accepted
      EXPECT_DOUBLE_EQ(row.at("tokens_per_pass").get<double>(), 3.0);  // 2 drafts + 1
      EXPECT_GT(row.at("spec_tok_s").get<double>(), 0);
    } else if (test == "chat") {
      ++chat;
      const int turn = row.at("turn");
      EXPECT_EQ(row.at("replays"), 1);
      EXPECT_GT(row.at("prompt_tokens").get<int>(), 16);
      if (turn == 1) {  // braced: the macros' own if-else would pair with this if
        EXPECT_EQ(row.at("cached_tokens"), 0);
      } else {
        EXPECT_GT(row.at("cached_tokens").get<int>(), 0);
      }
      EXPECT_GT(row.at("ttft_reuse_ms").get<double>(), 0);
    } else {
      ADD_FAILURE() << "unexpected row " << row.dump();
    }
  }
  EXPECT_EQ(pp, 1);
  EXPECT_EQ(tg, 1);
  EXPECT_EQ(spec, 1);
  EXPECT_EQ(chat, 2);
}

TEST(BenchProfile, SaysWhichOpsTheRouterSentToTheCpu) {
  // faulty:swiglu is a device (the CPU under another name) behind the router: the filter sends
  // silu to the CPU, and the first layer alone stays on the device.
  const kz::testing::CliResult r =
      kazeia("bench -m " + kTiny35 +
             " -t 1 -p 8 -n 0 -r 1 --profile --device faulty:swiglu --op-filter silu "
             "--device-layers 1");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("1 of 4 layers on the device"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("silu [cpu]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("by device:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("outside --device-layers)"), std::string::npos) << r.out;
}

TEST(BenchProfile, DeviceLayersNeedADeviceAndACount) {
  expect_error(kazeia("bench -m " + kTiny35 + " -p 8 -n 0 -r 1 --device-layers 2"),
               "device layers 2 given, but no device other than the CPU is in use");
  expect_error(kazeia("bench -m " + kTiny35 + " -p 8 -n 0 -r 1 --device ref --device-layers -3"),
               "invalid device layers -3");
}

}  // namespace
