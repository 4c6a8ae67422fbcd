// The backend interface: every op the model code runs. `ref` (plain scalar code, the oracle) and
// `cpu` (fast kernels, activations rounded like the reference) implement it; an accelerator
// backend would too. All activations are row-major f32 buffers in host memory, which the model
// allocates as shared memory (base/shared_memory.h) that devices keep between ops (sync());
// shapes are in the comments, fastest-varying dimension last, e.g. x[n_tok][n_embd]. The ops'
// argument types (weights, K/V cache views, DeltaNet dimensions) are in ops/op_types.h, which the
// kernels read too.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "ops/op_types.h"

namespace kz {

struct OpCall;       // backend/op_call.h
struct OpShape;      // backend/op_call.h
struct OpTolerance;  // backend/op_tolerance.h

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // Identifies the device and its software for caches of per-device results (the op filter's
  // `auto` entries): name, driver or kernel-table version.
  virtual std::string device_key() const { return std::string(name()); }

  // Hints from the model code, for decorators that report or route ops by phase and layer: the
  // ops that follow belong to a batch of n_tok tokens (n_tok > 1: a prompt), and to trunk layer
  // `layer` (-1: embedding or output head).
  virtual void begin_batch(int64_t n_tok) {}
  virtual void at_layer(int64_t layer) {}
  // The backend that runs a batch of n_tok tokens: this one, or for a split the device chosen
  // for that batch, which the model then calls directly (no decorator between it and the ops).
  virtual Backend& for_batch(int64_t n_tok) { return *this; }
  // The backend that ran the last op: this one, or for a router the device or CPU it chose
  // (bench --profile says which ops ran where).
  virtual std::string_view last_op_backend() const { return name(); }

  // Host-device traffic since the last reset, for bench --profile: how often the host waited for
  // a device, and the bytes copied between them. Zero for backends that compute on the host.
  struct Traffic {
    int64_t syncs = 0;
    uint64_t bytes_copied = 0;
    Traffic& operator+=(const Traffic& o) {
      syncs += o.syncs;
      bytes_copied += o.bytes_copied;
      return *this;
    }
  };
  virtual Traffic traffic() const { return {}; }
  virtual void reset_traffic() {}

  // A device backend may return from an op on shared memory (base/shared_memory.h: activations,
  // sequence state) before the op has run; it runs the ops in order. sync() waits until every op
  // called so far has finished and its results are in host memory: the host reads or writes
  // shared memory that a device op used only after it. Ops whose outputs lie in other memory
  // have finished when they return. Host backends finish every op before returning.
  virtual void sync() {}

  // Whether this backend runs `call` (its kind, shape and types). What a device refuses runs on
  // the CPU instead (backend/filtered_backend.h), so a device never has to implement every op or
  // shape. A backend that answers false throws kz::Error if the op is called anyway. Host
  // backends run everything.
  virtual bool supports(const OpCall& call) { return true; }
  // How far this backend's result for an op of `shape` may be from `ref`'s: what the oracle
  // allows (op_tolerance.h). A device that rounds more than the CPU does (F16 activations, a
  // quantized query) says so here.
  virtual OpTolerance tolerance(const OpShape& shape) const;

  // y[t][o] = sum_i W[o][i] * x[t][i]; x[n_tok][w.cols], y[n_tok][w.rows].
  virtual void matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) = 0;
  // y[i][w.cols] = row ids[i] of w, dequantized exactly.
  virtual void get_rows(const Matrix& w, std::span<const int32_t> ids, float* y) = 0;

  // Per row of n: y = x / sqrt(mean(x^2) + eps) * w (w may be null: no scaling).
  virtual void rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps,
                        float* y) = 0;
  // NEOX RoPE in place on the first n_rot dims of every head; x[n_tok][n_head][head_dim],
  // token t at position pos[t].
  virtual void rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                         const int32_t* pos, float freq_base) = 0;
  // y = silu(gate) * up, elementwise over n.
  virtual void swiglu(const float* gate, const float* up, int64_t n, float* y) = 0;
  // x = silu(x) in place.
  virtual void silu(float* x, int64_t n) = 0;
  // x += y.
  virtual void add(float* x, const float* y, int64_t n) = 0;
  // x *= sigmoid(gate).
  virtual void mul_sigmoid(float* x, const float* gate, int64_t n) = 0;
  // Splits each of `rows` rows of 2n values: a[r] = x[r][0, n), b[r] = x[r][n, 2n).
  virtual void split_halves(const float* x, int64_t rows, int64_t n, float* a, float* b) = 0;
  // The inverse: out[r] = a[r] then b[r] (rows of n), e.g. the MTP head's [embedding | hidden].
  virtual void join_halves(const float* a, const float* b, int64_t rows, int64_t n, float* out) = 0;

  // Writes k, v ([n_tok][n_kv_head][head_dim]) at cache positions pos0 .. pos0+n_tok-1.
  virtual void kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k,
                        const float* v) = 0;
  // Causal attention of n_tok queries at positions pos0.. over cache positions [0, pos0+n_tok):
  // q[n_tok][n_head][head_dim] -> out[n_tok][n_head][head_dim]; query head h reads KV head
  // h / (n_head / n_kv_head); scores scaled by `scale`.
  virtual void attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                         int n_head, float scale, float* out) = 0;

  // Causal depthwise conv over time: x[n_tok][channels], w[channels][d_conv] (tap d_conv-1 is the
  // current token), state[channels][d_conv-1] (oldest first) updated in place;
  // out[n_tok][channels].
  virtual void ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv, const float* w,
                        float* state, float* out) = 0;
  // Decay and write-strength gates: g = softplus(alpha + dt_bias) * a (a = -exp(A_log)),
  // beta = sigmoid(b); alpha, b, g, beta are [n_tok][n_v].
  virtual void delta_net_gates(const float* alpha, const float* b, const float* dt_bias,
                               const float* a, int64_t n_tok, int n_v, float* g, float* beta) = 0;
  // Gated delta rule over n_tok tokens (spec/qwen35.md §8.4-8.5): qkv[n_tok][conv_dim] holds q,
  // k (L2-normalized here with eps) and v; value head h uses q/k head h % n_k;
  // state[n_v][d_v][d_k] updated in place; out[n_tok][n_v][d_v].
  virtual void gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                                const float* g, const float* beta, float eps, float* state,
                                float* out) = 0;
  // Per row of n: y = rms_norm(x) * w * silu(z); x, z, y [rows][n], w[n].
  virtual void gated_rms_norm(const float* x, const float* z, const float* w, int64_t n,
                              int64_t rows, float eps, float* y) = 0;
};

// Runs f(), which calls ops on `be`, then be.sync(). If f throws, be.sync() still runs first (the
// queued ops finish before the host touches what they use; a second error is dropped) and the
// first error is rethrown.
template <class F>
void run_and_sync(Backend& be, F&& f) {
  try {
    f();
  } catch (...) {
    try {
      be.sync();
    } catch (...) {
    }
    throw;
  }
  be.sync();
}

}  // namespace kz
