// Split execution: prompt batches of at least the threshold run on the prefill device, decode
// and shorter batches on the decode device, over one sequence state handed over in place.
#include <gtest/gtest.h>

#include "backend/factory.h"
#include "backend/profiling_backend.h"
#include "backend/split_backend.h"
#include "base/error.h"
#include "runtime/devices.h"
#include "testing/reference_logits.h"
#include "testing/teacher_forced.h"

namespace kz {
namespace {

TEST(SplitBackend, PicksTheDevicePerBatch) {
  auto a = make_backend("cpu", 1), b = make_backend("cpu", 1);
  ProfilingBackend prefill(*a), decode(*b);
  SplitBackend split(prefill, decode, 4);
  std::vector<float> x(64, 1.0f);
  for (int64_t n_tok : {8, 1, 3, 4}) {
    split.begin_batch(n_tok);
    split.silu(x.data(), n_tok * 8);
  }
  EXPECT_EQ(prefill.times().by_op.count("silu"), 1u);
  EXPECT_EQ(decode.times().by_op.count("silu"), 1u);
  prefill.times().clear();
  decode.times().clear();
  split.begin_batch(1);
  split.silu(x.data(), 8);
  EXPECT_TRUE(prefill.times().by_op.empty());
  EXPECT_EQ(decode.times().by_op.count("silu"), 1u);
}

std::vector<std::vector<float>> run(const Model& model, const testing::ReferenceCase& rc,
                                    Backend& prefill, Backend& decode, DType cache) {
  return testing::teacher_forced_logits(model, rc.prompt, rc.continuation, prefill, decode, cache);
}

class Split : public ::testing::TestWithParam<const char*> {};

TEST_P(Split, HandsTheStateOverInPlace) {
  auto model = Model::load(testing::model_path(GetParam()));
  const auto cases =
      testing::load_reference(testing::fixtures_dir() + "/models/" + GetParam() + ".ref.json");
  const testing::ReferenceCase& rc = cases[0];  // `short`: 22 prompt tokens
  auto ref = make_backend("ref", 1);
  auto cpu = make_backend("cpu", 2);
  for (DType cache : {DType::F16, DType::Q8_0}) {
    DeviceOptions o;
    o.prefill_device = "ref";
    o.decode_device = "none";  // llama.cpp's name for the CPU
    o.n_threads = 2;
    o.k_type = o.v_type = cache;
    o.prefill_min_tokens = 8;
    Devices split(*model, o);
    EXPECT_NE(split.describe().find("prefill (batches of 8+ tokens): device ref"),
              std::string::npos)
        << split.describe();
    // The prompt on ref, every decode step on cpu reading the state ref left: the same bits as
    // running the two backends by hand over one state.
    EXPECT_EQ(run(*model, rc, split.backend(), split.backend(), cache),
              run(*model, rc, *ref, *cpu, cache));
    // A prompt shorter than the threshold stays on the decode device.
    o.prefill_min_tokens = 64;
    Devices short_prompt(*model, o);
    EXPECT_EQ(run(*model, rc, short_prompt.backend(), short_prompt.backend(), cache),
              run(*model, rc, *cpu, *cpu, cache));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Split,
                         ::testing::Values("qwen3-small-q8_0", "qwen35-small-q4_0"),
                         [](const auto& info) { return testing::test_name(info.param); });

TEST(Split, BadThreshold) {
  auto model = Model::load(testing::model_path("qwen35-tiny-f32"));
  DeviceOptions o;
  o.prefill_min_tokens = 0;
  EXPECT_THROW(Devices(*model, o), Error);
}

}  // namespace
}  // namespace kz
