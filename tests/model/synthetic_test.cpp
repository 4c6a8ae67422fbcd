// Synthetic models: every small preset in several weight types loads and evaluates; files are
// deterministic in the seed; the streamed file equals gguf::Writer's bytes; state sizes match
// the loaders'; the synthesized vocabulary is consistent byte-level BPE.
#include "test_support/synthetic.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "backend/ref_backend.h"
#include "base/error.h"
#include "gguf/gguf.h"
#include "model/model.h"
#include "test_support/synthetic_vocab.h"
#include "testing/files.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    for (char& ch : name)
      if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
    dir_ = fs::temp_directory_path() / ("kz_synthetic_" + std::to_string(getpid()) + "_" + name);
    fs::create_directories(dir_);
  }
  ~TempDir() { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

using testing::read_bytes;

SyntheticOptions options(DType type, uint64_t seed) {
  SyntheticOptions o;
  o.weight_type = type;
  o.seed = seed;
  return o;
}

std::vector<float> logits_after(const Model& m, std::vector<int32_t> tokens) {
  RefBackend be;
  SequenceState st = m.new_state(16, DType::F32, DType::F32);
  Scratch scratch;
  std::vector<float> logits;
  m.eval(be, st, scratch, tokens, false, logits);
  return logits;
}

double rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0, n = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    d += (a[i] - b[i]) * double(a[i] - b[i]);
    n += double(a[i]) * a[i];
  }
  return std::sqrt(d / n);
}

struct TypeCase {
  std::string preset;
  DType type;
};

class SyntheticTypes : public ::testing::TestWithParam<TypeCase> {};

TEST_P(SyntheticTypes, WritesLoadsAndEvaluates) {
  const TypeCase& p = GetParam();
  TempDir tmp;
  const SyntheticConfig cfg = synthetic_preset(p.preset);
  const std::string path = tmp.file("model.gguf");
  write_synthetic_model(cfg, options(p.type, 7), path);

  auto model = Model::load(path);
  EXPECT_EQ(model->info().arch, cfg.arch);
  EXPECT_EQ(model->info().name, cfg.name);
  EXPECT_EQ(model->info().n_vocab, cfg.n_vocab);
  EXPECT_EQ(model->info().n_embd, cfg.n_embd);
  EXPECT_EQ(model->info().n_layer, cfg.n_layer);
  const gguf::File& f = model->file();
  EXPECT_GE(f.file_size() - f.data_offset(), synthetic_weight_bytes(cfg, p.type));
  uint64_t n_params = 0;
  for (const auto& t : f.tensors()) {
    n_params += t.n_elements();
    const bool matrix = t.n_dims == 2 && t.name.find("ssm_conv1d") == std::string::npos;
    EXPECT_EQ(t.type, matrix ? p.type : DType::F32) << t.name;
  }
  EXPECT_EQ(n_params, synthetic_sizes(cfg).n_params);
  EXPECT_EQ(f.find_tensor("output.weight") == nullptr, cfg.tied_output);

  const auto a = logits_after(*model, {11, 500, 42});
  const auto b = logits_after(*model, {11, 500, 43});
  const auto c = logits_after(*model, {700, 3, 42});
  ASSERT_EQ(a.size(), size_t(cfg.n_vocab));
  float lo = a[0], hi = a[0];
  for (float x : a) {
    ASSERT_TRUE(std::isfinite(x));
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_GT(hi - lo, 1.0f);         // not flat
  EXPECT_LT(hi - lo, 100.0f);       // not exploding
  EXPECT_GT(rel_diff(a, b), 0.01);  // the last token matters
  EXPECT_GT(rel_diff(a, c), 0.01);  // and so does the context
}

std::vector<TypeCase> type_cases() {
  std::vector<TypeCase> cases;
  for (const char* preset : {"qwen3-tiny", "qwen35-tiny"})
    for (DType t : {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0, DType::Q4_K})
      cases.push_back({preset, t});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Synthetic, SyntheticTypes, ::testing::ValuesIn(type_cases()),
                         [](const auto& info) {
                           std::string s =
                               info.param.preset + "_" + std::string(dtype_name(info.param.type));
                           for (char& ch : s)
                             if (ch == '-') ch = '_';
                           return s;
                         });

TEST(Synthetic, PresetsAreValidAndUnknownNamesListed) {
  const auto names = synthetic_preset_names();
  ASSERT_EQ(names.size(), 6u);
  for (const auto& n : names) {
    const SyntheticConfig c = synthetic_preset(n);
    EXPECT_NO_THROW(validate_synthetic_config(c)) << n;
    EXPECT_EQ(c.name, n);
  }
  try {
    synthetic_preset("qwen9-huge");
    FAIL() << "expected kz::Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("qwen9-huge"), std::string::npos) << msg;
    for (const auto& n : names) EXPECT_NE(msg.find(n), std::string::npos) << msg;
  }
}

TEST(Synthetic, RejectsBadConfigsAndTypes) {
  TempDir tmp;
  SyntheticConfig c = synthetic_preset("qwen35-tiny");
  c.n_v = 3;  // not a multiple of n_k = 2
  EXPECT_THROW(validate_synthetic_config(c), Error);
  c = synthetic_preset("qwen3-tiny");
  c.arch = "llama";
  EXPECT_THROW(validate_synthetic_config(c), Error);
  c = synthetic_preset("qwen3-tiny");
  c.n_head_kv = 3;
  EXPECT_THROW(write_synthetic_model(c, {}, tmp.file("bad.gguf")), Error);
  EXPECT_FALSE(fs::exists(tmp.file("bad.gguf")));
  EXPECT_THROW(write_synthetic_model(synthetic_preset("qwen3-tiny"), options(DType::Q8_K, 1),
                                     tmp.file("q8k.gguf")),
               Error);
}

TEST(Synthetic, SameSeedSameBytesOtherSeedOtherBytes) {
  TempDir tmp;
  const SyntheticConfig cfg = synthetic_preset("qwen35-tiny");
  SyntheticOptions opt = options(DType::Q4_K, 5);
  opt.n_threads = 1;
  write_synthetic_model(cfg, opt, tmp.file("a.gguf"));
  opt.n_threads = 3;  // the thread count does not change the file
  write_synthetic_model(cfg, opt, tmp.file("b.gguf"));
  opt.seed = 6;
  write_synthetic_model(cfg, opt, tmp.file("c.gguf"));
  const auto a = read_bytes(tmp.file("a.gguf")), b = read_bytes(tmp.file("b.gguf")),
             c = read_bytes(tmp.file("c.gguf"));
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.size(), c.size());
  EXPECT_FALSE(a == c);
}

TEST(Synthetic, StreamedFileEqualsGgufWriterBytes) {
  TempDir tmp;
  const std::string path = tmp.file("m.gguf");
  write_synthetic_model(synthetic_preset("qwen35-tiny"), options(DType::Q8_0, 3), path);
  const gguf::File f = gguf::File::open(path);
  gguf::Writer w;
  for (const auto& kv : f.metadata()) w.set(kv.key, kv.value);
  for (const auto& t : f.tensors())
    w.add_tensor(t.name, t.type, std::vector<int64_t>(t.ne, t.ne + t.n_dims),
                 std::vector<uint8_t>(t.data, t.data + t.nbytes));
  EXPECT_TRUE(w.to_bytes() == read_bytes(path));
}

TEST(Synthetic, MetadataKeys) {
  TempDir tmp;
  const std::string path = tmp.file("m.gguf");
  write_synthetic_model(synthetic_preset("qwen35-tiny"), options(DType::Q4_0, 1), path);
  const gguf::File f = gguf::File::open(path);
  EXPECT_EQ(f.get_string("general.architecture"), "qwen35");
  EXPECT_EQ(f.get_u32("general.file_type"), 2u);
  EXPECT_EQ(f.get_int_array("qwen35.rope.dimension_sections"),
            (std::vector<int64_t>{6, 5, 5, 0}));  // 16 rotary pairs
  EXPECT_EQ(f.get_u32("qwen35.ssm.inner_size"), 4u * 64);
  EXPECT_EQ(f.get_string("tokenizer.ggml.model"), "gpt2");
  EXPECT_EQ(f.get_string("tokenizer.ggml.pre"), "qwen35");
  EXPECT_EQ(f.get_u32("tokenizer.ggml.eos_token_id"), 1021u);
  EXPECT_EQ(f.get_u32("tokenizer.ggml.bos_token_id"), 1019u);
  EXPECT_NE(f.get_string("tokenizer.chat_template").find("<|im_start|>"), std::string::npos);
}

// A row length that is not a multiple of the K-quant block (64 here) falls back to F16.
TEST(Synthetic, OddRowsFallBackToF16) {
  TempDir tmp;
  SyntheticConfig c = synthetic_preset("qwen3-tiny");
  c.n_embd = 64;
  c.n_head = 2;
  c.n_head_kv = 1;
  c.head_dim = 32;
  c.n_rot = 32;
  c.n_ff = 256;
  const std::string path = tmp.file("m.gguf");
  write_synthetic_model(c, options(DType::Q4_K, 1), path);
  auto model = Model::load(path);
  const gguf::File& f = model->file();
  EXPECT_EQ(f.find_tensor("blk.0.attn_q.weight")->type, DType::F16);
  EXPECT_EQ(f.find_tensor("blk.0.ffn_down.weight")->type, DType::Q4_K);  // rows of n_ff = 256
  EXPECT_GE(f.file_size() - f.data_offset(), synthetic_weight_bytes(c, DType::Q4_K));
  for (float x : logits_after(*model, {1, 2, 3})) ASSERT_TRUE(std::isfinite(x));
}

TEST(Synthetic, StateSizesMatchTheLoader) {
  TempDir tmp;
  for (const char* preset : {"qwen3-tiny", "qwen35-tiny"}) {
    const SyntheticConfig cfg = synthetic_preset(preset);
    const std::string path = tmp.file(std::string(preset) + ".gguf");
    write_synthetic_model(cfg, options(DType::F16, 1), path);
    auto model = Model::load(path);
    const SequenceState st = model->new_state(100, DType::F16, DType::F16);
    const SyntheticSizes s = synthetic_sizes(cfg);
    EXPECT_EQ(st.fixed_bytes(), s.recurrent_bytes) << preset;
    EXPECT_EQ(st.bytes_per_token(), s.kv_bytes_per_token) << preset;
    EXPECT_EQ(int64_t(st.attn.size()), s.n_attention_layers) << preset;
    EXPECT_EQ(int64_t(st.recur.size()), s.n_recurrent_layers) << preset;
  }
  // qwen35-tiny: 3 DeltaNet layers of conv_dim (2*2 + 4) * 64 = 512 channels, 4 value heads of
  // 64 x 64; 1 attention layer with 2 KV heads of 64.
  const SyntheticSizes s = synthetic_sizes(synthetic_preset("qwen35-tiny"));
  EXPECT_EQ(s.recurrent_bytes, 3u * (3 * 512 + 4 * 64 * 64) * 4);
  EXPECT_EQ(s.kv_bytes_per_token, 1u * 2 * 2 * 64 * 2);
}

TEST(Synthetic, RealPresetSizes) {
  // Qwen3.5-4B: 24 DeltaNet layers of (3 x 8192 conv + 32 x 128 x 128 state) f32 = 50.25 MiB;
  // 8 attention layers x K,V x 4 KV heads x 256 x f16 = 32 KiB per token.
  const SyntheticSizes s4 = synthetic_sizes(synthetic_preset("qwen35-4b"));
  EXPECT_EQ(s4.n_recurrent_layers, 24);
  EXPECT_EQ(s4.n_attention_layers, 8);
  EXPECT_EQ(s4.recurrent_bytes, 24u * (3 * 8192 + 32 * 128 * 128) * 4);
  EXPECT_NEAR(double(s4.recurrent_bytes) / (1 << 20), 50.25, 0.01);
  EXPECT_EQ(s4.kv_bytes_per_token, 32u * 1024);
  // 4.21B: 3.96B with Qwen3's 151,936-token vocabulary, plus (248,320 - 151,936) x 2560 tied
  // embedding weights for Qwen3.5's.
  EXPECT_NEAR(double(s4.n_params) / 1e9, 3.96 + 96384 * 2560e-9, 0.01);

  const SyntheticSizes s08 = synthetic_sizes(synthetic_preset("qwen35-0.8b"));
  EXPECT_EQ(s08.n_recurrent_layers, 18);
  EXPECT_EQ(s08.recurrent_bytes, 18u * (3 * 6144 + 16 * 128 * 128) * 4);
  EXPECT_EQ(s08.kv_bytes_per_token, 6u * 2 * 2 * 256 * 2);

  // Qwen3-0.6B: 0.44B non-embedding + 0.16B tied embedding; Qwen3-4B: 4.0B.
  const SyntheticSizes q06 = synthetic_sizes(synthetic_preset("qwen3-0.6b"));
  EXPECT_NEAR(double(q06.n_params) / 1e9, 0.596, 0.005);
  EXPECT_EQ(q06.recurrent_bytes, 0u);
  EXPECT_EQ(q06.kv_bytes_per_token, 28u * 2 * 8 * 128 * 2);
  EXPECT_NEAR(double(synthetic_sizes(synthetic_preset("qwen3-4b")).n_params) / 1e9, 4.02, 0.01);
}

// Independent BPE over merge texts (tokenizer.md §3.4): lowest rank first, leftmost on ties.
std::vector<std::string> bpe(const std::string& word, const std::map<std::string, size_t>& ranks) {
  std::vector<std::string> syms;
  for (size_t i = 0; i < word.size();) {  // code points of the byte-level alphabet (<= 2 bytes)
    const size_t n = (static_cast<unsigned char>(word[i]) >= 0xC0) ? 2 : 1;
    syms.push_back(word.substr(i, n));
    i += n;
  }
  for (;;) {
    size_t best = syms.size(), best_rank = SIZE_MAX;
    for (size_t i = 0; i + 1 < syms.size(); ++i) {
      auto it = ranks.find(syms[i] + " " + syms[i + 1]);
      if (it != ranks.end() && it->second < best_rank) best = i, best_rank = it->second;
    }
    if (best == syms.size()) return syms;
    syms[best] += syms[best + 1];
    syms.erase(syms.begin() + best + 1);
  }
}

TEST(Synthetic, VocabularyIsConsistentBpe) {
  const SyntheticVocab v = synthetic_vocab(1024);
  ASSERT_EQ(v.tokens.size(), 1024u);
  ASSERT_EQ(v.token_types.size(), 1024u);
  EXPECT_EQ(v.merges.size(), 1024u - 261);
  EXPECT_EQ(v.tokens[0], "!");
  EXPECT_EQ(v.tokens[255], "\xC5\x83");  // U+0143, byte 0xAD
  EXPECT_EQ(v.tokens[v.endoftext], "<|endoftext|>");
  EXPECT_EQ(v.endoftext, 1019);
  EXPECT_EQ(v.im_end, 1021);
  EXPECT_EQ(v.token_types[v.im_start], 3);
  EXPECT_EQ(v.token_types[v.think], 4);
  EXPECT_EQ(v.tokens[v.end_think], "</think>");
  std::map<std::string, size_t> ranks;
  for (size_t i = 0; i < v.merges.size(); ++i) ranks.emplace(v.merges[i], i);
  EXPECT_EQ(ranks.size(), v.merges.size());
  std::map<std::string, int> ids;
  for (int i = 0; i < 1019; ++i) EXPECT_TRUE(ids.emplace(v.tokens[i], i).second) << i;
  for (int i = 256; i < 1019; ++i) {
    const auto syms = bpe(v.tokens[i], ranks);
    ASSERT_EQ(syms.size(), 1u) << v.tokens[i];
    EXPECT_EQ(syms[0], v.tokens[i]);
    // merge i - 256 builds token i
    const std::string& m = v.merges[i - 256];
    EXPECT_EQ(m.substr(0, m.find(' ')) + m.substr(m.find(' ') + 1), v.tokens[i]);
  }
  // Same vocabulary whatever else changes; a larger one extends it.
  EXPECT_EQ(synthetic_vocab(1024).merges, v.merges);
  const SyntheticVocab big = synthetic_vocab(151936);
  EXPECT_EQ(big.tokens.size(), 151936u);
  EXPECT_TRUE(std::equal(v.merges.begin(), v.merges.end(), big.merges.begin()));
  EXPECT_EQ(big.im_end, 151936 - 3);
}

TEST(Synthetic, VocabularyCopiedFromAFile) {
  const std::string vocab = std::string(KAZEIA_FIXTURES_DIR) + "/vocab/ggml-vocab-qwen2.gguf";
  if (!fs::exists(vocab)) GTEST_SKIP() << "no " << vocab;
  TempDir tmp;
  const std::string path = tmp.file("m.gguf");
  SyntheticConfig cfg = synthetic_preset("qwen3-tiny");
  cfg.n_layer = 1;
  SyntheticOptions opt = options(DType::Q4_0, 1);
  opt.vocab_from = vocab;
  write_synthetic_model(cfg, opt, path);
  auto model = Model::load(path);
  const gguf::File src = gguf::File::open(vocab);
  EXPECT_EQ(model->info().n_vocab, 151936);
  EXPECT_EQ(model->file().get_string_array("tokenizer.ggml.tokens"),
            src.get_string_array("tokenizer.ggml.tokens"));
  EXPECT_EQ(model->file().get_string("tokenizer.ggml.pre"), "qwen2");
  EXPECT_TRUE(model->file().find("tokenizer.chat_template") != nullptr);
  for (float x : logits_after(*model, {151644, 872, 198})) ASSERT_TRUE(std::isfinite(x));
}

}  // namespace
}  // namespace kz
