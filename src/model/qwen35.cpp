// Architecture `qwen35`: hybrid of Gated DeltaNet (recurrent) layers and gated full-attention
// layers; keys, tensors and the forward pass, top to bottom (spec/qwen35.md).
#include "model/qwen35.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

#include "base/error.h"
#include "model/blocks.h"
#include "model/hparams.h"
#include "model/tensor_list.h"
#include "model/weights.h"

namespace kz {
namespace {

struct DeltaNet {
  Matrix w_qkv;            // {n_embd, conv_dim}: q | k | v channels
  Matrix w_gate;           // {n_embd, value_dim}: z
  Matrix w_beta, w_alpha;  // {n_embd, n_v}
  const float* conv;       // [conv_dim][d_conv]
  const float* dt_bias;    // [n_v]
  const float* a;          // [n_v], stores -exp(A_log)
  const float* norm;       // [d_v], shared by all value heads
  Matrix w_out;            // {value_dim, n_embd}
};

struct Qwen35Layer {
  bool recurrent;
  int state_index = 0;     // into SequenceState::recur or ::attn
  const float* attn_norm;  // [n_embd]
  const float* post_norm;  // [n_embd], the pre-FFN norm
  AttentionWeights attn;   // wq holds query and gate
  DeltaNet dn;
  FfnWeights ffn;
};

// The multi-token-prediction (NextN) layer (spec/qwen35.md §4.5-4.6): the token's embedding and a
// hidden state, normed, joined and projected, then one gated full-attention block and the head.
struct MtpLayer {
  Matrix embd;             // nextn.embed_tokens, else token_embd
  const float* enorm;      // [n_embd], on the embedding
  const float* hnorm;      // [n_embd], on the hidden state
  Matrix eh_proj;          // {2*n_embd, n_embd}: [embedding | hidden] -> n_embd
  Qwen35Layer block;       // full attention, its own state's attention layer 0
  const float* head_norm;  // nextn.shared_head_norm, else output_norm
  Matrix head;             // nextn.shared_head_head, else the output matrix
};

class Qwen35 final : public Model {
 public:
  explicit Qwen35(gguf::File file);
  SequenceState new_state(int64_t n_ctx, DType k_type, DType v_type) const override;
  bool has_mtp() const override { return mtp_.has_value(); }
  SequenceState new_mtp_state(int64_t n_ctx, DType k_type, DType v_type) const override;

 protected:
  void forward(Backend& be, SequenceState& state, Scratch& s, std::span<const int32_t> tokens,
               const ForwardOutputs& out) const override;
  void mtp_forward(Backend& be, SequenceState& state, Scratch& s, std::span<const int32_t> tokens,
                   const float* hidden, const ForwardOutputs& out) const override;

 private:
  void read_hparams();
  Qwen35Layer bind_layer(const BoundTensors& t, int64_t il, bool recurrent) const;
  MtpLayer bind_mtp(const BoundTensors& t, int64_t il) const;
  // One block on the residual stream x[T][n_embd]: mixer and FFN, each with its residual; a
  // recurrent layer's state is copied into `snapshots` (positions within the batch) on the way.
  void layer(Backend& be, const Qwen35Layer& L, SequenceState& st, Scratch& s, float* x, int64_t T,
             std::span<Checkpoint> snapshots) const;
  void attention_mixer(Backend& be, const Qwen35Layer& L, SequenceState& st, Scratch& s,
                       const float* a, int64_t T, float* out) const;
  void delta_net_mixer(Backend& be, const Qwen35Layer& L, SequenceState& st, Scratch& s,
                       const float* a, int64_t T, float* out,
                       std::span<Checkpoint> snapshots) const;

  CommonHparams hp_;
  AttentionDims attn_;
  DeltaNetDims dn_;
  int d_conv_ = 0;
  int64_t n_layer_ = 0;            // trunk layers (block_count minus MTP layers)
  std::vector<BlockType> blocks_;  // of the trunk
  Matrix tok_embd_, output_;
  const float* out_norm_;
  std::vector<Qwen35Layer> layers_;
  int n_attn_layers_ = 0, n_recur_layers_ = 0;
  std::optional<MtpLayer> mtp_;
};

void Qwen35::read_hparams() {
  const gguf::File& f = file_;
  hp_ = read_common_hparams(f, "qwen35");
  const int64_t n_mtp = f.opt_u32("qwen35.nextn_predict_layers").value_or(0);
  if (n_mtp >= hp_.n_block)
    fail(f.path(), ": key 'qwen35.nextn_predict_layers' = ", n_mtp, " leaves no trunk layers");
  n_layer_ = hp_.n_block - n_mtp;

  d_conv_ = int(f.get_u32("qwen35.ssm.conv_kernel"));
  const int64_t inner = f.get_u32("qwen35.ssm.inner_size");
  dn_.d_k = int(f.get_u32("qwen35.ssm.state_size"));
  dn_.n_v = int(f.get_u32("qwen35.ssm.time_step_rank"));
  dn_.n_k = int(f.get_u32("qwen35.ssm.group_count"));
  if (d_conv_ < 1) fail(f.path(), ": key 'qwen35.ssm.conv_kernel' must be at least 1");
  if (dn_.n_k <= 0 || dn_.n_v <= 0 || dn_.d_k <= 0)
    fail(f.path(), ": keys 'qwen35.ssm.group_count', 'time_step_rank', 'state_size' must be > 0");
  if (dn_.n_v % dn_.n_k != 0)
    fail(f.path(), ": value heads (qwen35.ssm.time_step_rank = ", dn_.n_v,
         ") must be a multiple of key heads (qwen35.ssm.group_count = ", dn_.n_k, ")");
  if (inner % dn_.n_v != 0 || inner / dn_.n_v != dn_.d_k)
    fail(f.path(), ": key 'qwen35.ssm.inner_size' = ", inner, " must equal time_step_rank (",
         dn_.n_v, ") x state_size (", dn_.d_k, ")");
  dn_.d_v = int(inner / dn_.n_v);

  // IMRoPE for text: streams t, h, w carry the position and e carries 0, so a pair in the e
  // section is not rotated. Real models put every rotated pair in t/h/w; we require that.
  const auto sections = f.get_int_array("qwen35.rope.dimension_sections");
  if (sections.size() != 4)
    fail(f.path(), ": key 'qwen35.rope.dimension_sections' must have 4 entries, has ",
         sections.size());
  const int64_t t = sections[0], h = sections[1], w = sections[2], sum = t + h + w + sections[3];
  if (sum <= 0) fail(f.path(), ": key 'qwen35.rope.dimension_sections' sums to ", sum);
  for (int k = 0; k < hp_.n_rot / 2; ++k) {
    const int64_t sec = k % sum;
    const bool positional = (sec % 3 == 1 && sec < 3 * h) || (sec % 3 == 2 && sec < 3 * w) ||
                            (sec % 3 == 0 && sec < 3 * t);
    if (!positional)
      fail(f.path(), ": key 'qwen35.rope.dimension_sections' puts rotary pair ", k,
           " in the extra (non-positional) section, which is not supported");
  }

  if (f.find("qwen35.attention.recurrent_layers")) {
    const auto flags = f.get_int_array("qwen35.attention.recurrent_layers");
    if (int64_t(flags.size()) != hp_.n_block)
      fail(f.path(), ": key 'qwen35.attention.recurrent_layers' has ", flags.size(),
           " entries, expected block_count = ", hp_.n_block);
    for (int64_t il = 0; il < n_layer_; ++il)
      blocks_.push_back(flags[il] != 0 ? BlockType::recurrent : BlockType::attention);
  } else {
    const int64_t interval = f.opt_u32("qwen35.full_attention_interval").value_or(4);
    if (interval < 1) fail(f.path(), ": key 'qwen35.full_attention_interval' must be >= 1");
    for (int64_t il = 0; il < n_layer_; ++il)
      blocks_.push_back((il + 1) % interval != 0 ? BlockType::recurrent : BlockType::attention);
  }
}

Qwen35::Qwen35(gguf::File file) : Model(std::move(file)) {
  read_hparams();
  const gguf::File& f = file_;
  info_ = {"qwen35",    f.opt_string("general.name").value_or(""),
           hp_.n_vocab, hp_.n_embd,
           n_layer_,    hp_.n_ctx_train};
  attn_ = {hp_.n_head, hp_.n_head_kv, hp_.head_dim, hp_.n_rot, hp_.freq_base, hp_.eps};

  const ArchDims dims = arch_dims(Arch::qwen35, hp_, d_conv_, dn_);
  WeightBinder w(f);
  const BoundTensors t = w.bind(model_tensors(dims, blocks_));
  tok_embd_ = t.matrix(TensorRole::token_embd);
  out_norm_ = t.f32(TensorRole::output_norm);
  output_ = t.has(TensorRole::output) ? t.matrix(TensorRole::output) : tok_embd_;
  for (int64_t il = 0; il < n_layer_; ++il) {
    Qwen35Layer L = bind_layer(t, il, blocks_[il] == BlockType::recurrent);
    L.state_index = L.recurrent ? n_recur_layers_++ : n_attn_layers_++;
    layers_.push_back(L);
  }
  // The first MTP layer drafts (the reference's MTP graph runs exactly one); further ones, or
  // one without its nextn tensors, stay mapped and unused.
  if (n_layer_ < hp_.n_block && w.has(tensor_spec(dims, TensorRole::mtp_eh_proj, n_layer_).name))
    mtp_ = bind_mtp(w.bind(mtp_tensors(dims, n_layer_)), n_layer_);
  for (const auto& tensor : f.tensors()) {
    const std::string& name = tensor.name;
    int64_t il = -1;
    if (name.rfind("blk.", 0) == 0) std::from_chars(name.data() + 4, name.data() + name.size(), il);
    if (il > n_layer_ || (il == n_layer_ && !mtp_)) w.keep(name);
  }
  w.finish();
}

Qwen35Layer Qwen35::bind_layer(const BoundTensors& t, int64_t il, bool recurrent) const {
  using R = TensorRole;
  Qwen35Layer L{};
  L.recurrent = recurrent;
  L.attn_norm = t.f32(R::attn_norm, il);
  L.post_norm = t.f32(R::ffn_norm, il);
  L.ffn = bind_ffn(t, il);
  if (L.recurrent) {
    DeltaNet& d = L.dn;
    d.w_qkv = t.matrix(R::ssm_qkv, il);
    d.w_gate = t.matrix(R::ssm_gate, il);
    d.conv = t.f32(R::ssm_conv, il);
    d.dt_bias = t.f32(R::ssm_dt_bias, il);
    d.a = t.f32(R::ssm_a, il);
    d.w_beta = t.matrix(R::ssm_beta, il);
    d.w_alpha = t.matrix(R::ssm_alpha, il);
    d.norm = t.f32(R::ssm_norm, il);
    d.w_out = t.matrix(R::ssm_out, il);
  } else {
    L.attn = bind_attention(t, il);
  }
  return L;
}

MtpLayer Qwen35::bind_mtp(const BoundTensors& t, int64_t il) const {
  using R = TensorRole;
  MtpLayer m;
  m.embd = t.has(R::mtp_embd, il) ? t.matrix(R::mtp_embd, il) : tok_embd_;
  m.enorm = t.f32(R::mtp_enorm, il);
  m.hnorm = t.f32(R::mtp_hnorm, il);
  m.eh_proj = t.matrix(R::mtp_eh_proj, il);
  m.block = bind_layer(t, il, false);
  m.block.state_index = 0;  // the one attention layer of its own state (new_mtp_state)
  m.head_norm = t.has(R::mtp_head_norm, il) ? t.f32(R::mtp_head_norm, il) : out_norm_;
  m.head = t.has(R::mtp_head, il) ? t.matrix(R::mtp_head, il) : output_;
  return m;
}

SequenceState Qwen35::new_state(int64_t n_ctx, DType k_type, DType v_type) const {
  return make_state(n_ctx, k_type, v_type, n_attn_layers_, hp_.n_head_kv, hp_.head_dim,
                    n_recur_layers_, dn_.conv_dim() * (d_conv_ - 1), dn_.state_floats());
}

SequenceState Qwen35::new_mtp_state(int64_t n_ctx, DType k_type, DType v_type) const {
  if (!mtp_) Model::new_mtp_state(n_ctx, k_type, v_type);  // throws
  return make_state(n_ctx, k_type, v_type, 1, hp_.n_head_kv, hp_.head_dim, 0, 0, 0);
}

void Qwen35::attention_mixer(Backend& be, const Qwen35Layer& L, SequenceState& st, Scratch& s,
                             const float* a, int64_t T, float* out) const {
  const int H = hp_.n_head, D = hp_.head_dim;
  const int64_t QD = int64_t(H) * D, KD = int64_t(hp_.n_head_kv) * D;
  float* qg = s.get(kSlotAttn, T * 2 * QD);
  float* q = s.get(kSlotQ, T * QD);
  float* gate = s.get(kSlotGate, T * QD);
  float* k = s.get(kSlotK, T * KD);
  float* v = s.get(kSlotV, T * KD);
  be.matmul(L.attn.wq, a, T, qg);
  // Per head the projection holds D query values then D gate values (spec §7.1).
  be.split_halves(qg, T * H, D, q, gate);
  be.matmul(L.attn.wk, a, T, k);
  be.matmul(L.attn.wv, a, T, v);
  const KvCacheView kv = kv_view(st, L.state_index, hp_.n_head_kv, hp_.head_dim);
  float* o = qg;  // the joint projection is no longer needed
  attention_core(be, attn_, q, k, v, L.attn.q_norm, L.attn.k_norm, kv, st.n_past, T,
                 s.positions(st.n_past, T), o);
  be.mul_sigmoid(o, gate, T * QD);
  be.matmul(L.attn.wo, o, T, out);
}

void Qwen35::delta_net_mixer(Backend& be, const Qwen35Layer& L, SequenceState& st, Scratch& s,
                             const float* a, int64_t T, float* out,
                             std::span<Checkpoint> snapshots) const {
  const DeltaNet& d = L.dn;
  const std::span<float> conv_state = st.recur.conv(L.state_index),
                         ssm_state = st.recur.ssm(L.state_index);
  const int64_t C = dn_.conv_dim();
  float* qkv = s.get(kSlotQ, T * C);
  float* conv = s.get(kSlotConv, T * C);
  float* z = s.get(kSlotGate, T * dn_.value_dim());
  float* alpha = s.get(kSlotAlpha, T * dn_.n_v);
  float* b = s.get(kSlotBeta, T * dn_.n_v);
  float* decay = s.get(kSlotDecay, T * dn_.n_v);
  float* strength = s.get(kSlotWriteStrength, T * dn_.n_v);
  float* o = s.get(kSlotAttn, T * dn_.value_dim());
  float* y = s.get(kSlotV, T * dn_.value_dim());

  be.matmul(d.w_qkv, a, T, qkv);
  be.matmul(d.w_gate, a, T, z);
  be.matmul(d.w_beta, a, T, b);
  be.matmul(d.w_alpha, a, T, alpha);
  // The conv window and the delta rule carry state from token to token: they run up to each
  // snapshot position in turn, where save() copies their state; the other ops see the batch whole.
  auto in_segments = [&](auto&& step, auto&& save) {
    int64_t t0 = 0;
    for (Checkpoint& c : snapshots) {
      const int64_t t1 = c.n_past - st.n_past;
      if (t1 > t0) step(t0, t1 - t0);
      t0 = t1;
      be.sync();  // a device's results are in host memory before the copy
      save(c.recur);
    }
    if (T > t0) step(t0, T - t0);
  };
  in_segments(
      [&](int64_t t0, int64_t n) {
        be.ssm_conv(qkv + t0 * C, n, C, d_conv_, d.conv, conv_state.data(), conv + t0 * C);
      },
      [&](RecurrentStates& r) { std::ranges::copy(conv_state, r.conv(L.state_index).begin()); });
  be.silu(conv, T * C);
  be.delta_net_gates(alpha, b, d.dt_bias, d.a, T, dn_.n_v, decay, strength);
  in_segments(
      [&](int64_t t0, int64_t n) {
        be.gated_delta_rule(dn_, n, conv + t0 * C, decay + t0 * dn_.n_v, strength + t0 * dn_.n_v,
                            hp_.eps, ssm_state.data(), o + t0 * dn_.value_dim());
      },
      [&](RecurrentStates& r) { std::ranges::copy(ssm_state, r.ssm(L.state_index).begin()); });
  be.gated_rms_norm(o, z, d.norm, dn_.d_v, T * dn_.n_v, hp_.eps, y);
  be.matmul(d.w_out, y, T, out);
}

void Qwen35::layer(Backend& be, const Qwen35Layer& L, SequenceState& st, Scratch& s, float* x,
                   int64_t T, std::span<Checkpoint> snapshots) const {
  const int64_t E = hp_.n_embd;
  float* a = s.get(kSlotNorm, T * E);
  float* m = s.get(kSlotOut, T * E);
  be.rms_norm(x, L.attn_norm, E, T, hp_.eps, a);
  if (L.recurrent)
    delta_net_mixer(be, L, st, s, a, T, m, snapshots);
  else
    attention_mixer(be, L, st, s, a, T, m);
  be.add(x, m, T * E);
  be.rms_norm(x, L.post_norm, E, T, hp_.eps, a);
  ffn_swiglu(be, L.ffn, a, T, s, m);
  be.add(x, m, T * E);
}

void Qwen35::forward(Backend& be, SequenceState& st, Scratch& s, std::span<const int32_t> tokens,
                     const ForwardOutputs& out) const {
  const int64_t T = int64_t(tokens.size()), E = hp_.n_embd;
  float* x = s.get(kSlotX, T * E);
  be.get_rows(tok_embd_, tokens, x);
  for (size_t il = 0; il < layers_.size(); ++il) {
    be.at_layer(int64_t(il));
    layer(be, layers_[il], st, s, x, T, out.snapshots);
  }
  be.at_layer(-1);
  output_head(be, x, T, E, out_norm_, hp_.eps, output_, out, s);
}

void Qwen35::mtp_forward(Backend& be, SequenceState& st, Scratch& s,
                         std::span<const int32_t> tokens, const float* hidden,
                         const ForwardOutputs& out) const {
  const MtpLayer& M = *mtp_;
  const int64_t T = int64_t(tokens.size()), E = hp_.n_embd;
  float* x = s.get(kSlotX, T * E);
  float* e = s.get(kSlotNorm, T * E);
  float* h = s.get(kSlotOut, T * E);
  float* joined = s.get(kSlotUp, T * 2 * E);
  be.at_layer(n_layer_);
  be.get_rows(M.embd, tokens, x);
  be.rms_norm(x, M.enorm, E, T, hp_.eps, e);
  be.rms_norm(hidden, M.hnorm, E, T, hp_.eps, h);
  be.join_halves(e, h, T, E, joined);  // the embedding first: eh_proj's columns 0..E-1 act on it
  be.matmul(M.eh_proj, joined, T, x);
  layer(be, M.block, st, s, x, T, {});
  be.at_layer(-1);
  output_head(be, x, T, E, M.head_norm, hp_.eps, M.head, out, s);
}

}  // namespace

std::unique_ptr<Model> load_qwen35(gguf::File file) {
  return std::make_unique<Qwen35>(std::move(file));
}

}  // namespace kz
