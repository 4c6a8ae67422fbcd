// OpenAI response bodies built from the engine's GenerateResult: the whole completion, and the
// chunks of a streamed one (chat.completion.chunk / text_completion).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "api/engine.h"
#include "serve/request.h"

namespace kz::serve {

// What every chunk and response of one request repeats.
struct ResponseHeader {
  Endpoint endpoint = Endpoint::ChatCompletions;
  std::string id;       // chatcmpl-… or cmpl-…
  int64_t created = 0;  // Unix seconds
  std::string model;
};

// A fresh header: a random id with the endpoint's prefix, the current time.
ResponseHeader new_response_header(Endpoint endpoint, const std::string& model);

// "tool_calls" (the turn ended with tool calls), "stop" (end of turn, stop string) or "length"
// (max_tokens, context full). A cancelled generation has none: the routes answer it with an
// error (server_shutting_down), streamed or not.
std::string_view finish_reason(const GenerateResult& result);

// {prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details: {cached_tokens}}
nlohmann::json usage(const GenerateResult& result);

// OpenAI's tool_calls: [{"id": "call_…", "type": "function", "function": {"name", "arguments":
// JSON TEXT}}], ids drawn here (the models write none); with `indexed`, each also has its
// "index", as stream deltas need.
nlohmann::json tool_calls(std::span<const ToolCall> calls, bool indexed);

// `text` is what the client sees of the answer: the pieces the engine's callback gave (its
// generated text without tool-call markup), so that a plain answer equals the streamed one. A
// chat message with tool calls has them in message.tool_calls, and a null content if no text.
nlohmann::json completion_body(const ResponseHeader& h, const GenerateResult& result,
                               std::string_view text);

// Streamed chunks. The chat stream opens with the assistant role; each piece of text is one
// chunk; then one chunk with the tool calls, if any (delta.tool_calls, each call whole); the
// last one carries finish_reason; with include_usage, a final chunk has no choices and the usage.
nlohmann::json role_chunk(const ResponseHeader& h);
nlohmann::json text_chunk(const ResponseHeader& h, std::string_view text);
nlohmann::json tool_calls_chunk(const ResponseHeader& h, std::span<const ToolCall> calls);
nlohmann::json finish_chunk(const ResponseHeader& h, const GenerateResult& result);
nlohmann::json usage_chunk(const ResponseHeader& h, const GenerateResult& result);

// The /v1/models list and one entry.
nlohmann::json model_entry(const std::string& id, int64_t created);
nlohmann::json model_list(const std::string& id, int64_t created);

// Serializes for the wire; text the engine produced is valid UTF-8, anything else is replaced.
std::string to_wire(const nlohmann::json& j);

}  // namespace kz::serve
