// Synthetic qwen3 / qwen35 models: presets, the metadata the loaders read, their tensor list
// (model/tensor_list.h) with an initialization per tensor, and weight generation streamed to the
// file.
#include "test_support/synthetic.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>

#include "base/error.h"
#include "base/thread_pool.h"
#include "gguf/gguf.h"
#include "gguf/streaming_writer.h"
#include "model/tensor_list.h"
#include "quant/quant.h"
#include "test_support/synthetic_random.h"
#include "test_support/synthetic_vocab.h"

namespace kz {
namespace {

SyntheticConfig qwen3_shape(std::string name, int64_t n_embd, int64_t n_layer, int64_t n_ff,
                            int n_head, int n_head_kv, int head_dim) {
  SyntheticConfig c;
  c.arch = "qwen3";
  c.name = std::move(name);
  c.n_vocab = 151936;
  c.n_embd = n_embd;
  c.n_layer = n_layer;
  c.n_ff = n_ff;
  c.n_ctx_train = 40960;
  c.n_head = n_head;
  c.n_head_kv = n_head_kv;
  c.head_dim = head_dim;
  c.n_rot = head_dim;
  c.freq_base = 1e6f;
  c.eps = 1e-6f;
  c.tied_output = true;
  return c;
}

SyntheticConfig qwen35_shape(std::string name, int64_t n_embd, int64_t n_layer, int64_t n_ff,
                             int n_head, int n_head_kv, int n_k, int n_v) {
  SyntheticConfig c;
  c.arch = "qwen35";
  c.name = std::move(name);
  // Qwen3.5's vocabulary: its tied output layer is 15 % of the 4B model's weights, so benchmark
  // figures need the real size (a synthetic vocabulary; the fixture vocabulary files are Qwen3's).
  c.n_vocab = 248320;
  c.n_embd = n_embd;
  c.n_layer = n_layer;
  c.n_ff = n_ff;
  c.n_ctx_train = 262144;
  c.n_head = n_head;
  c.n_head_kv = n_head_kv;
  c.head_dim = 256;
  c.n_rot = 64;  // partial_rotary_factor 0.25
  c.freq_base = 1e7f;
  c.eps = 1e-6f;
  c.tied_output = true;
  c.d_conv = 4;
  c.n_k = n_k;
  c.n_v = n_v;
  c.d_k = 128;
  c.full_attention_interval = 4;
  return c;
}

// Every row length of the tiny shapes is a multiple of 256, so all weight types, K-quants
// included, apply to every matrix (no F16 fallback in the tests).
SyntheticConfig qwen3_tiny() {
  SyntheticConfig c = qwen3_shape("qwen3-tiny", 256, 2, 512, 4, 2, 64);
  c.n_vocab = 1024;
  c.n_ctx_train = 4096;
  return c;
}

SyntheticConfig qwen35_tiny() {  // 3 DeltaNet layers + 1 full attention, untied LM head
  SyntheticConfig c = qwen35_shape("qwen35-tiny", 256, 4, 512, 4, 2, 2, 4);
  c.n_vocab = 1024;
  c.n_ctx_train = 4096;
  c.head_dim = 64;
  c.n_rot = 32;
  c.d_k = 64;
  c.tied_output = false;
  return c;
}

struct Preset {
  const char* name;
  SyntheticConfig (*make)();
};

// Hyper-parameters of the Hugging Face config.json files of Qwen/Qwen3-0.6B, Qwen/Qwen3-4B,
// Qwen/Qwen3.5-0.8B and Qwen/Qwen3.5-4B (text model; MTP layers not included).
const Preset kPresets[] = {
    {"qwen3-0.6b", [] { return qwen3_shape("qwen3-0.6b", 1024, 28, 3072, 16, 8, 128); }},
    {"qwen3-4b", [] { return qwen3_shape("qwen3-4b", 2560, 36, 9728, 32, 8, 128); }},
    {"qwen35-0.8b", [] { return qwen35_shape("qwen35-0.8b", 1024, 24, 3584, 8, 2, 16, 16); }},
    {"qwen35-4b", [] { return qwen35_shape("qwen35-4b", 2560, 32, 9216, 16, 4, 16, 32); }},
    {"qwen3-tiny", qwen3_tiny},
    {"qwen35-tiny", qwen35_tiny},
};

// value = center + half_width * u with u uniform in [-1, 1), or -exp(that) when neg_exp.
struct Init {
  float center = 0.0f, half_width = 0.0f;
  bool neg_exp = false;
};

std::vector<BlockType> block_types(const SyntheticConfig& c) {
  std::vector<BlockType> blocks;
  for (int64_t il = 0; il < c.n_layer; ++il) {
    const bool recurrent = c.arch == "qwen35" && (il + 1) % c.full_attention_interval != 0;
    blocks.push_back(recurrent ? BlockType::recurrent : BlockType::attention);
  }
  return blocks;
}

// The tensors the loaders bind (model/tensor_list.h), the LM head only if untied.
std::vector<TensorSpec> plan_tensors(const SyntheticConfig& c) {
  const ArchDims dims{.arch = c.arch == "qwen35" ? Arch::qwen35 : Arch::qwen3,
                      .n_vocab = c.n_vocab,
                      .n_embd = c.n_embd,
                      .n_ff = c.n_ff,
                      .n_head = c.n_head,
                      .n_head_kv = c.n_head_kv,
                      .head_dim = c.head_dim,
                      .d_conv = c.d_conv,
                      .dn = {.n_k = c.n_k, .d_k = c.d_k, .n_v = c.n_v, .d_v = c.d_k}};
  std::vector<TensorSpec> plan = model_tensors(dims, block_types(c));
  if (c.tied_output)
    std::erase_if(plan, [](const TensorSpec& t) { return t.role == TensorRole::output; });
  return plan;
}

// Initializations that keep the forward pass sane: matrices uniform +-1/sqrt(fan_in)
// (projections back into the residual stream further scaled by 1/sqrt(2 n_layer)), embeddings
// and LM head giving logits of standard deviation ~2, norm weights 1 +- 0.1, ssm_a =
// -exp(U[-1, 1]), dt bias in [-4, -2] (per-token decay ~0.9), conv taps +-0.5.
Init init_of(const TensorSpec& t, const SyntheticConfig& c) {
  const float sqrt_fan_in = std::sqrt(float(t.ne[0]));
  switch (t.role) {
    case TensorRole::token_embd:
    case TensorRole::output:
      return {0.0f, std::sqrt(3.0f) * 2.0f / std::sqrt(float(c.n_embd))};
    case TensorRole::attn_output:
    case TensorRole::ssm_out:
    case TensorRole::ffn_down:
      return {0.0f, 1.0f / std::sqrt(2.0f * float(c.n_layer)) / sqrt_fan_in};
    case TensorRole::ssm_conv:
      return {0.0f, 0.5f};
    case TensorRole::ssm_dt_bias:
      return {-3.0f, 1.0f};
    case TensorRole::ssm_a:
      return {0.0f, 1.0f, true};
    default:  // the other matrices; the vectors left are norm weights
      return t.kind == TensorKind::matrix ? Init{0.0f, 1.0f / sqrt_fan_in} : Init{1.0f, 0.1f};
  }
}

// Matrices in the weight type; vectors and conv taps stay F32, like the reference quantizer's. A
// matrix whose row length is not a multiple of the weight type's block size (e.g. a K-quant and
// a 64-wide model) is stored as F16 instead: every row length is a multiple of F16's block of 1,
// and a small odd-shaped model stays usable with any requested type.
DType tensor_type(const TensorSpec& t, DType weight_type) {
  if (t.kind != TensorKind::matrix) return DType::F32;
  return t.ne[0] % info(weight_type).block_size == 0 ? weight_type : DType::F16;
}

bool is_weight_type(DType t) {
  return can_quantize(t) && can_dequantize(t) && t != DType::Q8_1 && t != DType::Q8_K;
}

void check_weight_type(DType t) {
  if (is_weight_type(t)) return;
  std::string names;
  for (uint32_t id = 0; id < kDTypeCount; ++id) {
    const DTypeInfo* i = dtype_info(id);
    if (i && is_weight_type(DType(id))) names += (names.empty() ? "" : ", ") + std::string(i->name);
  }
  const DTypeInfo* i = dtype_info(uint32_t(t));
  fail("unsupported weight type ", i ? std::string(i->name) : std::to_string(uint32_t(t)),
       " for a synthetic model (supported: ", names, ")");
}

// llama_ftype of a file whose matrices all have type t (the _S variant for K-quants).
std::optional<uint32_t> file_type(DType t) {
  switch (t) {
    case DType::F32:
      return 0;
    case DType::F16:
      return 1;
    case DType::Q4_0:
      return 2;
    case DType::Q4_1:
      return 3;
    case DType::Q8_0:
      return 7;
    case DType::Q5_0:
      return 8;
    case DType::Q5_1:
      return 9;
    case DType::Q2_K:
      return 10;
    case DType::Q3_K:
      return 11;
    case DType::Q4_K:
      return 14;
    case DType::Q5_K:
      return 16;
    case DType::Q6_K:
      return 18;
    case DType::IQ4_NL:
      return 25;
    case DType::IQ4_XS:
      return 30;
    case DType::BF16:
      return 32;
    default:
      return std::nullopt;
  }
}

// IMRoPE sections [t, h, w, 0] over the n_rot/2 rotary pairs, in the proportions of the real
// [11, 11, 10, 0] for 32 pairs, so that every pair rotates with the position (spec/qwen35.md §7.3).
std::vector<int32_t> rope_sections(int n_rot) {
  const int pairs = n_rot / 2;
  const int t = (pairs + 2) / 3, h = (pairs - t + 1) / 2, w = pairs - t - h;
  return {t, h, w, 0};
}

struct Metadata {
  std::vector<gguf::KeyValue> kvs;
  void set(std::string key, gguf::Value v) { kvs.push_back({std::move(key), std::move(v)}); }
};

void add_model_keys(Metadata& m, const SyntheticConfig& c, DType weight_type) {
  const std::string a = c.arch + ".";
  m.set("general.architecture", gguf::val(c.arch));
  m.set("general.name", gguf::val(c.name.empty() ? "synthetic-" + c.arch : c.name));
  if (auto ft = file_type(weight_type)) m.set("general.file_type", gguf::val(*ft));
  if (weight_type != DType::F32 && weight_type != DType::F16 && weight_type != DType::BF16)
    m.set("general.quantization_version", gguf::val(uint32_t(2)));
  m.set(a + "context_length", gguf::val(uint32_t(c.n_ctx_train)));
  m.set(a + "embedding_length", gguf::val(uint32_t(c.n_embd)));
  m.set(a + "block_count", gguf::val(uint32_t(c.n_layer)));
  m.set(a + "feed_forward_length", gguf::val(uint32_t(c.n_ff)));
  m.set(a + "attention.head_count", gguf::val(uint32_t(c.n_head)));
  m.set(a + "attention.head_count_kv", gguf::val(uint32_t(c.n_head_kv)));
  m.set(a + "attention.key_length", gguf::val(uint32_t(c.head_dim)));
  m.set(a + "attention.value_length", gguf::val(uint32_t(c.head_dim)));
  m.set(a + "rope.freq_base", gguf::val(c.freq_base));
  m.set(a + "attention.layer_norm_rms_epsilon", gguf::val(c.eps));
  if (c.arch == "qwen35") {
    m.set(a + "rope.dimension_count", gguf::val(uint32_t(c.n_rot)));
    m.set(a + "rope.dimension_sections", gguf::i32_array(rope_sections(c.n_rot)));
    m.set(a + "ssm.conv_kernel", gguf::val(uint32_t(c.d_conv)));
    m.set(a + "ssm.state_size", gguf::val(uint32_t(c.d_k)));
    m.set(a + "ssm.group_count", gguf::val(uint32_t(c.n_k)));
    m.set(a + "ssm.time_step_rank", gguf::val(uint32_t(c.n_v)));
    m.set(a + "ssm.inner_size", gguf::val(uint32_t(c.n_v * c.d_k)));
    m.set(a + "full_attention_interval", gguf::val(uint32_t(c.full_attention_interval)));
  }
}

void add_synthetic_tokenizer(Metadata& m, const SyntheticConfig& c) {
  const SyntheticVocab v = synthetic_vocab(c.n_vocab);
  m.set("tokenizer.ggml.model", gguf::val("gpt2"));
  m.set("tokenizer.ggml.pre", gguf::val(c.arch == "qwen35" ? "qwen35" : "qwen2"));
  m.set("tokenizer.ggml.tokens", gguf::string_array(v.tokens));
  m.set("tokenizer.ggml.token_type", gguf::i32_array(v.token_types));
  m.set("tokenizer.ggml.merges", gguf::string_array(v.merges));
  m.set("tokenizer.ggml.eos_token_id", gguf::val(uint32_t(v.im_end)));
  m.set("tokenizer.ggml.padding_token_id", gguf::val(uint32_t(v.endoftext)));
  m.set("tokenizer.ggml.bos_token_id", gguf::val(uint32_t(v.endoftext)));
  m.set("tokenizer.ggml.add_bos_token", gguf::val(false));
  m.set("tokenizer.chat_template", gguf::val(kSyntheticChatTemplate));
}

// Copies the tokenizer.* keys of `path`; returns the vocabulary size.
int64_t copy_tokenizer(Metadata& m, const std::string& path) {
  const gguf::File f = gguf::File::open(path);
  const gguf::Value* tokens = f.find("tokenizer.ggml.tokens");
  if (!tokens || tokens->type() != gguf::ValueType::ARRAY)
    fail(path, ": key 'tokenizer.ggml.tokens' is missing or not an array");
  bool has_template = false;
  for (const gguf::KeyValue& kv : f.metadata()) {
    if (kv.key.rfind("tokenizer.", 0) != 0) continue;
    has_template |= kv.key == "tokenizer.chat_template";
    m.set(kv.key, kv.value);
  }
  if (!has_template) m.set("tokenizer.chat_template", gguf::val(kSyntheticChatTemplate));
  return int64_t(std::get<gguf::Array>(tokens->v).items.size());
}

void fill_row(const Init& init, SplitMix64& rng, float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = init.center + init.half_width * rng.symmetric();
    x[i] = init.neg_exp ? -std::exp(v) : v;
  }
}

// Generates and quantizes one tensor in chunks of rows, in parallel; each row's values depend
// only on (seed, tensor name, row), so the file does not depend on the thread count.
void write_tensor(StreamingGgufWriter& w, ThreadPool& pool, const TensorSpec& t, const Init& init,
                  DType type, uint64_t seed, std::vector<std::vector<float>>& rows_f32,
                  std::vector<uint8_t>& chunk) {
  constexpr uint64_t kChunkBytes = 16 << 20;
  const int64_t cols = t.ne[0];
  int64_t n_rows = 1;
  for (size_t i = 1; i < t.ne.size(); ++i) n_rows *= t.ne[i];
  const uint64_t rb = row_bytes(type, cols);
  const int64_t per_chunk = std::clamp<int64_t>(int64_t(kChunkBytes / rb), 1, n_rows);
  chunk.resize(per_chunk * rb);
  const uint64_t tensor_seed = mix_seed(seed, hash_name(t.name));
  for (int64_t r0 = 0; r0 < n_rows; r0 += per_chunk) {
    const int64_t n = std::min(per_chunk, n_rows - r0);
    pool.parallel_for(n, 1, [&](int64_t begin, int64_t end, int thread) {
      std::vector<float>& x = rows_f32[thread];
      x.resize(cols);
      for (int64_t r = begin; r < end; ++r) {
        SplitMix64 rng(mix_seed(tensor_seed, uint64_t(r0 + r)));
        fill_row(init, rng, x.data(), cols);
        quantize_row(type, x.data(), chunk.data() + r * rb, cols);
      }
    });
    w.write(chunk.data(), n * rb);
  }
}

void check_range(const char* field, int64_t v, int64_t lo, int64_t hi = UINT32_MAX) {
  if (v < lo || v > hi) fail("synthetic model: ", field, " = ", v, " is outside ", lo, "..", hi);
}

}  // namespace

SyntheticConfig synthetic_preset(std::string_view name) {
  for (const Preset& p : kPresets)
    if (name == p.name) return p.make();
  std::string names;
  for (const Preset& p : kPresets) names += (names.empty() ? "" : ", ") + std::string(p.name);
  fail("unknown synthetic model preset '", name, "' (valid: ", names, ")");
}

std::vector<std::string> synthetic_preset_names() {
  std::vector<std::string> names;
  for (const Preset& p : kPresets) names.push_back(p.name);
  return names;
}

void validate_synthetic_config(const SyntheticConfig& c) {
  if (c.arch != "qwen3" && c.arch != "qwen35")
    fail("synthetic model: arch '", c.arch, "' is not supported (expected qwen3 or qwen35)");
  check_range("n_vocab", c.n_vocab, 1, INT32_MAX);
  check_range("n_embd", c.n_embd, 1);
  check_range("n_layer", c.n_layer, 1, 512);
  check_range("n_ff", c.n_ff, 1);
  check_range("n_ctx_train", c.n_ctx_train, 1);
  check_range("n_head", c.n_head, 1);
  check_range("n_head_kv", c.n_head_kv, 1);
  check_range("head_dim", c.head_dim, 2);
  if (c.n_head % c.n_head_kv != 0)
    fail("synthetic model: n_head_kv = ", c.n_head_kv, " does not divide n_head = ", c.n_head);
  if (c.head_dim % 2 != 0) fail("synthetic model: head_dim = ", c.head_dim, " must be even");
  if (!(c.eps > 0.0f)) fail("synthetic model: eps = ", c.eps, " must be positive");
  if (!(c.freq_base > 0.0f))
    fail("synthetic model: freq_base = ", c.freq_base, " must be positive");
  if (c.arch == "qwen3") {
    if (c.n_rot != 0 && c.n_rot != c.head_dim)
      fail("synthetic model: qwen3 rotates whole heads; n_rot = ", c.n_rot,
           " must be 0 or head_dim = ", c.head_dim);
    return;
  }
  check_range("n_rot", c.n_rot, 2, c.head_dim);
  if (c.n_rot % 2 != 0) fail("synthetic model: n_rot = ", c.n_rot, " must be even");
  check_range("d_conv", c.d_conv, 1);
  check_range("n_k", c.n_k, 1);
  check_range("n_v", c.n_v, 1);
  check_range("d_k", c.d_k, 1);
  check_range("full_attention_interval", c.full_attention_interval, 1);
  check_range("n_v * d_k", int64_t(c.n_v) * c.d_k, 1);
  if (c.n_v % c.n_k != 0)
    fail("synthetic model: n_v = ", c.n_v, " value heads must be a multiple of n_k = ", c.n_k,
         " key heads");
}

SyntheticSizes synthetic_sizes(const SyntheticConfig& c) {
  validate_synthetic_config(c);
  SyntheticSizes s;
  for (const TensorSpec& t : plan_tensors(c)) {
    uint64_t n = 1;
    for (int64_t d : t.ne) n *= uint64_t(d);
    s.n_params += n;
  }
  for (BlockType b : block_types(c))
    ++(b == BlockType::recurrent ? s.n_recurrent_layers : s.n_attention_layers);
  if (s.n_recurrent_layers) {
    const uint64_t conv_dim = uint64_t(2 * c.n_k + c.n_v) * c.d_k;
    const uint64_t floats = (c.d_conv - 1) * conv_dim + uint64_t(c.n_v) * c.d_k * c.d_k;
    s.recurrent_bytes = uint64_t(s.n_recurrent_layers) * floats * sizeof(float);
  }
  s.kv_bytes_per_token = uint64_t(s.n_attention_layers) * 2 * c.n_head_kv * c.head_dim * 2;
  return s;
}

uint64_t synthetic_weight_bytes(const SyntheticConfig& c, DType weight_type) {
  validate_synthetic_config(c);
  check_weight_type(weight_type);
  uint64_t bytes = 0;
  for (const TensorSpec& t : plan_tensors(c))
    bytes += tensor_bytes(tensor_type(t, weight_type), t.ne);
  return bytes;
}

void write_synthetic_model(const SyntheticConfig& cfg, const SyntheticOptions& opt,
                           const std::string& path) {
  check_weight_type(opt.weight_type);
  SyntheticConfig c = cfg;
  Metadata tokenizer;
  if (!opt.vocab_from.empty()) {
    c.n_vocab = copy_tokenizer(tokenizer, opt.vocab_from);
  } else {
    validate_synthetic_config(c);
    add_synthetic_tokenizer(tokenizer, c);
  }
  validate_synthetic_config(c);
  Metadata meta;
  add_model_keys(meta, c, opt.weight_type);
  for (gguf::KeyValue& kv : tokenizer.kvs) meta.kvs.push_back(std::move(kv));
  tokenizer.kvs.clear();

  const std::vector<TensorSpec> plan = plan_tensors(c);
  std::vector<StreamingGgufWriter::TensorHeader> headers;
  for (const TensorSpec& t : plan)
    headers.push_back({t.name, tensor_type(t, opt.weight_type), t.ne});

  const int n_threads = resolve_thread_count(opt.n_threads, "thread count");
  ThreadPool pool(n_threads);
  std::vector<std::vector<float>> rows_f32(n_threads);
  std::vector<uint8_t> chunk;
  try {
    StreamingGgufWriter w(path, meta.kvs, headers);
    meta.kvs.clear();  // the vocabulary can be large; it is in the file now
    for (size_t i = 0; i < plan.size(); ++i)
      write_tensor(w, pool, plan[i], init_of(plan[i], c), headers[i].type, opt.seed, rows_f32,
                   chunk);
    w.finish();
  } catch (...) {
    std::remove(path.c_str());
    throw;
  }
}

}  // namespace kz
