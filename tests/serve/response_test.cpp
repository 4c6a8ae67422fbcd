// Response bodies and server-sent events built from a GenerateResult (no sockets).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "serve/response.h"
#include "serve/stream.h"
#include "text/reply_parser.h"

namespace kz::serve {
namespace {

using nlohmann::json;

GenerateResult result(const std::string& text, StopReason stop) {
  GenerateResult r;
  r.text = text;
  r.tokens = {5, 6, 7};
  r.stop = stop;
  r.prompt_tokens = 20;
  r.cached_tokens = 12;
  return r;
}

TEST(ServeResponse, ChatCompletionBody) {
  const ResponseHeader h = new_response_header(Endpoint::ChatCompletions, "tiny");
  EXPECT_EQ(h.id.rfind("chatcmpl-", 0), 0u);
  const json body = completion_body(h, result("Hello", StopReason::EndOfTurn), "Hello");
  EXPECT_EQ(body["object"], "chat.completion");
  EXPECT_EQ(body["model"], "tiny");
  EXPECT_EQ(body["id"], h.id);
  EXPECT_EQ(body["choices"][0]["message"], json({{"role", "assistant"}, {"content", "Hello"}}));
  EXPECT_EQ(body["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(body["usage"], json({{"prompt_tokens", 20},
                                 {"completion_tokens", 3},
                                 {"total_tokens", 23},
                                 {"prompt_tokens_details", {{"cached_tokens", 12}}}}));
}

TEST(ServeResponse, TextCompletionBody) {
  const ResponseHeader h = new_response_header(Endpoint::Completions, "tiny");
  EXPECT_EQ(h.id.rfind("cmpl-", 0), 0u);
  const json body = completion_body(h, result("abc", StopReason::MaxTokens), "abc");
  EXPECT_EQ(body["object"], "text_completion");
  EXPECT_EQ(body["choices"][0]["text"], "abc");
  EXPECT_EQ(body["choices"][0]["finish_reason"], "length");
}

// A turn in which the model called two tools, read by the engine's parser as a session does
// (the fixture models, with random weights, never write a call).
GenerateResult tool_turn(const std::string& shown) {
  GenerateResult r =
      result(shown +
                 "\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": "
                 "\"Zürich\", \"days\": [1, 2], \"units\": {\"t\": \"C\"}}}\n</tool_call>\n"
                 "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>",
             StopReason::EndOfTurn);
  ParsedReply reply = parse_reply(ChatFormat::Qwen3, r.text, false, /*parse_tools=*/true);
  EXPECT_FALSE(reply.tool_call_malformed);
  EXPECT_EQ(reply.content, shown);
  r.content = reply.content;
  r.tool_calls = reply.tool_calls;
  if (r.tool_calls.size() == 2) r.tool_calls[1].id = "engine-id";  // kept if an API set one
  return r;
}

TEST(ServeResponse, FinishReasons) {
  EXPECT_EQ(finish_reason(result("", StopReason::EndOfTurn)), "stop");
  EXPECT_EQ(finish_reason(result("", StopReason::StopString)), "stop");
  EXPECT_EQ(finish_reason(result("", StopReason::MaxTokens)), "length");
  EXPECT_EQ(finish_reason(result("", StopReason::ContextFull)), "length");
  GenerateResult called = result("", StopReason::EndOfTurn);
  called.tool_calls = tool_turn("").tool_calls;
  EXPECT_EQ(finish_reason(called), "tool_calls");
  called.stop = StopReason::MaxTokens;  // cut short after a call: the length is what ended it
  EXPECT_EQ(finish_reason(called), "length");
}

// The calls a client reads: name, arguments (JSON text, parsed back), type, id.
void expect_tool_calls(const json& calls, bool indexed) {
  ASSERT_TRUE(calls.is_array() && calls.size() == 2) << calls;
  EXPECT_EQ(calls[0]["type"], "function");
  EXPECT_EQ(calls[0]["function"]["name"], "get_weather");
  ASSERT_TRUE(calls[0]["function"]["arguments"].is_string()) << calls;
  // Members in the model's order, as the template's tojson writes them.
  EXPECT_EQ(calls[0]["function"]["arguments"],
            R"({"city": "Zürich", "days": [1, 2], "units": {"t": "C"}})");
  EXPECT_EQ(calls[1]["function"]["name"], "now");
  EXPECT_EQ(calls[1]["function"]["arguments"], "{}");
  // The model writes no id: one is drawn per call; an id the engine has is kept.
  const std::string id = calls[0]["id"];
  EXPECT_EQ(id.rfind("call_", 0), 0u) << id;
  EXPECT_GT(id.size(), 5u + 16u);
  EXPECT_EQ(calls[1]["id"], "engine-id");
  EXPECT_EQ(calls[0].contains("index"), indexed);
  if (indexed) {
    EXPECT_EQ(calls[0]["index"], 0);
    EXPECT_EQ(calls[1]["index"], 1);
  }
}

TEST(ServeResponse, ChatCompletionWithToolCalls) {
  const ResponseHeader h = new_response_header(Endpoint::ChatCompletions, "tiny");
  const json body = completion_body(h, tool_turn(""), "");
  const json& choice = body["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["role"], "assistant");
  EXPECT_TRUE(choice["message"]["content"].is_null());  // no text: null, as OpenAI's
  expect_tool_calls(choice["message"]["tool_calls"], false);

  const json with_text = completion_body(h, tool_turn("Let me look."), "Let me look.");
  EXPECT_EQ(with_text["choices"][0]["message"]["content"], "Let me look.");
  expect_tool_calls(with_text["choices"][0]["message"]["tool_calls"], false);
}

TEST(ServeResponse, ToolCallIdsAreUnique) {
  const GenerateResult r = tool_turn("");
  const json a = tool_calls(r.tool_calls, false), b = tool_calls(r.tool_calls, false);
  EXPECT_NE(a[0]["id"], b[0]["id"]);
}

TEST(ServeResponse, NoToolCallsNoField) {
  const ResponseHeader h = new_response_header(Endpoint::ChatCompletions, "tiny");
  const json body = completion_body(h, result("", StopReason::EndOfTurn), "");
  EXPECT_EQ(body["choices"][0]["message"], json({{"role", "assistant"}, {"content", ""}}));
}

// The events of one stream, parsed: the JSON chunks and whether [DONE] ended it.
struct Events {
  std::vector<json> chunks;
  bool done = false;
};

Events parse_events(const std::string& wire) {
  Events e;
  size_t at = 0;
  for (size_t end; (end = wire.find("\n\n", at)) != std::string::npos; at = end + 2) {
    const std::string event = wire.substr(at, end - at);
    EXPECT_EQ(event.rfind("data: ", 0), 0u) << event;
    const std::string payload = event.substr(6);
    EXPECT_FALSE(e.done) << "event after [DONE]";
    if (payload == "[DONE]")
      e.done = true;
    else
      e.chunks.push_back(json::parse(payload));
  }
  EXPECT_EQ(at, wire.size()) << "unterminated event";
  return e;
}

// A generation that emits the given pieces, stopping when the callback says so.
Generation fake_generation(std::vector<std::string> pieces, StopReason stop,
                           std::vector<ToolCall> calls = {}) {
  return [pieces, stop, calls](const TokenCallback& on_text) {
    GenerateResult r = result("", stop);
    r.tool_calls = calls;
    for (const auto& p : pieces) {
      r.text += p;
      if (!on_text(p)) {
        r.stop = StopReason::Cancelled;
        break;
      }
    }
    return r;
  };
}

TEST(ServeStream, ChatChunksConcatenateToTheText) {
  const ResponseHeader h = new_response_header(Endpoint::ChatCompletions, "tiny");
  std::string wire;
  const GenerateResult r = stream_generation(
      h, /*include_usage=*/true,
      [&](std::string_view b) {
        wire += b;
        return true;
      },
      fake_generation({"Hel", "lo", " wörld"}, StopReason::EndOfTurn));
  EXPECT_EQ(r.stop, StopReason::EndOfTurn);
  const Events e = parse_events(wire);
  EXPECT_TRUE(e.done);
  ASSERT_EQ(e.chunks.size(), 1 + 3 + 1 + 1u);  // role, pieces, finish, usage
  std::string text;
  for (const json& c : e.chunks) {
    EXPECT_EQ(c["id"], h.id);
    EXPECT_EQ(c["object"], "chat.completion.chunk");
    if (!c["choices"].empty()) text += c["choices"][0]["delta"].value("content", "");
  }
  EXPECT_EQ(text, "Hello wörld");
  EXPECT_EQ(e.chunks[0]["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(e.chunks[4]["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(e.chunks[4]["choices"][0]["delta"], json::object());
  EXPECT_TRUE(e.chunks[5]["choices"].empty());
  EXPECT_EQ(e.chunks[5]["usage"]["prompt_tokens_details"]["cached_tokens"], 12);
}

TEST(ServeStream, ToolCallsComeBeforeTheFinish) {
  const ResponseHeader h = new_response_header(Endpoint::ChatCompletions, "tiny");
  std::string wire;
  const GenerateResult turn = tool_turn("Let me look.");
  stream_generation(
      h, /*include_usage=*/false,
      [&](std::string_view b) {
        wire += b;
        return true;
      },
      fake_generation({"Let me", " look."}, turn.stop, turn.tool_calls));
  const Events e = parse_events(wire);
  EXPECT_TRUE(e.done);
  ASSERT_EQ(e.chunks.size(), 1 + 2 + 1 + 1u);  // role, pieces, tool calls, finish
  EXPECT_EQ(e.chunks[2]["choices"][0]["delta"]["content"], " look.");
  const json& calls = e.chunks[3]["choices"][0];
  EXPECT_TRUE(calls["finish_reason"].is_null());
  EXPECT_FALSE(calls["delta"].contains("content"));
  expect_tool_calls(calls["delta"]["tool_calls"], true);
  EXPECT_EQ(e.chunks[4]["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(e.chunks[4]["choices"][0]["delta"], json::object());
}

TEST(ServeStream, CompletionChunksWithoutUsage) {
  const ResponseHeader h = new_response_header(Endpoint::Completions, "tiny");
  std::string wire;
  stream_generation(
      h, false,
      [&](std::string_view b) {
        wire += b;
        return true;
      },
      fake_generation({"a", "b"}, StopReason::MaxTokens));
  const Events e = parse_events(wire);
  EXPECT_TRUE(e.done);
  ASSERT_EQ(e.chunks.size(), 3u);  // two pieces, finish
  EXPECT_EQ(e.chunks[0]["object"], "text_completion");
  EXPECT_EQ(e.chunks[0]["choices"][0]["text"], "a");
  EXPECT_EQ(e.chunks[2]["choices"][0]["finish_reason"], "length");
  EXPECT_FALSE(e.chunks[2].contains("usage"));
}

TEST(ServeStream, AClientGoneStopsTheGeneration) {
  const ResponseHeader h = new_response_header(Endpoint::ChatCompletions, "tiny");
  int writes = 0;
  const GenerateResult r = stream_generation(
      h, true, [&](std::string_view) { return ++writes < 3; },  // fails on the 2nd piece
      fake_generation({"a", "b", "c", "d"}, StopReason::EndOfTurn));
  EXPECT_EQ(r.stop, StopReason::Cancelled);
  EXPECT_EQ(r.text, "ab");  // the generation saw the failure at once
  EXPECT_EQ(writes, 3);     // nothing written after the failure
}

TEST(ServeStream, AnEngineErrorBecomesAnErrorEvent) {
  const ResponseHeader h = new_response_header(Endpoint::ChatCompletions, "tiny");
  std::string wire;
  EXPECT_THROW(stream_generation(
                   h, false,
                   [&](std::string_view b) {
                     wire += b;
                     return true;
                   },
                   [](const TokenCallback&) -> GenerateResult { fail("context overflow"); }),
               Error);
  const Events e = parse_events(wire);
  EXPECT_FALSE(e.done);
  ASSERT_EQ(e.chunks.size(), 2u);
  EXPECT_EQ(e.chunks[1]["error"]["message"], "context overflow");
}

}  // namespace
}  // namespace kz::serve
