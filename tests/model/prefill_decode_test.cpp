// Prefill (the prompt as one batch; for Qwen3.5 the chunked delta rule) then decode must give the
// same logits as feeding the same tokens one at a time (the recurrence), for prompt lengths
// around the delta rule's chunk size.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "backend/factory.h"
#include "model/model.h"
#include "testing/metrics.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

constexpr int kChunk = 64;  // the chunk size of ref::gated_delta_rule_chunked's default
// Both orders compute the same sums in a different association (batched vs one row; chunked
// WY form vs recurrence): float rounding only, on F32 models where nothing amplifies it.
constexpr double kFloatRounding = 1e-4;

using testing::rel_rms;

class PrefillEqualsDecode : public ::testing::TestWithParam<std::string> {};

// Evaluates prompt lengths around the chunk size as one batch and token by token with the given
// KV cache type; logits must agree within `bound`, also when decoding further from both states.
void expect_prefill_equals_decode(const std::string& name, DType cache, double bound) {
  auto model = Model::load(testing::model_path(name));
  auto backend = make_backend("cpu", 2);
  std::mt19937 rng(7);
  for (int n : {1, kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 5}) {
    std::vector<int32_t> tokens(n + 2);
    for (auto& t : tokens) t = int32_t(rng() % 1019);
    const auto prompt = std::span(tokens).first(n);
    Scratch s1, s2;
    std::vector<float> batched, stepped;
    SequenceState a = model->new_state(n + 2, cache, cache);
    SequenceState b = model->new_state(n + 2, cache, cache);
    model->eval(*backend, a, s1, prompt, false, batched);
    for (int i = 0; i < n; ++i) model->eval(*backend, b, s2, prompt.subspan(i, 1), false, stepped);
    EXPECT_LE(rel_rms(batched, stepped), bound) << "prompt length " << n;
    // ... and decoding further from both states stays equal.
    for (int i = n; i < n + 2; ++i) {
      model->eval(*backend, a, s1, std::span(tokens).subspan(i, 1), false, batched);
      model->eval(*backend, b, s2, std::span(tokens).subspan(i, 1), false, stepped);
      EXPECT_LE(rel_rms(batched, stepped), bound) << "decode after " << n;
    }
  }
}

TEST_P(PrefillEqualsDecode, AtChunkBoundaries) {
  expect_prefill_equals_decode(GetParam(), DType::F32, kFloatRounding);
}

TEST_P(PrefillEqualsDecode, AtChunkBoundariesWithQ8_0Caches) {
  // Both orders quantize the same K/V rows (up to float rounding) with the same quantizer;
  // measured bit-identical logits on x86.
  expect_prefill_equals_decode(GetParam(), DType::Q8_0, kFloatRounding);
}

INSTANTIATE_TEST_SUITE_P(Models, PrefillEqualsDecode,
                         ::testing::Values("qwen3-tiny-f32", "qwen35-tiny-f32"),
                         [](const auto& info) { return testing::test_name(info.param); });

}  // namespace
}  // namespace kz
