// kazeia quantize: converts a model file to a quantization mix with the reference quantizer's
// per-tensor recipes, per-tensor overrides and the lmq4 preset (docs/quantize.md).
#include <cinttypes>
#include <cstdio>
#include <string>

#include "base/error.h"
#include "base/progress.h"
#include "base/thread_pool.h"
#include "common.h"
#include "model/quantize_model.h"

namespace kz::cli {
namespace {

std::string mix_help() {
  std::string s = "quantization mix or preset:";
  for (const QuantMix& m : quant_mixes()) {
    char line[160];
    std::snprintf(line, sizeof line, "\n        %-8s %s", std::string(m.name).c_str(),
                  std::string(m.summary).c_str());
    s += line;
  }
  return s;
}

std::string shape_text(const std::vector<int64_t>& ne) {
  std::string s = "{";
  for (size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
  return s + "}";
}

void print_plan(const QuantizePlan& plan) {
  std::printf("%-40s %-6s    %-6s %-18s %14s\n", "tensor", "input", "output", "shape", "bytes");
  uint64_t tensor_bytes = 0;
  for (const PlannedTensor& t : plan.tensors) {
    std::printf("%-40s %-6s -> %-6s %-18s %14" PRIu64 "\n", t.source->name.c_str(),
                std::string(dtype_name(t.source->type)).c_str(),
                std::string(dtype_name(t.type)).c_str(), shape_text(t.ne).c_str(), t.bytes);
    tensor_bytes += t.bytes;
  }
  std::printf("%zu tensors, %" PRIu64 " tensor bytes, file size %" PRIu64 " bytes (%.2f MiB)\n",
              plan.tensors.size(), tensor_bytes, plan.file_size,
              double(plan.file_size) / (1 << 20));
}

}  // namespace

int cmd_quantize(int argc, char** argv) {
  std::string in, out, mix_name, token_embd, output;
  std::vector<std::string> overrides;
  int threads = 0;
  bool pure = false, allow_requantize = false, dry_run = false, quiet = false;
  ArgParser p("kazeia quantize",
              "Quantize a model (F32, F16, BF16 or Q8_0 tensors) with the reference quantizer's "
              "per-tensor recipes. The output is written to a temporary file beside OUT, loaded to "
              "validate it, then renamed to OUT; the input is never overwritten.");
  p.add_positional("IN", "input GGUF model", &in);
  p.add_positional("OUT", "output GGUF file (not needed with --dry-run)", &out);
  p.add_positional("TYPE", mix_help(), &mix_name);
  p.add("-t,--threads", "N", "threads, 1 to 256 (default: all hardware threads)", &threads);
  p.add("--token-embedding-type", "T", "type of token_embd.weight (e.g. q4_0, q8_0, f16)",
        &token_embd);
  p.add("--output-tensor-type", "T",
        "type of the LM head (output.weight, or token_embd.weight when tied)", &output);
  p.add("--tensor-type", "REGEX=T",
        "type of the tensors whose name matches REGEX (ECMAScript, searched); repeatable, the "
        "first match wins; quantized mixes only",
        &overrides);
  p.add_switch("--pure", "no mix rules: every quantized tensor in the mix's base type", &pure);
  p.add_switch("--allow-requantize",
               "convert tensors stored in quantized types other than Q8_0 (quality loss)",
               &allow_requantize);
  p.add_switch("--dry-run", "print tensor -> type -> bytes and the file size; write nothing",
               &dry_run);
  add_quiet_switch(p, &quiet);
  if (!p.parse(argc, argv)) return 0;

  // With --dry-run the output file may be left out: IN TYPE.
  if (dry_run && mix_name.empty() && find_quant_mix(out)) std::swap(out, mix_name);
  if (in.empty()) fail("missing IN (usage: kazeia quantize IN OUT TYPE)");
  if (mix_name.empty()) fail("missing TYPE (usage: kazeia quantize IN OUT TYPE)");
  QuantizeOptions options;
  options.recipe.mix = find_quant_mix(mix_name);
  if (!options.recipe.mix)
    fail("unknown quantization type '", mix_name, "' (see kazeia quantize --help)");
  if (!token_embd.empty())
    options.recipe.token_embd = parse_quantize_target("--token-embedding-type", token_embd);
  if (!output.empty())
    options.recipe.output = parse_quantize_target("--output-tensor-type", output);
  for (const std::string& o : overrides)
    options.recipe.overrides.push_back(parse_tensor_type_override("--tensor-type", o));
  const DType base = options.recipe.mix->base;
  if (!overrides.empty() && (base == DType::F32 || base == DType::F16 || base == DType::BF16))
    fail("--tensor-type applies to quantized mixes only, not ", options.recipe.mix->name);
  options.recipe.pure = pure;
  options.allow_requantize = allow_requantize;
  const int n_threads = resolve_thread_count(threads, "--threads");

  const gguf::File input = gguf::File::open(in);
  const QuantizePlan plan = plan_quantization(input, options);
  if (dry_run) {
    print_plan(plan);
    return 0;
  }
  if (out.empty()) fail("missing OUT (usage: kazeia quantize IN OUT TYPE)");
  {
    uint64_t total = 0;
    for (const PlannedTensor& t : plan.tensors) total += t.bytes;
    Progress progress("quantize", double(total), quiet);
    write_quantized_model(input, plan, out, n_threads, &progress);
  }  // the line is erased before the summary
  std::fprintf(stderr, "wrote %s (%s, %.2f MiB, %d threads), validated\n", out.c_str(),
               std::string(options.recipe.mix->name).c_str(), double(plan.file_size) / (1 << 20),
               n_threads);
  return 0;
}

}  // namespace kz::cli
