// Each architecture's tensors, written once: for the model's dimensions, every tensor's name,
// shape and kind. The loaders (qwen3.cpp, qwen35.cpp) bind exactly these lists (weights.h), and
// the synthetic-model generator (test_support/synthetic.cpp) writes them, adding only each
// tensor's random values.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/hparams.h"
#include "ops/op_types.h"

namespace kz {

enum class Arch : uint8_t { qwen3, qwen35 };

// What the loader makes of a tensor.
enum class TensorKind : uint8_t {
  matrix,      // {cols, rows} in the file's weight type (any type the engine computes)
  vector,      // 1-D, read as f32
  f32_matrix,  // 2-D, read as f32 (DeltaNet conv taps)
};

// What a tensor is for. A block's tensors are named blk.N.*, the MTP layer's blk.N.nextn.*.
enum class TensorRole : uint8_t {
  token_embd,
  output_norm,
  output,
  attn_norm,
  attn_q,  // qwen35: per head, D query values then D output-gate values
  attn_k,
  attn_v,
  attn_output,
  attn_q_norm,
  attn_k_norm,
  ffn_norm,  // qwen35: post_attention_norm
  ffn_gate,
  ffn_up,
  ffn_down,
  ssm_qkv,  // Gated DeltaNet (qwen35's recurrent blocks)
  ssm_gate,
  ssm_conv,
  ssm_dt_bias,
  ssm_a,
  ssm_beta,
  ssm_alpha,
  ssm_norm,
  ssm_out,
  mtp_embd,  // multi-token prediction (qwen35)
  mtp_enorm,
  mtp_hnorm,
  mtp_eh_proj,
  mtp_head_norm,
  mtp_head,
};

struct TensorSpec {
  TensorRole role;
  int64_t layer;  // the block, or -1
  std::string name;
  std::vector<int64_t> ne;  // ne[0] contiguous
  TensorKind kind;
  bool optional;  // the loader has a fallback (a tied LM head is token_embd)
};

// The dimensions the shapes are made of, as the loaders read them from the file's keys.
struct ArchDims {
  Arch arch = Arch::qwen3;
  int64_t n_vocab = 0, n_embd = 0, n_ff = 0;
  int n_head = 0, n_head_kv = 0, head_dim = 0;
  int d_conv = 0;        // qwen35's recurrent blocks: conv taps
  DeltaNetDims dn = {};  // and their heads
};

// The dimensions of a file's keys (read_common_hparams), with qwen35's recurrent blocks' own.
ArchDims arch_dims(Arch arch, const CommonHparams& hp, int d_conv = 0, DeltaNetDims dn = {});

enum class BlockType : uint8_t { attention, recurrent };  // qwen3: attention only

// One tensor; `layer` is its block (-1 for token_embd, output_norm and output).
TensorSpec tensor_spec(const ArchDims& d, TensorRole role, int64_t layer = -1);
// The tensors of block `layer`, in file order.
std::vector<TensorSpec> block_tensors(const ArchDims& d, int64_t layer, BlockType type);
// A model's tensors in file order: token_embd, the blocks, output_norm, output (optional).
std::vector<TensorSpec> model_tensors(const ArchDims& d, std::span<const BlockType> blocks);
// qwen35's MTP layer at block `layer`: its nextn tensors around a full-attention block.
std::vector<TensorSpec> mtp_tensors(const ArchDims& d, int64_t layer);

}  // namespace kz
