// Every fixture model, on both CPU backends, against the reference implementation's logits:
// the prompt as one batch (prefill), then the continuation one token at a time (decode).
// `ref` computes in f32 and is checked against ref-f32act.json (ref.json for F32 models); `cpu`
// rounds activations like the reference and is checked against ref.json.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backend/factory.h"
#include "model/model.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

using testing::compare_logits;
using testing::kMaxRelRms;

struct FixtureParam {
  std::string model;
  std::string backend;
};

std::string reference_file(const FixtureParam& p) {
  const bool f32_model = p.model.find("-f32") != std::string::npos;
  const bool float_path = p.backend == "ref";
  return testing::fixtures_dir() + "/models/" + p.model +
         (f32_model || !float_path ? ".ref.json" : ".ref-f32act.json");
}

class FixtureModel : public ::testing::TestWithParam<FixtureParam> {};

TEST_P(FixtureModel, MatchesReferenceLogits) {
  const FixtureParam& p = GetParam();
  auto model = Model::load(testing::model_path(p.model));
  auto backend = make_backend(p.backend, 2);
  for (const auto& c : testing::load_reference(reference_file(p))) {
    SCOPED_TRACE(p.model + " " + p.backend + " case " + c.name);
    SequenceState state = model->new_state(c.prompt.size() + c.continuation.size(), DType::F32, DType::F32);
    Scratch scratch;
    std::vector<float> logits;
    model->eval(*backend, state, scratch, c.prompt, false, logits);
    auto err = compare_logits(logits.data(), c.prefill_logits_last);
    EXPECT_LE(err.rel_rms, kMaxRelRms) << "prefill";
    EXPECT_TRUE(err.same_argmax) << "prefill";
    for (size_t i = 0; i < c.continuation.size(); ++i) {
      model->eval(*backend, state, scratch, std::span(&c.continuation[i], 1), false, logits);
      err = compare_logits(logits.data(), c.continuation_logits[i]);
      EXPECT_LE(err.rel_rms, kMaxRelRms) << "decode step " << i;
      EXPECT_TRUE(err.same_argmax) << "decode step " << i;
    }
  }
}

std::vector<FixtureParam> all_params() {
  std::vector<FixtureParam> params;
  for (const char* m : {"qwen3-tiny-f32", "qwen3-tiny-q8_0", "qwen3-small-q8_0",
                        "qwen3-small-q4_k_m", "qwen35-tiny-f32", "qwen35-tiny-q4_0",
                        "qwen35-small-q8_0", "qwen35-small-q4_0", "qwen35-small-q4_k_m"})
    for (const char* b : {"ref", "cpu"}) params.push_back({m, b});
  return params;
}

INSTANTIATE_TEST_SUITE_P(All, FixtureModel, ::testing::ValuesIn(all_params()),
                         [](const auto& info) {
                           std::string n = info.param.model + "_" + info.param.backend;
                           for (char& ch : n)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace kz
