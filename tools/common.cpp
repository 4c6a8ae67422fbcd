#include "common.h"

#include <thread>

#include "base/error.h"

namespace kz::cli {
namespace {

DType cache_type(const std::string& flag, const std::string& value) {
  if (value == "f32") return DType::F32;
  if (value == "f16") return DType::F16;
  fail("invalid value '", value, "' for ", flag, " (expected f32 or f16)");
}

}  // namespace

void EngineFlags::declare(ArgParser& p) {
  p.add("-m,--model", "FILE", "model file (GGUF)", &model);
  p.add("--backend", "NAME", "compute backend: cpu (fast) or ref (scalar oracle); default cpu",
        &backend);
  p.add("-t,--threads", "N", "threads (default: all hardware threads)", &threads);
  p.add("-c,--ctx-size", "N", "context size in tokens (default: min(training context, 4096))",
        &ctx);
  p.add("-ctk,--cache-type-k", "TYPE", "K cache type: f32 or f16 (default f16)", &cache_type_k);
  p.add("-ctv,--cache-type-v", "TYPE", "V cache type: f32 or f16 (default f16)", &cache_type_v);
}

int EngineFlags::resolved_threads() const {
  if (threads < 0) fail("invalid value ", threads, " for --threads (expected >= 0)");
  return threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

DType EngineFlags::k_type() const {
  return cache_type("--cache-type-k", cache_type_k);
}
DType EngineFlags::v_type() const {
  return cache_type("--cache-type-v", cache_type_v);
}

}  // namespace kz::cli
