// --device-layers N on each ggml device: only the first N layers' ops run on the device, the rest
// of the model (embedding and output head included) on the CPU; the logits stay the reference's,
// and the device holds fewer weights (they are made on first use, so a layer never run on the
// device costs it nothing).
#include <gtest/gtest.h>

#include <string>

#include "ggml_device.h"
#include "runtime/devices.h"
#include "testing/fixture_checks.h"

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
  const std::string model = "qwen35-small-q4_0";
  auto m = Model::load(testing::model_path(model));
  ASSERT_GT(m->info().n_layer, 2);
  DeviceOptions o;
  o.device = "ggml:" + GetParam();
  o.n_threads = 1;
  Devices all(*m, o);
  testing::expect_rounded_like_reference(model, all.backend());
  o.device_layers = 2;
  Devices first_two(*m, o);
  testing::expect_rounded_like_reference(model, first_two.backend());

  const FilteredBackend::Counts& c = first_two.filtered()->counts();
  EXPECT_GT(c.device_ops, 0);
  EXPECT_GT(c.layer_ops, c.device_ops);  // most layers, the embedding and the head
  EXPECT_EQ(all.filtered()->counts().layer_ops, 0);
  EXPECT_GT(weight_bytes(first_two), 0u);
  EXPECT_LT(weight_bytes(first_two), weight_bytes(all) / 2);
  EXPECT_NE(first_two.describe().find("2 of " + std::to_string(m->info().n_layer) + " layers"),
            std::string::npos)
      << first_two.describe();
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GgmlDeviceLayers);
INSTANTIATE_TEST_SUITE_P(Devices, GgmlDeviceLayers,
                         ::testing::ValuesIn(testing::ggml_device_names()),
                         testing::device_test_name);

}  // namespace
}  // namespace kz
