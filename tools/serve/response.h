// OpenAI response bodies built from the engine's GenerateResult: the whole completion, and the
// chunks of a streamed one (chat.completion.chunk / text_completion).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
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

// "stop" (end of turn, stop string) or "length" (max_tokens, context full).
std::string_view finish_reason(StopReason stop);

// {prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details: {cached_tokens}}
nlohmann::json usage(const GenerateResult& result);

nlohmann::json completion_body(const ResponseHeader& h, const GenerateResult& result);

// Streamed chunks. The chat stream opens with the assistant role; each piece of text is one
// chunk; the last one carries finish_reason; with include_usage, a final chunk has no choices
// and the usage.
nlohmann::json role_chunk(const ResponseHeader& h);
nlohmann::json text_chunk(const ResponseHeader& h, std::string_view text);
nlohmann::json finish_chunk(const ResponseHeader& h, StopReason stop);
nlohmann::json usage_chunk(const ResponseHeader& h, const GenerateResult& result);

// The /v1/models list and one entry.
nlohmann::json model_entry(const std::string& id, int64_t created);
nlohmann::json model_list(const std::string& id, int64_t created);

// Serializes for the wire; text the engine produced is valid UTF-8, anything else is replaced.
std::string to_wire(const nlohmann::json& j);

}  // namespace kz::serve
