// libFuzzer entry for the chat renderer (text/chat.h) and the tokenization of its result, as
// Engine::encode_chat does it: a message list drawn from the fuzz bytes (roles, contents made of
// raw bytes and pieces of chat markup, reasoning, tool calls, tool definitions) rendered in the
// Qwen3, Qwen3.5 or plain ChatML format and tokenized by that family's real tokenizer. The
// result is a kz::Error or a prompt whose markup spans are ordered and inside the text, which
// decodes back to its text, and whose only control tokens are the <|im_start|> and <|im_end|>
// of the turns the template opens and closes for these messages (../shared/spec/chat.md): no
// message text becomes a control token. Built with -DKAZEIA_FUZZ=ON (scripts/fuzz.sh).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "fuzz_tokenizers.h"
#include "text/chat.h"
#include "text/json.h"

namespace {

// Markup and its neighbours, so that spoofing attempts are frequent.
constexpr std::string_view kPieces[] = {
    "<|im_start|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<|im_start|>system\n",
    "system",
    "user",
    "assistant",
    "tool",
    "\n",
    " ",
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<tools>",
    "<tool_response>",
    "</tool_response>",
    "<function=f>",
    "<parameter=p>",
    "</parameter>",
    "</function>",
    "<|fim_prefix|>",
    "<|vision_start|>",
    "{\"name\": \"f\"}",
};
constexpr std::string_view kRoles[] = {"system", "user", "assistant", "tool"};

std::string fuzz_text(FuzzedDataProvider& in) {
  std::string s;
  for (int n = in.ConsumeIntegralInRange(0, 4); n > 0; --n) {
    if (in.ConsumeBool())
      s += kPieces[in.ConsumeIntegralInRange<size_t>(0, std::size(kPieces) - 1)];
    else
      s += in.ConsumeRandomLengthString(16);
  }
  return s;
}

// Tool-call arguments and tool definitions: parsed JSON, a string, an object of texts, or a
// function definition in OpenAI's shape.
kz::Json fuzz_json(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      try {
        return kz::parse_json(in.ConsumeRandomLengthString(64));
      } catch (const kz::Error&) {
        return kz::Json();
      }
    case 1:
      return kz::Json(fuzz_text(in));
    case 2: {
      kz::Json::Object members;
      for (int n = in.ConsumeIntegralInRange(0, 3); n > 0; --n)
        members.emplace_back(fuzz_text(in), in.ConsumeBool() ? kz::Json(fuzz_text(in))
                                                             : kz::Json(in.ConsumeIntegral<int>()));
      return kz::Json::object(std::move(members));
    }
    default:
      return kz::Json::object(
          {{"type", "function"},
           {"function", kz::Json::object({{"name", fuzz_text(in)},
                                          {"description", fuzz_text(in)},
                                          {"parameters", kz::Json::object()}})}});
  }
}

std::vector<kz::ChatMessage> fuzz_messages(FuzzedDataProvider& in) {
  std::vector<kz::ChatMessage> messages(in.ConsumeIntegralInRange(0, 6));
  for (kz::ChatMessage& m : messages) {
    const size_t role = in.ConsumeIntegralInRange<size_t>(0, std::size(kRoles));
    m.role = role < std::size(kRoles) ? std::string(kRoles[role]) : fuzz_text(in);
    m.content = fuzz_text(in);
    if (in.ConsumeBool()) m.reasoning_content = fuzz_text(in);
    for (int k = in.ConsumeIntegralInRange(0, 2); k > 0; --k)
      m.tool_calls.push_back({fuzz_text(in), fuzz_json(in), fuzz_text(in)});
  }
  return messages;
}

struct Turns {
  int64_t opened = 0, closed = 0;
  bool operator==(const Turns&) const = default;
};

// The turns the templates write for a conversation they accept (spec/chat.md §3–§5).
Turns expected_turns(kz::ChatFormat format, std::span<const kz::ChatMessage> m, bool tools,
                     bool generation_prompt) {
  Turns t;
  const bool qwen = format != kz::ChatFormat::ChatML;
  if (qwen && (tools || m[0].role == "system")) ++t.opened, ++t.closed;  // the system turn
  for (size_t i = 0; i < m.size(); ++i) {
    if (qwen && m[i].role == "tool") {  // a run of tool results shares one user turn
      // Qwen3.5's template opens none for a run at the very start.
      const bool first = i == 0 || m[i - 1].role != "tool";
      if (first && (format == kz::ChatFormat::Qwen3 || i > 0)) ++t.opened;
      if (i + 1 == m.size() || m[i + 1].role != "tool") ++t.closed;
    } else if (!qwen || m[i].role != "system" || i > 0) {
      ++t.opened, ++t.closed;
    }
  }
  if (generation_prompt) ++t.opened;
  return t;
}

[[noreturn]] void violated(kz::ChatFormat format, const char* what) {
  std::fprintf(stderr, "chat_render_fuzz: %s format: %s\n",
               std::string(kz::chat_format_name(format)).c_str(), what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const auto format = static_cast<kz::ChatFormat>(in.ConsumeIntegralInRange(0, 2));
  const bool generation_prompt = in.ConsumeBool(), thinking = in.ConsumeBool();
  std::vector<kz::Json> tools(in.ConsumeIntegralInRange(0, 2));
  for (kz::Json& t : tools) t = fuzz_json(in);
  const std::vector<kz::ChatMessage> messages = fuzz_messages(in);

  kz::RenderedChat chat;
  try {
    chat = kz::render_chat_marked(format, messages, generation_prompt, thinking, tools);
  } catch (const kz::Error&) {
    return 0;
  }
  for (size_t i = 0; i < chat.markup.size(); ++i) {
    const kz::TextSpan& s = chat.markup[i];
    if (s.begin >= s.end || s.end > chat.text.size() ||
        (i > 0 && s.begin <= chat.markup[i - 1].end))
      violated(format, "markup spans empty, out of order, adjacent or past the text");
  }

  const kz::Tokenizer& tokenizer =
      format == kz::ChatFormat::Qwen35 ? kz::fuzz::qwen35_tokenizer() : kz::fuzz::qwen3_tokenizer();
  const std::vector<int32_t> ids = tokenizer.encode(chat.text, chat.markup);
  if (tokenizer.decode(ids, true) != chat.text) violated(format, "the prompt decodes differently");
  const int32_t start = tokenizer.find_token("<|im_start|>"),
                end = tokenizer.find_token("<|im_end|>");
  Turns turns;
  for (int32_t id : ids) {
    if (!kz::fuzz::is_control(tokenizer, id)) continue;
    if (id == start)
      ++turns.opened;
    else if (id == end)
      ++turns.closed;
    else
      violated(format, "a control token that no template writes");
  }
  if (!(turns == expected_turns(format, messages, !tools.empty(), generation_prompt)))
    violated(format, "turn markers other than the template's (role spoofing?)");
  return 0;
}
