#include "text/tool_call.h"

#include "base/error.h"

namespace kz {

std::vector<Json> parse_tools(std::string_view json_text) {
  Json all = parse_json(json_text, "tools");
  if (!all.is_array()) fail("tools: expected a JSON array of tool definitions");
  std::vector<Json> tools = std::move(all.as_array());
  for (size_t i = 0; i < tools.size(); ++i)
    if (!tools[i].is_object()) fail("tools[", i, "]: expected an object");
  return tools;
}

std::string tool_calls_to_json(std::span<const ToolCall> calls) {
  Json::Array out;
  for (const ToolCall& c : calls) {
    Json::Object call;
    if (!c.id.empty()) call.emplace_back("id", c.id);
    call.emplace_back("type", "function");
    call.emplace_back("function",
                      Json::object({{"name", c.name}, {"arguments", to_json_text(c.arguments)}}));
    out.push_back(Json::object(std::move(call)));
  }
  return to_json_text(Json::array(std::move(out)));
}

}  // namespace kz
