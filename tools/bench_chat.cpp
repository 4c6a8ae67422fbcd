#include <sstream>

#include "api/engine.h"
#include "bench.h"
#include "text/tokenizer.h"

namespace kz::cli {
namespace {

// A user message of about n tokens: plain words, so the count is stable across vocabularies.
std::string user_message(const Tokenizer& tok, int turn, int n_tokens) {
  static const char* words[] = {"the",   "river", "light", "stone", "garden", "morning",
                                "quiet", "north", "wind",  "table", "bread",  "letter"};
  std::string text = "Turn " + std::to_string(turn) + ":";
  for (int i = 0; int64_t(tok.encode(text, false).size()) < n_tokens; ++i)
    for (int j = 0; j < 8; ++j) text += std::string(" ") + words[(i * 7 + j * 3 + turn) % 12];
  return text;
}

}  // namespace

ChatReplayResult replay_chat(const std::string& model_path, int turns, int tokens_per_turn,
                             SessionParams sp) {
  auto engine = Engine::load(model_path);
  sp.n_ctx = int64_t(turns) * (tokens_per_turn + 64) + 256;
  Session reuse(engine, sp), recompute(engine, sp), alone(engine, sp), at_depth(engine, sp);
  GenerateParams gp;
  gp.sampling.temperature = 0.0f;
  gp.max_tokens = 16;
  GenerateParams gp_recompute = gp;
  gp_recompute.reuse_prefix = false;
  GenerateParams prefill_only = gp_recompute;
  prefill_only.max_tokens = 0;
  std::vector<ChatMessage> history = {{"system", "You are a helpful assistant.", ""}};
  // The process's first prompt pays once what no later one does: the weights' repacking (seconds
  // on 0.8B) and first touches of the allocator's memory (docs/benchmarks.md, "Prefix reuse").
  // A throwaway turn pays them first, so that turn 1 compares the ways of computing a prompt,
  // not which ran first.
  std::vector<ChatMessage> warm_up = history;
  warm_up.push_back({"user", user_message(engine->tokenizer(), turns, tokens_per_turn), ""});
  Session(engine, sp).generate(warm_up, gp);

  ChatReplayResult out;
  for (int t = 0; t < turns; ++t) {
    history.push_back({"user", user_message(engine->tokenizer(), t, tokens_per_turn), ""});
    const GenerateResult a = reuse.generate(history, gp);
    const GenerateResult b = recompute.generate(history, gp_recompute);
    const auto new_tokens = std::span(reuse.tokens()).subspan(a.cached_tokens, a.prefill_tokens);
    const GenerateResult c = alone.generate_tokens(new_tokens, gp_recompute);
    const auto prompt = std::span(reuse.tokens()).first(a.prompt_tokens);
    auto hold_prefix = [&] {
      if (a.cached_tokens > 0)
        at_depth.generate_tokens(prompt.first(a.cached_tokens), prefill_only);
      else
        at_depth.reset();
    };
    GenerateResult d;
    if (t == 0) {
      // The reuse session is new on turn 1, and a new session's first prompt touches fresh
      // memory whatever the path (its scratch, its state): so is the baseline's.
      d = Session(engine, sp).generate_tokens(prompt, gp);
    } else {
      // Twice, timing the second: the first makes the checkpoint buffers it needs (a reset
      // keeps them), as the reuse session made its own after the previous answer.
      hold_prefix();
      at_depth.generate_tokens(prompt, gp);
      hold_prefix();
      d = at_depth.generate_tokens(prompt, gp);
    }
    out.prompt_tokens.push_back(a.prompt_tokens);
    out.ttft_reuse_s.push_back(a.ttft_s);
    out.ttft_recompute_s.push_back(b.ttft_s);
    out.ttft_alone_s.push_back(c.ttft_s);
    out.ttft_at_depth_s.push_back(d.ttft_s);
    out.cached_tokens.push_back(a.cached_tokens);
    history.push_back({"assistant", a.text, ""});
  }
  return out;
}

}  // namespace kz::cli
