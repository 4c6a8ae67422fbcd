// The tensors of qwen3 (spec/qwen3.md) and qwen35 (spec/qwen35.md), named as llama.cpp's
// converter writes them.
#include "model/tensor_list.h"

namespace kz {

ArchDims arch_dims(Arch arch, const CommonHparams& hp, int d_conv, DeltaNetDims dn) {
  return {.arch = arch,
          .n_vocab = hp.n_vocab,
          .n_embd = hp.n_embd,
          .n_ff = hp.n_ff,
          .n_head = hp.n_head,
          .n_head_kv = hp.n_head_kv,
          .head_dim = hp.head_dim,
          .d_conv = d_conv,
          .dn = dn};
}

TensorSpec tensor_spec(const ArchDims& d, TensorRole role, int64_t layer) {
  const int64_t E = d.n_embd, V = d.n_vocab, F = d.n_ff, D = d.head_dim;
  const int64_t QD = int64_t(d.n_head) * D, KD = int64_t(d.n_head_kv) * D;
  const bool qwen35 = d.arch == Arch::qwen35;
  const std::string blk = layer < 0 ? "" : "blk." + std::to_string(layer) + ".";
  auto spec = [&](const char* name, std::vector<int64_t> ne, TensorKind kind,
                  bool optional = false) {
    return TensorSpec{role, layer, blk + name, std::move(ne), kind, optional};
  };
  auto matrix = [&](const char* name, int64_t cols, int64_t rows, bool optional = false) {
    return spec(name, {cols, rows}, TensorKind::matrix, optional);
  };
  auto vector = [&](const char* name, int64_t n, bool optional = false) {
    return spec(name, {n}, TensorKind::vector, optional);
  };
  switch (role) {
    case TensorRole::token_embd:
      return matrix("token_embd.weight", E, V);
    case TensorRole::output_norm:
      return vector("output_norm.weight", E);
    case TensorRole::output:
      return matrix("output.weight", E, V, true);
    case TensorRole::attn_norm:
      return vector("attn_norm.weight", E);
    case TensorRole::attn_q:
      return matrix("attn_q.weight", E, qwen35 ? 2 * QD : QD);
    case TensorRole::attn_k:
      return matrix("attn_k.weight", E, KD);
    case TensorRole::attn_v:
      return matrix("attn_v.weight", E, KD);
    case TensorRole::attn_output:
      return matrix("attn_output.weight", QD, E);
    case TensorRole::attn_q_norm:
      return vector("attn_q_norm.weight", D);
    case TensorRole::attn_k_norm:
      return vector("attn_k_norm.weight", D);
    case TensorRole::ffn_norm:
      return vector(qwen35 ? "post_attention_norm.weight" : "ffn_norm.weight", E);
    case TensorRole::ffn_gate:
      return matrix("ffn_gate.weight", E, F);
    case TensorRole::ffn_up:
      return matrix("ffn_up.weight", E, F);
    case TensorRole::ffn_down:
      return matrix("ffn_down.weight", F, E);
    case TensorRole::ssm_qkv:
      return matrix("attn_qkv.weight", E, d.dn.conv_dim());
    case TensorRole::ssm_gate:
      return matrix("attn_gate.weight", E, d.dn.value_dim());
    case TensorRole::ssm_conv:
      return spec("ssm_conv1d.weight", {d.d_conv, d.dn.conv_dim()}, TensorKind::f32_matrix);
    case TensorRole::ssm_dt_bias:
      return vector("ssm_dt.bias", d.dn.n_v);
    case TensorRole::ssm_a:  // stores -exp(A_log)
      return vector("ssm_a", d.dn.n_v);
    case TensorRole::ssm_beta:
      return matrix("ssm_beta.weight", E, d.dn.n_v);
    case TensorRole::ssm_alpha:
      return matrix("ssm_alpha.weight", E, d.dn.n_v);
    case TensorRole::ssm_norm:  // shared by all value heads
      return vector("ssm_norm.weight", d.dn.d_v);
    case TensorRole::ssm_out:
      return matrix("ssm_out.weight", d.dn.value_dim(), E);
    case TensorRole::mtp_embd:  // else token_embd
      return matrix("nextn.embed_tokens.weight", E, V, true);
    case TensorRole::mtp_enorm:
      return vector("nextn.enorm.weight", E);
    case TensorRole::mtp_hnorm:
      return vector("nextn.hnorm.weight", E);
    case TensorRole::mtp_eh_proj:  // [embedding | hidden] -> n_embd
      return matrix("nextn.eh_proj.weight", 2 * E, E);
    case TensorRole::mtp_head_norm:  // else output_norm
      return vector("nextn.shared_head_norm.weight", E, true);
    case TensorRole::mtp_head:  // else the LM head
      return matrix("nextn.shared_head_head.weight", E, V, true);
  }
  return {};  // not reached: the switch names every role
}

std::vector<TensorSpec> block_tensors(const ArchDims& d, int64_t layer, BlockType type) {
  using R = TensorRole;
  std::vector<TensorRole> roles = {R::attn_norm};
  if (type == BlockType::recurrent)
    roles.insert(roles.end(), {R::ssm_qkv, R::ssm_gate, R::ssm_conv, R::ssm_dt_bias, R::ssm_a,
                               R::ssm_beta, R::ssm_alpha, R::ssm_norm, R::ssm_out});
  else
    roles.insert(roles.end(),
                 {R::attn_q, R::attn_k, R::attn_v, R::attn_output, R::attn_q_norm, R::attn_k_norm});
  roles.insert(roles.end(), {R::ffn_norm, R::ffn_gate, R::ffn_up, R::ffn_down});
  std::vector<TensorSpec> list;
  for (TensorRole r : roles) list.push_back(tensor_spec(d, r, layer));
  return list;
}

std::vector<TensorSpec> model_tensors(const ArchDims& d, std::span<const BlockType> blocks) {
  std::vector<TensorSpec> list = {tensor_spec(d, TensorRole::token_embd)};
  for (size_t il = 0; il < blocks.size(); ++il)
    for (TensorSpec& t : block_tensors(d, int64_t(il), blocks[il])) list.push_back(std::move(t));
  list.push_back(tensor_spec(d, TensorRole::output_norm));
  list.push_back(tensor_spec(d, TensorRole::output));
  return list;
}

std::vector<TensorSpec> mtp_tensors(const ArchDims& d, int64_t layer) {
  using R = TensorRole;
  std::vector<TensorSpec> list;
  for (TensorRole r : {R::mtp_embd, R::mtp_enorm, R::mtp_hnorm, R::mtp_eh_proj})
    list.push_back(tensor_spec(d, r, layer));
  for (TensorSpec& t : block_tensors(d, layer, BlockType::attention)) list.push_back(std::move(t));
  for (TensorRole r : {R::mtp_head_norm, R::mtp_head}) list.push_back(tensor_spec(d, r, layer));
  return list;
}

}  // namespace kz
