// kazeia perplexity: perplexity of a model over a text file, computed like llama.cpp's
// llama-perplexity (non-overlapping chunks, each evaluated from an empty state, second half of
// each chunk scored).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <span>
#include <vector>

#include "base/error.h"
#include "base/progress.h"
#include "base/read_file.h"
#include "common.h"
#include "model/model.h"
#include "text/tokenizer.h"
#include "text/vocab.h"

namespace kz::cli {
namespace {

constexpr const char* kHelp =
    "Perplexity of -m MODEL over the text file -f FILE, like llama.cpp's llama-perplexity.\n"
    "The file is tokenized as plain text (special-token texts are not parsed; no BOS is added "
    "unless the vocabulary asks for one) and split into N = floor(n_tokens / CTX) "
    "non-overlapping chunks of CTX tokens (-c; the tail that does not fill a chunk is "
    "dropped). Each chunk is evaluated from an empty state (empty KV cache, zero recurrent "
    "state), with logits for every position. In each chunk only the second half is scored: for "
    "positions j = CTX/2 .. CTX-2 the model's prediction at j is scored against token j+1, so "
    "every scored token has at least CTX/2 tokens of context; that is CTX-1-CTX/2 tokens per "
    "chunk.\n"
    "Definition: with M scored tokens x_i and their contexts c_i,\n"
    "  NLL = -(1/M) * sum_i log p(x_i | c_i)   (natural log, softmax over the full vocabulary)\n"
    "  PPL = exp(NLL)\n"
    "A running estimate is printed after every chunk as [k]PPL, then the final estimate "
    "'PPL = X +/- E' with E = PPL * sqrt(var(-log p) / (M-1)) (the standard error of the mean "
    "negative log-likelihood, propagated to PPL, as llama-perplexity reports it).";

}  // namespace

int cmd_perplexity(int argc, char** argv) {
  EngineFlags engine;
  std::string text_file;
  int64_t batch = 0, max_chunks = 0;
  bool quiet = false;
  ArgParser p("kazeia perplexity", kHelp);
  engine.declare(p);
  p.add("-f,--file", "FILE", "text file to score", &text_file);
  p.add("-b,--batch-size", "N",
        "tokens per forward call within a chunk (default: the whole chunk; the result does not "
        "depend on it beyond float rounding)",
        &batch);
  p.add("--chunks", "N", "score at most the first N chunks (default: all)", &max_chunks);
  add_quiet_switch(p, &quiet);
  if (!p.parse(argc, argv)) return 0;
  if (engine.model.empty()) fail("missing -m MODEL");
  if (text_file.empty()) fail("missing -f FILE");
  if (batch < 0) fail("invalid value ", batch, " for --batch-size (expected >= 0)");
  if (max_chunks < 0) fail("invalid value ", max_chunks, " for --chunks (expected >= 0)");

  auto model = Model::load(engine.model);
  const Tokenizer tok(load_vocab(model->file()));
  const int64_t V = model->info().n_vocab;
  const int64_t n_ctx = engine.context_size(
      std::min<int64_t>(model->info().n_ctx_train > 0 ? model->info().n_ctx_train : 512, 4096));
  if (n_ctx < 4) fail("invalid value ", n_ctx, " for --ctx-size (expected >= 4)");
  if (batch == 0 || batch > n_ctx) batch = n_ctx;

  const std::string text = read_file(text_file, "text file");
  const std::vector<int32_t> tokens = tok.encode(text, false, true);
  int64_t n_chunks = int64_t(tokens.size()) / n_ctx;
  if (n_chunks == 0)
    fail("'", text_file, "' has ", tokens.size(), " tokens, fewer than one chunk of ", n_ctx,
         " (lower -c)");
  if (max_chunks > 0) n_chunks = std::min(n_chunks, max_chunks);
  const int64_t first = n_ctx / 2;
  std::fprintf(stderr,
               "perplexity: %zu tokens, %lld chunks of %lld tokens, scoring %lld tokens per chunk "
               "(positions %lld..%lld)\n",
               tokens.size(), (long long)n_chunks, (long long)n_ctx, (long long)(n_ctx - 1 - first),
               (long long)first, (long long)(n_ctx - 2));

  auto devices = engine.open_devices(*model);
  Backend& backend = devices->backend();
  Scratch scratch;
  std::vector<float> logits;
  double nll = 0.0, nll2 = 0.0;
  int64_t count = 0;
  const auto t0 = std::chrono::steady_clock::now();
  // The running estimate goes to stdout with no newline: a progress line on the same terminal
  // would draw over it, so the line is shown only while stdout goes elsewhere.
  Progress progress("perplexity", double(n_chunks), quiet || ::isatty(STDOUT_FILENO) == 1);
  for (int64_t c = 0; c < n_chunks; ++c) {
    progress.update(double(c), "chunk " + std::to_string(c + 1) + "/" + std::to_string(n_chunks));
    SequenceState state = engine.new_state(*model, n_ctx);
    const int32_t* chunk = tokens.data() + c * n_ctx;
    for (int64_t b0 = 0; b0 < n_ctx; b0 += batch) {
      const int64_t nb = std::min(batch, n_ctx - b0);
      model->eval(backend, state, scratch, std::span(chunk + b0, size_t(nb)), true, logits);
      for (int64_t r = 0; r < nb; ++r) {
        const int64_t j = b0 + r;  // position of this row's prediction
        if (j < first || j > n_ctx - 2) continue;
        const float* row = logits.data() + r * V;
        double mx = row[0];
        for (int64_t v = 1; v < V; ++v) mx = std::max(mx, double(row[v]));
        double sum = 0.0;
        for (int64_t v = 0; v < V; ++v) sum += std::exp(double(row[v]) - mx);
        const double lp = double(row[chunk[j + 1]]) - mx - std::log(sum);
        nll -= lp;
        nll2 += lp * lp;
        ++count;
      }
    }
    std::printf("[%lld]%.4f%s", (long long)(c + 1), std::exp(nll / double(count)),
                c + 1 < n_chunks ? "," : "\n");
    std::fflush(stdout);
  }
  progress.clear();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double mean = nll / double(count);
  const double ppl = std::exp(mean);
  const double var = nll2 / double(count) - mean * mean;
  const double err = count > 1 && var > 0 ? ppl * std::sqrt(var / double(count - 1)) : 0.0;
  std::printf("Final estimate: PPL = %.4f +/- %.5f  (%lld tokens scored, mean NLL %.5f nats)\n",
              ppl, err, (long long)count, mean);
  std::fprintf(stderr, "perplexity: %.2f s, %.1f tokens/s evaluated\n", secs,
               double(n_chunks * n_ctx) / secs);
  return 0;
}

}  // namespace kz::cli
