// kazeia mkmodel: writes a synthetic qwen3 / qwen35 model with deterministic random weights, for
// tests, benchmarks and demos.
#include <cstdio>

#include "base/error.h"
#include "common.h"
#include "test_support/synthetic.h"

namespace kz::cli {

int cmd_mkmodel(int argc, char** argv) {
  std::string preset, out, type_name = "q8_0", vocab_from;
  uint64_t seed = 1;
  int64_t n_layer = 0, n_vocab = 0;
  bool list = false;
  std::string presets;
  for (const auto& n : synthetic_preset_names()) presets += (presets.empty() ? "" : ", ") + n;
  ArgParser p("kazeia mkmodel",
              "Write a synthetic model (deterministic random weights) of a preset shape.");
  p.add("--preset", "NAME", "shape: " + presets, &preset);
  p.add("-o,--output", "FILE", "output GGUF file", &out);
  p.add("--type", "TYPE",
        "weight type of the matrices, e.g. f32, f16, bf16, q8_0, q4_0, q4_k "
        "(default q8_0)",
        &type_name);
  p.add("--seed", "N", "random seed (default 1)", &seed);
  p.add("--layers", "N", "override the number of layers", &n_layer);
  p.add("--vocab-size", "N", "override the vocabulary size (synthetic vocabulary)", &n_vocab);
  p.add("--vocab-from", "FILE", "copy the tokenizer from this GGUF file", &vocab_from);
  p.add_switch("--list", "list the presets and exit", &list);
  if (!p.parse(argc, argv)) return 0;
  if (list) {
    std::printf("%s\n", presets.c_str());
    return 0;
  }
  if (preset.empty()) fail("missing --preset (one of: ", presets, ")");
  if (out.empty()) fail("missing -o FILE");
  SyntheticConfig config = synthetic_preset(preset);
  if (n_layer < 0 || n_vocab < 0) fail("--layers and --vocab-size must be positive");
  if (n_layer) config.n_layer = n_layer;
  if (n_vocab) config.n_vocab = n_vocab;
  SyntheticOptions options;
  if (!dtype_from_name(type_name, &options.weight_type))
    fail("invalid value '", type_name, "' for --type");
  options.seed = seed;
  options.vocab_from = vocab_from;
  write_synthetic_model(config, options, out);
  std::fprintf(stderr, "wrote %s (%s, %s)\n", out.c_str(), preset.c_str(), type_name.c_str());
  return 0;
}

}  // namespace kz::cli
