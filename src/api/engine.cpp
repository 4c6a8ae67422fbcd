#include "api/engine.h"

#include <cstdio>

#include "base/error.h"
#include "model/model.h"
#include "text/tokenizer.h"
#include "text/vocab.h"

namespace kz {

std::string_view stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::EndOfTurn:
      return "end_of_turn";
    case StopReason::StopString:
      return "stop_string";
    case StopReason::MaxTokens:
      return "max_tokens";
    case StopReason::ContextFull:
      return "context_full";
    case StopReason::Cancelled:
      return "cancelled";
  }
  return "unknown";
}

std::shared_ptr<Engine> Engine::load(const std::string& path) {
  std::shared_ptr<Engine> e(new Engine());
  e->model_ = Model::load(path);
  e->tokenizer_ = std::make_unique<Tokenizer>(load_vocab(e->model_->file()));
  // The template embedded in the file picks the format; an unknown one falls back to ChatML.
  if (auto tmpl = e->model_->file().opt_string("tokenizer.chat_template")) {
    try {
      e->chat_format_ = detect_chat_format(*tmpl);
    } catch (const Error&) {
      std::fprintf(stderr, "kazeia: warning: %s: unrecognized chat template, using ChatML\n",
                   path.c_str());
      e->chat_format_ = ChatFormat::ChatML;
    }
  }
  return e;
}

Engine::~Engine() = default;

RenderedChat Engine::render(std::span<const ChatMessage> messages,
                            const GenerateParams& params) const {
  return render_chat_marked(chat_format_, messages, params.add_generation_prompt,
                            params.enable_thinking, params.tools);
}

std::vector<int32_t> Engine::encode_chat(std::span<const ChatMessage> messages,
                                         const GenerateParams& params) const {
  const RenderedChat chat = render(messages, params);
  return tokenizer_->encode(chat.text, chat.markup);
}

}  // namespace kz
