// kazeia bench: prompt processing (pp) and token generation (tg) speed like llama-bench, time to
// first token, peak memory, the memory-bandwidth roofline, a per-op profile, and a multi-turn
// conversation replay with and without prefix reuse.
#include <sys/resource.h>

#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

#include "backend/ggml/ggml_backend.h"
#include "backend/profiling_backend.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/timer.h"
#include "bench.h"
#include "common.h"
#include "kernels/kernel_table.h"
#include "model/model.h"

namespace kz::cli {
namespace {

struct Row {
  std::string model, type, backend, kv, test, op_filter;
  uint64_t size = 0;
  int threads = 0;
  Stat tok_s;
  double extra = 0;  // ttft ms for pp rows, % of roofline for tg rows (0: not measured)
  // Host-device traffic per token of the last run (Backend::traffic).
  double syncs_per_token = 0, bytes_per_token = 0;
};

// The device column: --device, or "PREFILL+DECODE" for a split.
std::string device_label(const EngineFlags& e) {
  const std::string prefill = e.prefill_device.empty() ? e.backend : e.prefill_device;
  const std::string decode = e.decode_device.empty() ? e.backend : e.decode_device;
  return prefill == decode ? prefill : prefill + "+" + decode;
}

void set_traffic(Row& row, const Backend& be, int64_t tokens) {
  const Backend::Traffic t = be.traffic();
  row.syncs_per_token = double(t.syncs) / double(tokens);
  row.bytes_per_token = double(t.bytes_copied) / double(tokens);
}

std::string dominant_type(const gguf::File& f) {
  std::map<std::string, uint64_t> bytes;
  for (const auto& t : f.tensors()) bytes[std::string(dtype_name(t.type))] += t.nbytes;
  std::string best;
  uint64_t most = 0;
  for (const auto& [name, b] : bytes)
    if (b > most) most = b, best = name;
  return best;
}

// Bytes a decode step reads: every weight once (only one embedding row, unless the embedding
// is also the output head), the KV cache up to `depth`, and the recurrent state (read+written).
double decode_bytes(const Model& m, const SequenceState& st, int64_t depth) {
  double bytes = 0;
  const bool tied = m.file().find_tensor("output.weight") == nullptr;
  for (const auto& t : m.file().tensors())
    if (t.name != "token_embd.weight" || tied) bytes += double(t.nbytes);
  return bytes + double(st.bytes_per_token()) * double(depth) + 2.0 * double(st.fixed_bytes());
}

std::vector<int32_t> bench_tokens(int64_t n, int64_t n_vocab) {
  std::vector<int32_t> t(n);
  for (int64_t i = 0; i < n; ++i)
    t[i] = int32_t((i * 7919 + 13) % std::min<int64_t>(n_vocab, 1000));
  return t;
}

std::string file_name(const std::string& path) {
  return path.substr(path.find_last_of('/') + 1);
}

Json row_json(const Row& r, double peak_mib, const std::string& isa) {
  return Json::object({{"model", r.model},
                       {"size", int64_t(r.size)},
                       {"type", r.type},
                       {"backend", r.backend},
                       {"threads", r.threads},
                       {"kv", r.kv},
                       {"test", r.test},
                       {"tok_s", r.tok_s.mean},
                       {"tok_s_sd", r.tok_s.sd},
                       {r.test.rfind("pp", 0) == 0 ? "ttft_ms" : "roofline_pct", r.extra},
                       {"peak_rss_mib", peak_mib},
                       {"isa", isa},
                       {"op_filter", r.op_filter},
                       {"syncs_per_token", r.syncs_per_token},
                       {"bytes_per_token", r.bytes_per_token}});
}

// Where the ops of the last timed run ran (with an op filter in force) and its host-device
// traffic per token.
void print_traffic(const FilteredBackend* f, const Row& row) {
  if (f) {
    const FilteredBackend::Counts& c = f->counts();
    std::printf(
        "  op filter %s: %lld ops on the device, %lld on the cpu (%lld refused by the device, "
        "%lld outside --device-layers)\n",
        f->filter().to_string().c_str(), (long long)c.device_ops, (long long)c.cpu_ops,
        (long long)c.refused_ops, (long long)c.layer_ops);
  }
  std::printf("  host-device traffic: %.2f syncs per token, %.0f bytes copied per token\n",
              row.syncs_per_token, row.bytes_per_token);
}

// What the weights cost a ggml device (stderr, beside the device line): those it reads in place,
// its own copies (uploads to its memory) and its repacked second copies.
void print_device_weights(FilteredBackend* f) {
  const auto* g = f ? dynamic_cast<const GgmlBackend*>(&f->device()) : nullptr;
  if (!g) return;
  const ggml::Traffic& c = g->counters();
  std::fprintf(stderr,
               "bench: weights on %s: %.1f MiB in place, %.1f MiB uploaded, %.1f MiB repacked\n",
               g->device_key().c_str(), double(c.weights_wrapped) / 1048576.0,
               double(c.weights_uploaded) / 1048576.0, double(c.weights_repacked) / 1048576.0);
}

// What a run is, for the progress line: "m.gguf pp512 @ d4096 run 2/6" (run 1 warms up), or
// "... profile" (r < 0).
std::string run_name(const std::string& model, const char* test, int n, const std::string& at,
                     int r, int reps) {
  std::string s = model + " " + test + std::to_string(n) + at;
  if (r < 0) return s + " profile";
  return s + (r == 0 ? " warm-up" : " run " + std::to_string(r) + "/" + std::to_string(reps));
}

void print_times(const char* title, const std::map<std::string, double>& times, double total) {
  std::printf("  %s:\n", title);
  for (const auto& [k, v] : times)
    std::printf("    %-28s %9.3f ms %5.1f%%\n", k.c_str(), v * 1e3, 100 * v / total);
}

void print_profile(const char* phase, const OpTimes& t) {
  double total = 0;
  for (const auto& [k, v] : t.by_op) total += v;
  std::printf("\nprofile (%s): %.3f s in ops\n", phase, total);
  print_times("by op", t.by_op, total);
  print_times("by layer kind", t.by_layer, total);
  if (t.by_device.size() > 1) print_times("by device", t.by_device, total);
}

}  // namespace

int cmd_bench(int argc, char** argv) {
  EngineFlags engine;
  SpeculativeFlags spec;
  std::string models_text, depth_text = "0", output = "md";
  int n_prompt = 512, n_gen = 128, reps = 5, chat_turns = 0, chat_tokens = 200;
  bool roofline = false, profile = false, quiet = false;
  std::string configs, marker;
  ArgParser p(
      "kazeia bench",
      "Measure prompt processing (pp: the prompt as one batch) and token generation (tg: "
      "one token at a time) in tokens/s, mean ± sd over -r runs, at each context depth "
      "-d (tokens already in the cache, not timed). pp rows also give the time to first "
      "token (ms). --chat N replays an N-turn conversation -r times, with and without prefix "
      "reuse, beside the new tokens of each turn prefilled alone at position 0 and after the "
      "same prefix (medians). "
      "--spec S generates -n tokens greedily with and without speculative decoding, "
      "alternating, -r runs each; S = replay drafts the model's own greedy continuation "
      "(full acceptance), which measures the cost of verification itself.");
  engine.declare(p);
  p.add("--models", "LIST", "comma-separated model files (in addition to -m)", &models_text);
  p.add("-p,--n-prompt", "N", "prompt tokens for pp (default 512; 0 = skip)", &n_prompt);
  p.add("-n,--n-gen", "N", "generated tokens for tg (default 128; 0 = skip)", &n_gen);
  p.add("-r,--repetitions", "N", "runs per test (default 5)", &reps);
  p.add("-d,--depth", "LIST", "context depths, comma-separated (default 0)", &depth_text);
  p.add("-o,--output", "FMT", "md, json or csv (default md)", &output);
  p.add_switch("--roofline",
               "measure read bandwidth before each tg run; report tg as % of the bound (median)",
               &roofline);
  p.add_switch("--profile", "print time per op kind and layer kind (prefill and decode)", &profile);
  p.add("--chat", "TURNS", "replay a conversation of TURNS turns (TTFT per turn)", &chat_turns);
  p.add("--chat-tokens", "N", "tokens per user turn in --chat (default 200)", &chat_tokens);
  spec.declare(p);
  p.add("--configs", "LIST",
        "the configuration matrix side by side, e.g. A,B,C: A = CPU only, B = --device for "
        "everything (with --op-filter, default auto), C = prefill on --device and decode on the "
        "CPU; each in its own process",
        &configs);
  p.add("--marker", "X", "a label for a child run of --configs (ignored)", &marker);
  add_quiet_switch(p, &quiet);
  if (!p.parse(argc, argv)) return 0;
  const SpeculativeParams spec_params = spec.params(true);
  if (!configs.empty())
    return run_bench_configs(
        {configs, engine.backend, engine.op_filter, std::vector<std::string>(argv, argv + argc)});
  std::vector<std::string> models;
  if (!engine.model.empty()) models.push_back(engine.model);
  for (std::stringstream in(models_text); in.good();) {
    std::string m;
    std::getline(in, m, ',');
    if (!m.empty()) models.push_back(m);
  }
  if (models.empty()) fail("missing -m MODEL");
  if (reps < 1) fail("invalid value ", reps, " for --repetitions");
  if (n_prompt < 0 || n_gen < 0) fail("-p and -n must be >= 0");
  if (output != "md" && output != "json" && output != "csv")
    fail("invalid value '", output, "' for --output (expected md, json or csv)");
  std::vector<int64_t> depths;
  for (int32_t d : parse_id_list("--depth", depth_text)) {
    if (d < 0) fail("invalid depth ", d);
    depths.push_back(d);
  }
  const int threads = engine.resolved_threads();
  std::vector<double> bandwidths;  // one probe before each timed tg run (--roofline)
  const std::unique_ptr<BandwidthProbe> probe =
      roofline ? std::make_unique<BandwidthProbe>() : nullptr;

  // Progress counts runs (warm-up, timed, profiled), an untimed context at depth, and the runs
  // of --spec and --chat (one unit per model for --spec's alternating runs).
  const int runs_per_test = reps + 1 + (profile ? 1 : 0);
  int64_t total_runs = 0;
  for (int64_t depth : depths)
    total_runs += (depth > 0) + (n_prompt > 0) * runs_per_test + (n_gen > 0) * runs_per_test;
  total_runs *= int64_t(models.size());
  if (spec_params.source != DraftSource::None && n_gen > 1) total_runs += int64_t(models.size());
  if (chat_turns > 0) total_runs += int64_t(models.size()) * reps;
  Progress progress("bench", double(total_runs), quiet);
  double runs_done = 0;
  auto run_begins = [&](const std::string& what) { progress.update(runs_done++, what); };

  std::vector<Row> rows;
  for (const auto& path : models) {
    auto model = Model::load(path);
    auto devices = engine.open_devices(*model);
    progress.clear();
    std::fprintf(stderr, "bench: %s: %s\n", path.c_str(), devices->describe().c_str());
    Backend& inner = devices->backend();
    // The profile comes from one more run after the timed ones: the profiler waits for each op
    // (to time it), which would change both the speed and the synchronisations measured.
    ProfilingBackend profiled(inner);
    Row base;
    base.model = file_name(path);
    base.type = dominant_type(model->file());
    base.size = model->file().file_size();
    base.backend = device_label(engine);
    base.threads = threads;
    base.kv = engine.cache_type_k + "/" + engine.cache_type_v;
    base.op_filter = devices->filter().to_string();
    Scratch scratch;
    std::vector<float> logits;
    for (int64_t depth : depths) {
      // -c sizes the state (e.g. to measure the memory of a 4096-token context).
      const int64_t n_ctx =
          std::max<int64_t>(engine.context_size(0), depth + std::max(n_prompt, n_gen) + 1);
      // The (untimed) context is evaluated once. Each run then starts from it as the runtime
      // resumes a sequence: attention layers truncated back to `depth` (positions past it are
      // rewritten before they are read) and the recurrent states restored from a copy.
      SequenceState st = engine.new_state(*model, n_ctx);
      if (depth > 0) {
        run_begins(base.model + " context of " + std::to_string(depth));
        model->eval(inner, st, scratch, bench_tokens(depth, model->info().n_vocab), false, logits);
      }
      const RecurrentStates recur_at_depth = st.recur;
      auto start_at_depth = [&] {
        st.n_past = depth;
        st.recur = recur_at_depth;
      };
      const std::string at = depth ? " @ d" + std::to_string(depth) : "";
      if (n_prompt > 0) {
        const auto prompt = bench_tokens(n_prompt, model->info().n_vocab);
        std::vector<double> speed, ttft;
        for (int r = 0; r < reps + 1; ++r) {  // the first run warms up
          run_begins(run_name(base.model, "pp", n_prompt, at, r, reps));
          start_at_depth();
          inner.reset_traffic();
          Timer t;
          model->eval(inner, st, scratch, prompt, false, logits);
          const double s = t.seconds();
          if (r > 0) speed.push_back(n_prompt / s), ttft.push_back(s * 1e3);
        }
        Row row = base;
        row.test = "pp" + std::to_string(n_prompt) + at;
        row.tok_s = stat_of(speed);
        row.extra = stat_of(ttft).mean;
        set_traffic(row, inner, n_prompt);
        rows.push_back(row);
        if (profile) {
          progress.clear();
          print_traffic(devices->filtered(), row);
          run_begins(run_name(base.model, "pp", n_prompt, at, -1, reps));
          start_at_depth();
          profiled.times().clear();
          model->eval(profiled, st, scratch, prompt, false, logits);
          progress.clear();
          print_profile(("prefill " + base.model + at).c_str(), profiled.times());
        }
      }
      if (n_gen > 0) {
        // The roofline of each run is measured just before it, so that the ratio follows the
        // bandwidth this shared machine gives at the time; the row reports the median ratio.
        std::vector<double> speed, roofline_pct;
        const auto gen = bench_tokens(n_gen, model->info().n_vocab);
        const double bytes = decode_bytes(*model, st, depth + n_gen / 2);
        for (int r = 0; r < reps + 1; ++r) {
          run_begins(run_name(base.model, "tg", n_gen, at, r, reps));
          const double bandwidth = probe && r > 0 ? probe->measure(threads) : 0;
          start_at_depth();
          inner.reset_traffic();
          Timer t;
          for (int i = 0; i < n_gen; ++i)
            model->eval(inner, st, scratch, std::span(&gen[i], 1), false, logits);
          if (r == 0) continue;
          speed.push_back(n_gen / t.seconds());
          if (roofline) {
            bandwidths.push_back(bandwidth);
            roofline_pct.push_back(100.0 * speed.back() * bytes / bandwidth);
          }
        }
        Row row = base;
        row.test = "tg" + std::to_string(n_gen) + at;
        row.tok_s = stat_of(speed);
        if (roofline) row.extra = median_of(roofline_pct);
        set_traffic(row, inner, n_gen);
        rows.push_back(row);
        if (profile) {
          progress.clear();
          print_traffic(devices->filtered(), row);
          run_begins(run_name(base.model, "tg", n_gen, at, -1, reps));
          start_at_depth();
          profiled.times().clear();
          for (int i = 0; i < n_gen; ++i)
            model->eval(profiled, st, scratch, std::span(&gen[i], 1), false, logits);
          progress.clear();
          print_profile(("decode " + base.model + at).c_str(), profiled.times());
        }
      }
    }
    progress.clear();
    print_device_weights(devices->filtered());
  }

  // --spec and --chat run after the pp/tg tests, each engine of its own (Session API).
  std::vector<SpeculativeBench> spec_results;
  if (spec_params.source != DraftSource::None && n_gen > 1) {
    for (const auto& path : models) {
      SpeculativeBench s;
      s.model = file_name(path);
      s.source = spec.source;
      s.draft = spec.draft;
      s.n_prompt = 32;
      s.n_gen = n_gen;
      run_begins(s.model + " --spec " + spec.source);
      s.result =
          bench_speculative(path, engine.session_params(), spec_params, s.n_prompt, n_gen, reps);
      spec_results.push_back(s);
    }
  }
  std::vector<ChatBench> chat_results;
  if (chat_turns > 0) {
    for (const auto& path : models) {
      ChatBench c;
      c.model = file_name(path);
      c.turns = chat_turns;
      c.tokens_per_turn = chat_tokens;
      for (int r = 0; r < reps; ++r) {  // each replay in a fresh engine
        run_begins(c.model + " --chat replay " + std::to_string(r + 1) + "/" +
                   std::to_string(reps));
        c.runs.push_back(replay_chat(path, chat_turns, chat_tokens, engine.session_params()));
      }
      chat_results.push_back(std::move(c));
    }
  }

  progress.clear();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double probe_kib = probe ? double(probe->bytes()) / 1024.0 : 0;  // resident throughout
  const double peak_mib = (double(usage.ru_maxrss) - probe_kib) / 1024.0;
  const std::string kernels = kernel_table().isa;
  if (output == "json") {
    // One array: the pp/tg rows, then --spec's and --chat's (their "test" says which).
    Json::Array out;
    for (const Row& r : rows) out.push_back(row_json(r, peak_mib, kernels));
    for (const SpeculativeBench& s : spec_results) out.push_back(speculative_json_row(s));
    for (const ChatBench& c : chat_results)
      for (Json& row : chat_json_rows(c)) out.push_back(std::move(row));
    std::printf("%s\n", to_json_text(Json::array(std::move(out))).c_str());
    return 0;
  }
  if (output == "csv") {
    std::printf(
        "model,size,type,backend,threads,kv,test,tok_s,tok_s_sd,ttft_ms_or_roofline_pct,peak_rss_"
        "mib,syncs_per_token,bytes_per_token,op_filter\n");
    for (const Row& r : rows)
      std::printf("%s,%llu,%s,%s,%d,%s,%s,%.3f,%.3f,%.3f,%.1f,%.4f,%.1f,%s\n", r.model.c_str(),
                  (unsigned long long)r.size, r.type.c_str(), r.backend.c_str(), r.threads,
                  r.kv.c_str(), r.test.c_str(), r.tok_s.mean, r.tok_s.sd, r.extra, peak_mib,
                  r.syncs_per_token, r.bytes_per_token, r.op_filter.c_str());
  } else {
    std::printf(
        "| model | size MiB | type | device | threads | kv | test | t/s | ttft ms / %% roofline "
        "| syncs/tok |\n");
    std::printf("|---|---:|---|---|---:|---|---|---:|---:|---:|\n");
    for (const Row& r : rows)
      std::printf("| %s | %.1f | %s | %s | %d | %s | %s | %.2f ± %.2f | %s | %.2f |\n",
                  r.model.c_str(), r.size / 1048576.0, r.type.c_str(), r.backend.c_str(), r.threads,
                  r.kv.c_str(), r.test.c_str(), r.tok_s.mean, r.tok_s.sd,
                  r.extra > 0 ? std::to_string(r.extra).substr(0, 7).c_str() : "-",
                  r.syncs_per_token);
    std::printf("\npeak RSS %.1f MiB | isa: %s | op filter: %s", peak_mib, kernels.c_str(),
                rows.empty() ? "none" : rows[0].op_filter.c_str());
    if (!bandwidths.empty())
      std::printf(" | read bandwidth %.2f GB/s (median of %zu probes)", median_of(bandwidths) / 1e9,
                  bandwidths.size());
    std::printf("\n");
  }
  // CSV has no form for them: Markdown tables follow, as they always did.
  if (!spec_results.empty()) print_speculative_header(spec_results.front());
  for (const SpeculativeBench& s : spec_results) print_speculative_row(s);
  for (const ChatBench& c : chat_results) print_chat_table(c);
  return 0;
}

}  // namespace kz::cli
