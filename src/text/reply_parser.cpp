#include "text/reply_parser.h"

#include <algorithm>
#include <initializer_list>

#include "base/error.h"
#include "text/spaces.h"

namespace kz {
namespace {

constexpr std::string_view kCallOpen = "<tool_call>";
constexpr std::string_view kCallClose = "</tool_call>";

bool consume(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// The longest end of `text` that is a proper beginning of one of the tags: it may still become
// a tag, so it is held back. Tags are ASCII, so this never splits a UTF-8 character.
size_t partial_tag_length(std::string_view text, std::initializer_list<std::string_view> tags) {
  size_t hold = 0;
  for (std::string_view tag : tags)
    for (size_t n = std::min(tag.size() - 1, text.size()); n > hold; --n)
      if (text.substr(text.size() - n) == tag.substr(0, n)) {
        hold = n;
        break;
      }
  return hold;
}

// A function or parameter name as the model writes it between '=' and '>'.
bool take_name(std::string_view& s, std::string& name) {
  const size_t end = s.find('>');
  if (end == std::string_view::npos || end == 0) return false;
  name = s.substr(0, end);
  if (std::any_of(name.begin(), name.end(), [](char c) { return is_space(c) || c == '<'; }))
    return false;
  s.remove_prefix(end + 1);
  return true;
}

Json parameter_value(std::string_view raw) {
  if (raw.starts_with('\n')) raw.remove_prefix(1);
  if (raw.ends_with('\n')) raw.remove_suffix(1);
  try {
    return parse_json(trim(raw));
  } catch (const Error&) {
    return Json(raw);  // not JSON: the text itself
  }
}

bool parse_qwen35_call(std::string_view s, ToolCall& call) {
  s = trim(s);
  if (!consume(s, "<function=") || !take_name(s, call.name)) return false;
  Json::Object args;
  for (;;) {
    s = trim(s);
    if (consume(s, "</function>")) break;
    std::string key;
    if (!consume(s, "<parameter=") || !take_name(s, key)) return false;
    const size_t end = s.find("</parameter>");
    if (end == std::string_view::npos) return false;
    for (const auto& m : args)
      if (m.first == key) return false;
    args.emplace_back(std::move(key), parameter_value(s.substr(0, end)));
    s.remove_prefix(end + std::string_view("</parameter>").size());
  }
  if (!trim(s).empty()) return false;
  call.arguments = Json::object(std::move(args));
  return true;
}

bool parse_qwen3_call(std::string_view s, ToolCall& call) {
  Json v;
  try {
    v = parse_json(s, "tool call");
  } catch (const Error&) {
    return false;
  }
  const Json* name = v.find("name");
  const Json* args = v.find("arguments");
  if (!name || !args || v.as_object().size() != 2 || !name->is_string() ||
      name->as_string().empty() || !args->is_object())
    return false;
  call.name = name->as_string();
  call.arguments = *args;
  return true;
}

}  // namespace

bool parse_tool_call_block(ChatFormat format, std::string_view block, ToolCall& call) {
  if (!consume(block, kCallOpen) || !block.ends_with(kCallClose)) return false;
  block.remove_suffix(kCallClose.size());
  switch (format) {
    case ChatFormat::Qwen3:
      return parse_qwen3_call(block, call);
    case ChatFormat::Qwen35:
      return parse_qwen35_call(block, call);
    case ChatFormat::ChatML:
      return false;
  }
  return false;
}

ReplyParser::ReplyParser(ChatFormat format, bool thinking_open, bool parse_tools)
    : format_(format),
      parse_tools_(parse_tools && format != ChatFormat::ChatML),
      mode_(thinking_open ? Mode::Reasoning : Mode::Content) {}

void ReplyParser::show_content(std::string& out, std::string_view text) {
  if (skip_space_) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    if (text.empty()) return;
    skip_space_ = false;
  }
  if (!parse_tools_) {  // nothing to hide: shown as it comes
    out += text;
    reply_.content += text;
    return;
  }
  // Whitespace waits for what follows: dropped before a tool call, shown before anything else.
  size_t end = text.size();
  while (end > 0 && is_space(text[end - 1])) --end;
  if (end == 0) {
    pending_space_ += text;
    return;
  }
  for (std::string* s : {&out, &reply_.content}) {
    *s += pending_space_;
    *s += text.substr(0, end);
  }
  pending_space_ = text.substr(end);
}

void ReplyParser::end_call(std::string& out, std::string_view block) {
  ToolCall call;
  if (parse_tool_call_block(format_, block, call)) {
    reply_.tool_calls.push_back(std::move(call));
    skip_space_ = true;  // the whitespace before the call is shown only if more content follows
  } else {
    reply_.tool_call_malformed = true;
    skip_space_ = false;
    show_content(out, block);
  }
}

void ReplyParser::process(std::string& out, bool at_end) {
  for (;;) {
    if (mode_ == Mode::Reasoning) {
      const size_t close = buffer_.find(kThinkClose);
      const size_t n = close != std::string::npos ? close + kThinkClose.size()
                       : at_end                   ? buffer_.size()
                                : buffer_.size() - partial_tag_length(buffer_, {kThinkClose});
      reply_.reasoning += std::string_view(buffer_).substr(0, std::min(n, close));
      out.append(buffer_, 0, n);
      buffer_.erase(0, n);
      if (close == std::string::npos) return;
      mode_ = Mode::Content;
    } else if (mode_ == Mode::Content) {
      const size_t think = buffer_.find(kThinkOpen);
      const size_t call = parse_tools_ ? buffer_.find(kCallOpen) : std::string::npos;
      if (think == std::string::npos && call == std::string::npos) {
        const size_t hold = at_end         ? 0
                            : parse_tools_ ? partial_tag_length(buffer_, {kThinkOpen, kCallOpen})
                                           : partial_tag_length(buffer_, {kThinkOpen});
        show_content(out, std::string_view(buffer_).substr(0, buffer_.size() - hold));
        buffer_.erase(0, buffer_.size() - hold);
        return;
      }
      const size_t at = std::min(think, call);
      show_content(out, std::string_view(buffer_).substr(0, at));
      if (at == think) {  // reasoning starts: the tag is shown, as the model wrote it
        out += pending_space_ + std::string(kThinkOpen);
        pending_space_.clear();
        skip_space_ = false;
        buffer_.erase(0, at + kThinkOpen.size());
        mode_ = Mode::Reasoning;
      } else {
        buffer_.erase(0, at);
        mode_ = Mode::Call;
      }
    } else {
      const size_t close = buffer_.find(kCallClose, kCallOpen.size());
      if (close == std::string::npos && !at_end) return;  // the call is still coming
      const size_t n = close == std::string::npos ? buffer_.size() : close + kCallClose.size();
      end_call(out, std::string_view(buffer_).substr(0, n));
      buffer_.erase(0, n);
      mode_ = Mode::Content;
    }
  }
}

std::string ReplyParser::push(std::string_view text) {
  buffer_ += text;
  std::string out;
  process(out, false);
  return out;
}

std::string ReplyParser::finish() {
  std::string out;
  process(out, true);
  if (!skip_space_) out += pending_space_;  // trailing whitespace, unless it came before a call
  reply_.content = std::string(trim(reply_.content));
  reply_.reasoning = std::string(trim(reply_.reasoning));
  return out;
}

ParsedReply parse_reply(ChatFormat format, std::string_view text, bool thinking_open,
                        bool parse_tools) {
  ReplyParser parser(format, thinking_open, parse_tools);
  parser.push(text);
  parser.finish();
  return parser.reply();
}

}  // namespace kz
