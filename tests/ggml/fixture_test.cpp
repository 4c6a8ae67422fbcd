// Every fixture model end to end on each ggml device (ggml_device.h), as the engine runs it: the
// device behind the op filter's router, so that what the device refuses runs on the CPU.
// - The logits of every case against the reference implementation's (testing/fixture_checks.h):
//   F32 models within the fixtures' tight bound, quantized ones as one more sample of rounded
//   activations (ggml's CPU rounds them to 8 bits as the reference does; Vulkan through F16).
// - The prompt on the device, then decode on `cpu` reading the state the device left: the same
//   greedy choice as `cpu` alone at every step, F16 and Q8_0 caches (near ties excepted, as in
//   tests/opencl/split_test.cpp).
// - A conversation through the Session API: turn 2 reuses turn 1's prefix, and both turns, with
//   and without MTP speculative decoding, say what `cpu` alone says.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "api/engine.h"
#include "backend/factory.h"
#include "ggml_device.h"
#include "runtime/devices.h"
#include "testing/fixture_checks.h"
#include "testing/teacher_forced.h"

namespace kz {
namespace {

const char* const kModels[] = {"qwen3-tiny-f32",     "qwen3-tiny-q8_0",  "qwen3-small-q8_0",
                               "qwen3-small-q4_k_m", "qwen35-tiny-f32",  "qwen35-tiny-q4_0",
                               "qwen35-small-q4_0",  "qwen35-small-q8_0"};

using Param = std::tuple<std::string, std::string>;  // device, model

class GgmlFixture : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override { testing::open_ggml(probe_, device()); }
  std::string device() const { return std::get<0>(GetParam()); }
  std::string model() const { return std::get<1>(GetParam()); }
  DeviceOptions options() const {
    DeviceOptions o;
    o.device = "ggml:" + device();
    o.n_threads = 1;  // two spinning thread pools (ggml's, ours) on two cores only wait
    return o;
  }
  std::unique_ptr<GgmlBackend> probe_;  // only to skip or fail early without the device
};

TEST_P(GgmlFixture, MatchesReferenceLogits) {
  auto m = Model::load(testing::model_path(model()));
  Devices devices(*m, options());
  if (testing::is_f32_model(model()))
    testing::expect_tight_match(model(), devices.backend());
  else
    testing::expect_rounded_like_reference(model(), devices.backend());
}

TEST_P(GgmlFixture, PromptOnDeviceDecodeOnCpuChoosesAsCpu) {
  auto m = Model::load(testing::model_path(model()));
  const std::string dir = testing::fixtures_dir() + "/models/" + model();
  const bool f32 = testing::is_f32_model(model());
  const auto rounded = testing::load_reference(dir + ".ref.json");
  const auto exact = f32 ? rounded : testing::load_reference(dir + ".ref-f32act.json");
  const testing::ReferenceCase& rc = rounded[0];  // `short`: 22 prompt tokens, 23 steps
  auto cpu = make_backend("cpu", 2);
  for (DType cache : {DType::F16, DType::Q8_0}) {
    DeviceOptions o = options();
    o.prefill_device = o.device;
    o.decode_device = "cpu";
    o.prefill_min_tokens = 8;
    o.k_type = o.v_type = cache;
    Devices split(*m, o);
    const auto got = testing::teacher_forced_logits(*m, rc.prompt, rc.continuation, split.backend(),
                                                    split.backend(), cache);
    const auto want =
        testing::teacher_forced_logits(*m, rc.prompt, rc.continuation, *cpu, *cpu, cache);
    SCOPED_TRACE(std::string(dtype_name(cache)) + " caches");
    const int flips = testing::expect_same_choices_or_near_ties(got, want, rc, exact[0]);
    EXPECT_LE(flips, 2) << dtype_name(cache);
  }
}

std::vector<Param> params() {
  std::vector<Param> p;
  for (const std::string& d : testing::ggml_device_names())
    for (const char* m : kModels) p.emplace_back(d, m);
  return p;
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GgmlFixture);
INSTANTIATE_TEST_SUITE_P(Models, GgmlFixture, ::testing::ValuesIn(params()), [](const auto& info) {
  return testing::test_name(std::get<0>(info.param) + "_" + std::get<1>(info.param));
});

class GgmlConversation : public ::testing::TestWithParam<std::string> {};

// Two turns of the bundled chat model, the prompt of each on the device and decode on the CPU,
// against the CPU alone: the same answers, turn 2 reusing turn 1's prefix; with MTP drafts too.
TEST_P(GgmlConversation, SecondTurnReusesThePrefixAndAnswersAsCpu) {
  std::unique_ptr<GgmlBackend> probe;
  testing::open_ggml(probe, GetParam());
  if (!probe) return;
  auto engine = Engine::load(std::string(KAZEIA_SOURCE_DIR) + "/models/kazeia-chat-q8_0.gguf");
  for (DraftSource spec : {DraftSource::None, DraftSource::Mtp}) {
    SCOPED_TRACE(spec == DraftSource::Mtp ? "mtp drafts" : "no drafts");
    SessionParams on_device, on_cpu;
    on_device.n_ctx = on_cpu.n_ctx = 512;
    on_device.n_threads = on_cpu.n_threads = 2;
    on_device.prefill_device = "ggml:" + GetParam();
    on_device.decode_device = "cpu";
    on_device.prefill_min_tokens = 8;
    Session device_session(engine, on_device), cpu_session(engine, on_cpu);
    GenerateParams gp;
    gp.max_tokens = 24;
    gp.speculative.source = spec;
    std::vector<ChatMessage> history = {{"user", "Je m'appelle Zoé et j'ai 41 ans."}};
    for (int turn = 0; turn < 2; ++turn) {
      const GenerateResult got = device_session.generate(history, gp);
      const GenerateResult want = cpu_session.generate(history, gp);
      EXPECT_EQ(got.text, want.text) << "turn " << turn;
      EXPECT_GT(got.prefill_tokens, 0) << "turn " << turn;
      if (turn == 1) {
        EXPECT_EQ(got.cached_tokens, want.cached_tokens);
        EXPECT_GT(got.cached_tokens, 0);
      }
      history.push_back({"assistant", got.content});
      history.push_back({"user", "Quel âge ai-je ?"});
    }
  }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GgmlConversation);
INSTANTIATE_TEST_SUITE_P(Devices, GgmlConversation,
                         ::testing::ValuesIn(testing::ggml_device_names()),
                         testing::device_test_name);

}  // namespace
}  // namespace kz
