#include "backend/profiling_backend.h"

#include <chrono>

namespace kz {
namespace {

std::string layer_kind(std::string_view weight) {
  if (weight == "output.weight" || weight == "token_embd.weight") return "lm_head";
  if (weight.find("ffn_") != std::string_view::npos) return "ffn";
  if (weight.find("ssm_") != std::string_view::npos ||
      weight.find("attn_qkv") != std::string_view::npos ||
      weight.find("attn_gate") != std::string_view::npos)
    return "recurrent";
  if (weight.find("attn_") != std::string_view::npos) return "attention";
  return "other";
}

}  // namespace

void ProfilingBackend::dispatch(OpCall& call) {
  std::string op = call.shape.kind;
  if (op == "matmul") {
    layer_ = layer_kind(call.weight);
    op += " " + call.shape.params[0].second;  // the weight type
  } else if (op == "get_rows") {
    layer_ = "other";
  }
  const auto start = std::chrono::steady_clock::now();
  run_synced(call, inner_);  // a device's op is timed to its end, not to its enqueueing
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string_view ran_on = inner_.last_op_backend();
  if (ran_on != inner_.name()) op += " [" + std::string(ran_on) + "]";
  times_.by_op[op] += s;
  times_.by_layer[layer_] += s;
  times_.by_device[std::string(ran_on)] += s;
}

}  // namespace kz
