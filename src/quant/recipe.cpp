// The reference quantizer's per-tensor rules (llama.cpp src/llama-quant.cpp: tensor_get_category,
// tensor_allows_quantization, llama_tensor_get_type_impl, tensor_type_fallback), for the mixes in
// kMixes. Branches for mixes we do not offer (IQ1-IQ3, TQ, MXFP4, Q2_K_S), for MoE models, Falcon
// and LLaMA-70B are left out: they never fire for these mixes on a dense qwen3/qwen35 model.
#include "quant/recipe.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "base/error.h"

namespace kz {
namespace {

// llama_ftype values (general.file_type) of the mixes.
enum Ftype : uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ4_1 = 3,
  kQ8_0 = 7,
  kQ5_0 = 8,
  kQ5_1 = 9,
  kQ2_K = 10,
  kQ3_K_S = 11,
  kQ3_K_M = 12,
  kQ3_K_L = 13,
  kQ4_K_S = 14,
  kQ4_K_M = 15,
  kQ5_K_S = 16,
  kQ5_K_M = 17,
  kQ6_K = 18,
  kIQ4_NL = 25,
  kIQ4_XS = 30,
  kBF16 = 32,
};

const std::vector<QuantMix> kMixes = {
    {"F32", kF32, DType::F32, "32-bit floats (no quantization)"},
    {"F16", kF16, DType::F16, "16-bit floats"},
    {"BF16", kBF16, DType::BF16, "bfloat16"},
    {"Q8_0", kQ8_0, DType::Q8_0, "8.5 bpw"},
    {"Q6_K", kQ6_K, DType::Q6_K, "6.56 bpw"},
    {"Q5_K_M", kQ5_K_M, DType::Q5_K, "Q5_K; Q6_K for attn_v/attn_qkv/ffn_down of some layers"},
    {"Q5_K_S", kQ5_K_S, DType::Q5_K, "Q5_K"},
    {"Q5_1", kQ5_1, DType::Q5_1, "6 bpw"},
    {"Q5_0", kQ5_0, DType::Q5_0, "5.5 bpw"},
    {"Q4_K_M", kQ4_K_M, DType::Q4_K, "Q4_K; Q6_K for attn_v/attn_qkv/ffn_down of some layers"},
    {"Q4_K_S", kQ4_K_S, DType::Q4_K,
     "Q4_K; Q5_K for the first 4 attn_v and first n_layer/8 ffn_down"},
    {"Q4_1", kQ4_1, DType::Q4_1, "5 bpw"},
    {"Q4_0", kQ4_0, DType::Q4_0, "4.5 bpw; LM head (tied: token embeddings) in Q6_K"},
    {"IQ4_XS", kIQ4_XS, DType::IQ4_XS, "4.25 bpw non-linear"},
    {"IQ4_NL", kIQ4_NL, DType::IQ4_NL, "4.5 bpw non-linear"},
    {"Q3_K_L", kQ3_K_L, DType::Q3_K, "Q3_K; Q5_K for attn_v, attn_output, ffn_down"},
    {"Q3_K_M", kQ3_K_M, DType::Q3_K, "Q3_K; Q4_K/Q5_K for attn_v, attn_output, ffn_down"},
    {"Q3_K_S", kQ3_K_S, DType::Q3_K, "Q3_K"},
    {"Q2_K", kQ2_K, DType::Q2_K, "Q2_K; Q3_K/Q4_K for attn_v, attn_output, ffn_down"},
    {"lmq4", kQ4_0, DType::Q4_0, "Q4_0 everywhere, token embeddings and LM head included",
     DType::Q4_0, DType::Q4_0},
    {"Q3_K", kQ3_K_M, DType::Q3_K, "alias for Q3_K_M"},
    {"Q4_K", kQ4_K_M, DType::Q4_K, "alias for Q4_K_M"},
    {"Q5_K", kQ5_K_M, DType::Q5_K, "alias for Q5_K_M"},
};

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

// tensor_get_category, in its order (the first match decides).
enum class Role {
  kOutput,
  kTokenEmbd,
  kAttnVLike,
  kAttnK,
  kAttnQ,
  kAttnOutput,
  kFfn,
  kFfnDown,
  kOther
};

Role role_of(const std::string& name) {
  if (name == "output.weight") return Role::kOutput;
  if (name == "token_embd.weight" || name == "per_layer_token_embd.weight") return Role::kTokenEmbd;
  if (contains(name, "attn_qkv.weight") || contains(name, "attn_kv_b.weight") ||
      contains(name, "attn_v.weight"))
    return Role::kAttnVLike;  // "more sensitive to quantization"
  if (contains(name, "attn_k.weight")) return Role::kAttnK;
  if (contains(name, "attn_q.weight")) return Role::kAttnQ;
  if (contains(name, "attn_output.weight")) return Role::kAttnOutput;
  if (contains(name, "ffn_up") || contains(name, "ffn_gate")) return Role::kFfn;
  if (contains(name, "ffn_down")) return Role::kFfnDown;
  return Role::kOther;
}

// tensor_allows_quantization, less the exclusions for architectures the engine does not load.
bool allows_quantization(const RecipeTensor& t) {
  const std::string& n = t.name;
  const bool ends_in_weight = n.size() >= 6 && n.compare(n.size() - 6, 6, "weight") == 0;
  return t.n_dims >= 2 && ends_in_weight && !contains(n, "_norm.weight") &&
         !contains(n, "ffn_gate_inp.weight") && !contains(n, "ssm_conv1d");
}

bool use_more_bits(int64_t i, int64_t n) {
  return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

// The mix's choice for the i-th of n attn_v-like tensors (attn_v, attn_qkv), given n_gqa.
DType attn_v_type(uint32_t ftype, DType type, int64_t i, int64_t n, int64_t n_gqa) {
  switch (ftype) {
    case kQ2_K:
      return n_gqa >= 4 ? DType::Q4_K : DType::Q3_K;
    case kQ3_K_M:
      return i < 2 ? DType::Q5_K : DType::Q4_K;
    case kQ3_K_L:
      return DType::Q5_K;
    case kIQ4_NL:
    case kIQ4_XS:
      return n_gqa >= 4 ? DType::Q5_K : type;
    case kQ4_K_M:
    case kQ5_K_M:
      return use_more_bits(i, n) ? DType::Q6_K : type;
    case kQ4_K_S:
      return i < 4 ? DType::Q5_K : type;
    default:
      return type;
  }
}

// The mix's choice for the ffn_down of layer i of n.
DType ffn_down_type(uint32_t ftype, DType type, int64_t i, int64_t n) {
  switch (ftype) {
    case kQ2_K:
      return DType::Q3_K;
    case kQ3_K_M:
      return i < n / 16 ? DType::Q5_K : DType::Q4_K;
    case kQ3_K_L:
      return DType::Q5_K;
    case kQ4_K_M:
    case kQ5_K_M:
      return use_more_bits(i, n) ? DType::Q6_K : type;
    case kIQ4_NL:
    case kIQ4_XS:
    case kQ4_K_S:
      return i < n / 8 ? DType::Q5_K : type;
    default:
      return type;
  }
}

DType attn_output_type(uint32_t ftype, DType type) {
  switch (ftype) {
    case kQ2_K:
      return DType::Q3_K;
    case kQ3_K_M:
      return DType::Q4_K;
    case kQ3_K_L:
      return DType::Q5_K;
    default:
      return type;
  }
}

// LM head (and tied token embeddings): Q6_K unless the mix is Q8_0, Q8_0 if the rows do not fit
// the base type's blocks.
DType output_type(DType base, int64_t ne0) {
  if (ne0 % info(base).block_size != 0) return DType::Q8_0;
  return base == DType::Q8_0 ? DType::Q8_0 : DType::Q6_K;
}

// tensor_type_fallback: a type whose block does not divide the row length is replaced by a
// smaller-block type of similar size, or F16.
DType fallback_type(DType type, int64_t ne0) {
  if (ne0 % info(type).block_size == 0) return type;
  DType smaller = type;  // block-32 types have no smaller block: F16 below
  switch (type) {
    case DType::Q2_K:
    case DType::Q3_K:
      smaller = DType::Q4_0;
      break;
    case DType::Q4_K:
      smaller = DType::Q5_0;
      break;
    case DType::Q5_K:
      smaller = DType::Q5_1;
      break;
    case DType::Q6_K:
      smaller = DType::Q8_0;
      break;
    case DType::IQ4_XS:
      smaller = DType::IQ4_NL;
      break;
    default:
      break;
  }
  return ne0 % info(smaller).block_size == 0 ? smaller : DType::F16;
}

bool is_float(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16;
}

int layer_of(const std::string& name) {
  int layer = -1;
  std::sscanf(name.c_str(), "blk.%d.", &layer);
  return layer;
}

}  // namespace

const std::vector<QuantMix>& quant_mixes() {
  return kMixes;
}

const QuantMix* find_quant_mix(std::string_view name) {
  for (const QuantMix& m : kMixes)
    if (equals_ignoring_case(m.name, name)) return &m;
  return nullptr;
}

bool is_quantize_target(DType t) {
  switch (t) {
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::Q4_0:
    case DType::Q4_1:
    case DType::Q5_0:
    case DType::Q5_1:
    case DType::Q8_0:
    case DType::Q2_K:
    case DType::Q3_K:
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K:
    case DType::IQ4_NL:
    case DType::IQ4_XS:
      return true;
    default:
      return false;
  }
}

DType parse_quantize_target(const std::string& flag, const std::string& name) {
  DType t;
  if (!dtype_from_name(name, &t) || !is_quantize_target(t))
    fail("unknown tensor type '", name, "' for ", flag);
  return t;
}

TensorTypeOverride parse_tensor_type_override(const std::string& flag, const std::string& text) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    fail("invalid value '", text, "' for ", flag, " (expected REGEX=TYPE)");
  const std::string pattern = text.substr(0, eq);
  TensorTypeOverride o;
  o.type = parse_quantize_target(flag, text.substr(eq + 1));
  try {
    o.regex = std::regex(pattern);
  } catch (const std::regex_error& e) {
    fail("invalid regular expression '", pattern, "' in ", flag, ": ", e.what());
  }
  return o;
}

bool reference_tensor_order(const std::string& a, const std::string& b) {
  const int la = layer_of(a), lb = layer_of(b);
  return la != lb ? la < lb : a < b;
}

std::vector<DType> choose_tensor_types(const std::vector<RecipeTensor>& tensors,
                                       const RecipeModel& model, const RecipeOptions& options) {
  const QuantMix& mix = *options.mix;
  const std::optional<DType> token_embd_flag =
      options.token_embd ? options.token_embd : mix.token_embd;
  const std::optional<DType> output_flag = options.output ? options.output : mix.output;
  const int64_t n_gqa = model.n_head_kv > 0 ? model.n_head / model.n_head_kv : 0;

  bool tied = true;  // the LM head reuses the token embeddings unless output.weight exists
  int64_t n_attn_v = 0, i_attn_v = 0, i_ffn_down = 0;
  for (const RecipeTensor& t : tensors) {
    const Role role = role_of(t.name);
    tied &= role != Role::kOutput;
    n_attn_v += role == Role::kAttnVLike;
  }

  // llama_tensor_get_type_impl for our mixes; advances the counters like the reference.
  auto mix_rule = [&](const RecipeTensor& t, Role role, DType type) {
    if (role == Role::kOutput || (tied && role == Role::kTokenEmbd))
      return output_flag ? *output_flag : output_type(type, t.ne0);
    switch (role) {
      case Role::kAttnVLike:
        return attn_v_type(mix.file_type, type, i_attn_v++, n_attn_v, n_gqa);
      case Role::kFfnDown:
        return ffn_down_type(mix.file_type, type, i_ffn_down++, model.n_layer);
      case Role::kAttnOutput:
        return attn_output_type(mix.file_type, type);
      default:
        return type;
    }
  };

  std::vector<DType> types;
  types.reserve(tensors.size());
  for (const RecipeTensor& t : tensors) {
    const Role role = role_of(t.name);
    DType type = mix.base;
    if (!allows_quantization(t)) {
      type = t.type;
    } else if (role == Role::kTokenEmbd && token_embd_flag) {
      type = fallback_type(*token_embd_flag, t.ne0);
    } else if (role == Role::kOutput && output_flag) {
      type = fallback_type(*output_flag, t.ne0);
    } else if (!is_float(mix.base)) {
      const auto hit =
          std::find_if(options.overrides.begin(), options.overrides.end(),
                       [&](const auto& o) { return std::regex_search(t.name, o.regex); });
      if (hit != options.overrides.end())
        type = hit->type;
      else if (!options.pure)
        type = mix_rule(t, role, type);
      type = fallback_type(type, t.ne0);
    }
    types.push_back(type);
  }
  return types;
}

}  // namespace kz
