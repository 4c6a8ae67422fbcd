#include <cstdio>
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

namespace {

// Turn t's figures: medians over the replays.
struct ChatTurn {
  int64_t prompt_tokens = 0, cached_tokens = 0;
  double reuse_ms = 0, recompute_ms = 0, speedup = 0, alone_ms = 0, reuse_over_alone = 0,
         at_depth_ms = 0, reuse_over_at_depth = 0;
};

ChatTurn chat_turn(const ChatBench& c, int t) {
  auto median = [&](auto of) {
    std::vector<double> v;
    for (const ChatReplayResult& r : c.runs) v.push_back(of(r));
    return median_of(v);
  };
  ChatTurn turn;
  turn.prompt_tokens = c.runs.front().prompt_tokens[t];
  turn.cached_tokens = c.runs.front().cached_tokens[t];
  turn.reuse_ms = median([&](const auto& r) { return r.ttft_reuse_s[t]; }) * 1e3;
  turn.recompute_ms = median([&](const auto& r) { return r.ttft_recompute_s[t]; }) * 1e3;
  turn.speedup = median([&](const auto& r) { return r.ttft_recompute_s[t] / r.ttft_reuse_s[t]; });
  turn.alone_ms = median([&](const auto& r) { return r.ttft_alone_s[t]; }) * 1e3;
  turn.reuse_over_alone =
      median([&](const auto& r) { return r.ttft_reuse_s[t] / r.ttft_alone_s[t]; });
  turn.at_depth_ms = median([&](const auto& r) { return r.ttft_at_depth_s[t]; }) * 1e3;
  turn.reuse_over_at_depth =
      median([&](const auto& r) { return r.ttft_reuse_s[t] / r.ttft_at_depth_s[t]; });
  return turn;
}

}  // namespace

void print_chat_table(const ChatBench& c) {
  std::printf("\nchat replay: %s, %d turns of ~%d tokens, medians of %zu replays\n",
              c.model.c_str(), c.turns, c.tokens_per_turn, c.runs.size());
  std::printf(
      "| turn | prompt tokens | cached | TTFT reuse ms | TTFT recompute ms | speed-up | "
      "new tokens alone ms | reuse / alone | new tokens at depth ms | reuse / at depth |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int t = 0; t < c.turns; ++t) {
    const ChatTurn x = chat_turn(c, t);
    std::printf("| %d | %lld | %lld | %.1f | %.1f | %.1fx | %.1f | %.2fx | %.1f | %.2fx |\n", t + 1,
                (long long)x.prompt_tokens, (long long)x.cached_tokens, x.reuse_ms, x.recompute_ms,
                x.speedup, x.alone_ms, x.reuse_over_alone, x.at_depth_ms, x.reuse_over_at_depth);
  }
}

std::vector<Json> chat_json_rows(const ChatBench& c) {
  std::vector<Json> rows;
  for (int t = 0; t < c.turns; ++t) {
    const ChatTurn x = chat_turn(c, t);
    rows.push_back(Json::object({{"model", c.model},
                                 {"test", "chat"},
                                 {"turn", t + 1},
                                 {"replays", int64_t(c.runs.size())},
                                 {"prompt_tokens", x.prompt_tokens},
                                 {"cached_tokens", x.cached_tokens},
                                 {"ttft_reuse_ms", x.reuse_ms},
                                 {"ttft_recompute_ms", x.recompute_ms},
                                 {"speedup", x.speedup},
                                 {"ttft_alone_ms", x.alone_ms},
                                 {"reuse_over_alone", x.reuse_over_alone},
                                 {"ttft_at_depth_ms", x.at_depth_ms},
                                 {"reuse_over_at_depth", x.reuse_over_at_depth}}));
  }
  return rows;
}

}  // namespace kz::cli
