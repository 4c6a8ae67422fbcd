// Every fixture model end to end on the opencl backend, against the reference implementation's
// exact results: ref-f32act.json (ref.json for F32 models) within the fixtures README's bounds
// (relative RMS <= 0.005, identical arg-max), the prompt as one batch then the continuation one
// token at a time. opencl keeps activations in f32, so it is checked like `ref`. Also: the
// prompt as one batch equals the prompt fed one token at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "model/model.h"
#include "opencl_device.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

using testing::compare_logits;
using testing::kMaxRelRms;
using testing::ReferenceCase;

// Prefill (tiled products, batched attention) against decode (gemv, one query): the same
// operations up to float summation order, so far tighter than the fixtures' bound.
constexpr double kPrefillDecodeTol = 1e-4;

// Every model with its reference logits; none (and no tests) without the fixtures.
std::vector<std::string> fixture_models() {
  std::vector<std::string> names;
  std::error_code missing;
  for (const auto& e :
       std::filesystem::directory_iterator(testing::fixtures_dir() + "/models", missing)) {
    const std::string file = e.path().filename().string();
    if (e.path().extension() != ".gguf") continue;
    const std::string name = file.substr(0, file.size() - 5);
    const bool f32 = name.find("-f32") != std::string::npos;
    if (std::filesystem::exists(testing::fixtures_dir() + "/models/" + name +
                                (f32 ? ".ref.json" : ".ref-f32act.json")))
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

class OpenclFixture : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { testing::open_opencl(cl_); }
  std::unique_ptr<OpenclBackend> cl_;
};

TEST_P(OpenclFixture, MatchesReferenceLogits) {
  const std::string& name = GetParam();
  const bool f32 = name.find("-f32") != std::string::npos;
  const auto cases = testing::load_reference(testing::fixtures_dir() + "/models/" + name +
                                             (f32 ? ".ref.json" : ".ref-f32act.json"));
  auto model = Model::load(testing::model_path(name));
  for (const ReferenceCase& rc : cases) {
    SequenceState state =
        model->new_state(rc.prompt.size() + rc.continuation.size(), DType::F32, DType::F32);
    Scratch scratch;
    std::vector<float> logits;
    model->eval(*cl_, state, scratch, rc.prompt, false, logits);
    auto err = compare_logits(logits.data(), rc.prefill_logits_last);
    EXPECT_LE(err.rel_rms, kMaxRelRms) << rc.name << " prefill";
    EXPECT_TRUE(err.same_argmax) << rc.name << " prefill";
    for (size_t i = 0; i < rc.continuation.size(); ++i) {
      model->eval(*cl_, state, scratch, std::span(&rc.continuation[i], 1), false, logits);
      err = compare_logits(logits.data(), rc.continuation_logits[i]);
      EXPECT_LE(err.rel_rms, kMaxRelRms) << rc.name << " step " << i;
      EXPECT_TRUE(err.same_argmax) << rc.name << " step " << i;
    }
  }
}

// With F16 K/V caches, as the engine runs by default.
TEST_P(OpenclFixture, PrefillEqualsTokenByTokenDecode) {
  const std::string& name = GetParam();
  auto model = Model::load(testing::model_path(name));
  const auto cases = testing::load_reference(
      testing::fixtures_dir() + "/models/" + name +
      (name.find("-f32") != std::string::npos ? ".ref.json" : ".ref-f32act.json"));
  const std::vector<int32_t>& prompt = cases.front().prompt;
  std::vector<float> batched, stepped;
  {
    SequenceState state = model->new_state(prompt.size(), DType::F16, DType::F16);
    Scratch scratch;
    model->eval(*cl_, state, scratch, prompt, false, batched);
  }
  SequenceState state = model->new_state(prompt.size(), DType::F16, DType::F16);
  Scratch scratch;
  for (const int32_t& token : prompt)
    model->eval(*cl_, state, scratch, std::span(&token, 1), false, stepped);
  const auto err = compare_logits(stepped.data(), batched);
  EXPECT_LE(err.rel_rms, kPrefillDecodeTol) << prompt.size() << " tokens";
  EXPECT_TRUE(err.same_argmax);
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpenclFixture);
INSTANTIATE_TEST_SUITE_P(Models, OpenclFixture, ::testing::ValuesIn(fixture_models()),
                         [](const auto& info) { return testing::test_name(info.param); });

}  // namespace
}  // namespace kz
