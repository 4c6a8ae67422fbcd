// Chat formatting: turns a conversation into the prompt text the model was trained on, exactly as
// llama.cpp's Jinja rendering of the model's own template would (../shared/spec/chat.md §3–§5),
// tool definitions, assistant tool calls and tool results included. The two Qwen templates are
// re-implemented in C++ rather than interpreted; any other template using <|im_start|> falls back
// to plain ChatML, like llama.cpp's legacy path (no tools there).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/text_span.h"
#include "text/tool_call.h"

namespace kz {

// The tags around an assistant's reasoning in the Qwen templates.
inline constexpr std::string_view kThinkOpen = "<think>";
inline constexpr std::string_view kThinkClose = "</think>";

struct ChatMessage {
  ChatMessage() = default;
  ChatMessage(std::string role, std::string content, std::string reasoning_content = {},
              std::vector<ToolCall> tool_calls = {})
      : role(std::move(role)),
        content(std::move(content)),
        reasoning_content(std::move(reasoning_content)),
        tool_calls(std::move(tool_calls)) {}

  std::string role;  // "system", "user", "assistant" or "tool"
  std::string content;
  // Assistant only. Empty = not given: the reasoning is then taken from a <think>…</think> block
  // in `content`, as the templates do when `reasoning_content` is undefined.
  std::string reasoning_content;
  std::vector<ToolCall> tool_calls;  // assistant: calls made in this turn, rendered after content
  // Tool results: the call answered and the function's name. The Qwen templates print neither;
  // they are kept for APIs that pair results with calls.
  std::string tool_call_id;
  std::string name;
};

enum class ChatFormat {
  Qwen3,   // Qwen3 hybrid-thinking template (Qwen-Qwen3-0.6B.jinja)
  Qwen35,  // Qwen3.5 template: trims content, always opens <think> on the generation prompt
  ChatML,  // anything else with <|im_start|>: plain turns, no <think> logic (caller should warn)
};

std::string_view chat_format_name(ChatFormat format);

// Recognizes a GGUF `tokenizer.chat_template`; throws kz::Error "unsupported chat template" for
// a template that is not ChatML at all.
ChatFormat detect_chat_format(std::string_view template_text);

// A rendered conversation and which of its bytes are the template's own markup (<|im_start|>,
// role names, <think> blocks...), as opposed to message text: only markup may become control
// tokens, so that a message cannot open a turn of another role (Tokenizer::encode with spans).
struct RenderedChat {
  std::string text;
  std::vector<TextSpan> markup;  // in order, not adjacent to one another
};

// Renders the conversation. enable_thinking corresponds to the template variable of that name,
// which llama.cpp always defines (default true); `tools` (JSON objects, parse_tools) to the
// template's `tools`: none gives no tools section. Throws kz::Error naming the message index for
// invalid UTF-8 or an unknown role, and for the conversations the templates reject.
RenderedChat render_chat_marked(ChatFormat format, std::span<const ChatMessage> messages,
                                bool add_generation_prompt, bool enable_thinking,
                                std::span<const Json> tools = {});
// The text alone.
std::string render_chat(ChatFormat format, std::span<const ChatMessage> messages,
                        bool add_generation_prompt, bool enable_thinking,
                        std::span<const Json> tools = {});

}  // namespace kz
