// A Q8_0 KV cache end to end: every fixture model, on both backends, gives logits close to the
// same computation over an F16 cache (prefill of the fixtures' long prompt, then its
// continuation token by token), and a head size that Q8_0 blocks cannot tile is refused with an
// error naming the cache.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "backend/factory.h"
#include "base/error.h"
#include "model/model.h"
#include "test_support/synthetic.h"
#include "testing/metrics.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

using testing::rel_rms;

double rms(const std::vector<float>& x) {
  double s = 0;
  for (float v : x) s += double(v) * v;
  return std::sqrt(s / double(x.size()));
}

using testing::argmax;

// Q8_0 stores each K and V value within half a step of its 32-value block's absmax / 127 (a
// relative RMS error of ~0.5% on Gaussian-like rows, against ~0.03% for F16). Two tiers:
// - Float activations (ref backend; cpu on F32 models): nothing amplifies the cache's error.
//   Measured worst relRMS 0.0045 over the fixtures' long case, identical arg-max everywhere.
// - cpu on quantized models rounds activations to 8 bits before every matrix product, and these
//   random models amplify any perturbation through flipped roundings (the reference's own
//   rounding alone moves logits by median relRMS 0.015-0.10, fixtures/README.md). Measured worst
//   0.043; arg-max flips only at near ties (top-two gap <= 0.052 of the logits' RMS).
// Both bounds stay far below a wrong cache layout (relRMS 0.5-1.0, fixtures/README.md).
constexpr double kFloatRelRms = 0.01;
constexpr double kRoundedRelRms = 0.08;
constexpr double kRoundedTieFraction = 0.1;

struct Param {
  std::string model, backend;
  bool float_activations() const {
    return backend == "ref" || model.find("-f32") != std::string::npos;
  }
};

class KvCacheQ8_0 : public ::testing::TestWithParam<Param> {};

// The fixtures' long case (268 tokens, then its continuation one token at a time) with the
// given cache types; all logits vectors, prompt's last first.
std::vector<std::vector<float>> evaluate(const Model& model, Backend& backend,
                                         const testing::ReferenceCase& c, DType cache) {
  SequenceState st =
      model.new_state(int64_t(c.prompt.size() + c.continuation.size()), cache, cache);
  Scratch scratch;
  std::vector<std::vector<float>> out(1);
  model.eval(backend, st, scratch, c.prompt, false, out[0]);
  for (int32_t t : c.continuation) {
    out.emplace_back();
    model.eval(backend, st, scratch, std::span(&t, 1), false, out.back());
  }
  return out;
}

TEST_P(KvCacheQ8_0, StaysCloseToTheF16Cache) {
  const auto model = Model::load(testing::model_path(GetParam().model));
  const auto backend = make_backend(GetParam().backend, 2);
  const auto cases = testing::load_reference(testing::fixtures_dir() + "/models/" +
                                             GetParam().model + ".ref.json");
  const auto long_case =
      std::find_if(cases.begin(), cases.end(), [](const auto& c) { return c.name == "long"; });
  ASSERT_NE(long_case, cases.end());
  const auto f16 = evaluate(*model, *backend, *long_case, DType::F16);
  const auto q8 = evaluate(*model, *backend, *long_case, DType::Q8_0);
  ASSERT_EQ(f16.size(), q8.size());
  const bool exact_path = GetParam().float_activations();
  for (size_t i = 0; i < f16.size(); ++i) {
    const double e = rel_rms(q8[i], f16[i]);
    EXPECT_LE(e, exact_path ? kFloatRelRms : kRoundedRelRms) << "logits vector " << i;
    EXPECT_GT(e, 0.0) << "logits vector " << i << ": the Q8_0 cache was not used";
    std::vector<float> top = f16[i];
    std::partial_sort(top.begin(), top.begin() + 2, top.end(), std::greater<>());
    const bool near_tie = !exact_path && top[0] - top[1] <= kRoundedTieFraction * rms(f16[i]);
    if (!near_tie) {
      EXPECT_EQ(argmax(q8[i]), argmax(f16[i])) << "logits vector " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, KvCacheQ8_0,
    ::testing::Values(Param{"qwen3-tiny-f32", "cpu"}, Param{"qwen3-small-q8_0", "ref"},
                      Param{"qwen3-small-q8_0", "cpu"}, Param{"qwen3-small-q4_k_m", "cpu"},
                      Param{"qwen35-tiny-f32", "ref"}, Param{"qwen35-tiny-f32", "cpu"},
                      Param{"qwen35-small-q8_0", "cpu"}, Param{"qwen35-small-q4_0", "cpu"}),
    [](const auto& info) {
      return testing::test_name(info.param.model + "_" + info.param.backend);
    });

TEST(KvCacheTypes, Q8_0NeedsHeadsOfWholeBlocks) {
  SyntheticConfig cfg = synthetic_preset("qwen3-tiny");
  cfg.head_dim = 48;
  cfg.n_rot = 0;
  const std::string path = ::testing::TempDir() + "/kv_q8_0_head48.gguf";
  SyntheticOptions opt;
  opt.n_threads = 1;
  write_synthetic_model(cfg, opt, path);
  const auto model = Model::load(path);
  EXPECT_NO_THROW(model->new_state(8, DType::F16, DType::F32));
  try {
    model->new_state(8, DType::F16, DType::Q8_0);
    FAIL() << "a Q8_0 V cache of 48-wide heads was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "V cache type q8_0 needs a head size that is a multiple of 32; this model's is 48 "
                 "(use f16)");
  }
  EXPECT_THROW(model->new_state(8, DType::Q4_0, DType::F16), Error);
  std::filesystem::remove(path);
}

TEST(KvCacheTypes, ParsesTheTypeNames) {
  EXPECT_EQ(parse_kv_cache_type("q8_0", "x"), DType::Q8_0);
  EXPECT_EQ(parse_kv_cache_type("f16", "x"), DType::F16);
  EXPECT_EQ(parse_kv_cache_type("f32", "x"), DType::F32);
  try {
    parse_kv_cache_type("q4_0", "--cache-type-k");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid value 'q4_0' for --cache-type-k (expected f32, f16 or q8_0)");
  }
}

}  // namespace
}  // namespace kz
