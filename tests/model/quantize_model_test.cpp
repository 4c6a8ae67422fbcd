// Quantizing model files: the fixtures' reference-quantized files are reproduced byte for byte
// from their float inputs, every written tensor holds exactly what the block quantizers give for
// its input, and the file-level rules hold (requantizing, never overwriting the input).
#include "model/quantize_model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/ref_backend.h"
#include "base/error.h"
#include "model/model.h"
#include "quant/quant.h"
#include "test_support/synthetic.h"
#include "testing/files.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

class QuantizeModel : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / ("kz_quantize_" + std::to_string(getpid()) + "_" + t->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

using testing::read_bytes;

QuantizeOptions options_for(const char* mix) {
  QuantizeOptions o;
  o.recipe.mix = find_quant_mix(mix);
  EXPECT_NE(o.recipe.mix, nullptr) << mix;
  return o;
}

void quantize(const std::string& in, const std::string& out, const QuantizeOptions& o) {
  const gguf::File input = gguf::File::open(in);
  write_quantized_model(input, plan_quantization(input, o), out, 2);
}

// The fixtures' quantized files were made by the reference quantizer from these float files:
// the same metadata changes, tensor order, type choices and bytes.
TEST_F(QuantizeModel, ReproducesTheReferencesFilesFromTheFixturesFloatModels) {
  const struct {
    const char *in, *mix, *reference;
  } cases[] = {{"qwen35-tiny-f32", "Q4_0", "qwen35-tiny-q4_0"},
               {"qwen3-tiny-f32", "Q8_0", "qwen3-tiny-q8_0"}};
  for (const auto& c : cases) {
    const std::string out = file(std::string(c.reference) + ".gguf");
    quantize(testing::model_path(c.in), out, options_for(c.mix));
    EXPECT_EQ(read_bytes(out), read_bytes(testing::model_path(c.reference))) << c.reference;
  }
}

// The other quantized fixtures were made from float files that are not shipped; from their Q8_0
// siblings the type of every tensor and the metadata still match.
TEST_F(QuantizeModel, ChoosesTheReferencesTypesForTheFixtureMixes) {
  const struct {
    const char *in, *mix, *reference;
  } cases[] = {{"qwen35-small-q8_0", "Q4_0", "qwen35-small-q4_0"},
               {"qwen35-small-q8_0", "Q4_K_M", "qwen35-small-q4_k_m"},
               {"qwen3-small-q8_0", "Q4_K_M", "qwen3-small-q4_k_m"}};
  for (const auto& c : cases) {
    const gguf::File input = gguf::File::open(testing::model_path(c.in));
    const gguf::File ref = gguf::File::open(testing::model_path(c.reference));
    const QuantizePlan plan = plan_quantization(input, options_for(c.mix));
    ASSERT_EQ(plan.tensors.size(), ref.tensors().size()) << c.reference;
    for (size_t i = 0; i < plan.tensors.size(); ++i) {
      const gguf::TensorInfo& want = ref.tensors()[i];
      EXPECT_EQ(plan.tensors[i].source->name, want.name) << c.reference;
      EXPECT_EQ(dtype_name(plan.tensors[i].type), dtype_name(want.type))
          << c.reference << " " << want.name;
      EXPECT_EQ(plan.tensors[i].bytes, want.nbytes) << c.reference << " " << want.name;
    }
    EXPECT_EQ(plan.file_size, ref.file_size()) << c.reference;
    ASSERT_EQ(plan.metadata.size(), ref.metadata().size()) << c.reference;
    for (size_t i = 0; i < plan.metadata.size(); ++i) {
      EXPECT_EQ(plan.metadata[i].key, ref.metadata()[i].key) << c.reference;
      EXPECT_TRUE(plan.metadata[i].value == ref.metadata()[i].value) << plan.metadata[i].key;
    }
  }
}

// Our Q4_0 file of qwen35-tiny computes what the reference's Q4_0 weights compute (the fixture's
// exact-arithmetic logits), within the fixtures' float-path bounds.
TEST_F(QuantizeModel, QuantizedFixtureMeetsTheFixturesBounds) {
  const std::string out = file("q4_0.gguf");
  quantize(testing::model_path("qwen35-tiny-f32"), out, options_for("Q4_0"));
  const auto model = Model::load(out);
  const auto cases =
      testing::load_reference(testing::fixtures_dir() + "/models/qwen35-tiny-q4_0.ref-f32act.json");
  RefBackend backend;
  for (const testing::ReferenceCase& rc : cases) {
    SequenceState state = model->new_state(rc.prompt.size(), DType::F32, DType::F32);
    Scratch scratch;
    std::vector<float> logits;
    model->eval(backend, state, scratch, rc.prompt, false, logits);
    const auto err = testing::compare_logits(logits.data(), rc.prefill_logits_last);
    EXPECT_LE(err.rel_rms, testing::kMaxRelRms) << rc.name;
    EXPECT_TRUE(err.same_argmax) << rc.name;
  }
}

// Each tensor of each mix (from F32; from F16 and BF16 for one mix) holds the block quantizer's
// bytes for the input's values; the file loads (write_quantized_model validates it) and is as
// large as planned.
TEST_F(QuantizeModel, EveryTensorHoldsTheQuantizersBytes) {
  for (DType source : {DType::F32, DType::F16, DType::BF16}) {
    const std::string in = file("in.gguf");
    SyntheticOptions so;
    so.weight_type = source;
    so.n_threads = 2;
    write_synthetic_model(synthetic_preset("qwen35-tiny"), so, in);
    const gguf::File input = gguf::File::open(in);
    std::set<std::pair<uint32_t, bool>> seen;  // aliases repeat a mix
    for (const QuantMix& mix : quant_mixes()) {
      if (!seen.insert({mix.file_type, mix.token_embd.has_value()}).second) continue;
      if (source != DType::F32 && mix.base != DType::Q4_K) continue;
      const std::string out = file("out.gguf");
      QuantizeOptions o;
      o.recipe.mix = &mix;
      const QuantizePlan plan = plan_quantization(input, o);
      write_quantized_model(input, plan, out, 2);
      EXPECT_EQ(fs::file_size(out), plan.file_size) << mix.name;
      const gguf::File written = gguf::File::open(out);
      for (const gguf::TensorInfo& t : written.tensors()) {
        const gguf::TensorInfo& src = *input.find_tensor(t.name);
        const int64_t cols = src.ne[0], rows = src.n_elements() / cols;
        std::vector<float> x(cols);
        std::vector<uint8_t> want(row_bytes(t.type, cols) * rows);
        for (int64_t r = 0; r < rows; ++r) {
          dequantize_row(src.type, src.data + r * row_bytes(src.type, cols), x.data(), cols);
          quantize_row(t.type, x.data(), want.data() + r * row_bytes(t.type, cols), cols);
        }
        ASSERT_EQ(t.nbytes, want.size()) << mix.name << " " << t.name;
        EXPECT_TRUE(std::equal(want.begin(), want.end(), t.data))
            << dtype_name(source) << " -> " << mix.name << ": " << t.name << " ("
            << dtype_name(t.type) << ")";
      }
    }
  }
}

TEST_F(QuantizeModel, RequantizingNeedsPermissionExceptFromQ8_0) {
  const gguf::File q4 = gguf::File::open(testing::model_path("qwen35-tiny-q4_0"));
  try {
    plan_quantization(q4, options_for("Q8_0"));
    ADD_FAILURE() << "requantized from q4_0";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--allow-requantize"), std::string::npos) << e.what();
  }
  QuantizeOptions allowed = options_for("Q8_0");
  allowed.allow_requantize = true;
  const std::string out = file("q8_0.gguf");
  write_quantized_model(q4, plan_quantization(q4, allowed), out, 2);
  EXPECT_EQ(gguf::File::open(out).find_tensor("blk.0.ffn_up.weight")->type, DType::Q8_0);

  // Same types: copied, nothing requantized, so no permission needed.
  EXPECT_NO_THROW(plan_quantization(q4, options_for("Q4_0")));
  // Q8_0 inputs are quantized without the flag.
  const gguf::File q8 = gguf::File::open(testing::model_path("qwen3-tiny-q8_0"));
  EXPECT_NO_THROW(plan_quantization(q8, options_for("Q4_K_M")));
}

TEST_F(QuantizeModel, NeverOverwritesTheInput) {
  const std::string in = file("in.gguf");
  fs::copy_file(testing::model_path("qwen3-tiny-f32"), in);
  const std::vector<uint8_t> before = read_bytes(in);
  fs::create_symlink(in, file("symlink.gguf"));
  fs::create_hard_link(in, file("hardlink.gguf"));
  const gguf::File input = gguf::File::open(in);
  const QuantizePlan plan = plan_quantization(input, options_for("Q8_0"));
  for (const char* name : {"in.gguf", "symlink.gguf", "hardlink.gguf"}) {
    try {
      write_quantized_model(input, plan, file(name), 2);
      ADD_FAILURE() << name;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is the input file"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(read_bytes(in), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 3);
}

TEST_F(QuantizeModel, FailureLeavesNoFileBehind) {
  const gguf::File input = gguf::File::open(testing::model_path("qwen3-tiny-f32"));
  const QuantizePlan plan = plan_quantization(input, options_for("Q8_0"));
  EXPECT_THROW(write_quantized_model(input, plan, file("missing/dir/out.gguf"), 2), Error);
  fs::create_directory(file("taken"));
  EXPECT_THROW(write_quantized_model(input, plan, file("taken"), 2), Error);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace kz
