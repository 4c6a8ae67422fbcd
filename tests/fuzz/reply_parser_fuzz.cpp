// libFuzzer entry for the reply parser (text/reply_parser.h), which reads what a model wrote,
// streamed in pieces: the first byte picks the format, whether the text starts inside <think>
// and where the stream is split; the rest is the reply. Any text must parse without a crash and
// the same when streamed in two pieces as at once; without tools, everything is shown as it
// came. Built with -DKAZEIA_FUZZ=ON (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "text/reply_parser.h"

namespace {

bool same(const kz::ParsedReply& a, const kz::ParsedReply& b) {
  return a.content == b.content && a.reasoning == b.reasoning &&
         a.tool_calls.size() == b.tool_calls.size() &&
         a.tool_call_malformed == b.tool_call_malformed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t flags = data[0], split_byte = data[1];
  const std::string text(reinterpret_cast<const char*>(data + 2), size - 2);
  const kz::ChatFormat format = flags & 1 ? kz::ChatFormat::Qwen35 : kz::ChatFormat::Qwen3;
  const bool thinking_open = flags & 2, tools = flags & 4;
  const size_t split = text.empty() ? 0 : split_byte % (text.size() + 1);

  const kz::ParsedReply whole = kz::parse_reply(format, text, thinking_open, tools);
  kz::ReplyParser streamed(format, thinking_open, tools);
  std::string shown = streamed.push(std::string_view(text).substr(0, split));
  shown += streamed.push(std::string_view(text).substr(split));
  shown += streamed.finish();
  if (!same(streamed.reply(), whole)) {
    std::fprintf(stderr, "reply_parser_fuzz: split at %zu parses differently\n", split);
    std::abort();
  }
  if (!tools && shown != text) {
    std::fprintf(stderr, "reply_parser_fuzz: without tools the text must be shown as is\n");
    std::abort();
  }
  return 0;
}
