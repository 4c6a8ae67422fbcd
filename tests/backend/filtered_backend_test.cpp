// The router under the op filter: --device-layers keeps only the first N trunk layers on the
// device (the embedding, the head and later layers run on the CPU), and bench --profile sees
// which backend ran each op.
#include "backend/filtered_backend.h"

#include <gtest/gtest.h>

#include <vector>

#include "backend/cpu_backend.h"
#include "backend/profiling_backend.h"

namespace kz {
namespace {

// A device that is the CPU under another name, counting the ops it ran.
class CountingDevice final : public InterceptingBackend {
 public:
  explicit CountingDevice(Backend& inner) : InterceptingBackend({&inner}), inner_(inner) {}
  std::string_view name() const override { return "device"; }
  int64_t ops = 0;

 protected:
  void dispatch(OpCall& call) override {
    ++ops;
    call.run(inner_);
  }

 private:
  Backend& inner_;
};

TEST(DeviceLayers, AllByDefaultOrWhenCoveringTheTrunk) {
  EXPECT_TRUE((DeviceLayers{-1, 24}.all()));
  EXPECT_TRUE((DeviceLayers{24, 24}.all()));
  EXPECT_TRUE((DeviceLayers{30, 24}.all()));
  EXPECT_TRUE((DeviceLayers{24, 24}.on_device(-1)));  // the whole model: embedding and head too
  const DeviceLayers first_two{2, 24};
  EXPECT_FALSE(first_two.all());
  EXPECT_TRUE(first_two.on_device(0));
  EXPECT_TRUE(first_two.on_device(1));
  EXPECT_FALSE(first_two.on_device(2));
  EXPECT_FALSE(first_two.on_device(-1));  // embedding, head
  EXPECT_FALSE(first_two.on_device(24));  // the MTP layer
  EXPECT_FALSE((DeviceLayers{0, 24}.on_device(0)));
}

TEST(FilteredBackend, RunsOnlyTheFirstLayersOnTheDevice) {
  CpuBackend cpu(1), inner(1);
  CountingDevice device(inner);
  FilteredBackend filtered(device, cpu, OpFilter{}, DeviceLayers{2, 4});
  std::vector<float> x(64, 0.5f);
  filtered.begin_batch(8);
  for (int64_t layer : {-1, 0, 1, 2, 3, -1}) {
    filtered.at_layer(layer);
    filtered.silu(x.data(), 64);
    EXPECT_EQ(filtered.last_op_backend(), layer == 0 || layer == 1 ? "device" : "cpu")
        << "layer " << layer;
  }
  EXPECT_EQ(device.ops, 2);
  EXPECT_EQ(filtered.counts().device_ops, 2);
  EXPECT_EQ(filtered.counts().cpu_ops, 4);
  EXPECT_EQ(filtered.counts().layer_ops, 4);
  EXPECT_EQ(filtered.counts().refused_ops, 0);
}

TEST(ProfilingBackend, SaysWhichBackendRanEachOp) {
  CpuBackend cpu(1), inner(1);
  CountingDevice device(inner);
  FilteredBackend filtered(device, cpu, OpFilter::parse("add"));
  ProfilingBackend profiled(filtered);
  std::vector<float> x(64, 0.5f), y(64, 0.25f);
  profiled.begin_batch(8);
  profiled.silu(x.data(), 64);
  profiled.add(x.data(), y.data(), 64);
  const OpTimes& t = profiled.times();
  EXPECT_EQ(t.by_op.count("silu"), 1u);  // on the profiled device: no tag
  EXPECT_EQ(t.by_op.count("add [cpu]"), 1u);
  EXPECT_EQ(t.by_op.size(), 2u);
  EXPECT_EQ(t.by_device.count("device"), 1u);
  EXPECT_EQ(t.by_device.count("cpu"), 1u);
}

}  // namespace
}  // namespace kz
