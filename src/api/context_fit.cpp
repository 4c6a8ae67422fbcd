#include "api/context_fit.h"

#include <algorithm>

#include "base/error.h"

namespace kz {
namespace {

// Where each droppable turn ends: dropping k turns removes messages [first, cuts[k - 1]), where
// `first` follows the system message. Every user message after `first` starts a turn.
std::vector<size_t> turn_cuts(std::span<const ChatMessage> messages, size_t first) {
  std::vector<size_t> cuts;
  for (size_t i = first + 1; i < messages.size(); ++i)
    if (messages[i].role == "user") cuts.push_back(i);
  return cuts;
}

}  // namespace

void fail_context_overflow(int64_t prompt_tokens, int64_t n_ctx, int64_t dropped_messages) {
  const std::string dropped = dropped_messages > 0 ? cat(", after dropping the ", dropped_messages,
                                                         " oldest messages it could")
                                                   : std::string();
  fail("context overflow: the prompt is ", prompt_tokens, " tokens but the context holds ", n_ctx,
       " (at most ", n_ctx - 1, " prompt tokens, to leave room to generate)", dropped);
}

FittedPrompt fit_to_context(const Engine& engine, std::span<const ChatMessage> messages,
                            const GenerateParams& params, int64_t n_ctx, ContextOverflow policy) {
  FittedPrompt full{engine.encode_chat(messages, params), 0};
  const auto size = [](const FittedPrompt& p) { return int64_t(p.tokens.size()); };
  if (policy == ContextOverflow::Error) {
    if (size(full) >= n_ctx) fail_context_overflow(size(full), n_ctx);
    return full;
  }
  const int64_t reserve =
      std::clamp<int64_t>(params.max_tokens, 1, std::max<int64_t>(1, n_ctx / 2));
  const auto fits = [&](const FittedPrompt& p) { return size(p) + reserve <= n_ctx; };
  if (fits(full)) return full;

  const size_t first = !messages.empty() && messages[0].role == "system" ? 1 : 0;
  const std::vector<size_t> cuts = turn_cuts(messages, first);
  const auto dropping = [&](size_t k) {
    std::vector<ChatMessage> kept(messages.begin(), messages.begin() + first);
    kept.insert(kept.end(), messages.begin() + cuts[k - 1], messages.end());
    return FittedPrompt{engine.encode_chat(kept, params), int64_t(cuts[k - 1] - first)};
  };
  if (cuts.empty()) fail_context_overflow(size(full), n_ctx);
  // The fewest turns to drop, by bisection (dropping more never lengthens the prompt).
  FittedPrompt best = dropping(cuts.size());
  if (!fits(best)) {
    // Even the last turn alone leaves less than the reserve: generate what still fits.
    if (size(best) >= n_ctx) fail_context_overflow(size(best), n_ctx, best.dropped_messages);
    return best;
  }
  size_t lo = 1, hi = cuts.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    FittedPrompt p = dropping(mid);
    if (fits(p)) {
      hi = mid;
      best = std::move(p);
    } else {
      lo = mid + 1;
    }
  }
  return best;
}

}  // namespace kz
