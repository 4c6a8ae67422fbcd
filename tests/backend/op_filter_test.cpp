// The op filter's syntax and matching: entries by kind, phase and shape; one-line errors that
// name the entry at fault.
#include "backend/op_filter.h"

#include <gtest/gtest.h>

#include <fstream>

#include "base/error.h"

namespace kz {
namespace {

OpShape conv(Phase phase, int channels) {
  return {"ssm_conv", phase, {{"channels", std::to_string(channels)}, {"taps", "4"}}};
}

TEST(OpFilter, MatchesByKindPhaseAndShape) {
  const OpFilter any = OpFilter::parse("ssm_conv");
  EXPECT_TRUE(any.matches(conv(Phase::Prompt, 1024)));
  EXPECT_TRUE(any.matches(conv(Phase::Token, 1536)));

  const OpFilter prompt = OpFilter::parse("ssm_conv@prompt");
  EXPECT_TRUE(prompt.matches(conv(Phase::Prompt, 1024)));
  EXPECT_FALSE(prompt.matches(conv(Phase::Token, 1024)));

  const OpFilter one = OpFilter::parse("ssm_conv@prompt:channels=1024");
  EXPECT_TRUE(one.matches(conv(Phase::Prompt, 1024)));
  EXPECT_FALSE(one.matches(conv(Phase::Prompt, 1536)));
  EXPECT_FALSE(one.matches(conv(Phase::Token, 1024)));
  EXPECT_FALSE(one.matches({"silu", Phase::Prompt, {{"width", "1024"}}}));
}

TEST(OpFilter, ListsAndNormalizedValues) {
  const OpFilter f = OpFilter::parse(" matmul:type=Q4_K:rows=0256 ,attention@token\n silu ");
  ASSERT_EQ(f.entries().size(), 3u);
  EXPECT_EQ(f.to_string(), "matmul:type=q4_k:rows=256,attention@token,silu");
  EXPECT_TRUE(
      f.matches({"matmul", Phase::Token, {{"type", "q4_k"}, {"rows", "256"}, {"cols", "64"}}}));
  EXPECT_FALSE(
      f.matches({"matmul", Phase::Token, {{"type", "q6_k"}, {"rows", "256"}, {"cols", "64"}}}));
  EXPECT_EQ(OpFilter::parse("").to_string(), "none");
  EXPECT_EQ(OpFilter::parse("silu,silu").entries().size(), 1u);  // duplicates kept once
}

TEST(OpFilter, EntryOfShapeMatchesOnlyThatShape) {
  const OpShape s = conv(Phase::Prompt, 1024);
  const OpFilterEntry e = OpFilterEntry::of(s);
  EXPECT_EQ(e.to_string(), "ssm_conv@prompt:channels=1024:taps=4");
  EXPECT_TRUE(e.matches(s));
  EXPECT_FALSE(e.matches(conv(Phase::Prompt, 2048)));
  EXPECT_EQ(OpFilter::parse(e.to_string()).entries()[0].to_string(), e.to_string());
}

TEST(OpFilter, ReadsFilesWithComments) {
  const std::string path = ::testing::TempDir() + "/op_filter_test.txt";
  std::ofstream(path) << "# written by kazeia oracle\nssm_conv@prompt  # the broken one\n\n"
                      << "matmul:type=q8_0\n";
  EXPECT_EQ(OpFilter::from_arg(path).to_string(), "ssm_conv@prompt,matmul:type=q8_0");
  std::ofstream(path) << "ssm_conv@later\n";
  try {
    OpFilter::from_arg(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(OpFilter, ErrorsNameTheEntry) {
  const std::pair<const char*, const char*> cases[] = {
      {"ssm_con", "unknown op kind 'ssm_con'"},
      {"ssm_conv@promt", "unknown phase 'promt'"},
      {"ssm_conv:chanels=4", "has no parameter 'chanels'"},
      {"ssm_conv:channels=x1", "channels must be a whole number"},
      {"ssm_conv:channels=-4", "channels must be a whole number"},
      {"matmul:type=q9_9", "unknown type 'q9_9'"},
      {"ssm_conv:channels", "expected key=value"},
      {"ssm_conv:channels=4:channels=8", "given twice"},
  };
  for (const auto& [text, why] : cases) {
    try {
      OpFilter::parse(std::string("silu, ") + text);
      ADD_FAILURE() << text << ": no error";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(std::string("op filter entry '") + text + "'"), std::string::npos) << msg;
      EXPECT_NE(msg.find(why), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace kz
