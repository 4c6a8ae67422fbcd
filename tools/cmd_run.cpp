// kazeia run: one-shot completion. Tokens stream to stdout as they are sampled; timings go to
// stderr.
#include <cstdio>

#include "base/error.h"
#include "base/read_file.h"
#include "base/timer.h"
#include "common.h"
#include "model/model.h"
#include "sampling/sampler.h"
#include "text/tokenizer.h"
#include "text/tokenizer_utf8.h"

namespace kz::cli {

int cmd_run(int argc, char** argv) {
  EngineFlags engine_flags;
  SpeculativeFlags spec;
  GenerateParams gp;
  SamplingParams& sp = gp.sampling;
  std::string prompt, prompt_file;
  bool no_display_prompt = false, special = false, quiet = false;
  gp.max_tokens = 128;
  ArgParser p("kazeia run",
              "Complete a prompt: the text is tokenized as plain text (with --special, ChatML "
              "markers like <|im_start|> become control tokens), evaluated as one batch, then "
              "continued token by token (or a few at a time with --spec).");
  engine_flags.declare(p);
  spec.declare(p);
  p.add("-p,--prompt", "TEXT", "prompt text", &prompt);
  p.add("-f,--file", "FILE", "read the prompt from a file", &prompt_file);
  p.add("-n,--n-predict", "N", "tokens to generate (default 128)", &gp.max_tokens);
  p.add("--temp", "T", "temperature; 0 = greedy (default 0.8)", &sp.temperature);
  p.add("--top-k", "K", "top-k; 0 = off (default 40)", &sp.top_k);
  p.add("--top-p", "P", "top-p; 1 = off (default 0.95)", &sp.top_p);
  p.add("--min-p", "P", "min-p; 0 = off (default 0.05)", &sp.min_p);
  p.add("--repeat-penalty", "P", "repetition penalty; 1 = off (default 1)", &sp.repeat_penalty);
  p.add("--repeat-last-n", "N", "tokens the penalties look back at (default 64)",
        &sp.repeat_last_n);
  p.add("--presence-penalty", "P", "presence penalty; 0 = off (default 0)", &sp.presence_penalty);
  p.add("-s,--seed", "N", "random seed (default 0)", &sp.seed);
  p.add_switch("--special",
               "control-token texts in the prompt (<|im_start|>, <|im_end|>...) become those "
               "tokens; without it they are plain text",
               &special);
  p.add_switch("--ignore-eos", "keep generating past end-of-turn tokens", &gp.ignore_eos);
  p.add_switch("--no-display-prompt", "print only the generated text, not the prompt first",
               &no_display_prompt);
  add_quiet_switch(p, &quiet);
  if (!p.parse(argc, argv)) return 0;
  if (engine_flags.model.empty()) fail("missing -m MODEL");
  if (!prompt_file.empty()) prompt = read_file(prompt_file, "prompt file");
  if (!is_valid_utf8(prompt)) fail("the prompt is not valid UTF-8");
  check_generation_flags(gp);
  gp.speculative = spec.params();

  Timer load_timer;
  auto engine = Engine::load(engine_flags.model);
  const SessionParams session_params = engine_flags.session_params(engine->model());
  Session session(engine, session_params);
  EngineFlags::warn_past_training(engine->model(), session_params.n_ctx);
  warm_up_with_progress(session, engine->model(), quiet);
  const double load_s = load_timer.seconds();

  const std::vector<int32_t> tokens = engine->tokenizer().encode(prompt, special);
  if (tokens.empty()) fail("the prompt is empty");
  if (int64_t(tokens.size()) >= session_params.n_ctx)
    fail("the prompt is ", tokens.size(), " tokens, which does not fit the context size ",
         session_params.n_ctx, " (raise -c)");
  if (!no_display_prompt) std::fputs(prompt.c_str(), stdout);
  const GenerateResult r = session.generate_tokens(tokens, gp, [](std::string_view piece) {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
    return true;
  });
  std::fputs("\n", stdout);
  const size_t n = r.tokens.size();
  std::fprintf(
      stderr,
      "\nload: %.2f s | prefill: %zu tokens in %.3f s (%.1f tok/s) | decode: %zu tokens in "
      "%.3f s (%.1f tok/s) | stop: %s | %s, %d threads\n",
      load_s, tokens.size(), r.prefill_s, tokens.size() / r.prefill_s, n, r.decode_s,
      r.decode_tok_s(), std::string(stop_reason_name(r.stop)).c_str(), session.devices().c_str(),
      engine_flags.resolved_threads());
  if (gp.speculative.source != DraftSource::None)
    std::fprintf(stderr, "speculative: %s, %lld passes, %lld of %lld drafts accepted\n",
                 spec.source.c_str(), (long long)r.speculative.passes,
                 (long long)r.speculative.accepted, (long long)r.speculative.drafted);
  return 0;
}

}  // namespace kz::cli
