// --device-layers N on each ggml device: only the first N layers' ops run on the device, the rest
// of the model (embedding and output head included) on the CPU. The prompt on that mix, then
// decode on `cpu`, chooses what `cpu` alone chooses (near ties excepted, as the fixture tests
// judge a device), and the device holds fewer weights: they are made on first use, so a layer
// never run on the device costs it nothing.
#include <gtest/gtest.h>

#include <string>

#include "backend/factory.h"
#include "ggml_device.h"
#include "runtime/devices.h"
#include "testing/fixture_checks.h"
#include "testing/teacher_forced.h"

namespace kz {
namespace {

class GgmlDeviceLayers : public ::testing::TestWithParam<std::string> {};

uint64_t weight_bytes(Devices& devices) {
  const auto& c = dynamic_cast<GgmlBackend&>(devices.filtered()->device()).counters();
  return c.weights_wrapped + c.weights_uploaded + c.weights_repacked;
}

TEST_P(GgmlDeviceLayers, FirstLayersOnTheDeviceRestOnTheCpu) {
  std::unique_ptr<GgmlBackend> probe;
  testing::open_ggml(probe, GetParam());
  if (!probe) return;
  const std::string model = "qwen35-tiny-q4_0";  // 4 layers: 3 Gated DeltaNet, 1 attention
  auto m = Model::load(testing::model_path(model));
  const std::string dir = testing::fixtures_dir() + "/models/" + model;
  const auto rounded = testing::load_reference(dir + ".ref.json");
  const auto exact = testing::load_reference(dir + ".ref-f32act.json");
  const testing::ReferenceCase& rc = rounded[0];  // `short`: 22 prompt tokens
  auto cpu = make_backend("cpu", 2);
  const auto want =
      testing::teacher_forced_logits(*m, rc.prompt, rc.continuation, *cpu, *cpu, DType::F16);

  DeviceOptions o;
  o.prefill_device = "ggml:" + GetParam();
  o.decode_device = "cpu";
  o.prefill_min_tokens = 8;
  o.n_threads = 1;
  Devices all(*m, o);
  o.device_layers = 1;
  Devices first(*m, o);
  for (Devices* d : {&all, &first}) {
    const auto got = testing::teacher_forced_logits(*m, rc.prompt, rc.continuation, d->backend(),
                                                    d->backend(), DType::F16);
    SCOPED_TRACE(d->describe());
    EXPECT_LE(testing::expect_same_choices_or_near_ties(got, want, rc, exact[0]), 2);
  }

  const FilteredBackend::Counts& c = first.filtered()->counts();
  EXPECT_GT(c.device_ops, 0);
  EXPECT_GT(c.layer_ops, c.device_ops);  // three layers of four, the embedding and the head
  EXPECT_EQ(all.filtered()->counts().layer_ops, 0);
  EXPECT_GT(weight_bytes(first), 0u);
  EXPECT_LT(weight_bytes(first), weight_bytes(all) / 3);
  EXPECT_NE(first.describe().find("1 of 4 layers on the device"), std::string::npos)
      << first.describe();
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GgmlDeviceLayers);
INSTANTIATE_TEST_SUITE_P(Devices, GgmlDeviceLayers,
                         ::testing::ValuesIn(testing::ggml_device_names()),
                         testing::device_test_name);

}  // namespace
}  // namespace kz
