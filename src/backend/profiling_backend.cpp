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

template <class F>
void ProfilingBackend::timed(const std::string& op, F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  times_.by_op[op] += s;
  times_.by_layer[layer_] += s;
}

void ProfilingBackend::matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) {
  layer_ = layer_kind(w.name);
  timed("matmul " + std::string(dtype_name(w.type)), [&] { inner_.matmul(w, x, n_tok, y); });
}
void ProfilingBackend::get_rows(const Matrix& w, std::span<const int32_t> ids, float* y) {
  layer_ = "other";
  timed("get_rows", [&] { inner_.get_rows(w, ids, y); });
}
void ProfilingBackend::rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps,
                                float* y) {
  timed("rms_norm", [&] { inner_.rms_norm(x, w, n, rows, eps, y); });
}
void ProfilingBackend::rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                                 const int32_t* pos, float freq_base) {
  timed("rope", [&] { inner_.rope_neox(x, n_tok, n_head, head_dim, n_rot, pos, freq_base); });
}
void ProfilingBackend::swiglu(const float* gate, const float* up, int64_t n, float* y) {
  timed("swiglu", [&] { inner_.swiglu(gate, up, n, y); });
}
void ProfilingBackend::silu(float* x, int64_t n) {
  timed("silu", [&] { inner_.silu(x, n); });
}
void ProfilingBackend::add(float* x, const float* y, int64_t n) {
  timed("add", [&] { inner_.add(x, y, n); });
}
void ProfilingBackend::mul_sigmoid(float* x, const float* gate, int64_t n) {
  timed("mul_sigmoid", [&] { inner_.mul_sigmoid(x, gate, n); });
}
void ProfilingBackend::kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k,
                                const float* v) {
  timed("kv_store", [&] { inner_.kv_store(kv, pos0, n_tok, k, v); });
}
void ProfilingBackend::attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                                 int n_head, float scale, float* out) {
  timed("attention", [&] { inner_.attention(q, kv, pos0, n_tok, n_head, scale, out); });
}
void ProfilingBackend::ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv,
                                const float* w, float* state, float* out) {
  timed("ssm_conv", [&] { inner_.ssm_conv(x, n_tok, channels, d_conv, w, state, out); });
}
void ProfilingBackend::delta_net_gates(const float* alpha, const float* b, const float* dt_bias,
                                       const float* a, int64_t n_tok, int n_v, float* g,
                                       float* beta) {
  timed("delta_net_gates",
        [&] { inner_.delta_net_gates(alpha, b, dt_bias, a, n_tok, n_v, g, beta); });
}
void ProfilingBackend::gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                                        const float* g, const float* beta, float eps, float* state,
                                        float* out) {
  timed("gated_delta_rule",
        [&] { inner_.gated_delta_rule(dims, n_tok, qkv, g, beta, eps, state, out); });
}
void ProfilingBackend::gated_rms_norm(const float* x, const float* z, const float* w, int64_t n,
                                      int64_t rows, float eps, float* y) {
  timed("gated_rms_norm", [&] { inner_.gated_rms_norm(x, z, w, n, rows, eps, y); });
}

}  // namespace kz
