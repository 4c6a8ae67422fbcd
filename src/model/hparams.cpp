#include "model/hparams.h"

#include "base/error.h"
#include "model/weights.h"

namespace kz {

CommonHparams read_common_hparams(const gguf::File& f, const std::string& arch) {
  const std::string a = arch + ".";
  CommonHparams h;
  const gguf::Value* tokens = f.find("tokenizer.ggml.tokens");
  if (!tokens || tokens->type() != gguf::ValueType::ARRAY)
    fail(f.path(), ": key 'tokenizer.ggml.tokens' is missing or not an array");
  h.n_vocab = int64_t(std::get<gguf::Array>(tokens->v).items.size());
  h.n_ctx_train = f.get_u32(a + "context_length");
  h.n_embd = f.get_u32(a + "embedding_length");
  h.n_block = f.get_u32(a + "block_count");
  h.n_ff = u32_or_uniform_array(f, a + "feed_forward_length");
  h.n_head = int(u32_or_uniform_array(f, a + "attention.head_count"));
  h.n_head_kv = f.find(a + "attention.head_count_kv")
                    ? int(u32_or_uniform_array(f, a + "attention.head_count_kv"))
                    : h.n_head;
  if (h.n_embd <= 0) fail(f.path(), ": key '", a, "embedding_length' must be positive");
  if (h.n_block < 1 || h.n_block > 512)
    fail(f.path(), ": key '", a, "block_count' = ", h.n_block, " is outside 1..512");
  if (h.n_head <= 0 || h.n_head_kv <= 0 || h.n_head % h.n_head_kv != 0)
    fail(f.path(), ": head counts ", h.n_head, " / ", h.n_head_kv, " are invalid (key '", a,
         "attention.head_count_kv' must divide head_count)");
  if (h.n_ff <= 0) fail(f.path(), ": key '", a, "feed_forward_length' must be positive");
  h.head_dim = int(f.opt_u32(a + "attention.key_length").value_or(uint32_t(h.n_embd / h.n_head)));
  const int v_len = int(f.opt_u32(a + "attention.value_length").value_or(uint32_t(h.head_dim)));
  if (v_len != h.head_dim)
    fail(f.path(), ": key '", a, "attention.value_length' (", v_len, ") differs from key_length (",
         h.head_dim, "), which is not supported");
  h.n_rot = int(f.opt_u32(a + "rope.dimension_count").value_or(uint32_t(h.head_dim)));
  if (h.n_rot <= 0 || h.n_rot > h.head_dim || h.n_rot % 2)
    fail(f.path(), ": key '", a, "rope.dimension_count' = ", h.n_rot, " is invalid for head dim ",
         h.head_dim);
  h.freq_base = f.opt_f32(a + "rope.freq_base").value_or(10000.0f);
  h.eps = f.get_f32(a + "attention.layer_norm_rms_epsilon");
  if (auto type = f.opt_string(a + "rope.scaling.type");
      type && *type != "none" && *type != "linear")
    fail(f.path(), ": key '", a, "rope.scaling.type' = '", *type, "' is not supported");
  if (auto factor = f.opt_f32(a + "rope.scaling.factor");
      factor && *factor != 0.0f && *factor != 1.0f)
    fail(f.path(), ": key '", a, "rope.scaling.factor' = ", *factor, " is not supported");
  return h;
}

}  // namespace kz
