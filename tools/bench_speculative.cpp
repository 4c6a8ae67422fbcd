#include <algorithm>

#include "api/engine.h"
#include "bench.h"
#include "text/tokenizer.h"

namespace kz::cli {

SpeculativeBenchResult bench_speculative(const std::string& model_path, SessionParams sp,
                                         SpeculativeParams spec, int n_prompt, int n_gen,
                                         int reps) {
  auto engine = Engine::load(model_path);
  sp.n_ctx = n_prompt + n_gen + kMaxDraft + 2;
  const int64_t n_vocab = engine->model().info().n_vocab;
  std::vector<int32_t> prompt(std::max(n_prompt, 1));
  for (size_t i = 0; i < prompt.size(); ++i)
    prompt[i] = int32_t((i * 7919 + 13) % std::min<int64_t>(n_vocab, 1000));
  GenerateParams plain;
  plain.sampling.temperature = 0.0f;
  plain.max_tokens = n_gen;
  plain.ignore_eos = true;
  plain.reuse_prefix = false;
  GenerateParams speculative = plain;
  speculative.speculative = spec;

  SpeculativeBenchResult out;
  std::vector<double> plain_speed, spec_speed, token_s, pass_s;
  Session session(engine, sp);
  for (int r = 0; r < reps + 1; ++r) {  // the first pair warms up
    const GenerateResult a = session.generate_tokens(prompt, plain);
    if (spec.source == DraftSource::Replay) speculative.speculative.replay = a.tokens;
    const GenerateResult b = session.generate_tokens(prompt, speculative);
    if (r == 0) continue;
    plain_speed.push_back(a.decode_tok_s());
    spec_speed.push_back(b.decode_tok_s());
    // decode_s runs from the first token to the last: n - 1 plain steps.
    token_s.push_back(a.decode_s / double(a.tokens.size() - 1));
    if (b.speculative.passes > 0) pass_s.push_back(b.decode_s / double(b.speculative.passes));
    out.stats.passes += b.speculative.passes;
    out.stats.drafted += b.speculative.drafted;
    out.stats.accepted += b.speculative.accepted;
  }
  out.plain_tok_s = stat_of(plain_speed);
  out.spec_tok_s = stat_of(spec_speed);
  if (!pass_s.empty()) out.pass_cost = median_of(pass_s) / median_of(token_s);
  return out;
}

}  // namespace kz::cli
