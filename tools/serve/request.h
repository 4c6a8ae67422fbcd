// OpenAI request bodies mapped onto the engine's GenerateParams. Every field is either used,
// accepted and ignored (it cannot change the answer: `user`, `n` = 1...) or refused with an
// OpenAI-style error naming it; unknown fields are refused, as OpenAI does. docs/serve.md has the
// table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/engine.h"

namespace kz::serve {

enum class Endpoint { ChatCompletions, Completions };

struct RequestLimits {
  int max_tokens = 4096;    // largest max_tokens a request may ask for; also the chat default
  int max_json_depth = 64;  // arrays and objects nested in the body; deeper gets 400 json_too_deep
};

struct GenerationRequest {
  Endpoint endpoint = Endpoint::ChatCompletions;
  std::string model;                  // empty: not given (the served model)
  std::vector<ChatMessage> messages;  // chat completions
  std::string prompt;                 // completions: plain text, no chat template
  GenerateParams params;
  bool stream = false;
  bool include_usage = false;     // stream_options.include_usage: a last chunk with the usage
  bool seed_given = false;        // else the server draws one per request
  bool tool_choice_none = false;  // tool_choice "none": params.tools is cleared
};

// Throws ApiError (400) naming the field at fault.
GenerationRequest parse_chat_request(std::string_view body, const RequestLimits& limits);
GenerationRequest parse_completion_request(std::string_view body, const RequestLimits& limits);

}  // namespace kz::serve
