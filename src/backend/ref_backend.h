// `ref`: plain scalar code, single-threaded, f32 activations. The oracle every other backend is
// compared with; it computes the exact result of the stored weights ("f32act" in the fixtures).
#pragma once

#include "backend/backend.h"

namespace kz {

class RefBackend : public Backend {
 public:
  std::string_view name() const override { return "ref"; }
  void matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) override;
  void get_rows(const Matrix& w, std::span<const int32_t> ids, float* y) override;
  void rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps,
                float* y) override;
  void rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot, const int32_t* pos,
                 float freq_base) override;
  void swiglu(const float* gate, const float* up, int64_t n, float* y) override;
  void silu(float* x, int64_t n) override;
  void add(float* x, const float* y, int64_t n) override;
  void mul_sigmoid(float* x, const float* gate, int64_t n) override;
  void split_halves(const float* x, int64_t rows, int64_t n, float* a, float* b) override;
  void join_halves(const float* a, const float* b, int64_t rows, int64_t n, float* out) override;
  void kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k,
                const float* v) override;
  void attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                 float scale, float* out) override;
  void ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv, const float* w,
                float* state, float* out) override;
  void delta_net_gates(const float* alpha, const float* b, const float* dt_bias, const float* a,
                       int64_t n_tok, int n_v, float* g, float* beta) override;
  void gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                        const float* beta, float eps, float* state, float* out) override;
  void gated_rms_norm(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                      float eps, float* y) override;
};

}  // namespace kz
