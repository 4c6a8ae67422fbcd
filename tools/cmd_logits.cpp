// kazeia logits: evaluates --ids as one batch, then each --then token alone, and prints the
// logits as JSON in the fixtures' format, so any engine's output can be compared with ours.
#include <cstdio>

#include "base/error.h"
#include "common.h"
#include "model/model.h"

namespace kz::cli {
namespace {

void print_vector(const float* v, int64_t n) {
  std::putchar('[');
  for (int64_t i = 0; i < n; ++i) std::printf(i ? ", %.9g" : "%.9g", v[i]);
  std::putchar(']');
}

}  // namespace

int cmd_logits(int argc, char** argv) {
  EngineFlags engine;
  std::string ids_text, then_text;
  ArgParser p("kazeia logits",
              "Evaluate --ids as one batch (prefill), then feed each --then token one at a time "
              "(decode); print {\"prefill_logits_last\": [...], \"continuation_logits\": [[...], "
              "...]} as JSON.");
  engine.declare(p);
  p.add("--ids", "LIST", "comma-separated prompt token ids, e.g. 1,2,3", &ids_text);
  p.add("--then", "LIST", "comma-separated continuation token ids", &then_text);
  if (!p.parse(argc, argv)) return 0;
  if (engine.model.empty()) fail("missing -m MODEL");
  if (ids_text.empty()) fail("missing --ids");
  const auto ids = parse_id_list("--ids", ids_text);
  const auto then = then_text.empty() ? std::vector<int32_t>{} : parse_id_list("--then", then_text);

  auto model = Model::load(engine.model);
  auto devices = engine.open_devices(*model);
  Backend& backend = devices->backend();
  const int64_t n_ctx = engine.context_size(int64_t(ids.size() + then.size()));
  SequenceState state = engine.new_state(*model, n_ctx);
  Scratch scratch;
  std::vector<float> logits;
  const int64_t V = model->info().n_vocab;

  model->eval(backend, state, scratch, ids, false, logits);
  std::printf("{\"prefill_logits_last\": ");
  print_vector(logits.data(), V);
  std::printf(", \"continuation_logits\": [");
  for (size_t i = 0; i < then.size(); ++i) {
    model->eval(backend, state, scratch, std::span(&then[i], 1), false, logits);
    if (i) std::printf(", ");
    print_vector(logits.data(), V);
  }
  std::printf("]}\n");
  return 0;
}

}  // namespace kz::cli
