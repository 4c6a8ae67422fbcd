// kazeia run: one-shot completion. Tokens stream to stdout as they are sampled; timings go to
// stderr.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "base/timer.h"
#include "common.h"
#include "model/model.h"
#include "sampling/sampler.h"
#include "text/detokenizer.h"
#include "text/tokenizer.h"
#include "text/tokenizer_utf8.h"
#include "text/vocab.h"

namespace kz::cli {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, ": cannot open prompt file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int cmd_run(int argc, char** argv) {
  EngineFlags engine;
  SamplingParams sp;
  std::string prompt, prompt_file;
  int n_predict = 128;
  bool ignore_eos = false, no_display_prompt = false, special = false;
  ArgParser p("kazeia run",
              "Complete a prompt: the text is tokenized as plain text (with --special, ChatML "
              "markers like <|im_start|> become control tokens), evaluated as one batch, then "
              "continued token by token.");
  engine.declare(p);
  p.add("-p,--prompt", "TEXT", "prompt text", &prompt);
  p.add("-f,--file", "FILE", "read the prompt from a file", &prompt_file);
  p.add("-n,--n-predict", "N", "tokens to generate (default 128)", &n_predict);
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
  p.add_switch("--ignore-eos", "keep generating past end-of-turn tokens", &ignore_eos);
  p.add_switch("--no-display-prompt", "print only the generated text, not the prompt first",
               &no_display_prompt);
  if (!p.parse(argc, argv)) return 0;
  if (engine.model.empty()) fail("missing -m MODEL");
  if (!prompt_file.empty()) prompt = read_file(prompt_file);
  if (!is_valid_utf8(prompt)) fail("the prompt is not valid UTF-8");
  if (n_predict < 0) fail("invalid value ", n_predict, " for --n-predict (expected >= 0)");

  Timer load_timer;
  auto model = Model::load(engine.model);
  const Tokenizer tokenizer(load_vocab(model->file()));
  auto devices = engine.open_devices(*model);
  Backend& backend = devices->backend();
  const int64_t n_ctx = engine.context_size(EngineFlags::default_context(*model));
  SequenceState state = engine.new_state(*model, n_ctx);
  EngineFlags::warn_past_training(*model, n_ctx);
  Sampler sampler(sp, int(model->info().n_vocab));
  const double load_s = load_timer.seconds();

  const std::vector<int32_t> tokens = tokenizer.encode(prompt, special);
  if (tokens.empty()) fail("the prompt is empty");
  if (int64_t(tokens.size()) >= n_ctx)
    fail("the prompt is ", tokens.size(), " tokens, which does not fit the context size ", n_ctx,
         " (raise -c)");
  for (int32_t t : tokens) sampler.accept(t);

  Scratch scratch;
  std::vector<float> logits;
  Timer prefill_timer;
  model->eval(backend, state, scratch, tokens, false, logits);
  const double prefill_s = prefill_timer.seconds();

  if (!no_display_prompt) std::fputs(prompt.c_str(), stdout);
  Detokenizer detok(tokenizer);
  Timer decode_timer;
  int generated = 0;
  const char* stop = "length";
  while (generated < n_predict) {
    const int32_t next = sampler.sample(logits);
    sampler.accept(next);
    ++generated;
    if (!ignore_eos && tokenizer.is_end_of_generation(next)) {
      stop = "end of turn";
      break;
    }
    std::fputs(detok.push(next).c_str(), stdout);
    std::fflush(stdout);
    if (generated == n_predict) break;
    if (state.n_past >= n_ctx) {
      stop = "context full";
      break;
    }
    model->eval(backend, state, scratch, std::span(&next, 1), false, logits);
  }
  std::fputs(detok.flush().c_str(), stdout);
  std::fputs("\n", stdout);
  const double decode_s = decode_timer.seconds();
  std::fprintf(stderr,
               "\nload: %.2f s | prefill: %zu tokens in %.3f s (%.1f tok/s) | decode: %d tokens in "
               "%.3f s (%.1f tok/s) | stop: %s | %s, %d threads\n",
               load_s, tokens.size(), prefill_s, tokens.size() / prefill_s, generated, decode_s,
               generated > 1 ? (generated - 1) / decode_s : 0.0, stop, devices->describe().c_str(),
               engine.resolved_threads());
  return 0;
}

}  // namespace kz::cli
