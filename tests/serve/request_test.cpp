// OpenAI request bodies to GenerateParams, and the errors for what is refused (no sockets).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "serve/api_error.h"
#include "serve/request.h"

namespace kz::serve {
namespace {

using nlohmann::json;

const RequestLimits kLimits{100};

GenerationRequest chat(const json& body) {
  return parse_chat_request(body.dump(), kLimits);
}

json user_turn() {
  return json::array({{{"role", "user"}, {"content", "hi"}}});
}

// The error a chat body gets: {status, error object}.
std::pair<int, json> chat_error(const std::string& body) {
  try {
    parse_chat_request(body, kLimits);
  } catch (const ApiError& e) {
    return {e.status(), e.body()["error"]};
  }
  ADD_FAILURE() << "accepted: " << body;
  return {0, {}};
}

TEST(ServeRequest, ChatFieldsReachTheEngine) {
  const GenerationRequest r = chat({{"model", "m"},
                                    {"messages", user_turn()},
                                    {"max_tokens", 7},
                                    {"temperature", 0.5},
                                    {"top_p", 0.9},
                                    {"top_k", 12},
                                    {"min_p", 0.1},
                                    {"seed", 42},
                                    {"stop", "END"},
                                    {"stream", true},
                                    {"stream_options", {{"include_usage", true}}},
                                    {"n", 1},
                                    {"user", "u-1"}});
  EXPECT_EQ(r.model, "m");
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].role, "user");
  EXPECT_EQ(r.messages[0].content, "hi");
  EXPECT_EQ(r.params.max_tokens, 7);
  EXPECT_FLOAT_EQ(r.params.sampling.temperature, 0.5f);
  EXPECT_FLOAT_EQ(r.params.sampling.top_p, 0.9f);
  EXPECT_EQ(r.params.sampling.top_k, 12);
  EXPECT_FLOAT_EQ(r.params.sampling.min_p, 0.1f);
  EXPECT_EQ(r.params.sampling.seed, 42u);
  EXPECT_TRUE(r.seed_given);
  EXPECT_EQ(r.params.stop, std::vector<std::string>{"END"});
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
}

TEST(ServeRequest, Defaults) {
  const GenerationRequest r = chat({{"messages", user_turn()}});
  EXPECT_TRUE(r.model.empty());
  EXPECT_EQ(r.params.max_tokens, kLimits.max_tokens);  // chat: up to the server's cap
  EXPECT_FALSE(r.seed_given);
  EXPECT_FALSE(r.stream);
  const SamplingParams engine_defaults;
  EXPECT_EQ(r.params.sampling.temperature, engine_defaults.temperature);
  EXPECT_EQ(r.params.sampling.top_k, engine_defaults.top_k);
  // Completions default to OpenAI's 16 tokens.
  EXPECT_EQ(parse_completion_request(R"({"prompt":"x"})", kLimits).params.max_tokens, 16);
}

TEST(ServeRequest, NullMeansNotGiven) {
  const GenerationRequest r =
      chat({{"messages", user_turn()}, {"temperature", nullptr}, {"stop", nullptr}});
  EXPECT_EQ(r.params.sampling.temperature, SamplingParams{}.temperature);
  EXPECT_TRUE(r.params.stop.empty());
}

TEST(ServeRequest, MaxCompletionTokensAndStopArray) {
  const GenerationRequest r =
      chat({{"messages", user_turn()}, {"max_completion_tokens", 9}, {"stop", {"a", "b"}}});
  EXPECT_EQ(r.params.max_tokens, 9);
  EXPECT_EQ(r.params.stop, (std::vector<std::string>{"a", "b"}));
}

TEST(ServeRequest, TopPZeroKeepsTheMostLikelyToken) {
  const GenerationRequest r = chat({{"messages", user_turn()}, {"top_p", 0}});
  EXPECT_EQ(r.params.sampling.top_k, 1);
  EXPECT_EQ(r.params.sampling.top_p, 1.0f);
}

TEST(ServeRequest, MessageForms) {
  const GenerationRequest r = chat(
      {{"messages",
        {{{"role", "developer"}, {"content", "be brief"}},
         {{"role", "user"},
          {"name", "ann"},
          {"content", {{{"type", "text"}, {"text", "one "}}, {{"type", "text"}, {"text", "two"}}}}},
         {{"role", "assistant"}, {"content", nullptr}, {"reasoning_content", "hmm"}},
         {{"role", "tool"}, {"tool_call_id", "c1"}, {"content", "42"}}}},
       {"chat_template_kwargs", {{"enable_thinking", false}}}});
  ASSERT_EQ(r.messages.size(), 4u);
  EXPECT_EQ(r.messages[0].role, "system");
  EXPECT_EQ(r.messages[1].content, "one two");
  EXPECT_EQ(r.messages[2].role, "assistant");
  EXPECT_EQ(r.messages[2].content, "");
  EXPECT_EQ(r.messages[2].reasoning_content, "hmm");
  EXPECT_EQ(r.messages[3].role, "tool");
  EXPECT_FALSE(r.params.enable_thinking);
}

const char* const kWeatherTool = R"({"type": "function", "function": {"name": "get_weather",
  "description": "The weather", "parameters": {"type": "object", "properties": {"city":
  {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}})";

TEST(ServeRequest, ToolsReachTheTemplateAsGiven) {
  const std::string body = std::string(R"({"messages":[{"role":"user","content":"hi"}],)") +
                           R"("tools":[)" + kWeatherTool + "]}";
  const GenerationRequest r = parse_chat_request(body, kLimits);
  ASSERT_EQ(r.params.tools.size(), 1u);
  // The members keep the client's order (not sorted), as the template's tojson prints them.
  EXPECT_EQ(to_json_text(r.params.tools[0]),
            R"({"type": "function", "function": {"name": "get_weather", "description": "The )"
            R"(weather", "parameters": {"type": "object", "properties": {"city": {"type": )"
            R"("string"}, "days": {"type": "integer"}}, "required": ["city"]}}})");
}

TEST(ServeRequest, ToolChoice) {
  const std::string head = std::string(R"({"messages":[{"role":"user","content":"hi"}],)") +
                           R"("tools":[)" + kWeatherTool + "]";
  EXPECT_EQ(parse_chat_request(head + "}", kLimits).params.tools.size(), 1u);
  EXPECT_EQ(parse_chat_request(head + R"(,"tool_choice":"auto"})", kLimits).params.tools.size(),
            1u);
  EXPECT_EQ(
      parse_chat_request(head + R"(,"parallel_tool_calls":true})", kLimits).params.tools.size(),
      1u);
  // "none": the model is not shown the tools, so it cannot call them (before or after "tools").
  const GenerationRequest none = parse_chat_request(head + R"(,"tool_choice":"none"})", kLimits);
  EXPECT_TRUE(none.params.tools.empty());
  EXPECT_TRUE(parse_chat_request(R"({"tool_choice":"none",)" + head.substr(1) + "}", kLimits)
                  .params.tools.empty());
  EXPECT_TRUE(chat({{"messages", user_turn()}, {"tools", json::array()}}).params.tools.empty());
}

TEST(ServeRequest, ToolCallsAndResults) {
  const GenerationRequest r =
      chat({{"messages",
             {{{"role", "user"}, {"content", "weather?"}},
              {{"role", "assistant"},
               {"content", nullptr},
               {"tool_calls",
                {{{"id", "call_1"},
                  {"type", "function"},
                  {"function",
                   {{"name", "get_weather"}, {"arguments", R"({"city": "Zürich", "days": 2})"}}}},
                 {{"id", "call_2"},
                  {"type", "function"},
                  {"function", {{"name", "now"}, {"arguments", ""}}}}}}},
              {{"role", "tool"},
               {"tool_call_id", "call_1"},
               {"name", "get_weather"},
               {"content", "sun"}},
              {{"role", "tool"}, {"tool_call_id", "call_2"}, {"content", "noon"}}}}});
  ASSERT_EQ(r.messages.size(), 4u);
  const ChatMessage& a = r.messages[1];
  EXPECT_EQ(a.content, "");
  ASSERT_EQ(a.tool_calls.size(), 2u);
  EXPECT_EQ(a.tool_calls[0].id, "call_1");
  EXPECT_EQ(a.tool_calls[0].name, "get_weather");
  // Arguments are parsed, keeping their order and JSON types.
  EXPECT_EQ(a.tool_calls[0].arguments, parse_json(R"({"city": "Zürich", "days": 2})"));
  EXPECT_EQ(a.tool_calls[1].arguments, Json::object());  // "" is a call without arguments
  EXPECT_EQ(r.messages[2].role, "tool");
  EXPECT_EQ(r.messages[2].tool_call_id, "call_1");
  EXPECT_EQ(r.messages[2].name, "get_weather");
  EXPECT_EQ(r.messages[2].content, "sun");
  EXPECT_EQ(r.messages[3].tool_call_id, "call_2");
}

TEST(ServeRequest, CompletionPrompt) {
  EXPECT_EQ(parse_completion_request(R"({"prompt":"abc","max_tokens":3})", kLimits).prompt, "abc");
  EXPECT_EQ(parse_completion_request(R"({"prompt":["abc"]})", kLimits).prompt, "abc");
}

TEST(ServeRequest, Errors) {
  struct Case {
    std::string body;
    std::string param;  // "" = null
    std::string code;   // "" = null
  };
  const std::string m = R"("messages":[{"role":"user","content":"hi"}])";
  const Case cases[] = {
      {"{not json", "", "invalid_json"},
      {"[1,2]", "", ""},
      {"{}", "messages", ""},
      {R"({"messages":[]})", "messages", ""},
      {"{" + m + R"(,"foo":1})", "foo", ""},
      {"{" + m + R"(,"temperature":2.5})", "temperature", ""},
      {"{" + m + R"(,"temperature":"hot"})", "temperature", ""},
      {"{" + m + R"(,"top_k":-1})", "top_k", ""},
      {"{" + m + R"(,"max_tokens":101})", "max_tokens", ""},
      {"{" + m + R"(,"max_tokens":0})", "max_tokens", ""},
      {"{" + m + R"(,"seed":1.5})", "seed", ""},
      {"{" + m + R"(,"stop":["a","b","c","d","e"]})", "stop", ""},
      {"{" + m + R"(,"stop":[""]})", "stop", ""},
      {"{" + m + R"(,"n":2})", "n", ""},
      {"{" + m + R"(,"stream":"yes"})", "stream", ""},
      {"{" + m + R"(,"stream_options":{"other":1}})", "stream_options.other", ""},
      {"{" + m + R"(,"logprobs":true})", "logprobs", "unsupported_value"},
      {"{" + m + R"(,"frequency_penalty":0.5})", "frequency_penalty", "unsupported_value"},
      {"{" + m + R"(,"response_format":{"type":"json_object"}})", "response_format",
       "unsupported_value"},
      {"{" + m + R"(,"tools":{}})", "tools", ""},
      {"{" + m + R"(,"tools":[5]})", "tools[0]", ""},
      {"{" + m + R"(,"tools":[{"function":{"name":"f"}}]})", "tools[0].type", ""},
      {"{" + m + R"(,"tools":[{"type":"custom","custom":{}}]})", "tools[0].type",
       "unsupported_value"},
      {"{" + m + R"(,"tools":[{"type":"function"}]})", "tools[0].function", ""},
      {"{" + m + R"(,"tools":[{"type":"function","function":{"name":""}}]})",
       "tools[0].function.name", ""},
      {"{" + m + R"(,"tools":[{"type":"function","function":{"name":3}}]})",
       "tools[0].function.name", ""},
      {"{" + m + R"(,"tool_choice":"required"})", "tool_choice", "unsupported_value"},
      {"{" + m + R"(,"tool_choice":{"type":"function","function":{"name":"f"}}})", "tool_choice",
       "unsupported_value"},
      {"{" + m + R"(,"tool_choice":"sometimes"})", "tool_choice", ""},
      {"{" + m + R"(,"tool_choice":1})", "tool_choice", ""},
      {"{" + m + R"(,"parallel_tool_calls":false})", "parallel_tool_calls", "unsupported_value"},
      {"{" + m + R"(,"functions":[]})", "functions", "unsupported_value"},
      {"{" + m + R"(,"function_call":"auto"})", "function_call", "unsupported_value"},
      {R"({"messages":[{"role":"assistant","tool_calls":{}}]})", "messages[0].tool_calls", ""},
      {R"({"messages":[{"role":"assistant","tool_calls":[{"type":"function"}]}]})",
       "messages[0].tool_calls[0].function", ""},
      {R"({"messages":[{"role":"assistant","tool_calls":[{"function":{"arguments":"{}"}}]}]})",
       "messages[0].tool_calls[0].function.name", ""},
      {R"({"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"{\"a\": }"}}]}]})",
       "messages[0].tool_calls[0].function.arguments", ""},
      {R"({"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{}}}]}]})",
       "messages[0].tool_calls[0].function.arguments", ""},
      {R"({"messages":[{"role":"assistant","tool_calls":[{"type":"x","function":{"name":"f"}}]}]})",
       "messages[0].tool_calls[0].type", "unsupported_value"},
      {R"({"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"f"},"extra":1}]}]})",
       "messages[0].tool_calls[0].extra", ""},
      {R"({"messages":[{"role":"tool","content":"x","tool_calls":[{"function":{"name":"f"}}]}]})",
       "messages[0].tool_calls", ""},
      {R"({"messages":[{"role":"assistant","function_call":{"name":"f"}}]})",
       "messages[0].function_call", "unsupported_value"},
      {R"({"messages":[{"role":"wizard","content":"x"}]})", "messages[0].role", ""},
      {R"({"messages":[{"content":"x"}]})", "messages[0].role", ""},
      {R"({"messages":[{"role":"user"}]})", "messages[0].content", ""},
      {R"({"messages":[{"role":"user","content":"x","extra":1}]})", "messages[0].extra", ""},
      {R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{}}]}]})",
       "messages[0].content[0]", "unsupported_value"},
  };
  for (const Case& c : cases) {
    const auto [status, error] = chat_error(c.body);
    EXPECT_EQ(status, 400) << c.body;
    EXPECT_EQ(error["type"], "invalid_request_error") << c.body;
    EXPECT_FALSE(error["message"].get<std::string>().empty()) << c.body;
    EXPECT_EQ(error["param"], c.param.empty() ? json(nullptr) : json(c.param)) << c.body;
    EXPECT_EQ(error["code"], c.code.empty() ? json(nullptr) : json(c.code)) << c.body;
  }
}

TEST(ServeRequest, UnknownFieldMessageNamesIt) {
  const auto [status, error] = chat_error(R"({"messages":[],"frobnicate":true})");
  EXPECT_EQ(status, 400);
  EXPECT_EQ(error["message"], "Unrecognized request argument supplied: frobnicate");
}

TEST(ServeRequest, CompletionErrors) {
  for (const char* body : {R"({"max_tokens":3})", R"({"prompt":5})",
                           R"({"prompt":"a","echo":true})", R"({"prompt":"a","messages":[]})"}) {
    EXPECT_THROW(parse_completion_request(body, kLimits), ApiError) << body;
  }
}

// Nesting is bounded before the body is parsed; brackets inside strings are not nesting.
TEST(ServeRequest, NestingDeeperThanTheLimitIsRefused) {
  const auto nested = [](int levels) {
    return "{\"messages\":" + std::string(size_t(levels - 1), '[') +
           std::string(size_t(levels - 1), ']') + "}";
  };
  // 64 levels (the object and 63 arrays) get past the bound to the field checks.
  EXPECT_EQ(chat_error(nested(64)).second["code"], nullptr);
  const auto [status, error] = chat_error(nested(65));
  EXPECT_EQ(status, 400);
  EXPECT_EQ(error["code"], "json_too_deep");
  EXPECT_NE(error["message"].get<std::string>().find("64 levels"), std::string::npos);
  EXPECT_EQ(chat_error(nested(2'000'000)).second["code"], "json_too_deep");
  const json text = {
      {"messages", {{{"role", "user"}, {"content", std::string(1000, '[') + "\\\"{"}}}}};
  EXPECT_EQ(chat(text).messages[0].content, std::string(1000, '[') + "\\\"{");
}

}  // namespace
}  // namespace kz::serve
