#include <algorithm>
#include <cstdio>

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

namespace {

double accepted_pct(const SpeculativeStats& s) {
  return s.drafted ? 100.0 * double(s.accepted) / double(s.drafted) : 0;
}

// Tokens each verification pass yields: its accepted drafts and the one token it always adds.
double tokens_per_pass(const SpeculativeStats& s) {
  return s.passes ? double(s.accepted + s.passes) / double(s.passes) : 0;
}

}  // namespace

void print_speculative_header(const SpeculativeBench& s) {
  std::printf("\nspeculative decoding: --spec %s --draft %d, %d tokens after a %d-token prompt\n",
              s.source.c_str(), s.draft, s.n_gen, s.n_prompt);
  std::printf(
      "| model | plain tg t/s | speculative tg t/s | speed-up | accepted | tokens per pass | "
      "pass / plain token |\n|---|---:|---:|---:|---:|---:|---:|\n");
}

void print_speculative_row(const SpeculativeBench& s) {
  const SpeculativeBenchResult& r = s.result;
  std::printf("| %s | %.2f ± %.2f | %.2f ± %.2f | %.2fx | %.1f%% | %.2f | %.2fx |\n",
              s.model.c_str(), r.plain_tok_s.mean, r.plain_tok_s.sd, r.spec_tok_s.mean,
              r.spec_tok_s.sd, r.spec_tok_s.mean / r.plain_tok_s.mean, accepted_pct(r.stats),
              tokens_per_pass(r.stats), r.pass_cost);
}

Json speculative_json_row(const SpeculativeBench& s) {
  const SpeculativeBenchResult& r = s.result;
  return Json::object({{"model", s.model},
                       {"test", "spec"},
                       {"source", s.source},
                       {"draft", s.draft},
                       {"n_prompt", s.n_prompt},
                       {"n_gen", s.n_gen},
                       {"plain_tok_s", r.plain_tok_s.mean},
                       {"plain_tok_s_sd", r.plain_tok_s.sd},
                       {"spec_tok_s", r.spec_tok_s.mean},
                       {"spec_tok_s_sd", r.spec_tok_s.sd},
                       {"speedup", r.spec_tok_s.mean / r.plain_tok_s.mean},
                       {"accepted_pct", accepted_pct(r.stats)},
                       {"tokens_per_pass", tokens_per_pass(r.stats)},
                       {"pass_cost", r.pass_cost}});
}

}  // namespace kz::cli
