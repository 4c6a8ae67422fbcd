// Reads an assistant's generated text back into its parts: reasoning (<think>…</think>), content,
// and tool calls, in the format of the model's template:
//   Qwen3:   <tool_call>\n{"name": NAME, "arguments": {...}}\n</tool_call>
//   Qwen3.5: <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n...
//            </function>\n</tool_call>
// It works while the text streams in: push() returns only what may be shown, so the user never
// sees part of a tool call's markup. A block that does not parse is not dropped: it is shown and
// kept in the content as text, and the reply is flagged.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "text/chat.h"
#include "text/tool_call.h"

namespace kz {

struct ParsedReply {
  std::string content;    // outside <think> and tool calls, surrounding whitespace trimmed
  std::string reasoning;  // inside <think>…</think>, trimmed
  std::vector<ToolCall> tool_calls;
  bool tool_call_malformed = false;  // a <tool_call> block did not parse (its text is in content)
};

class ReplyParser {
 public:
  // thinking_open: the prompt ended inside a <think> block (Qwen3.5's generation prompt with
  // thinking on), so the text starts as reasoning. parse_tools: recognize tool calls (tools were
  // given); otherwise <tool_call> is ordinary text. ChatML has no tool calls.
  ReplyParser(ChatFormat format, bool thinking_open, bool parse_tools);

  // Adds generated text (any split, even inside a UTF-8 character or a tag) and returns the text
  // that may be shown now: the generated text without well-formed tool-call blocks and the
  // whitespace after them (whitespace before a call is shown only if more text follows). A
  // possible start of a tag is held back until it is decided.
  std::string push(std::string_view text);
  // The end of generation: returns what was held back (an unfinished tool call is malformed and
  // returned as text). reply() is complete afterwards.
  std::string finish();
  const ParsedReply& reply() const { return reply_; }

 private:
  enum class Mode { Reasoning, Content, Call };
  void process(std::string& out, bool at_end);
  void show_content(std::string& out, std::string_view text);
  void end_call(std::string& out, std::string_view block);

  ChatFormat format_;
  bool parse_tools_;
  Mode mode_;
  std::string buffer_;         // received, not yet decided
  std::string pending_space_;  // trailing whitespace of the content, shown once more follows
  bool skip_space_ = false;    // right after a tool call: leading whitespace is dropped
  ParsedReply reply_;
};

// The whole text at once.
ParsedReply parse_reply(ChatFormat format, std::string_view text, bool thinking_open,
                        bool parse_tools);

// Parses one block from <tool_call> to </tool_call> (tags included); false if malformed.
// Qwen3.5 parameter values follow llama.cpp's Qwen3-Coder rule (common_chat_parse_qwen3_coder_xml):
// a value that is one complete JSON value (once surrounding whitespace is trimmed) is that JSON
// value, anything else is a string. The string keeps its text minus the one newline the template
// writes on each side (llama.cpp trims all surrounding whitespace; we keep what the model wrote
// beyond the template's own newlines, so rendering then parsing gives the value back).
bool parse_tool_call_block(ChatFormat format, std::string_view block, ToolCall& call);

}  // namespace kz
