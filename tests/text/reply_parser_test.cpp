// Reading generated text back: round trips through render_chat, streaming split at every byte,
// malformed and truncated calls (kept as text, flagged), and tool calls left alone elsewhere.
#include "text/reply_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/chat.h"
#include "text/json.h"

namespace kz {
namespace {

std::vector<ToolCall> sample_calls() {
  return {
      {"get_weather", parse_json(R"({"city": "Paris", "unit": "celsius"})"), ""},
      {"add_event",
       parse_json(
           R"({"title": "Café \"Zoë\" — 会议 🙂 it's <b>&</b>", "note": "line one\nline two",
          "minutes": 45, "ratio": 2.5, "attendees": [{"name": "Ann", "tags": ["a", {"b": [1, 2]}]}],
          "meta": {"z": {"y": {"x": []}}}})"),
       ""},
      {"now", Json::object(), ""},
  };
}

// What the model writes for an assistant turn: the template's rendering of that turn as the last
// message, from after its (empty) think block to its <|im_end|>.
std::string reply_text(ChatFormat f, const std::string& content, const std::vector<ToolCall>& c) {
  std::vector<ChatMessage> h = {{"user", "Q", ""}, {"assistant", content, "", c}};
  const std::string r = render_chat(f, h, false, true);
  const std::string open = "<think>\n\n</think>\n\n";
  const size_t begin = r.rfind(open) + open.size();
  return r.substr(begin, r.size() - begin - std::string("<|im_end|>\n").size());
}

TEST(ReplyParser, RoundTripsBothFormats) {
  for (ChatFormat f : {ChatFormat::Qwen3, ChatFormat::Qwen35}) {
    for (const std::string& content : {std::string(), std::string("Let me check that.")}) {
      SCOPED_TRACE(std::string(chat_format_name(f)) + " content '" + content + "'");
      const std::string text = reply_text(f, content, sample_calls());
      const ParsedReply r = parse_reply(f, text, false, true);
      EXPECT_EQ(r.content, content);
      EXPECT_EQ(r.reasoning, "");
      EXPECT_FALSE(r.tool_call_malformed);
      EXPECT_EQ(r.tool_calls, sample_calls());
    }
  }
}

TEST(ReplyParser, ReadsTheTemplatesExactForms) {
  const ParsedReply a = parse_reply(
      ChatFormat::Qwen3,
      "<think>\nweather\n</think>\n\nOK.\n<tool_call>\n{\"name\": \"f\", \"arguments\": "
      "{\"x\": [1, {\"y\": null}]}}\n</tool_call>",
      false, true);
  EXPECT_EQ(a.reasoning, "weather");
  EXPECT_EQ(a.content, "OK.");
  ASSERT_EQ(a.tool_calls.size(), 1u);
  EXPECT_EQ(a.tool_calls[0].name, "f");
  EXPECT_EQ(to_json_text(a.tool_calls[0].arguments), R"({"x": [1, {"y": null}]})");

  // Qwen3.5: the prompt opened <think>; values are JSON where they are JSON, else strings.
  const ParsedReply b = parse_reply(ChatFormat::Qwen35,
                                    "plan\n</think>\n\n<tool_call>\n<function=set>\n"
                                    "<parameter=n>\n5\n</parameter>\n<parameter=flag>\nTrue\n"
                                    "</parameter>\n<parameter=json_flag>\ntrue\n</parameter>\n"
                                    "<parameter=obj>\n{\"a\": [1]}\n</parameter>\n"
                                    "<parameter=text>\n  two\nlines \n</parameter>\n"
                                    "<parameter=quoted>\n\"q\"\n</parameter>\n"
                                    "<parameter=empty>\n\n</parameter>\n"
                                    "</function>\n</tool_call>",
                                    true, true);
  EXPECT_EQ(b.reasoning, "plan");
  EXPECT_EQ(b.content, "");
  ASSERT_EQ(b.tool_calls.size(), 1u);
  EXPECT_EQ(to_json_text(b.tool_calls[0].arguments),
            R"({"n": 5, "flag": "True", "json_flag": true, "obj": {"a": [1]}, )"
            R"("text": "  two\nlines ", "quoted": "q", "empty": ""})");
}

// The shown text never holds tool-call markup: it is the text with well-formed calls and the
// whitespace around them taken out, whatever the split.
TEST(ReplyParser, StreamsAtEveryByteBoundary) {
  struct Sample {
    ChatFormat format;
    bool thinking_open;
    std::string text, shown;
  };
  const std::string q3 = reply_text(ChatFormat::Qwen3, "", sample_calls());
  const std::string q35 = reply_text(ChatFormat::Qwen35, "", sample_calls());
  const std::vector<Sample> samples = {
      {ChatFormat::Qwen3, false,
       "<think>\nhmm <tool_call> in thought\n</think>\n\nSure: é🙂\n\n" + q3,
       "<think>\nhmm <tool_call> in thought\n</think>\n\nSure: é🙂"},
      {ChatFormat::Qwen35, true, "why\n</think>\n\nA\n\n" + q35 + "\n\nThen <tool_ more 🙂.",
       "why\n</think>\n\nA\n\nThen <tool_ more 🙂."},
      {ChatFormat::Qwen35, false, "<tool_call>\n<function=f>\n</function>\n</tool_call> after",
       "after"},
      {ChatFormat::Qwen3, false, "broken <tool_call>\n{\"name\": 1}\n</tool_call>\n",
       "broken <tool_call>\n{\"name\": 1}\n</tool_call>\n"},
      {ChatFormat::Qwen3, false, "cut off <tool_call>\n{\"name\": \"f\", \"argu",
       "cut off <tool_call>\n{\"name\": \"f\", \"argu"},
      {ChatFormat::Qwen3, false, "ends in a partial tag <tool_ca",
       "ends in a partial tag <tool_ca"},
  };
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.text);
    const ParsedReply whole = parse_reply(s.format, s.text, s.thinking_open, true);
    for (size_t cut = 0; cut <= s.text.size(); ++cut) {
      ReplyParser p(s.format, s.thinking_open, true);
      std::string shown = p.push(s.text.substr(0, cut));
      shown += p.push(s.text.substr(cut));
      shown += p.finish();
      ASSERT_EQ(shown, s.shown) << "cut at " << cut;
      ASSERT_EQ(p.reply().tool_calls, whole.tool_calls) << "cut at " << cut;
      ASSERT_EQ(p.reply().content, whole.content) << "cut at " << cut;
      ASSERT_EQ(p.reply().reasoning, whole.reasoning) << "cut at " << cut;
    }
    ReplyParser bytes(s.format, s.thinking_open, true);  // one byte at a time
    std::string shown;
    for (char c : s.text) shown += bytes.push(std::string_view(&c, 1));
    shown += bytes.finish();
    EXPECT_EQ(shown, s.shown);
    EXPECT_EQ(bytes.reply().tool_calls, whole.tool_calls);
  }
}

TEST(ReplyParser, MalformedCallsStayAsFlaggedText) {
  const std::vector<std::pair<ChatFormat, std::string>> bad = {
      {ChatFormat::Qwen3, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": }\n</tool_call>"},
      {ChatFormat::Qwen3, "<tool_call>\n{\"arguments\": {}}\n</tool_call>"},
      {ChatFormat::Qwen3, "<tool_call>\n{\"name\": \"f\", \"arguments\": \"{}\"}\n</tool_call>"},
      {ChatFormat::Qwen3,
       "<tool_call>\n{\"name\": \"f\", \"arguments\": {}, \"x\": 1}\n</tool_call>"},
      {ChatFormat::Qwen3, "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}"},  // truncated
      {ChatFormat::Qwen3, "<tool_call>\n" + std::string(10000, '[') + "\n</tool_call>"},
      {ChatFormat::Qwen35,
       "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</tool_call>"},
      {ChatFormat::Qwen35, "<tool_call>\n<function=>\n</function>\n</tool_call>"},
      {ChatFormat::Qwen35, "<tool_call>\n<function=a b>\n</function>\n</tool_call>"},
      {ChatFormat::Qwen35,
       "<tool_call>\n<function=f>\n<parameter=a>\n1\n</function>\n</tool_call>"},
      {ChatFormat::Qwen35,
       "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n"
       "</function>\n</tool_call>"},
      {ChatFormat::Qwen35, "<tool_call>\n<function=f>\n</function>\ntrailing\n</tool_call>"},
      {ChatFormat::Qwen35, "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"},
      {ChatFormat::Qwen35, "<tool_call>\n<function=f>\n<parameter=a>\nunfinished"},
  };
  for (const auto& [format, block] : bad) {
    SCOPED_TRACE(block.substr(0, 100));
    const std::string text = "Before. " + block;
    ReplyParser p(format, false, true);
    std::string shown = p.push(text);
    shown += p.finish();
    EXPECT_EQ(shown, text);
    EXPECT_TRUE(p.reply().tool_call_malformed);
    EXPECT_TRUE(p.reply().tool_calls.empty());
    EXPECT_EQ(p.reply().content, text);
  }
  // A good call is still read when another is malformed.
  const ParsedReply mixed = parse_reply(
      ChatFormat::Qwen3,
      "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n<tool_call>\nnope\n"
      "</tool_call>",
      false, true);
  ASSERT_EQ(mixed.tool_calls.size(), 1u);
  EXPECT_TRUE(mixed.tool_call_malformed);
  EXPECT_EQ(mixed.content, "<tool_call>\nnope\n</tool_call>");
}

TEST(ReplyParser, WithoutToolsTheTextIsShownAsItIs) {
  const std::string text =
      "<think>\nr\n</think>\n\nText <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n"
      "</tool_call>\n";
  for (ChatFormat f : {ChatFormat::Qwen3, ChatFormat::Qwen35, ChatFormat::ChatML}) {
    ReplyParser p(f, false, false);
    std::string shown;
    for (char c : text) shown += p.push(std::string_view(&c, 1));
    shown += p.finish();
    EXPECT_EQ(shown, text);
    EXPECT_TRUE(p.reply().tool_calls.empty());
    EXPECT_FALSE(p.reply().tool_call_malformed);
    EXPECT_EQ(p.reply().reasoning, "r");
    EXPECT_EQ(p.reply().content,
              "Text <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>");
  }
  // An unfinished think block: everything is reasoning.
  const ParsedReply open = parse_reply(ChatFormat::Qwen35, "still thinking", true, true);
  EXPECT_EQ(open.reasoning, "still thinking");
  EXPECT_EQ(open.content, "");
}

}  // namespace
}  // namespace kz
