// The quantization recipes: the reference quantizer's per-tensor choices, checked on small
// hand-made models (the fixtures' reference-quantized files are checked in
// tests/model/quantize_model_test.cpp); tables recorded from the reference on real model shapes
// (tests/data/quantize/*.tsv) are replayed tensor by tensor.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "quant/recipe.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

DType type_named(const std::string& name) {
  DType t;
  EXPECT_TRUE(dtype_from_name(name, &t)) << name;
  return t;
}

// A dense qwen3-like model: per layer attn_q/k/v/output, q/k norms, ffn, in the reference order.
std::vector<RecipeTensor> qwen3_like(int n_layer, int64_t n_embd, bool tied) {
  std::vector<RecipeTensor> t = {{"token_embd.weight", 2, n_embd, DType::F16},
                                 {"output_norm.weight", 1, n_embd, DType::F32}};
  if (!tied) t.push_back({"output.weight", 2, n_embd, DType::F16});
  for (int il = 0; il < n_layer; ++il) {
    const std::string b = "blk." + std::to_string(il) + ".";
    for (const char* m :
         {"attn_k", "attn_output", "attn_q", "attn_v", "ffn_down", "ffn_gate", "ffn_up"})
      t.push_back(
          {b + m + ".weight", 2, std::string(m) == "ffn_down" ? 3 * n_embd : n_embd, DType::F16});
    for (const char* n : {"attn_k_norm", "attn_norm", "attn_q_norm", "ffn_norm"})
      t.push_back({b + n + ".weight", 1, n_embd, DType::F32});
  }
  std::sort(t.begin(), t.end(),
            [](const auto& a, const auto& b) { return reference_tensor_order(a.name, b.name); });
  return t;
}

std::map<std::string, DType> choose(const std::vector<RecipeTensor>& tensors,
                                    const RecipeOptions& o, int64_t n_layer) {
  const RecipeModel model{n_layer, 16, 8};
  const std::vector<DType> types = choose_tensor_types(tensors, model, o);
  std::map<std::string, DType> out;
  for (size_t i = 0; i < tensors.size(); ++i) out[tensors[i].name] = types[i];
  return out;
}

RecipeOptions mix(const char* name) {
  RecipeOptions o;
  o.mix = find_quant_mix(name);
  EXPECT_NE(o.mix, nullptr) << name;
  return o;
}

TEST(Recipe, MixesCarryTheReferencesFileTypes) {
  // llama_ftype values of llama.h; aliases as in llama-quantize's QUANT_OPTIONS.
  const std::map<std::string, uint32_t> expected = {
      {"F32", 0},     {"F16", 1},     {"Q4_0", 2},    {"Q4_1", 3},    {"Q8_0", 7},
      {"Q5_0", 8},    {"Q5_1", 9},    {"Q2_K", 10},   {"Q3_K_S", 11}, {"Q3_K_M", 12},
      {"Q3_K_L", 13}, {"Q4_K_S", 14}, {"Q4_K_M", 15}, {"Q5_K_S", 16}, {"Q5_K_M", 17},
      {"Q6_K", 18},   {"IQ4_NL", 25}, {"IQ4_XS", 30}, {"BF16", 32},   {"Q3_K", 12},
      {"Q4_K", 15},   {"Q5_K", 17},   {"lmq4", 2}};
  EXPECT_EQ(quant_mixes().size(), expected.size());
  for (const auto& [name, ftype] : expected) {
    const QuantMix* m = find_quant_mix(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->file_type, ftype) << name;
    EXPECT_TRUE(is_quantize_target(m->base)) << name;
  }
  EXPECT_EQ(find_quant_mix("q4_k_m"), find_quant_mix("Q4_K_M"));
  EXPECT_EQ(find_quant_mix("Q4_K_X"), nullptr);
  EXPECT_EQ(find_quant_mix("IQ2_XXS"), nullptr);  // needs an importance matrix
}

// Q4_K_M's "use_more_bits" layers: the first and last eighth, and every third in between.
TEST(Recipe, Q4KMGivesMoreBitsToAttnVAndFfnDownOfChosenLayers) {
  const int n = 24;
  const auto types = choose(qwen3_like(n, 256, false), mix("Q4_K_M"), n);
  for (int il = 0; il < n; ++il) {
    const bool more = il < 3 || il >= 21 || (il - 3) % 3 == 2;
    const std::string b = "blk." + std::to_string(il) + ".";
    const DType want = more ? DType::Q6_K : DType::Q4_K;
    EXPECT_EQ(types.at(b + "attn_v.weight"), want) << il;
    EXPECT_EQ(types.at(b + "ffn_down.weight"), want) << il;
    EXPECT_EQ(types.at(b + "attn_q.weight"), DType::Q4_K) << il;
    EXPECT_EQ(types.at(b + "attn_norm.weight"), DType::F32) << il;
  }
  EXPECT_EQ(types.at("output.weight"), DType::Q6_K);
  EXPECT_EQ(types.at("token_embd.weight"), DType::Q4_K);  // untied: the base type
}

TEST(Recipe, TiedTokenEmbeddingsGetTheOutputHeadsType) {
  EXPECT_EQ(choose(qwen3_like(2, 256, true), mix("Q4_0"), 2).at("token_embd.weight"), DType::Q6_K);
  EXPECT_EQ(choose(qwen3_like(2, 256, false), mix("Q4_0"), 2).at("token_embd.weight"), DType::Q4_0);
  EXPECT_EQ(choose(qwen3_like(2, 256, true), mix("Q8_0"), 2).at("token_embd.weight"), DType::Q8_0);
}

TEST(Recipe, Lmq4IsQ4_0EverywhereIncludingEmbeddingsAndHead) {
  for (bool tied : {true, false}) {
    const auto model = qwen3_like(4, 256, tied);
    const auto types = choose(model, mix("lmq4"), 4);
    for (const RecipeTensor& t : model)
      EXPECT_EQ(types.at(t.name), t.n_dims >= 2 ? DType::Q4_0 : DType::F32) << t.name;
  }
}

// tensor_type_fallback: a block that does not divide the row gives a smaller-block type.
TEST(Recipe, RowsNotAMultipleOfTheBlockFallBack) {
  const auto t128 = choose(qwen3_like(8, 128, true), mix("Q4_K_M"), 8);
  EXPECT_EQ(t128.at("blk.0.attn_q.weight"), DType::Q5_0);  // Q4_K -> Q5_0
  EXPECT_EQ(t128.at("blk.0.attn_v.weight"), DType::Q8_0);  // Q6_K -> Q8_0
  EXPECT_EQ(t128.at("token_embd.weight"), DType::Q8_0);    // head: Q8_0 when Q6_K does not fit
  EXPECT_EQ(choose(qwen3_like(8, 128, true), mix("Q5_K_S"), 8).at("blk.1.attn_q.weight"),
            DType::Q5_1);
  EXPECT_EQ(choose(qwen3_like(8, 128, true), mix("Q3_K_S"), 8).at("blk.1.attn_q.weight"),
            DType::Q4_0);
  EXPECT_EQ(choose(qwen3_like(8, 128, true), mix("IQ4_XS"), 8).at("blk.1.attn_q.weight"),
            DType::IQ4_NL);
  // 48 columns fit no block of 32: F16.
  EXPECT_EQ(choose(qwen3_like(2, 48, true), mix("Q4_0"), 2).at("blk.0.attn_q.weight"), DType::F16);
}

TEST(Recipe, OverridesFirstMatchWinsAndStillFallBack) {
  RecipeOptions o = mix("Q4_K_M");
  o.overrides.push_back(parse_tensor_type_override("--tensor-type", "blk\\.1\\.attn_v=q8_0"));
  o.overrides.push_back(parse_tensor_type_override("--tensor-type", "attn_v=q5_k"));
  o.overrides.push_back(parse_tensor_type_override("--tensor-type", "norm=q4_0"));
  const auto types = choose(qwen3_like(8, 256, false), o, 8);
  EXPECT_EQ(types.at("blk.1.attn_v.weight"), DType::Q8_0);
  EXPECT_EQ(types.at("blk.0.attn_v.weight"), DType::Q5_K);
  EXPECT_EQ(types.at("blk.0.attn_norm.weight"), DType::F32);  // never quantized
  EXPECT_EQ(types.at("blk.0.ffn_down.weight"), DType::Q6_K);  // the mix still rules the rest

  RecipeOptions narrow = mix("Q4_0");
  narrow.overrides.push_back(parse_tensor_type_override("--tensor-type", "attn_q=q6_k"));
  EXPECT_EQ(choose(qwen3_like(2, 128, true), narrow, 2).at("blk.0.attn_q.weight"), DType::Q8_0);
}

TEST(Recipe, PureAndTypeFlags) {
  RecipeOptions o = mix("Q4_K_M");
  o.pure = true;
  const auto pure = choose(qwen3_like(8, 256, false), o, 8);
  EXPECT_EQ(pure.at("blk.0.attn_v.weight"), DType::Q4_K);
  EXPECT_EQ(pure.at("blk.0.ffn_down.weight"), DType::Q4_K);
  EXPECT_EQ(pure.at("output.weight"), DType::Q4_K);

  o.pure = false;
  o.token_embd = DType::Q8_0;
  o.output = DType::F16;
  const auto flags = choose(qwen3_like(8, 256, false), o, 8);
  EXPECT_EQ(flags.at("token_embd.weight"), DType::Q8_0);
  EXPECT_EQ(flags.at("output.weight"), DType::F16);
  o.token_embd.reset();
  EXPECT_EQ(choose(qwen3_like(8, 256, true), o, 8).at("token_embd.weight"), DType::F16);  // tied

  RecipeOptions f16 = mix("F16");
  f16.token_embd = DType::Q8_0;
  const auto floats = choose(qwen3_like(2, 256, false), f16, 2);
  EXPECT_EQ(floats.at("token_embd.weight"), DType::Q8_0);
  EXPECT_EQ(floats.at("blk.0.attn_v.weight"), DType::F16);
}

TEST(Recipe, BadOverridesNameTheFlag) {
  for (const char* bad :
       {"attn_v", "=q4_0", "attn_v=", "attn_v=q9_0", "attn_v=iq2_xxs", "(=q4_0"}) {
    try {
      parse_tensor_type_override("--tensor-type", bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--tensor-type"), std::string::npos) << e.what();
    }
  }
}

TEST(Recipe, ReferenceOrderIsLayerThenName) {
  std::vector<std::string> names = {"blk.10.a", "blk.2.b", "output.weight", "blk.2.a",
                                    "token_embd.weight"};
  std::sort(names.begin(), names.end(), reference_tensor_order);
  EXPECT_EQ(names, (std::vector<std::string>{"output.weight", "token_embd.weight", "blk.2.a",
                                             "blk.2.b", "blk.10.a"}));
}

// A table recorded from the reference: one row per tensor (name, shape, input type, then the
// reference's type for each mix of the header), in the reference's order.
struct RecordedTable {
  std::string path;
  int64_t n_layer = 0, n_head = 0, n_head_kv = 0;
  std::vector<std::string> mixes;
  std::vector<RecipeTensor> tensors;
  std::vector<std::vector<DType>> types;  // [mix][tensor]
};

RecordedTable read_table(const std::string& name) {
  RecordedTable t;
  t.path = std::string(KAZEIA_SOURCE_DIR) + "/tests/data/quantize/" + name;
  std::ifstream in(t.path);
  EXPECT_TRUE(in.good()) << t.path;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string first;
    fields >> first;
    if (first.empty() || first == "#") continue;
    if (first == "model") {
      fields >> t.n_layer >> t.n_head >> t.n_head_kv;
    } else if (first == "tensor") {
      std::string shape, input;
      fields >> shape >> input;
      for (std::string m; fields >> m;) t.mixes.push_back(m);
      t.types.resize(t.mixes.size());
    } else {
      std::string shape, input;
      fields >> shape >> input;
      const int n_dims = int(std::count(shape.begin(), shape.end(), 'x')) + 1;
      t.tensors.push_back({first, n_dims, std::stoll(shape), type_named(input)});
      for (auto& column : t.types) {
        std::string type;
        fields >> type;
        column.push_back(type_named(type));
      }
    }
  }
  return t;
}

// One test per recorded table in tests/data/quantize/ (none until the reference is built and
// scripts/compare_quantize.sh --record has run; each file's header names the reference commands).
std::vector<std::string> recorded_tables() {
  std::vector<std::string> names;
  const std::filesystem::path dir = std::string(KAZEIA_SOURCE_DIR) + "/tests/data/quantize";
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".tsv") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class RecordedRecipe : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordedRecipe, MatchesTheReferenceTensorByTensor) {
  const RecordedTable t = read_table(GetParam());
  ASSERT_FALSE(t.tensors.empty()) << t.path;
  ASSERT_FALSE(t.mixes.empty()) << t.path;
  for (size_t m = 0; m < t.mixes.size(); ++m) {
    const std::vector<DType> ours =
        choose_tensor_types(t.tensors, {t.n_layer, t.n_head, t.n_head_kv}, mix(t.mixes[m].c_str()));
    for (size_t i = 0; i < t.tensors.size(); ++i)
      EXPECT_EQ(dtype_name(ours[i]), dtype_name(t.types[m][i]))
          << GetParam() << " " << t.mixes[m] << " " << t.tensors[i].name;
  }
}

// Every matrix of the recorded models (the qwen35 shapes among them) is Q4_0 under lmq4.
TEST_P(RecordedRecipe, Lmq4IsQ4_0ForEveryMatrix) {
  const RecordedTable t = read_table(GetParam());
  const std::vector<DType> types =
      choose_tensor_types(t.tensors, {t.n_layer, t.n_head, t.n_head_kv}, mix("lmq4"));
  for (size_t i = 0; i < t.tensors.size(); ++i) {
    const RecipeTensor& x = t.tensors[i];
    const bool matrix = x.n_dims >= 2 && x.name.find("ssm_conv1d") == std::string::npos;
    EXPECT_EQ(types[i], matrix ? DType::Q4_0 : x.type) << GetParam() << " " << x.name;
  }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RecordedRecipe);
INSTANTIATE_TEST_SUITE_P(Tables, RecordedRecipe, ::testing::ValuesIn(recorded_tables()),
                         [](const auto& info) { return testing::test_name(info.param); });

}  // namespace
}  // namespace kz
