#include "serve/request.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "serve/api_error.h"

namespace kz::serve {

namespace {

// Keeps the members in the order given: tool definitions reach the template's tojson as the
// client wrote them, as Python's json.loads would keep them.
using nlohmann::ordered_json;

// OpenAI's default max_tokens for the legacy completions endpoint.
constexpr int kCompletionsDefaultMaxTokens = 16;
// OpenAI accepts at most four stop sequences.
constexpr size_t kMaxStopStrings = 4;

// Refuses a body nested deeper than `limit` before it is parsed: the parser allocates a value per
// level, and 2 M levels fit in 4 MB (issue 41: ~50 MB and up to 1.3 s per request). Counting
// brackets outside strings is exact for valid JSON; invalid JSON fails in the parser anyway.
void check_depth(std::string_view body, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        throw invalid_request("The request body nests arrays and objects deeper than " +
                                  std::to_string(limit) + " levels, this server's limit.",
                              "", "json_too_deep");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

ordered_json parse_object(std::string_view body, const RequestLimits& limits) {
  check_depth(body, limits.max_json_depth);
  ordered_json j = ordered_json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw invalid_request("The request body is not valid JSON.", "", "invalid_json");
  if (!j.is_object()) throw invalid_request("The request body must be a JSON object.");
  return j;
}

ApiError unrecognized(const std::string& param) {
  return invalid_request("Unrecognized request argument supplied: " + param, param);
}

ApiError unsupported(const std::string& param, const std::string& what) {
  return invalid_request(what, param, "unsupported_value");
}

const std::string& string_of(const ordered_json& v, const std::string& param) {
  if (!v.is_string()) throw invalid_request(param + " must be a string", param);
  return v.get_ref<const std::string&>();
}

bool boolean(const ordered_json& v, const std::string& param) {
  if (!v.is_boolean()) throw invalid_request(param + " must be a boolean", param);
  return v.get<bool>();
}

double number_in(const ordered_json& v, const std::string& param, double lo, double hi) {
  if (!v.is_number()) throw invalid_request(param + " must be a number", param);
  const double x = v.get<double>();
  if (!(x >= lo && x <= hi))
    throw invalid_request(param + " must be between " + ordered_json(lo).dump() + " and " +
                              ordered_json(hi).dump() + ", got " + v.dump(),
                          param);
  return x;
}

int64_t integer_in(const ordered_json& v, const std::string& param, int64_t lo, int64_t hi) {
  if (!v.is_number_integer()) throw invalid_request(param + " must be an integer", param);
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
    throw invalid_request(param + " is out of range", param);
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi)
    throw invalid_request(
        param + " must be between " + std::to_string(lo) + " and " + std::to_string(hi), param);
  return x;
}

int max_tokens(const ordered_json& v, const std::string& param, const RequestLimits& limits) {
  const int64_t n = integer_in(v, param, 1, std::numeric_limits<int32_t>::max());
  if (n > limits.max_tokens)
    throw invalid_request(param + " is too large: " + std::to_string(n) +
                              ". This server allows at most " + std::to_string(limits.max_tokens) +
                              " (--max-tokens).",
                          param);
  return int(n);
}

std::vector<std::string> stop_strings(const ordered_json& v, const std::string& param) {
  std::vector<std::string> stops;
  if (v.is_string()) {
    stops.push_back(v.get<std::string>());
  } else if (v.is_array()) {
    if (v.size() > kMaxStopStrings)
      throw invalid_request(param + " holds at most 4 strings", param);
    for (const ordered_json& s : v) stops.push_back(string_of(s, param));
  } else {
    throw invalid_request(param + " must be a string or an array of strings", param);
  }
  for (const std::string& s : stops)
    if (s.empty()) throw invalid_request(param + " must not hold empty strings", param);
  return stops;
}

// The deprecated function-calling fields, replaced by tools and tool_choice.
[[noreturn]] void refuse_functions(const std::string& param) {
  throw unsupported(param, param + " is not supported; use tools and tool_choice.");
}

const ordered_json& member(const ordered_json& object, const char* key, const std::string& param) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null())
    throw invalid_request(param + "." + key + " is required", param + "." + key);
  return *it;
}

// OpenAI's {"type": "function", "function": {"name", "description", "parameters", "strict"}},
// checked and passed on as given: the template prints each definition with tojson.
std::vector<Json> tool_definitions(const ordered_json& v, const std::string& param) {
  if (!v.is_array()) throw invalid_request(param + " must be an array", param);
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string tool = param + "[" + std::to_string(i) + "]";
    if (!v[i].is_object()) throw invalid_request(tool + " must be an object", tool);
    if (string_of(member(v[i], "type", tool), tool + ".type") != "function")
      throw unsupported(tool + ".type", "Only tools of type 'function' are supported.");
    const ordered_json& function = member(v[i], "function", tool);
    if (!function.is_object())
      throw invalid_request(tool + ".function must be an object", tool + ".function");
    if (string_of(member(function, "name", tool + ".function"), tool + ".function.name").empty())
      throw invalid_request(tool + ".function.name must not be empty", tool + ".function.name");
  }
  try {
    return parse_tools(v.dump());
  } catch (const Error& e) {
    throw invalid_request(e.what(), param);
  }
}

// "auto" (the default) and "none"; forcing a call ("required", a named function) would need
// constrained decoding, which the engine does not have.
bool tool_choice_none(const ordered_json& v, const std::string& param) {
  if (v.is_string()) {
    const std::string& choice = v.get_ref<const std::string&>();
    if (choice == "auto" || choice == "none") return choice == "none";
    if (choice != "required")
      throw invalid_request("Invalid value for " + param + ": '" + choice + "'", param);
  } else if (!v.is_object()) {
    throw invalid_request(param + " must be a string or an object", param);
  }
  throw unsupported(param,
                    "tool_choice supports only 'auto' and 'none': this server cannot "
                    "force a tool call.");
}

// One request field: its name and how it is applied. A null value counts as not given.
struct Field {
  const char* name;
  void (*apply)(const ordered_json& v, const std::string& param, GenerationRequest& r,
                const RequestLimits& limits);
};

// The fields both endpoints take.
constexpr Field kCommonFields[] = {
    {"model", [](auto& v, auto& p, auto& r, auto&) { r.model = string_of(v, p); }},
    {"max_tokens",
     [](auto& v, auto& p, auto& r, auto& l) { r.params.max_tokens = max_tokens(v, p, l); }},
    {"temperature", [](auto& v, auto& p, auto& r,
                       auto&) { r.params.sampling.temperature = float(number_in(v, p, 0, 2)); }},
    {"top_p", [](auto& v, auto& p, auto& r,
                 auto&) { r.params.sampling.top_p = float(number_in(v, p, 0, 1)); }},
    {"top_k",
     [](auto& v, auto& p, auto& r, auto&) {
       r.params.sampling.top_k = int(integer_in(v, p, 0, std::numeric_limits<int32_t>::max()));
     }},
    {"min_p", [](auto& v, auto& p, auto& r,
                 auto&) { r.params.sampling.min_p = float(number_in(v, p, 0, 1)); }},
    {"presence_penalty",
     [](auto& v, auto& p, auto& r, auto&) {
       r.params.sampling.presence_penalty = float(number_in(v, p, -2, 2));
     }},
    {"frequency_penalty",
     [](auto& v, auto& p, auto&, auto&) {
       if (number_in(v, p, -2, 2) != 0) throw unsupported(p, "frequency_penalty is not supported.");
     }},
    {"seed",
     [](auto& v, auto& p, auto& r, auto&) {
       if (!v.is_number_integer()) throw invalid_request(p + " must be an integer", p);
       r.params.sampling.seed = v.template get<uint64_t>();  // a negative seed wraps, as in C
       r.seed_given = true;
     }},
    {"stop", [](auto& v, auto& p, auto& r, auto&) { r.params.stop = stop_strings(v, p); }},
    {"stream", [](auto& v, auto& p, auto& r, auto&) { r.stream = boolean(v, p); }},
    {"stream_options",
     [](auto& v, auto& p, auto& r, auto&) {
       if (!v.is_object()) throw invalid_request(p + " must be an object", p);
       for (auto& [key, value] : v.items()) {
         if (key != "include_usage") throw unrecognized(p + "." + key);
         r.include_usage = boolean(value, p + "." + key);
       }
     }},
    {"n",
     [](auto& v, auto& p, auto&, auto&) { integer_in(v, p, 1, 1); }},   // one choice per request
    {"user", [](auto& v, auto& p, auto&, auto&) { string_of(v, p); }},  // an end-user id: unused
    {"logit_bias",
     [](auto& v, auto& p, auto&, auto&) {
       if (!v.is_object() || !v.empty()) throw unsupported(p, "logit_bias is not supported.");
     }},
};

constexpr Field kChatFields[] = {
    {"messages", nullptr},  // parsed by parse_messages
    {"max_completion_tokens",
     [](auto& v, auto& p, auto& r, auto& l) { r.params.max_tokens = max_tokens(v, p, l); }},
    {"logprobs",
     [](auto& v, auto& p, auto&, auto&) {
       if (boolean(v, p)) throw unsupported(p, "logprobs are not supported.");
     }},
    {"top_logprobs",
     [](auto&, auto& p, auto&, auto&) { throw unsupported(p, "logprobs are not supported."); }},
    {"response_format",
     [](auto& v, auto& p, auto&, auto&) {
       if (!v.is_object() || v.value("type", "") != "text" || v.size() != 1)
         throw unsupported(p, "Only response_format {\"type\": \"text\"} is supported.");
     }},
    {"tools", [](auto& v, auto& p, auto& r, auto&) { r.params.tools = tool_definitions(v, p); }},
    {"tool_choice",
     [](auto& v, auto& p, auto& r, auto&) { r.tool_choice_none = tool_choice_none(v, p); }},
    // Several calls in one turn are what the templates allow; one at most cannot be enforced.
    {"parallel_tool_calls",
     [](auto& v, auto& p, auto&, auto&) {
       if (!boolean(v, p)) throw unsupported(p, "parallel_tool_calls must be true.");
     }},
    {"functions", [](auto&, auto& p, auto&, auto&) { refuse_functions(p); }},
    {"function_call", [](auto&, auto& p, auto&, auto&) { refuse_functions(p); }},
    // The engine's extra, as llama.cpp's server spells it: the template's enable_thinking.
    {"chat_template_kwargs",
     [](auto& v, auto& p, auto& r, auto&) {
       if (!v.is_object()) throw invalid_request(p + " must be an object", p);
       for (auto& [key, value] : v.items()) {
         if (key != "enable_thinking") throw unrecognized(p + "." + key);
         r.params.enable_thinking = boolean(value, p + "." + key);
       }
     }},
};

constexpr Field kCompletionFields[] = {
    {"prompt",
     [](auto& v, auto& p, auto& r, auto&) {
       if (v.is_array() && v.size() == 1 && v[0].is_string())
         r.prompt = v[0].template get<std::string>();
       else if (v.is_string())
         r.prompt = v.template get<std::string>();
       else
         throw unsupported(p, "prompt must be a string (or an array of one string).");
     }},
    {"logprobs",
     [](auto& v, auto& p, auto&, auto&) {
       if (integer_in(v, p, 0, 5) != 0) throw unsupported(p, "logprobs are not supported.");
     }},
    {"echo",
     [](auto& v, auto& p, auto&, auto&) {
       if (boolean(v, p)) throw unsupported(p, "echo is not supported.");
     }},
    {"suffix",
     [](auto& v, auto& p, auto&, auto&) {
       if (!string_of(v, p).empty()) throw unsupported(p, "suffix is not supported.");
     }},
    {"best_of", [](auto& v, auto& p, auto&, auto&) { integer_in(v, p, 1, 1); }},
};

template <size_t N>
const Field* find_field(const Field (&fields)[N], const std::string& name) {
  for (const Field& f : fields)
    if (name == f.name) return &f;
  return nullptr;
}

// Applies every field of the body, common ones and the endpoint's own.
template <size_t N>
void apply_fields(const ordered_json& body, const Field (&own)[N], GenerationRequest& r,
                  const RequestLimits& limits) {
  for (auto& [key, value] : body.items()) {
    const Field* f = find_field(kCommonFields, key);
    if (!f) f = find_field(own, key);
    if (!f) throw unrecognized(key);
    if (value.is_null() || !f->apply) continue;
    f->apply(value, key, r, limits);
  }
  // OpenAI's top_p = 0 keeps the single most likely token.
  if (r.params.sampling.top_p == 0) {
    r.params.sampling.top_p = 1;
    r.params.sampling.top_k = 1;
  }
}

std::string message_role(const ordered_json& v, const std::string& param) {
  const std::string& role = string_of(v, param);
  if (role == "developer") return "system";  // OpenAI's newer name for the system message
  if (role == "system" || role == "user" || role == "assistant" || role == "tool") return role;
  throw invalid_request("Invalid value for " + param + ": '" + role + "'", param);
}

// A string, or an array of text parts (concatenated).
std::string message_content(const ordered_json& v, const std::string& param) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) throw invalid_request(param + " must be a string or an array", param);
  std::string text;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string part = param + "[" + std::to_string(i) + "]";
    const ordered_json& p = v[i];
    if (!p.is_object() || p.value("type", "") != "text" || !p.contains("text"))
      throw unsupported(part, "Only text content parts are supported.");
    for (auto& [key, value] : p.items())
      if (key != "type" && key != "text") throw unrecognized(part + "." + key);
    text += string_of(p["text"], part + ".text");
  }
  return text;
}

// An assistant's call as OpenAI sends it back: {"id", "type": "function", "function": {"name",
// "arguments": JSON TEXT}}.
ToolCall tool_call(const ordered_json& v, const std::string& param) {
  if (!v.is_object()) throw invalid_request(param + " must be an object", param);
  ToolCall call;
  for (auto& [key, value] : v.items()) {
    if (key == "id") {
      call.id = string_of(value, param + ".id");
    } else if (key == "type") {
      if (string_of(value, param + ".type") != "function")
        throw unsupported(param + ".type", "Only tool calls of type 'function' are supported.");
    } else if (key != "function") {
      throw unrecognized(param + "." + key);
    }
  }
  const std::string fn = param + ".function";
  const ordered_json& function = member(v, "function", param);
  if (!function.is_object()) throw invalid_request(fn + " must be an object", fn);
  for (auto& [key, value] : function.items()) {
    if (key == "name") {
      call.name = string_of(value, fn + ".name");
    } else if (key == "arguments") {
      // "" is what some clients send for a call without arguments.
      const std::string& text = string_of(value, fn + ".arguments");
      try {
        call.arguments = text.empty() ? Json::object() : parse_json(text, fn + ".arguments");
      } catch (const Error& e) {
        throw invalid_request(e.what(), fn + ".arguments");
      }
    } else {
      throw unrecognized(fn + "." + key);
    }
  }
  if (call.name.empty()) throw invalid_request(fn + ".name is required", fn + ".name");
  return call;
}

std::vector<ToolCall> tool_calls(const ordered_json& v, const std::string& param) {
  if (!v.is_array()) throw invalid_request(param + " must be an array", param);
  std::vector<ToolCall> calls;
  for (size_t i = 0; i < v.size(); ++i)
    calls.push_back(tool_call(v[i], param + "[" + std::to_string(i) + "]"));
  return calls;
}

ChatMessage parse_message(const ordered_json& m, const std::string& where) {
  if (!m.is_object()) throw invalid_request(where + " must be an object", where);
  ChatMessage msg;
  bool has_content = false;
  for (auto& [key, v] : m.items()) {
    const std::string param = where + "." + key;
    if (key == "role") {
      msg.role = message_role(v, param);
    } else if (key == "content") {
      has_content = !v.is_null();
      if (has_content) msg.content = message_content(v, param);
    } else if (key == "reasoning_content") {  // the engine's extra (assistant reasoning)
      if (!v.is_null()) msg.reasoning_content = string_of(v, param);
    } else if (key == "name") {
      if (!v.is_null()) msg.name = string_of(v, param);
    } else if (key == "tool_call_id") {
      if (!v.is_null()) msg.tool_call_id = string_of(v, param);
    } else if (key == "refusal") {  // not shown by the Qwen templates: checked and left out
      if (!v.is_null()) string_of(v, param);
    } else if (key == "tool_calls") {
      if (!v.is_null()) msg.tool_calls = tool_calls(v, param);
    } else if (key == "function_call") {
      if (!v.is_null()) refuse_functions(param);
    } else {
      throw unrecognized(param);
    }
  }
  if (msg.role.empty()) throw invalid_request(where + ".role is required", where + ".role");
  if (!msg.tool_calls.empty() && msg.role != "assistant")
    throw invalid_request(where + ".tool_calls is only allowed in assistant messages",
                          where + ".tool_calls");
  if (!has_content && msg.role != "assistant")
    throw invalid_request(where + ".content is required", where + ".content");
  return msg;
}

std::vector<ChatMessage> parse_messages(const ordered_json& body) {
  const auto it = body.find("messages");
  if (it == body.end() || it->is_null())
    throw invalid_request("Missing required parameter: 'messages'.", "messages");
  if (!it->is_array() || it->empty())
    throw invalid_request("messages must be a non-empty array", "messages");
  std::vector<ChatMessage> messages;
  for (size_t i = 0; i < it->size(); ++i)
    messages.push_back(parse_message((*it)[i], "messages[" + std::to_string(i) + "]"));
  return messages;
}

}  // namespace

GenerationRequest parse_chat_request(std::string_view body_text, const RequestLimits& limits) {
  const ordered_json body = parse_object(body_text, limits);
  GenerationRequest r;
  r.endpoint = Endpoint::ChatCompletions;
  r.params.max_tokens = limits.max_tokens;
  apply_fields(body, kChatFields, r, limits);
  // tool_choice "none": the model gets no tools (and its reply is not read for calls).
  if (r.tool_choice_none) r.params.tools.clear();
  r.messages = parse_messages(body);
  return r;
}

GenerationRequest parse_completion_request(std::string_view body_text,
                                           const RequestLimits& limits) {
  const ordered_json body = parse_object(body_text, limits);
  GenerationRequest r;
  r.endpoint = Endpoint::Completions;
  r.params.max_tokens = std::min(kCompletionsDefaultMaxTokens, limits.max_tokens);
  apply_fields(body, kCompletionFields, r, limits);
  if (!body.contains("prompt") || body["prompt"].is_null())
    throw invalid_request("Missing required parameter: 'prompt'.", "prompt");
  return r;
}

}  // namespace kz::serve
