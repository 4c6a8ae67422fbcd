#include "text/chat.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "base/error.h"
#include "text/spaces.h"
#include "text/tokenizer_utf8.h"

namespace kz {
namespace {

constexpr std::string_view kStart = "<|im_start|>";
constexpr std::string_view kEnd = "<|im_end|>\n";

std::string_view lstrip_newlines(std::string_view s) {
  while (!s.empty() && s.front() == '\n') s.remove_prefix(1);
  return s;
}

std::string_view rstrip_newlines(std::string_view s) {
  while (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return s;
}

bool is_tool_response(std::string_view s) {
  return s.starts_with("<tool_response>") && s.ends_with("</tool_response>");
}

// Both templates' split of an assistant turn without reasoning_content:
//   content   = content.split('</think>')[-1].lstrip('\n')
//   reasoning = content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n')
// Neither tag can overlap itself, so rfind finds the last split piece.
void split_reasoning(std::string_view& content, std::string_view& reasoning) {
  const size_t first_close = content.find(kThinkClose);
  if (first_close == std::string_view::npos) return;
  std::string_view before = rstrip_newlines(content.substr(0, first_close));
  if (size_t open = before.rfind(kThinkOpen); open != std::string_view::npos)
    before.remove_prefix(open + kThinkOpen.size());
  reasoning = lstrip_newlines(before);
  content = lstrip_newlines(content.substr(content.rfind(kThinkClose) + kThinkClose.size()));
}

// A piece of the rendering: the template's markup unless made with text().
struct Part {
  std::string_view str;
  bool is_text = false;
  Part(std::string_view s) : str(s) {}
  Part(const char* s) : str(s) {}
  Part(const std::string& s) : str(s) {}
};

// Message text: never markup, whatever it contains.
Part text(std::string_view s) {
  Part p(s);
  p.is_text = true;
  return p;
}

void append(RenderedChat& out, std::initializer_list<Part> parts) {
  for (const Part& p : parts) {
    const size_t begin = out.text.size();
    out.text += p.str;
    if (p.is_text || p.str.empty()) continue;
    if (!out.markup.empty() && out.markup.back().end == begin)
      out.markup.back().end = out.text.size();
    else
      out.markup.push_back({begin, out.text.size()});
  }
}

void validate(std::span<const ChatMessage> messages) {
  if (messages.empty()) fail("render_chat: no messages");
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    std::vector<std::string_view> fields = {m.role, m.content, m.reasoning_content, m.tool_call_id,
                                            m.name};
    std::vector<std::string> arguments;
    for (const ToolCall& c : m.tool_calls) {
      arguments.push_back(to_json_text(c.arguments));
      fields.insert(fields.end(), {c.name, c.id});
    }
    fields.insert(fields.end(), arguments.begin(), arguments.end());
    for (std::string_view f : fields) {
      if (!is_valid_utf8(f)) fail("message ", i, ": invalid UTF-8");
      // Refused rather than kept: C and JNI callers cannot pass one (their strings end there).
      if (f.find('\0') != std::string_view::npos) fail("message ", i, ": NUL byte");
    }
    if (m.role != "system" && m.role != "user" && m.role != "assistant" && m.role != "tool")
      fail("message ", i, ": unknown role '", m.role, "'");
  }
}

// Each tool definition as the templates print it (`tool | tojson`).
std::vector<std::string> tool_texts(std::span<const Json> tools) {
  std::vector<std::string> out;
  for (size_t i = 0; i < tools.size(); ++i) {
    if (!tools[i].is_object()) fail("tools[", i, "]: expected an object");
    out.push_back(to_json_text(tools[i]));
    if (!is_valid_utf8(out.back())) fail("tools[", i, "]: invalid UTF-8");
  }
  return out;
}

// Role "tool": consecutive results share one user turn.
void append_tool(RenderedChat& out, std::span<const ChatMessage> messages, size_t i,
                 std::string_view content, bool open) {
  if (open) append(out, {kStart, "user"});
  append(out, {"\n<tool_response>\n", text(content), "\n</tool_response>"});
  if (i + 1 == messages.size() || messages[i + 1].role != "tool") append(out, {kEnd});
}

// The last user message that is not a wrapped tool result; turns after it are the current answer.
template <class ContentOf>
std::ptrdiff_t last_query_index(std::span<const ChatMessage> messages, ContentOf content_of) {
  for (size_t i = messages.size(); i-- > 0;)
    if (messages[i].role == "user" && !is_tool_response(content_of(messages[i]))) return i;
  return -1;
}

// The Qwen3 system turn: with tools, the optional system text, then the tools section.
void qwen3_system(RenderedChat& out, const ChatMessage& first, std::span<const std::string> tools) {
  const bool has_system = first.role == "system";
  if (tools.empty()) {
    if (has_system) append(out, {kStart, "system\n", text(first.content), kEnd});
    return;
  }
  append(out, {kStart, "system\n"});
  if (has_system) append(out, {text(first.content), "\n\n"});
  append(out, {"# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
               "You are provided with function signatures within <tools></tools> XML tags:\n"
               "<tools>"});
  for (const std::string& t : tools) append(out, {"\n", text(t)});
  append(out, {"\n</tools>\n\nFor each function call, return a json object with function name and "
               "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": "
               "<function-name>, \"arguments\": <args-json-object>}\n</tool_call>",
               kEnd});
}

// Qwen3's calls: JSON lines; string arguments are printed as they are (`arguments is string`).
// `content` is the template's variable (after the </think> split), which decides the first "\n".
void qwen3_tool_calls(RenderedChat& out, const ChatMessage& m, std::string_view content) {
  for (size_t k = 0; k < m.tool_calls.size(); ++k) {
    const ToolCall& c = m.tool_calls[k];
    if (k > 0 || !content.empty()) append(out, {"\n"});
    const std::string args =
        c.arguments.is_string() ? c.arguments.as_string() : to_json_text(c.arguments);
    append(out, {"<tool_call>\n{\"name\": \"", text(c.name), "\", \"arguments\": ", text(args),
                 "}\n</tool_call>"});
  }
}

// spec/chat.md §3.
RenderedChat render_qwen3(std::span<const ChatMessage> messages, bool add_generation_prompt,
                          bool enable_thinking, std::span<const std::string> tools) {
  RenderedChat out;
  const size_t n = messages.size();
  qwen3_system(out, messages[0], tools);
  std::ptrdiff_t last_query = last_query_index(
      messages, [](const ChatMessage& m) -> std::string_view { return m.content; });
  if (last_query < 0) last_query = n - 1;  // the template's default: no turn counts as "after"

  for (size_t i = 0; i < n; ++i) {
    const ChatMessage& m = messages[i];
    if (m.role == "user" || (m.role == "system" && i > 0)) {
      append(out, {kStart, m.role, "\n", text(m.content), kEnd});
    } else if (m.role == "assistant") {
      std::string_view content = m.content, reasoning = m.reasoning_content;
      if (reasoning.empty()) split_reasoning(content, reasoning);
      const bool after_query = static_cast<std::ptrdiff_t>(i) > last_query;
      if (after_query && (i + 1 == n || !reasoning.empty())) {
        append(out,
               {kStart, "assistant\n<think>\n", text(lstrip_newlines(rstrip_newlines(reasoning))),
                "\n</think>\n\n", text(lstrip_newlines(content))});
      } else {
        append(out, {kStart, "assistant\n", text(content)});  // earlier turns lose their reasoning
      }
      qwen3_tool_calls(out, m, content);
      append(out, {kEnd});
    } else if (m.role == "tool") {
      append_tool(out, messages, i, m.content, i == 0 || messages[i - 1].role != "tool");
    }
  }
  if (add_generation_prompt) {
    append(out, {kStart, "assistant\n"});
    if (!enable_thinking) append(out, {"<think>\n\n</think>\n\n"});
  }
  return out;
}

// The Qwen3.5 system turn: with tools, the tools section first, then the system text if any.
void qwen35_system(RenderedChat& out, const ChatMessage& first,
                   std::span<const std::string> tools) {
  const std::string_view system = first.role == "system" ? trim(first.content) : "";
  if (tools.empty()) {
    if (first.role == "system") append(out, {kStart, "system\n", text(system), kEnd});
    return;
  }
  append(out,
         {kStart, "system\n# Tools\n\nYou have access to the following functions:\n\n<tools>"});
  for (const std::string& t : tools) append(out, {"\n", text(t)});
  append(out,
         {"\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with "
          "NO suffix:\n\n<tool_call>\n<function=example_function_name>\n"
          "<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
          "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat "
          "can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\n"
          "Reminder:\n- Function calls MUST follow the specified format: an inner "
          "<function=...></function> block must be nested within <tool_call></tool_call> XML "
          "tags\n- Required parameters MUST be specified\n- You may provide optional reasoning "
          "for your function call in natural language BEFORE the function call, but NOT after\n"
          "- If there is no function call available, answer the question like normal with your "
          "current knowledge and do not tell the user about function calls\n</IMPORTANT>"});
  if (!system.empty()) append(out, {"\n\n", text(system)});
  append(out, {kEnd});
}

// Qwen3.5's calls: one <parameter=…> block per argument; objects and arrays as tojson, other
// values as Python's str() (the template's `string` filter: True, None, 1.0).
void qwen35_tool_calls(RenderedChat& out, const ChatMessage& m, std::string_view content,
                       size_t index) {
  for (size_t k = 0; k < m.tool_calls.size(); ++k) {
    const ToolCall& c = m.tool_calls[k];
    const char* open = k > 0                   ? "\n<tool_call>\n<function="
                       : trim(content).empty() ? "<tool_call>\n<function="
                                               : "\n\n<tool_call>\n<function=";
    append(out, {open, text(c.name), ">\n"});
    // The template's `arguments|items` fails on anything but a mapping.
    if (!c.arguments.is_object())
      fail("message ", index, ": tool call ", k, ": arguments must be a JSON object");
    for (const auto& [key, value] : c.arguments.as_object())
      append(out,
             {"<parameter=", text(key), ">\n", text(to_python_str(value)), "\n</parameter>\n"});
    append(out, {"</function>\n</tool_call>"});
  }
}

// spec/chat.md §4: every content trimmed, stricter checks, <think> always opened.
RenderedChat render_qwen35(std::span<const ChatMessage> messages, bool add_generation_prompt,
                           bool enable_thinking, std::span<const std::string> tools) {
  RenderedChat out;
  const size_t n = messages.size();
  qwen35_system(out, messages[0], tools);
  const std::ptrdiff_t last_query =
      last_query_index(messages, [](const ChatMessage& m) { return trim(m.content); });
  if (last_query < 0) fail("render_chat: no user query found in messages");

  for (size_t i = 0; i < n; ++i) {
    const ChatMessage& m = messages[i];
    std::string_view content = trim(m.content);
    if (m.role == "system") {
      if (i > 0) fail("message ", i, ": system message must be at the beginning");
    } else if (m.role == "user") {
      append(out, {kStart, "user\n", text(content), kEnd});
    } else if (m.role == "assistant") {
      std::string_view reasoning = m.reasoning_content;
      if (reasoning.empty()) split_reasoning(content, reasoning);
      reasoning = trim(reasoning);
      if (static_cast<std::ptrdiff_t>(i) > last_query) {
        append(out,
               {kStart, "assistant\n<think>\n", text(reasoning), "\n</think>\n\n", text(content)});
      } else {
        append(out, {kStart, "assistant\n", text(content)});
      }
      qwen35_tool_calls(out, m, content, i);
      append(out, {kEnd});
    } else if (m.role == "tool") {
      // `loop.previtem and …` is false for the first message, so a leading tool result gets no
      // `<|im_start|>user` opener; reproduced as the template renders it.
      append_tool(out, messages, i, content, i > 0 && messages[i - 1].role != "tool");
    }
  }
  if (add_generation_prompt) {
    append(out, {kStart, "assistant\n"});
    append(out, {enable_thinking ? "<think>\n" : "<think>\n\n</think>\n\n"});
  }
  return out;
}

// llama.cpp's legacy LLM_CHAT_TEMPLATE_CHATML rendering.
RenderedChat render_chatml(std::span<const ChatMessage> messages, bool add_generation_prompt) {
  RenderedChat out;
  for (const ChatMessage& m : messages) append(out, {kStart, m.role, "\n", text(m.content), kEnd});
  if (add_generation_prompt) append(out, {kStart, "assistant\n"});
  return out;
}

// Template text without whitespace, so markers survive re-indentation.
std::string without_spaces(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    if (!is_space(c)) out += c;
  return out;
}

bool contains_all(std::string_view text, std::initializer_list<std::string_view> markers) {
  for (std::string_view m : markers)
    if (text.find(m) == std::string_view::npos) return false;
  return true;
}

}  // namespace

std::string_view chat_format_name(ChatFormat format) {
  switch (format) {
    case ChatFormat::Qwen3:
      return "qwen3";
    case ChatFormat::Qwen35:
      return "qwen3.5";
    case ChatFormat::ChatML:
      return "chatml";
  }
  return "?";
}

ChatFormat detect_chat_format(std::string_view template_text) {
  const std::string t = without_spaces(template_text);
  if (t.find("<|im_start|>") == std::string::npos) fail("unsupported chat template");
  // Markers are the behaviours we re-implement, in the templates' own words (spaces removed).
  // Qwen3.5: trimmed content, the "no user query" check, and `<think>\n` opened by default.
  if (contains_all(t, {"render_content(message.content,true)|trim",
                       "raise_exception('Nouserqueryfoundinmessages.')", "ns.last_query_index",
                       "{%-else%}{{-'<think>\\n'}}"}))
    return ChatFormat::Qwen35;
  // Qwen3: the last-query split, the reasoning block, and `<think></think>` only when disabled.
  if (contains_all(t, {"ns.last_query_index", "reasoning_content.strip('\\n')",
                       "enable_thinkingisdefinedandenable_thinkingisfalse"}))
    return ChatFormat::Qwen3;
  return ChatFormat::ChatML;
}

RenderedChat render_chat_marked(ChatFormat format, std::span<const ChatMessage> messages,
                                bool add_generation_prompt, bool enable_thinking,
                                std::span<const Json> tools) {
  validate(messages);
  const std::vector<std::string> tools_text = tool_texts(tools);
  switch (format) {
    case ChatFormat::Qwen3:
      return render_qwen3(messages, add_generation_prompt, enable_thinking, tools_text);
    case ChatFormat::Qwen35:
      return render_qwen35(messages, add_generation_prompt, enable_thinking, tools_text);
    case ChatFormat::ChatML:
      if (!tools.empty()) fail("render_chat: this model's chat template has no tool calling");
      for (size_t i = 0; i < messages.size(); ++i)
        if (!messages[i].tool_calls.empty())
          fail("message ", i, ": this model's chat template has no tool calls");
      return render_chatml(messages, add_generation_prompt);
  }
  fail("render_chat: unknown chat format");
}

std::string render_chat(ChatFormat format, std::span<const ChatMessage> messages,
                        bool add_generation_prompt, bool enable_thinking,
                        std::span<const Json> tools) {
  return render_chat_marked(format, messages, add_generation_prompt, enable_thinking, tools).text;
}

}  // namespace kz
