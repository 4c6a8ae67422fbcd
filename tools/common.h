// Pieces shared by the kazeia subcommands: the flags every model-running command takes, and
// their translation into engine objects.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "api/engine.h"
#include "args.h"
#include "backend/backend.h"
#include "model/state.h"
#include "quant/types.h"
#include "runtime/devices.h"

namespace kz {
class Model;
}

namespace kz::cli {

struct EngineFlags {
  std::string model;
  std::string backend = "cpu";                // --device
  std::string op_filter;                      // empty: $KAZEIA_OPFILTER, else none
  std::string prefill_device, decode_device;  // empty: --device
  int64_t prefill_threshold = DeviceOptions{}.prefill_min_tokens;
  int64_t device_layers = DeviceOptions{}.device_layers;  // -1: all
  std::string repack = "auto";
  int threads = 0;             // 0: all hardware threads
  std::optional<int64_t> ctx;  // --ctx-size; none: the command's default
  std::string cache_type_k = "f16", cache_type_v = "f16";
  std::string ggml_dir;  // --ggml-dir; empty: $KAZEIA_GGML_DIR

  void declare(ArgParser& p);
  // Points the ggml driver at --ggml-dir (sets $KAZEIA_GGML_DIR) when given.
  void apply_ggml_dir() const;
  int resolved_threads() const;
  DType k_type() const;  // throws naming --cache-type-k on a bad value
  DType v_type() const;
  // Throws naming the flag unless the cache types can hold the model's heads (q8_0: head size a
  // multiple of 32).
  void check_cache_types(const Model& model) const;
  // --ctx-size if given (at least 1, else throws), else `fallback`.
  int64_t context_size(int64_t fallback) const;
  // Warns on stderr when a context of n_ctx tokens (made: this is not an error) is longer than
  // the model was trained for.
  static void warn_past_training(const Model& model, int64_t n_ctx);
  // The default context of run and chat: min(training context, 4096).
  static int64_t default_context(const Model& model);
  // A zeroed state of n_ctx tokens with these cache types (checked as above).
  SequenceState new_state(const Model& model, int64_t n_ctx) const;
  // The device and op filter these flags choose, for this model (an `auto` filter may run the
  // oracle once).
  std::unique_ptr<Devices> open_devices(const Model& model) const;
  // Session parameters with these flags' devices, filter, threads and cache types.
  SessionParams session_params() const;
  // The same for run and chat on `model`: cache types checked, the context of --ctx-size or the
  // default. (Callers warn past the training context once the session exists: a context too
  // large to allocate is an error, not a warning and an error.)
  SessionParams session_params(const Model& model) const;
};

// --spec and --draft (runtime/speculative.h), for run, chat and bench.
struct SpeculativeFlags {
  std::string source = "none";
  int draft = 4;

  void declare(ArgParser& p);
  // Throws naming the flag at fault; `replay` only where allowed (kazeia bench).
  SpeculativeParams params(bool allow_replay = false) const;
};

// -n and the sampling flags, checked before the model loads: one line naming the value at fault.
void check_generation_flags(const GenerateParams& gp);

// --context-overflow: error or drop-oldest (SessionParams::context_overflow).
ContextOverflow parse_context_overflow(const std::string& value);

// Subcommand entry points: argv excludes the program and subcommand names; return the exit code.
int cmd_run(int argc, char** argv);
int cmd_inspect(int argc, char** argv);
int cmd_tokenize(int argc, char** argv);
int cmd_logits(int argc, char** argv);
int cmd_mkmodel(int argc, char** argv);
int cmd_quantize(int argc, char** argv);
int cmd_perplexity(int argc, char** argv);
int cmd_chat(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_oracle(int argc, char** argv);
int cmd_devices(int argc, char** argv);
int cmd_serve(int argc, char** argv);

// Session::warm_up with a progress line on a terminal ("loading", per layer) unless `quiet`: the
// weights' first-use costs (page faults, repacking) are paid before the first prompt.
void warm_up_with_progress(Session& session, const Model& model, bool quiet);

}  // namespace kz::cli
