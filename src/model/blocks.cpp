#include "model/blocks.h"

#include <cmath>
#include <limits>

#include "base/error.h"
#include "base/system_memory.h"

namespace kz {

AttentionWeights bind_attention(const BoundTensors& t, int64_t layer) {
  using R = TensorRole;
  return {t.matrix(R::attn_q, layer),   t.matrix(R::attn_k, layer),
          t.matrix(R::attn_v, layer),   t.matrix(R::attn_output, layer),
          t.f32(R::attn_q_norm, layer), t.f32(R::attn_k_norm, layer)};
}

FfnWeights bind_ffn(const BoundTensors& t, int64_t layer) {
  using R = TensorRole;
  return {t.matrix(R::ffn_gate, layer), t.matrix(R::ffn_up, layer), t.matrix(R::ffn_down, layer)};
}

void attention_core(Backend& be, const AttentionDims& d, float* q, float* k, const float* v,
                    const float* q_norm, const float* k_norm, const KvCacheView& kv, int64_t pos0,
                    int64_t n_tok, const int32_t* positions, float* out) {
  be.rms_norm(q, q_norm, d.head_dim, n_tok * d.n_head, d.eps, q);
  be.rms_norm(k, k_norm, d.head_dim, n_tok * d.n_head_kv, d.eps, k);
  be.rope_neox(q, n_tok, d.n_head, d.head_dim, d.n_rot, positions, d.freq_base);
  be.rope_neox(k, n_tok, d.n_head_kv, d.head_dim, d.n_rot, positions, d.freq_base);
  be.kv_store(kv, pos0, n_tok, k, v);
  be.attention(q, kv, pos0, n_tok, d.n_head, 1.0f / std::sqrt(float(d.head_dim)), out);
}

void ffn_swiglu(Backend& be, const FfnWeights& w, const float* f, int64_t n_tok, Scratch& s,
                float* out) {
  const int64_t n_ff = w.gate.rows;
  float* gate = s.get(kSlotGate, n_tok * n_ff);
  float* up = s.get(kSlotUp, n_tok * n_ff);
  be.matmul(w.gate, f, n_tok, gate);
  be.matmul(w.up, f, n_tok, up);
  be.swiglu(gate, up, n_tok * n_ff, gate);
  be.matmul(w.down, gate, n_tok, out);
}

void output_head(Backend& be, const float* x, int64_t n_tok, int64_t n_embd, const float* norm,
                 float eps, const Matrix& head, const ForwardOutputs& out, Scratch& s) {
  const int64_t rows = out.all_logits ? n_tok : 1;
  if (out.hidden) {
    be.rms_norm(x, norm, n_embd, n_tok, eps, out.hidden);
    if (out.logits) be.matmul(head, out.hidden + (n_tok - rows) * n_embd, rows, out.logits);
    return;
  }
  if (!out.logits) return;
  float* normed = s.get(kSlotLogitsIn, rows * n_embd);
  be.rms_norm(x + (n_tok - rows) * n_embd, norm, n_embd, rows, eps, normed);
  be.matmul(head, normed, rows, out.logits);
}

KvCacheView kv_view(SequenceState& st, int attn_index, int n_head_kv, int head_dim) {
  KvCacheView v;
  v.k_type = st.k_type;
  v.v_type = st.v_type;
  v.k = st.attn[attn_index].k.data();
  v.v = st.attn[attn_index].v.data();
  v.n_ctx = st.n_ctx;
  v.n_kv_head = n_head_kv;
  v.head_dim = head_dim;
  return v;
}

SequenceState make_state(int64_t n_ctx, DType k_type, DType v_type, int n_attn, int n_head_kv,
                         int head_dim, int n_recur, int64_t conv_floats, int64_t ssm_floats) {
  check_kv_cache_type(k_type, head_dim, "K cache type");
  check_kv_cache_type(v_type, head_dim, "V cache type");
  if (n_ctx < 1) fail("context size must be at least 1, got ", n_ctx);
  if (n_ctx > std::numeric_limits<int32_t>::max())  // positions are int32
    fail("context size ", n_ctx, " exceeds the largest position, ",
         std::numeric_limits<int32_t>::max());
  const int64_t row = int64_t(n_head_kv) * head_dim;
  const uint64_t k_bytes = n_ctx * row_bytes(k_type, row), v_bytes = n_ctx * row_bytes(v_type, row);
  const double bytes = double(n_attn) * double(k_bytes + v_bytes) +
                       double(n_recur) * double(conv_floats + ssm_floats) * sizeof(float);
  if (const uint64_t ram = physical_memory_bytes(); ram > 0 && bytes > double(ram))
    fail("a context of ", n_ctx, " tokens needs ", bytes / double(1 << 30),
         " GiB of state; this machine has ", double(ram) / double(1 << 30), " GiB of memory");
  SequenceState st;
  st.k_type = k_type;
  st.v_type = v_type;
  st.n_ctx = n_ctx;
  st.n_kv_head = n_head_kv;
  st.attn.resize(n_attn);
  for (auto& c : st.attn) {
    c.k.assign(k_bytes, 0);
    c.v.assign(v_bytes, 0);
  }
  st.recur = RecurrentStates(n_recur, conv_floats, ssm_floats);
  return st;
}

}  // namespace kz
