#include "text/chat.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "base/error.h"

namespace kz {
namespace {

constexpr std::string_view kStart = "<|im_start|>";
constexpr std::string_view kEnd = "<|im_end|>\n";
constexpr std::string_view kThinkOpen = "<think>";
constexpr std::string_view kThinkClose = "</think>";

// Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<uint8_t>(s[i]);
    size_t len;
    uint32_t min, cp;
    if (b0 < 0x80) {
      ++i;
      continue;
    } else if ((b0 & 0xE0) == 0xC0) {
      len = 2, min = 0x80, cp = b0 & 0x1F;
    } else if ((b0 & 0xF0) == 0xE0) {
      len = 3, min = 0x800, cp = b0 & 0x0F;
    } else if ((b0 & 0xF8) == 0xF0) {
      len = 4, min = 0x10000, cp = b0 & 0x07;
    } else {
      return false;
    }
    if (s.size() - i < len) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto b = static_cast<uint8_t>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

// The C-locale isspace set, as llama.cpp's Jinja `trim` uses. Python's str.strip() would also
// strip \x1c-\x1f and Unicode spaces; llama.cpp is the reference here.
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

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
    if (!valid_utf8(m.role) || !valid_utf8(m.content) || !valid_utf8(m.reasoning_content))
      fail("message ", i, ": invalid UTF-8");
    if (m.role != "system" && m.role != "user" && m.role != "assistant" && m.role != "tool")
      fail("message ", i, ": unknown role '", m.role, "'");
  }
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

// spec/chat.md §3.
RenderedChat render_qwen3(std::span<const ChatMessage> messages, bool add_generation_prompt,
                          bool enable_thinking) {
  RenderedChat out;
  const size_t n = messages.size();
  if (messages[0].role == "system")
    append(out, {kStart, "system\n", text(messages[0].content), kEnd});
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

// spec/chat.md §4: every content trimmed, stricter checks, <think> always opened.
RenderedChat render_qwen35(std::span<const ChatMessage> messages, bool add_generation_prompt,
                           bool enable_thinking) {
  RenderedChat out;
  const size_t n = messages.size();
  if (messages[0].role == "system")
    append(out, {kStart, "system\n", text(trim(messages[0].content)), kEnd});
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
                                bool add_generation_prompt, bool enable_thinking) {
  validate(messages);
  switch (format) {
    case ChatFormat::Qwen3:
      return render_qwen3(messages, add_generation_prompt, enable_thinking);
    case ChatFormat::Qwen35:
      return render_qwen35(messages, add_generation_prompt, enable_thinking);
    case ChatFormat::ChatML:
      return render_chatml(messages, add_generation_prompt);
  }
  fail("render_chat: unknown chat format");
}

std::string render_chat(ChatFormat format, std::span<const ChatMessage> messages,
                        bool add_generation_prompt, bool enable_thinking) {
  return render_chat_marked(format, messages, add_generation_prompt, enable_thinking).text;
}

}  // namespace kz
