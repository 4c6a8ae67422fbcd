// kazeia oracle: checks every op of a device against the reference backend on the model's own
// shapes (runtime/oracle.h): one row per op kind, shape and phase, or with --bisect the first op
// of a whole run that diverges from the reference's run.
#include <cstdio>

#include "backend/cpu_backend.h"
#include "backend/factory.h"
#include "backend/filtered_backend.h"
#include "base/error.h"
#include "base/progress.h"
#include "common.h"
#include "runtime/oracle.h"

namespace kz::cli {
namespace {

std::string shape_params(const OpShape& s) {
  std::string out;
  for (const auto& [k, v] : s.params) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Where the op runs and whether the device's result is good: a refused op runs on the CPU.
const char* result(const OpCheck& c) {
  return c.refused ? "refused: runs on cpu" : c.pass() ? "PASS" : "FAIL";
}

void print_table(const OracleReport& r) {
  std::printf(
      "| op | phase | shape | count | worst rel RMS | max abs | bound | arg-max | result "
      "|\n|---|---|---|---:|---:|---:|---:|---|---|\n");
  for (const OracleRow& row : r.rows) {
    const OpCheck& c = row.check;
    const std::string argmax = c.argmax_rows ? std::to_string(c.argmax_rows - c.argmax_mismatches) +
                                                   "/" + std::to_string(c.argmax_rows)
                                             : "-";
    std::printf("| %s | %s | %s | %lld | %.3g | %.3g | %.3g | %s | %s |\n", row.shape.kind.c_str(),
                std::string(phase_name(row.shape.phase)).c_str(), shape_params(row.shape).c_str(),
                (long long)c.count, c.worst_rel_rms, c.worst_max_abs, c.bound, argmax.c_str(),
                result(c));
  }
  const OpFilter failing = r.failing_filter();
  std::printf("\n%s: %zu op shapes, %zu failing%s%s\n", r.pass() ? "PASS" : "FAIL", r.rows.size(),
              failing.entries().size(), failing.empty() ? "" : ": ",
              failing.empty() ? "" : failing.to_string().c_str());
}

void print_json(const OracleReport& r, const std::string& model, const std::string& device) {
  std::printf("{\"model\": %s, \"device\": %s, \"pass\": %s, \"ops\": [\n",
              json_string(model).c_str(), json_string(device).c_str(), r.pass() ? "true" : "false");
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const OpShape& s = r.rows[i].shape;
    const OpCheck& c = r.rows[i].check;
    std::string shape;
    for (const auto& [k, v] : s.params)
      shape += (shape.empty() ? "" : ", ") + json_string(k) + ": " + json_string(v);
    std::printf(
        "  {\"op\": %s, \"phase\": \"%s\", \"shape\": {%s}, \"entry\": %s, \"count\": %lld, "
        "\"worst_rel_rms\": %.6g, \"max_abs\": %.6g, \"bound\": %.6g, \"worst_ratio\": %.4g, "
        "\"worst_layer\": %lld, \"reason\": %s, "
        "\"argmax_rows\": %lld, \"argmax_mismatches\": %lld, \"refused\": %s, \"pass\": %s}%s\n",
        json_string(s.kind).c_str(), std::string(phase_name(s.phase)).c_str(), shape.c_str(),
        json_string(s.to_string()).c_str(), (long long)c.count, c.worst_rel_rms, c.worst_max_abs,
        c.bound, c.worst_ratio, (long long)c.worst_layer, json_string(c.tolerance.reason).c_str(),
        (long long)c.argmax_rows, (long long)c.argmax_mismatches, c.refused ? "true" : "false",
        c.pass() ? "true" : "false", i + 1 < r.rows.size() ? "," : "");
  }
  std::printf("]}\n");
}

std::string describe_step(const BisectStep& s) {
  return cat("op #", s.index, ", ",
             s.layer < 0 ? std::string("outside the layers") : "layer " + std::to_string(s.layer),
             ": ", s.shape.to_string(), ", relative RMS ", s.error.rel_rms, " (bound ", s.bound,
             "), max abs ", s.error.max_abs);
}

int print_bisect(const BisectReport& r, bool json) {
  if (json) {
    auto step = [](const std::optional<BisectStep>& s) {
      if (!s) return std::string("null");
      return cat("{\"index\": ", s->index, ", \"layer\": ", s->layer,
                 ", \"entry\": ", json_string(s->shape.to_string()),
                 ", \"rel_rms\": ", s->error.rel_rms, ", \"max_abs\": ", s->error.max_abs,
                 ", \"bound\": ", s->bound, "}");
    };
    std::printf(
        "{\"ops\": %lld, \"worst_ratio\": %.4g, \"first_divergence\": %s, "
        "\"op_before\": %s}\n",
        (long long)r.ops, r.worst_ratio, step(r.first).c_str(), step(r.before_first).c_str());
  } else if (r.first) {
    std::printf("first divergence: %s\n", describe_step(*r.first).c_str());
    if (r.before_first)
      std::printf("the op before it: %s\n", describe_step(*r.before_first).c_str());
  } else {
    std::printf(
        "no divergence over %lld ops (worst relative RMS %.3g, at most %.2f of its bound)\n",
        (long long)r.ops, r.worst_rel_rms, r.worst_ratio);
  }
  return r.first ? 1 : 0;
}

}  // namespace

int cmd_oracle(int argc, char** argv) {
  EngineFlags engine;
  OracleOptions o;
  std::string output = "md", write_filter;
  bool run_bisect = false, quiet = false;
  ArgParser p("kazeia oracle",
              "Run a prompt of -p pseudo-random tokens and -n decode steps through the checking "
              "backend: every op on --device and on ref from the same inputs; print one row per "
              "op kind, phase and shape with the worst error against its tolerance. --bisect "
              "runs the model on the device and on ref separately and names the first op whose "
              "output diverges. Exit status 1 when an op fails or diverges.");
  engine.declare(p);
  add_quiet_switch(p, &quiet);
  p.add("-p,--n-prompt", "N", "prompt tokens, one batch (default 16)", &o.prompt_tokens);
  p.add("-n,--n-decode", "N", "decode steps after the prompt (default 2)", &o.decode_steps);
  p.add("-s,--seed", "N", "seed of the prompt's token ids (default 1)", &o.seed);
  p.add("-o,--output", "FMT", "md or json (default md)", &output);
  p.add("--write-filter", "FILE", "write the failing ops as an op filter file", &write_filter);
  p.add_switch("--bisect", "name the first op where a whole run diverges from ref's", &run_bisect);
  if (!p.parse(argc, argv)) return 0;
  if (engine.model.empty()) fail("missing -m MODEL");
  if (output != "md" && output != "json")
    fail("invalid value '", output, "' for --output (expected md or json)");
  if (!engine.op_filter.empty()) fail("--op-filter: the oracle checks the device without a filter");
  if (!engine.prefill_device.empty() || !engine.decode_device.empty())
    fail("--prefill-device / --decode-device: the oracle checks one device (--device)");
  if (run_bisect && !write_filter.empty()) fail("--write-filter: not with --bisect");

  auto model = Model::load(engine.model);
  engine.check_cache_types(*model);
  o.k_type = engine.k_type();
  o.v_type = engine.v_type();
  engine.apply_ggml_dir();
  auto device = make_backend(engine.backend, engine.resolved_threads());
  Progress progress("oracle", 1, quiet);
  o.progress = &progress;
  if (run_bisect) {
    // Ops the device refuses run on the CPU, as in use: the bisect follows the whole pass.
    CpuBackend cpu(engine.resolved_threads());
    FilteredBackend routed(*device, cpu, OpFilter{});
    return print_bisect(bisect(*model, routed, o), output == "json");
  }

  const OracleReport report = run_oracle(*model, *device, o);
  if (output == "json")
    print_json(report, engine.model, device->device_key());
  else
    print_table(report);
  if (!write_filter.empty())
    report.failing_filter().save(write_filter, "kazeia oracle: failing ops of " +
                                                   device->device_key() + " on " + engine.model);
  return report.pass() ? 0 : 1;
}

}  // namespace kz::cli
