// Architecture `qwen3`: keys, tensors and the forward pass, top to bottom (spec/qwen3.md).
#include "model/qwen3.h"

#include <vector>

#include "base/error.h"
#include "model/blocks.h"
#include "model/hparams.h"
#include "model/tensor_list.h"
#include "model/weights.h"

namespace kz {
namespace {

struct Qwen3Layer {
  const float* attn_norm;  // [n_embd]
  AttentionWeights attn;
  const float* ffn_norm;  // [n_embd]
  FfnWeights ffn;
};

class Qwen3 final : public Model {
 public:
  explicit Qwen3(gguf::File file);
  SequenceState new_state(int64_t n_ctx, DType k_type, DType v_type) const override;

 protected:
  void forward(Backend& be, SequenceState& state, Scratch& s, std::span<const int32_t> tokens,
               const ForwardOutputs& out) const override;

 private:
  CommonHparams hp_;
  AttentionDims attn_;
  Matrix tok_embd_;        // {n_embd, V}
  const float* out_norm_;  // [n_embd]
  Matrix output_;          // {n_embd, V}: output.weight, or token_embd.weight when tied
  std::vector<Qwen3Layer> layers_;
};

Qwen3::Qwen3(gguf::File file) : Model(std::move(file)) {
  const gguf::File& f = file_;
  hp_ = read_common_hparams(f, "qwen3");
  if (f.opt_u32("qwen3.nextn_predict_layers").value_or(0) != 0)
    fail(f.path(), ": key 'qwen3.nextn_predict_layers' must be 0 for dense qwen3");
  if (hp_.n_rot != hp_.head_dim)
    fail(f.path(), ": key 'qwen3.rope.dimension_count' must equal the head dim ", hp_.head_dim);
  info_ = {"qwen3",     f.opt_string("general.name").value_or(""),
           hp_.n_vocab, hp_.n_embd,
           hp_.n_block, hp_.n_ctx_train};
  attn_ = {hp_.n_head, hp_.n_head_kv, hp_.head_dim, hp_.n_rot, hp_.freq_base, hp_.eps};

  const ArchDims dims = arch_dims(Arch::qwen3, hp_);
  const std::vector<BlockType> blocks(hp_.n_block, BlockType::attention);
  WeightBinder w(f);
  const BoundTensors t = w.bind(model_tensors(dims, blocks));
  using R = TensorRole;
  tok_embd_ = t.matrix(R::token_embd);
  out_norm_ = t.f32(R::output_norm);
  output_ = t.has(R::output) ? t.matrix(R::output) : tok_embd_;
  for (int64_t il = 0; il < hp_.n_block; ++il) {
    Qwen3Layer L;
    L.attn_norm = t.f32(R::attn_norm, il);
    L.attn = bind_attention(t, il);
    L.ffn_norm = t.f32(R::ffn_norm, il);
    L.ffn = bind_ffn(t, il);
    layers_.push_back(L);
  }
  w.finish();
}

SequenceState Qwen3::new_state(int64_t n_ctx, DType k_type, DType v_type) const {
  return make_state(n_ctx, k_type, v_type, int(layers_.size()), hp_.n_head_kv, hp_.head_dim, 0, 0,
                    0);
}

void Qwen3::forward(Backend& be, SequenceState& st, Scratch& s, std::span<const int32_t> tokens,
                    const ForwardOutputs& out) const {
  const int64_t T = int64_t(tokens.size()), E = hp_.n_embd, pos0 = st.n_past;
  const int64_t QD = int64_t(hp_.n_head) * hp_.head_dim, KD = int64_t(hp_.n_head_kv) * hp_.head_dim;
  float* x = s.get(kSlotX, T * E);
  float* a = s.get(kSlotNorm, T * E);
  float* q = s.get(kSlotQ, T * QD);
  float* k = s.get(kSlotK, T * KD);
  float* v = s.get(kSlotV, T * KD);
  float* o = s.get(kSlotAttn, T * QD);
  float* proj = s.get(kSlotOut, T * E);
  const int32_t* positions = s.positions(pos0, T);

  be.get_rows(tok_embd_, tokens, x);
  for (size_t il = 0; il < layers_.size(); ++il) {
    const Qwen3Layer& L = layers_[il];
    be.at_layer(int64_t(il));
    be.rms_norm(x, L.attn_norm, E, T, hp_.eps, a);
    be.matmul(L.attn.wq, a, T, q);
    be.matmul(L.attn.wk, a, T, k);
    be.matmul(L.attn.wv, a, T, v);
    const KvCacheView kv = kv_view(st, int(il), hp_.n_head_kv, hp_.head_dim);
    attention_core(be, attn_, q, k, v, L.attn.q_norm, L.attn.k_norm, kv, pos0, T, positions, o);
    be.matmul(L.attn.wo, o, T, proj);
    be.add(x, proj, T * E);

    be.rms_norm(x, L.ffn_norm, E, T, hp_.eps, a);
    ffn_swiglu(be, L.ffn, a, T, s, proj);
    be.add(x, proj, T * E);
  }
  be.at_layer(-1);
  output_head(be, x, T, E, out_norm_, hp_.eps, output_, out, s);
}

}  // namespace

std::unique_ptr<Model> load_qwen3(gguf::File file) {
  return std::make_unique<Qwen3>(std::move(file));
}

}  // namespace kz
