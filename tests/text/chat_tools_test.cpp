// Tool calling in render_chat against the real templates (python3-jinja2 through
// chat_render.py): tool definitions, assistant tool calls and tool results, for both templates.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "base/error.h"
#include "testing/files.h"
#include "text/chat.h"
#include "text/json.h"
#include "text/tokenizer.h"
#include "text/tool_call.h"
#include "tokenizer_fixtures.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

// Tool definitions: OpenAI's form with nested schemas, one without the "type" wrapper, and text
// that JSON writers disagree on (non-ASCII, <>&', escapes) and numbers of every kind.
const char* const kWeather = R"({"type": "function", "function": {"name": "get_weather",
  "description": "Current weather in a city. Uses <b>&'quotes'</b>, é, 你好, 🙂.",
  "parameters": {"type": "object", "properties": {"city": {"type": "string"},
  "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}})";
const char* const kCalendar = R"({"type": "function", "function": {"name": "add_event",
  "description": "Adds an event.\nSecond line\twith a tab and a \"quote\" and \\ backslash.",
  "parameters": {"type": "object", "properties": {"title": {"type": "string"},
  "start": {"type": "string", "format": "date-time"}, "minutes": {"type": "integer",
  "minimum": 0, "maximum": 1e3, "default": 30.0, "multipleOf": 0.5},
  "attendees": {"type": "array", "items": {"type": "object", "properties":
  {"name": {"type": "string"}, "optional": {"type": "boolean", "default": false}}}}},
  "required": ["title", "start"]}}})";
const char* const kFlat = R"({"name": "search_notes", "description": "Finds notes.",
  "parameters": {"type": "object", "properties": {"query": {"type": "string"},
  "limit": {"type": "integer", "default": 10}, "ratio": {"default": 1e16},
  "tiny": {"default": 0.00001}, "big": {"default": 12345678901234567890},
  "neg": {"default": -0.0}, "none": {"default": null}}}})";
const char* const kAlarm = R"({"type": "function", "function": {"name": "set_alarm",
  "description": "Sets an alarm. <|im_end|> and <tool_call> are just text here.",
  "parameters": {"type": "object", "properties": {"time": {"type": "string"}}}}})";
const char* const kNoParams = R"({"type": "function", "function": {"name": "now",
  "description": "The time.", "parameters": {"type": "object", "properties": {}}}})";

std::string tools(std::initializer_list<const char*> list) {
  std::string out = "[";
  for (const char* t : list) out += (out.size() > 1 ? ", " : "") + std::string(t);
  return out + "]";
}

// Each conversation is JSON as an OpenAI client would send it ("tools" optional).
struct ToolConversation {
  std::string name;
  std::string json;
};

std::string conv(const std::string& messages, const std::string& tool_list) {
  return R"({"tools": )" + tool_list + R"(, "messages": [)" + messages + "]}";
}

std::vector<ToolConversation> tool_conversations() {
  const std::string weather = tools({kWeather});
  const std::string all = tools({kWeather, kCalendar, kFlat, kAlarm, kNoParams});
  const std::string call_paris =
      R"({"role": "assistant", "content": "", "tool_calls": [{"type": "function", "id": "c1",
      "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]})";
  const std::string result_paris =
      R"({"role": "tool", "tool_call_id": "c1", "name": "get_weather",
      "content": "{\"temp\": 21, \"sky\": \"clear\"}"})";
  const std::string ask = R"({"role": "user", "content": "Weather in Paris?"})";
  return {
      {"one_tool", conv(ask, weather)},
      {"one_tool_system", conv(R"({"role": "system", "content": "Be brief."}, )" + ask, weather)},
      {"several_tools_system",
       conv(R"({"role": "system", "content": "  You help.\nUse tools. "}, )" + ask, all)},
      {"empty_tool_list", conv(ask, "[]")},
      {"system_whitespace_only", conv(R"({"role": "system", "content": " \n "}, )" + ask, weather)},
      {"flat_tool_definition", conv(ask, tools({kFlat}))},
      {"call_no_content", conv(ask + ", " + call_paris, weather)},
      {"call_then_result", conv(ask + ", " + call_paris + ", " + result_paris, weather)},
      {"call_result_answer",
       conv(ask + ", " + call_paris + ", " + result_paris +
                R"(, {"role": "assistant", "content": "It is 21 °C and clear."})",
            weather)},
      {"call_with_content",
       conv(ask + R"(, {"role": "assistant", "content": "Let me check.", "tool_calls":
            [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}]})",
            weather)},
      {"call_with_think",
       conv(ask + R"(, {"role": "assistant", "content": "<think>\nNeed the tool.\n</think>\n\n",
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}, )" +
                result_paris,
            weather)},
      {"call_with_reasoning_content",
       conv(ask + R"(, {"role": "assistant", "content": "Checking.", "reasoning_content":
            "The user wants weather.", "tool_calls": [{"name": "get_weather", "arguments":
            {"city": "Paris"}}]}, )" +
                result_paris,
            weather)},
      {"parallel_calls",
       conv(R"({"role": "user", "content": "Paris and Rome?"}, {"role": "assistant", "content":
            "", "tool_calls": [{"type": "function", "id": "a", "function": {"name":
            "get_weather", "arguments": {"city": "Paris"}}}, {"type": "function", "id": "b",
            "function": {"name": "get_weather", "arguments": {"city": "Rome"}}}]},
            {"role": "tool", "tool_call_id": "a", "content": "21"},
            {"role": "tool", "tool_call_id": "b", "content": "25"})",
            weather)},
      {"parallel_three_with_content_and_think",
       conv(R"({"role": "user", "content": "Plan my day."}, {"role": "assistant", "content":
            "<think>\nThree things.\n</think>\n\nDoing three things.", "tool_calls": [
            {"name": "get_weather", "arguments": {"city": "Oslo"}},
            {"name": "add_event", "arguments": {"title": "Gym", "start": "2026-05-01T07:00",
            "minutes": 45}},
            {"name": "set_alarm", "arguments": {"time": "06:30"}}]},
            {"role": "tool", "content": "rain"}, {"role": "tool", "content": "ok"},
            {"role": "tool", "content": "  set  "})",
            all)},
      {"multi_step", conv(R"({"role": "user", "content": "Book lunch with Ann if it is sunny."},
            {"role": "assistant", "content": "<think>\nweather first\n</think>\n\n",
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Lyon"}}]},
            {"role": "tool", "content": "sunny"},
            {"role": "assistant", "content": "<think>\nnow book\n</think>\n\nSunny: booking.",
            "tool_calls": [{"name": "add_event", "arguments": {"title": "Lunch with Ann",
            "start": "2026-05-01T12:00", "attendees": [{"name": "Ann", "optional": false}]}}]},
            {"role": "tool", "content": "booked"},
            {"role": "assistant", "content": "<think>\ndone\n</think>\n\nBooked lunch."})",
                          all)},
      {"multi_step_then_new_question",
       conv(ask + ", " + call_paris + ", " + result_paris +
                R"(, {"role": "assistant", "content": "<think>\nread it\n</think>\n\n21 °C."},
            {"role": "user", "content": "And tomorrow?"})",
            weather)},
      {"unicode_quotes_newlines_in_arguments",
       conv(ask + R"(, {"role": "assistant", "content": "", "tool_calls": [{"name": "add_event",
            "arguments": {"title": "Café \"Zoë\" — 会议 🙂", "start": "line one\nline two\\n",
            "note": "<b>&'</b>", "tab": "\t", "ctl": "\u0001"}}]})",
            all)},
      {"nested_arguments",
       conv(ask + R"(, {"role": "assistant", "content": "", "tool_calls": [{"name": "add_event",
            "arguments": {"title": "T", "attendees": [{"name": "A", "optional": true},
            {"name": "B", "tags": [[], {}, [1, [2, {"deep": null}]]]}], "meta": {"z": 1, "a":
            {"y": [true, false]}}}}]})",
            all)},
      {"number_arguments",
       conv(ask + R"(, {"role": "assistant", "content": "", "tool_calls": [{"name": "add_event",
            "arguments": {"i": 30, "neg": -7, "zero": -0, "f": 1.0, "g": 2.5e3, "h": 1e16,
            "k": 1e-5, "l": -0.0, "big": 123456789012345678901234, "t": true, "f2": false,
            "n": null, "s": "30"}}]})",
            all)},
      {"string_arguments",  // OpenAI's form; Qwen3 prints it as is, Qwen3.5 cannot
       conv(ask + R"(, {"role": "assistant", "content": "", "tool_calls": [{"type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]})",
            weather)},
      {"null_arguments",
       conv(ask + R"(, {"role": "assistant", "content": "", "tool_calls": [{"name": "now",
            "arguments": null}]})",
            all)},
      {"empty_arguments",
       conv(ask + R"(, {"role": "assistant", "content": "", "tool_calls": [{"name": "now",
            "arguments": {}}]}, {"role": "tool", "content": "12:00"})",
            all)},
      {"key_order_kept",
       conv(ask + R"(, {"role": "assistant", "content": "", "tool_calls": [{"name": "add_event",
            "arguments": {"zeta": 1, "alpha": 2, "mu": {"b": 1, "a": 2}}}]})",
            all)},
      {"content_only_newline",
       conv(ask + R"(, {"role": "assistant", "content": "\n", "tool_calls": [{"name":
            "get_weather", "arguments": {"city": "Paris"}}]})",
            weather)},
      {"content_only_spaces",
       conv(ask + R"(, {"role": "assistant", "content": "   ", "tool_calls": [{"name":
            "get_weather", "arguments": {"city": "Paris"}}]}, )" +
                result_paris,
            weather)},
      {"padded_tool_result",
       conv(ask + ", " + call_paris + R"(, {"role": "tool", "content": "\n  21 degrees \n\n"})",
            weather)},
      {"calls_in_earlier_turn",
       conv(ask + ", " + call_paris + ", " + result_paris +
                R"(, {"role": "assistant", "content": "21 °C."}, {"role": "user", "content":
            "Thanks! Set an alarm at 7."}, {"role": "assistant", "content": "<think>\nok\n</think>",
            "tool_calls": [{"name": "set_alarm", "arguments": {"time": "07:00"}}]})",
            all)},
      {"final_assistant_calls_only",
       conv(R"({"role": "system", "content": "S"}, {"role": "user", "content": "Alarm 7"},
            {"role": "assistant", "content": "", "tool_calls": [{"name": "set_alarm",
            "arguments": {"time": "07:00"}}]})",
            tools({kAlarm}))},
      {"unicode_function_name",
       conv(ask + R"(, {"role": "assistant", "content": "", "tool_calls": [{"name": "météo",
            "arguments": {"ville": "Zürich"}}]})",
            weather)},
      {"tool_first_with_tools", conv(R"({"role": "tool", "content": "orphan"}, )" + ask, weather)},
      {"only_tool_response_users",
       conv(R"({"role": "user", "content": "<tool_response>x</tool_response>"},
            {"role": "assistant", "content": "", "tool_calls": [{"name": "now", "arguments":
            {}}]})",
            all)},
      {"tools_without_system_and_history",
       conv(R"({"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Remind me at 9."})",
            all)},
      {"many_parallel_calls",
       conv(R"({"role": "user", "content": "Weather everywhere."}, {"role": "assistant",
            "content": "On it.", "tool_calls": [
            {"name": "get_weather", "arguments": {"city": "A"}},
            {"name": "get_weather", "arguments": {"city": "B"}},
            {"name": "get_weather", "arguments": {"city": "C"}},
            {"name": "get_weather", "arguments": {"city": "D"}}]},
            {"role": "tool", "content": "1"}, {"role": "tool", "content": "2"},
            {"role": "tool", "content": "3"}, {"role": "tool", "content": "4"},
            {"role": "assistant", "content": "All done."}, {"role": "user", "content": "Thanks"})",
            weather)},
      {"array_and_object_values",
       conv(ask + R"(, {"role": "assistant", "content": "", "tool_calls": [{"name": "add_event",
            "arguments": {"list": ["a", "b"], "obj": {"k": "é"}, "empty_list": [],
            "empty_obj": {}, "str_json": "[1, 2]"}}]})",
            all)},
  };
}

// The JSON of a conversation as ChatMessages; tool calls in either OpenAI's or the flat form.
std::vector<ChatMessage> to_messages(const Json& conversation) {
  std::vector<ChatMessage> out;
  auto str = [](const Json& m, const char* key) {
    const Json* v = m.find(key);
    return v ? v->as_string() : std::string();
  };
  for (const Json& m : conversation.find("messages")->as_array()) {
    ChatMessage msg{str(m, "role"), str(m, "content"), str(m, "reasoning_content")};
    msg.tool_call_id = str(m, "tool_call_id");
    msg.name = str(m, "name");
    if (const Json* calls = m.find("tool_calls"))
      for (const Json& c : calls->as_array()) {
        const Json& f = c.find("function") ? *c.find("function") : c;
        msg.tool_calls.push_back({f.find("name")->as_string(), *f.find("arguments"), str(c, "id")});
      }
    out.push_back(std::move(msg));
  }
  return out;
}

using testing::read_text;

struct ToolCase {
  std::string name;
  std::vector<ChatMessage> messages;
  std::vector<Json> tools;
  bool add_generation_prompt, enable_thinking;
};

void expect_tools_match_template(const char* template_file, ChatFormat format) {
  const fs::path template_path = fs::path(KAZEIA_FIXTURES_DIR) / "templates" / template_file;
  ASSERT_TRUE(fs::exists(template_path)) << template_path;
  std::vector<ToolCase> cases;
  std::string cases_json = "[";
  for (const ToolConversation& c : tool_conversations()) {
    const Json parsed = parse_json(c.json, c.name);
    for (bool gen : {false, true})
      for (bool think : {false, true}) {
        cases.push_back({c.name + (gen ? " +gen" : " -gen") + (think ? " +think" : " -think"),
                         to_messages(parsed), parse_tools(to_json_text(*parsed.find("tools"))), gen,
                         think});
        // Python reads the conversation's own text (numbers as written), plus the two flags.
        cases_json += (cases.size() > 1 ? ",\n" : "\n") +
                      std::string(R"({"add_generation_prompt": )") + (gen ? "true" : "false") +
                      R"(, "enable_thinking": )" + (think ? "true" : "false") + ", " +
                      c.json.substr(1);
      }
  }
  cases_json += "\n]\n";

  char dir_template[] = "/tmp/kz_chat_tools_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const fs::path dir = dir_template;
  std::ofstream(dir / "cases.json", std::ios::binary) << cases_json;
  const std::string command = "/usr/bin/python3 '" KAZEIA_SOURCE_DIR
                              "/tests/text/chat_render.py' '" +
                              template_path.string() + "' '" + (dir / "cases.json").string() +
                              "' '" + dir.string() + "' > '" + (dir / "log").string() + "' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0)
      << "renderer failed (needs /usr/bin/python3 with python3-jinja2):\n"
      << command << "\n"
      << read_text(dir / "log");

  int matched = 0, rejected = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const ToolCase& c = cases[i];
    std::string ours, our_error;
    try {
      ours = render_chat(format, c.messages, c.add_generation_prompt, c.enable_thinking, c.tools);
    } catch (const Error& e) {
      our_error = e.what();
    }
    const fs::path err = dir / (std::to_string(i) + ".err");
    if (fs::exists(err)) {
      EXPECT_NE(our_error, "") << c.name << ": the template fails (" << read_text(err)
                               << ") but render_chat returned\n"
                               << ours;
      ++rejected;
    } else {
      EXPECT_EQ(our_error, "") << c.name;
      EXPECT_EQ(ours, read_text(dir / (std::to_string(i) + ".txt"))) << c.name;
      ++matched;
    }
  }
  fs::remove_all(dir);
  std::printf("%s: %d renderings with tools identical, %d rejected by both\n", template_file,
              matched, rejected);
  EXPECT_GE(matched, 30 * 4);  // at least 30 conversations, each with its 4 flag combinations
}

TEST(ChatTools, Qwen3MatchesRealTemplate) {
  expect_tools_match_template("qwen3.jinja", ChatFormat::Qwen3);
}

TEST(ChatTools, Qwen35MatchesRealTemplate) {
  expect_tools_match_template("qwen3.5.jinja", ChatFormat::Qwen35);
}

// The same tools give the same system turn, whatever follows: what prefix reuse relies on.
TEST(ChatTools, SameToolsSameSystemTurn) {
  const std::vector<Json> defs = parse_tools(tools({kWeather, kAlarm}));
  for (ChatFormat f : {ChatFormat::Qwen3, ChatFormat::Qwen35}) {
    std::vector<ChatMessage> h = {{"system", "S", ""}, {"user", "Weather?", ""}};
    const std::string first = render_chat(f, h, true, true, defs);
    h.push_back({"assistant", "", "", {{"get_weather", parse_json(R"({"city": "Oslo"})"), "c"}}});
    h.push_back({"tool", "cold", ""});
    const std::string second = render_chat(f, h, true, true, defs);
    const size_t system_end = first.find("<|im_end|>\n") + 11;
    EXPECT_EQ(second.substr(0, system_end), first.substr(0, system_end)) << chat_format_name(f);
    EXPECT_NE(first.find("\"get_weather\""), std::string::npos);
  }
}

TEST(ChatTools, RejectsWhatTheTemplatesCannotRender) {
  auto error_of = [](ChatFormat f, const std::vector<ChatMessage>& m, const std::vector<Json>& t) {
    try {
      render_chat(f, m, true, true, t);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::vector<ChatMessage> plain = {{"user", "Q", ""}};
  const std::vector<Json> defs = parse_tools(tools({kAlarm}));
  EXPECT_EQ(error_of(ChatFormat::ChatML, plain, defs),
            "render_chat: this model's chat template has no tool calling");
  const std::vector<ChatMessage> call = {{"user", "Q", ""},
                                         {"assistant", "", "", {{"set_alarm", Json("07:00"), ""}}}};
  EXPECT_EQ(error_of(ChatFormat::ChatML, call, {}),
            "message 1: this model's chat template has no tool calls");
  EXPECT_EQ(error_of(ChatFormat::Qwen35, call, defs),
            "message 1: tool call 0: arguments must be a JSON object");
  EXPECT_EQ(error_of(ChatFormat::Qwen3, plain, {parse_json("[1]")}),
            "tools[0]: expected an object");
  const std::vector<ChatMessage> bad_name = {
      {"user", "Q", ""}, {"assistant", "", "", {{"bad \xC3(", Json::object(), ""}}}};
  EXPECT_EQ(error_of(ChatFormat::Qwen3, bad_name, defs), "message 1: invalid UTF-8");
  try {
    parse_tools("{\"name\": \"x\"}");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "tools: expected a JSON array of tool definitions");
  }
}

// The tool texts stay text: tokenizing with markup spans equals tokenizing the whole rendering
// with special tokens parsed (no control-token text in these conversations), as before tools.
TEST(ChatTools, TokenizeAsWholeText) {
  int checked = 0;
  for (auto [format, tok] : {std::pair{ChatFormat::Qwen3, &test::qwen2_tokenizer()},
                             std::pair{ChatFormat::Qwen35, &test::qwen35_tokenizer()}})
    for (const ToolConversation& c : tool_conversations()) {
      const Json parsed = parse_json(c.json, c.name);
      RenderedChat r;
      try {
        r = render_chat_marked(format, to_messages(parsed), true, true,
                               parse_tools(to_json_text(*parsed.find("tools"))));
      } catch (const Error&) {
        continue;
      }
      // kAlarm's description holds <|im_end|>: as message text it must not end a turn.
      const bool spoof = r.text.find("are just text here") != std::string::npos;
      if (spoof) {
        EXPECT_NE(tok->encode(r.text, r.markup), tok->encode(r.text, true)) << c.name;
      } else {
        EXPECT_EQ(tok->encode(r.text, r.markup), tok->encode(r.text, true)) << c.name;
      }
      ++checked;
    }
  EXPECT_GT(checked, 50);
}

}  // namespace
}  // namespace kz
