#include "backend/ref_backend.h"

#include "kernels/ref/delta_net.h"
#include "kernels/ref/ops.h"

namespace kz {

void RefBackend::matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) {
  ref::matmul_f32act(w, x, n_tok, y);
}
void RefBackend::get_rows(const Matrix& w, std::span<const int32_t> ids, float* y) {
  ref::get_rows(w, ids, y);
}
void RefBackend::rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps,
                          float* y) {
  ref::rms_norm(x, w, n, rows, eps, y);
}
void RefBackend::rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                           const int32_t* pos, float freq_base) {
  ref::rope_neox(x, n_tok, n_head, head_dim, n_rot, pos, freq_base);
}
void RefBackend::swiglu(const float* gate, const float* up, int64_t n, float* y) {
  ref::swiglu(gate, up, n, y);
}
void RefBackend::silu(float* x, int64_t n) {
  ref::silu(x, n);
}
void RefBackend::add(float* x, const float* y, int64_t n) {
  ref::add(x, y, n);
}
void RefBackend::mul_sigmoid(float* x, const float* gate, int64_t n) {
  ref::mul_sigmoid(x, gate, n);
}
void RefBackend::split_halves(const float* x, int64_t rows, int64_t n, float* a, float* b) {
  ref::split_halves(x, rows, n, a, b);
}

void RefBackend::join_halves(const float* a, const float* b, int64_t rows, int64_t n, float* out) {
  ref::join_halves(a, b, rows, n, out);
}
void RefBackend::kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k,
                          const float* v) {
  ref::kv_store(kv, pos0, n_tok, k, v);
}
void RefBackend::attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                           int n_head, float scale, float* out) {
  ref::attention(q, kv, pos0, n_tok, n_head, scale, out);
}
void RefBackend::ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv,
                          const float* w, float* state, float* out) {
  ref::ssm_conv(x, n_tok, channels, d_conv, w, state, out);
}
void RefBackend::delta_net_gates(const float* alpha, const float* b, const float* dt_bias,
                                 const float* a, int64_t n_tok, int n_v, float* g, float* beta) {
  ref::delta_net_gates(alpha, b, dt_bias, a, n_tok, n_v, g, beta);
}
// The oracle runs the definition: the token-by-token recurrence, whatever the prompt length.
void RefBackend::gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                                  const float* g, const float* beta, float eps, float* state,
                                  float* out) {
  ref::gated_delta_rule_recurrent(dims, n_tok, qkv, g, beta, eps, state, out);
}
void RefBackend::gated_rms_norm(const float* x, const float* z, const float* w, int64_t n,
                                int64_t rows, float eps, float* y) {
  ref::gated_rms_norm(x, z, w, n, rows, eps, y);
}

}  // namespace kz
