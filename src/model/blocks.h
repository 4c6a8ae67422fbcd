// Blocks shared by the Qwen architectures: the attention core (Q/K norm, RoPE, cache, softmax
// attention) and the SwiGLU feed-forward network. Every step is one backend op.
#pragma once

#include <cstdint>
#include <span>

#include "backend/backend.h"
#include "model/scratch.h"
#include "model/state.h"
#include "model/weights.h"

namespace kz {

// Scratch slots, shared by all architectures (a forward pass uses each for one purpose).
enum ScratchSlot : size_t {
  kSlotX,     // residual stream [T][n_embd]
  kSlotNorm,  // normed input of a mixer / FFN [T][n_embd]
  kSlotQ,     // queries (qwen35: query+gate) [T][...]
  kSlotK,
  kSlotV,
  kSlotAttn,  // attention output [T][H*D]
  kSlotOut,   // projection back to n_embd [T][n_embd]
  kSlotGate,  // FFN gate, attention gate, DeltaNet z
  kSlotUp,    // FFN up
  kSlotConv,  // DeltaNet conv output [T][conv_dim]
  kSlotAlpha,
  kSlotBeta,
  kSlotDecay,
  kSlotWriteStrength,
  kSlotLogitsIn,  // final-normed rows for the LM head
  kSlotCount
};

// What a forward pass writes besides the sequence state: the logits of every row or of the last
// (null: none, e.g. an early batch of a long prompt) and, if `hidden` is set, every row's
// final-normed hidden state.
struct ForwardOutputs {
  bool all_logits = false;
  float* logits = nullptr;
  float* hidden = nullptr;
  // Recurrent state at positions inside the batch (Model::eval's snapshots), in order.
  std::span<Checkpoint> snapshots;
};

struct AttentionDims {
  int n_head = 0, n_head_kv = 0, head_dim = 0, n_rot = 0;
  float freq_base = 10000.0f, eps = 1e-6f;
};

// A full-attention layer's projections and Q/K norms. wq is {n_embd, H*D}; in qwen35 it is
// {n_embd, 2*H*D}, per head D query values then D gate values (spec/qwen35.md §7.1).
struct AttentionWeights {
  Matrix wq;
  Matrix wk, wv;        // {n_embd, H_kv*D}
  Matrix wo;            // {H*D, n_embd}
  const float* q_norm;  // [D], shared by all heads
  const float* k_norm;  // [D]
};

AttentionWeights bind_attention(const BoundTensors& t, int64_t layer);

// Q/K RMSNorm per head, NEOX RoPE on the first n_rot dims, K/V stored at positions pos0..,
// causal attention. q[T][H][D] and k[T][H_kv][D] are modified in place; out[T][H][D].
void attention_core(Backend& be, const AttentionDims& d, float* q, float* k, const float* v,
                    const float* q_norm, const float* k_norm, const KvCacheView& kv, int64_t pos0,
                    int64_t n_tok, const int32_t* positions, float* out);

struct FfnWeights {
  Matrix gate, up, down;  // gate/up {n_embd, n_ff}, down {n_ff, n_embd}
};

FfnWeights bind_ffn(const BoundTensors& t, int64_t layer);

// out[T][n_embd] = down(silu(gate(f)) * up(f)).
void ffn_swiglu(Backend& be, const FfnWeights& w, const float* f, int64_t n_tok, Scratch& s,
                float* out);

// Final RMSNorm and LM head: logits of every row or of the last (ForwardOutputs), and the
// final-normed rows themselves if wanted.
void output_head(Backend& be, const float* x, int64_t n_tok, int64_t n_embd, const float* norm,
                 float eps, const Matrix& head, const ForwardOutputs& out, Scratch& s);

KvCacheView kv_view(SequenceState& st, int attn_index, int n_head_kv, int head_dim);

// A state with zeroed KV caches for n_attn attention layers of n_head_kv x head_dim and
// zeroed recurrent states of the given sizes for n_recur layers. k/v types: F32, F16 or Q8_0
// (check_kv_cache_type).
SequenceState make_state(int64_t n_ctx, DType k_type, DType v_type, int n_attn, int n_head_kv,
                         int head_dim, int n_recur, int64_t conv_floats, int64_t ssm_floats);

}  // namespace kz
