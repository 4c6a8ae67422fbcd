#include "common.h"

#include <algorithm>
#include <cstdlib>

#include "base/error.h"
#include "base/progress.h"
#include "base/thread_pool.h"
#include "model/hparams.h"
#include "model/model.h"
#include "sampling/sampler.h"

namespace kz::cli {

void EngineFlags::declare(ArgParser& p) {
  p.add("-m,--model", "FILE", "model file (GGUF)", &model);
  p.add("-dev,--device,--backend", "NAME",
        "compute device: cpu (fast kernels; also spelled none), ref (scalar oracle), opencl[:N] "
        "(kazeia devices lists N), ggml:NAME (a ggml device, e.g. ggml:Vulkan0, ggml:HTP0; "
        "kazeia devices lists them) or faulty:ENTRIES (test device: the cpu with the ops ENTRIES "
        "lists made wrong); default cpu",
        &backend);
  p.add("--ggml-dir", "DIR",
        "folder of the ggml 0.23.0 libraries for ggml:NAME devices (libggml-base.so and the "
        "backends beside it; default $KAZEIA_GGML_DIR, else by name)",
        &ggml_dir);
  p.add("--prefill-device", "NAME",
        "device for prompt batches of at least --prefill-threshold tokens (default --device)",
        &prefill_device);
  p.add("--decode-device", "NAME", "device for decode and shorter batches (default --device)",
        &decode_device);
  p.add("--prefill-threshold", "N",
        "shortest batch that runs on the prefill device (default " +
            std::to_string(prefill_threshold) + ")",
        &prefill_threshold);
  p.add("--device-layers", "N",
        "run only the first N layers' ops on the device (the rest of the model, embedding and "
        "output head included, on the CPU), so that the device holds only their weights; "
        "default: all",
        &device_layers);
  p.add("--repack", "auto|on|off",
        "CPU weight repacking (x86): auto = off beside an accelerator (opencl, ggml), so that one "
        "copy of the weights serves both (slower CPU kernels), else on",
        &repack);
  p.add("--op-filter", "LIST|FILE|auto",
        "ops to run on the CPU instead of the device, e.g. ssm_conv@prompt:channels=1024 (see "
        "kazeia oracle); auto: the oracle's failing ops, cached per device and model; default "
        "$KAZEIA_OPFILTER, else none",
        &op_filter);
  p.add("-t,--threads", "N", "threads, 1 to 256 (default: all hardware threads)", &threads);
  p.add("-c,--ctx-size", "N",
        "context size in tokens, at least 1 (default for run and chat: min(training context, "
        "4096))",
        &ctx);
  p.add("-ctk,--cache-type-k", "TYPE", "K cache type: f32, f16 or q8_0 (default f16)",
        &cache_type_k);
  p.add("-ctv,--cache-type-v", "TYPE", "V cache type: f32, f16 or q8_0 (default f16)",
        &cache_type_v);
}

int EngineFlags::resolved_threads() const {
  return resolve_thread_count(threads, "--threads");
}

DType EngineFlags::k_type() const {
  return parse_kv_cache_type(cache_type_k, "--cache-type-k");
}
DType EngineFlags::v_type() const {
  return parse_kv_cache_type(cache_type_v, "--cache-type-v");
}

void EngineFlags::check_cache_types(const Model& model) const {
  const int head_dim = read_common_hparams(model.file(), model.info().arch).head_dim;
  check_kv_cache_type(k_type(), head_dim, "--cache-type-k");
  check_kv_cache_type(v_type(), head_dim, "--cache-type-v");
}

void EngineFlags::apply_ggml_dir() const {
  // The ggml driver reads its folder from the environment, as an app embedding the library
  // would set it.
  if (!ggml_dir.empty()) setenv("KAZEIA_GGML_DIR", ggml_dir.c_str(), 1);
}

std::unique_ptr<Devices> EngineFlags::open_devices(const Model& model) const {
  apply_ggml_dir();
  DeviceOptions o;
  o.device = backend;
  o.prefill_device = prefill_device;
  o.decode_device = decode_device;
  o.prefill_min_tokens = prefill_threshold;
  o.device_layers = device_layers;
  o.repack = repack;
  o.op_filter = op_filter;
  o.n_threads = resolved_threads();
  o.k_type = k_type();
  o.v_type = v_type();
  return std::make_unique<Devices>(model, o);
}

void SpeculativeFlags::declare(ArgParser& p) {
  p.add("--spec", "none|ngram|mtp",
        "speculative decoding: drafts from n-grams of the context or the model's MTP layer, "
        "verified in one batch; the output is the model's own (default none)",
        &source);
  p.add("--draft", "N", "drafted tokens per verification, 1 to 16 (default 4)", &draft);
}

SpeculativeParams SpeculativeFlags::params(bool allow_replay) const {
  SpeculativeParams sp;
  sp.source = parse_draft_source(source, "--spec");
  if (sp.source == DraftSource::Replay && !allow_replay)
    fail("--spec: 'replay' is for kazeia bench only");
  check_max_draft(draft, "--draft");
  sp.max_draft = draft;
  return sp;
}

SessionParams EngineFlags::session_params() const {
  apply_ggml_dir();
  SessionParams sp;
  sp.n_threads = resolved_threads();
  sp.k_type = cache_type_k;
  sp.v_type = cache_type_v;
  sp.backend = backend;
  sp.op_filter = op_filter;
  sp.prefill_device = prefill_device;
  sp.decode_device = decode_device;
  sp.prefill_min_tokens = prefill_threshold;
  sp.device_layers = device_layers;
  sp.repack = repack;
  return sp;
}

SessionParams EngineFlags::session_params(const Model& model) const {
  check_cache_types(model);
  SessionParams sp = session_params();
  sp.n_ctx = context_size(default_context(model));
  return sp;
}

int64_t EngineFlags::context_size(int64_t fallback) const {
  if (!ctx) return fallback;
  if (*ctx < 1) fail("invalid --ctx-size ", *ctx, " (expected at least 1)");
  return *ctx;
}

void EngineFlags::warn_past_training(const Model& model, int64_t n_ctx) {
  const int64_t trained = model.info().n_ctx_train;
  if (trained > 0 && n_ctx > trained)
    std::fprintf(stderr,
                 "kazeia: warning: a context of %lld tokens exceeds the model's training context "
                 "(%lld tokens): text past it may degrade\n",
                 (long long)n_ctx, (long long)trained);
}

int64_t EngineFlags::default_context(const Model& model) {
  const int64_t trained = model.info().n_ctx_train;
  return trained > 0 ? std::min<int64_t>(trained, 4096) : 4096;
}

SequenceState EngineFlags::new_state(const Model& model, int64_t n_ctx) const {
  check_cache_types(model);
  return model.new_state(n_ctx, k_type(), v_type());
}

void check_generation_flags(const GenerateParams& gp) {
  if (gp.max_tokens < 0) fail("invalid value ", gp.max_tokens, " for --n-predict (expected >= 0)");
  Sampler(gp.sampling, 1);  // throws naming the sampling value at fault
}

ContextOverflow parse_context_overflow(const std::string& value) {
  if (value == "error") return ContextOverflow::Error;
  if (value == "drop-oldest") return ContextOverflow::DropOldestTurns;
  fail("invalid --context-overflow '", value, "' (expected error or drop-oldest)");
}

void warm_up_with_progress(Session& session, const Model& model, bool quiet) {
  const int64_t n_layer = model.info().n_layer;
  Progress progress("loading", double(n_layer + 1), quiet);
  session.warm_up([&](int64_t done, int64_t total) {
    progress.update(double(done), done < n_layer ? "layer " + std::to_string(done + 1) + "/" +
                                                       std::to_string(n_layer)
                                                 : std::string("output head"));
  });
}

}  // namespace kz::cli
