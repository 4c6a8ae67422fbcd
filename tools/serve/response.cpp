#include "serve/response.h"

#include <chrono>
#include <random>

namespace kz::serve {

namespace {

using nlohmann::json;

std::string random_hex(size_t n) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(n, '0');
  for (char& c : s) c = kDigits[rng() % 16];
  return s;
}

bool is_chat(const ResponseHeader& h) {
  return h.endpoint == Endpoint::ChatCompletions;
}

json chunk(const ResponseHeader& h, json choices) {
  return {{"id", h.id},
          {"object", is_chat(h) ? "chat.completion.chunk" : "text_completion"},
          {"created", h.created},
          {"model", h.model},
          {"choices", std::move(choices)}};
}

json choice(const ResponseHeader& h, std::string_view text, json finish) {
  if (is_chat(h))
    return {{"index", 0},
            {"delta", {{"content", text}}},
            {"finish_reason", finish},
            {"logprobs", nullptr}};
  return {{"index", 0}, {"text", text}, {"finish_reason", finish}, {"logprobs", nullptr}};
}

}  // namespace

ResponseHeader new_response_header(Endpoint endpoint, const std::string& model) {
  ResponseHeader h;
  h.endpoint = endpoint;
  h.id = (endpoint == Endpoint::ChatCompletions ? "chatcmpl-" : "cmpl-") + random_hex(24);
  h.created = std::chrono::duration_cast<std::chrono::seconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  h.model = model;
  return h;
}

std::string_view finish_reason(const GenerateResult& r) {
  switch (r.stop) {
    case StopReason::MaxTokens:
    case StopReason::ContextFull:
      return "length";
    default:
      return r.tool_calls.empty() ? "stop" : "tool_calls";
  }
}

json usage(const GenerateResult& r) {
  const int64_t completion = int64_t(r.tokens.size());
  return {{"prompt_tokens", r.prompt_tokens},
          {"completion_tokens", completion},
          {"total_tokens", r.prompt_tokens + completion},
          {"prompt_tokens_details", {{"cached_tokens", r.cached_tokens}}}};
}

json tool_calls(std::span<const ToolCall> calls, bool indexed) {
  json out = json::parse(tool_calls_to_json(calls));  // the engine's own OpenAI form
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].contains("id")) out[i]["id"] = "call_" + random_hex(24);
    if (indexed) out[i]["index"] = i;
  }
  return out;
}

json completion_body(const ResponseHeader& h, const GenerateResult& r, std::string_view text) {
  json c;
  if (is_chat(h)) {
    json message = {{"role", "assistant"}, {"content", text}};
    if (!r.tool_calls.empty()) {
      if (text.empty()) message["content"] = nullptr;  // as OpenAI sends a call without text
      message["tool_calls"] = tool_calls(r.tool_calls, false);
    }
    c = {{"index", 0},
         {"message", std::move(message)},
         {"finish_reason", finish_reason(r)},
         {"logprobs", nullptr}};
  } else {
    c = {{"index", 0}, {"text", text}, {"finish_reason", finish_reason(r)}, {"logprobs", nullptr}};
  }
  return {{"id", h.id},
          {"object", is_chat(h) ? "chat.completion" : "text_completion"},
          {"created", h.created},
          {"model", h.model},
          {"choices", json::array({c})},
          {"usage", usage(r)}};
}

json role_chunk(const ResponseHeader& h) {
  return chunk(h, json::array({{{"index", 0},
                                {"delta", {{"role", "assistant"}, {"content", ""}}},
                                {"finish_reason", nullptr},
                                {"logprobs", nullptr}}}));
}

json text_chunk(const ResponseHeader& h, std::string_view text) {
  return chunk(h, json::array({choice(h, text, nullptr)}));
}

json tool_calls_chunk(const ResponseHeader& h, std::span<const ToolCall> calls) {
  return chunk(h, json::array({{{"index", 0},
                                {"delta", {{"tool_calls", tool_calls(calls, true)}}},
                                {"finish_reason", nullptr},
                                {"logprobs", nullptr}}}));
}

json finish_chunk(const ResponseHeader& h, const GenerateResult& result) {
  json c = choice(h, "", finish_reason(result));
  if (is_chat(h)) c["delta"] = json::object();
  return chunk(h, json::array({c}));
}

json usage_chunk(const ResponseHeader& h, const GenerateResult& r) {
  json c = chunk(h, json::array());
  c["usage"] = usage(r);
  return c;
}

json model_entry(const std::string& id, int64_t created) {
  return {{"id", id}, {"object", "model"}, {"created", created}, {"owned_by", "kazeia"}};
}

json model_list(const std::string& id, int64_t created) {
  return {{"object", "list"}, {"data", json::array({model_entry(id, created)})}};
}

std::string to_wire(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace kz::serve
