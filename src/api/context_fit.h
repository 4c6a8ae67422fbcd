// Fitting a conversation into a session's context (SessionParams::context_overflow).
//
// A turn is a user message and everything after it up to the next user message (the assistant's
// answer, its tool calls and their results), so that a call is never kept without its result nor
// a result without its call. DropOldestTurns keeps the leading system message and the last turn,
// and drops the fewest oldest whole turns (and any messages before the first kept user message)
// that leave room for the reply: max_tokens tokens, at most half the context. The choice depends
// only on the conversation, the parameters and the context size, so the same history always gives
// the same prompt, and a regenerated answer reuses all of it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "api/engine.h"

namespace kz {

struct FittedPrompt {
  std::vector<int32_t> tokens;
  int64_t dropped_messages = 0;
};

// The conversation as prompt tokens. Throws kz::Error (fail_context_overflow) when the prompt
// leaves no room to generate: always with ContextOverflow::Error, and with DropOldestTurns when
// even the system message and the last turn do not fit.
FittedPrompt fit_to_context(const Engine& engine, std::span<const ChatMessage> messages,
                            const GenerateParams& params, int64_t n_ctx, ContextOverflow policy);

// "context overflow: the prompt is P tokens but the context holds N (at most N - 1 prompt tokens,
// to leave room to generate)", and how many messages were dropped first, if any.
[[noreturn]] void fail_context_overflow(int64_t prompt_tokens, int64_t n_ctx,
                                        int64_t dropped_messages = 0);

}  // namespace kz
