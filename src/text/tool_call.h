// Tool calling's data: the tool definitions given to a chat template and the calls an assistant
// made, with the conversions the APIs need (JSON text in, OpenAI-style JSON text out).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "text/json.h"

namespace kz {

struct ToolCall {
  std::string name;
  // Usually an object. Qwen3's template also takes a string and writes it as it is; Qwen3.5's
  // needs an object (render_chat throws otherwise).
  Json arguments = Json::object();
  // Not rendered by the Qwen templates; kept so that APIs can pair results with calls.
  std::string id;

  bool operator==(const ToolCall&) const = default;
};

// A JSON array of tool definitions (each an object, usually OpenAI's
// {"type": "function", "function": {"name", "description", "parameters"}}), kept as given: the
// templates print each one with tojson. Throws kz::Error naming the element at fault.
std::vector<Json> parse_tools(std::string_view json_text);

// Calls as OpenAI's `tool_calls` array: [{"id": ID, "type": "function", "function": {"name":
// NAME, "arguments": "ARGUMENTS AS JSON TEXT"}}] ("id" left out when empty).
std::string tool_calls_to_json(std::span<const ToolCall> calls);

}  // namespace kz
