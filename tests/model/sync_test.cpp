// Where the host waits for a device (Backend::sync): the op filter before a CPU op that follows
// device ops, and Model::eval after each batch, also when the batch fails midway (queued ops must
// finish before the host touches the state again).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend/cpu_backend.h"
#include "backend/filtered_backend.h"
#include "backend/op_call.h"
#include "base/error.h"
#include "model/model.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

// A device that counts its syncs and, optionally, fails on one op kind.
class CountingDevice final : public InterceptingBackend {
 public:
  explicit CountingDevice(Backend& inner, std::string fail_on = "")
      : InterceptingBackend({&inner}), inner_(inner), fail_on_(std::move(fail_on)) {}
  std::string_view name() const override { return "counting"; }
  void sync() override {
    ++syncs;
    InterceptingBackend::sync();
  }
  int syncs = 0;

 protected:
  void dispatch(OpCall& call) override {
    if (call.shape.kind == fail_on_) fail("counting: ", fail_on_, " fails");
    call.run(inner_);
  }

 private:
  Backend& inner_;
  std::string fail_on_;
};

TEST(Sync, TheFilterWaitsForTheDeviceBeforeACpuOp) {
  CpuBackend inner(1), cpu(1);
  CountingDevice device(inner);
  FilteredBackend filtered(device, cpu, OpFilter::parse("silu"));
  std::vector<float> x(64, 1.0f), y(64, 2.0f);
  filtered.add(x.data(), y.data(), 64);  // device
  filtered.silu(x.data(), 64);           // cpu: waits first
  EXPECT_EQ(device.syncs, 1);
  filtered.silu(x.data(), 64);  // cpu after cpu: nothing to wait for
  EXPECT_EQ(device.syncs, 1);
  filtered.add(x.data(), y.data(), 64);
  filtered.silu(x.data(), 64);
  EXPECT_EQ(device.syncs, 2);
}

TEST(Sync, EvalWaitsAfterEachBatchAndWhenOneFails) {
  auto model = Model::load(testing::model_path("qwen3-tiny-q8_0"));
  CpuBackend cpu(1);
  const std::vector<int32_t> prompt(20, 3);
  std::vector<float> logits;
  Scratch s;
  {
    CountingDevice device(cpu);
    SequenceState st = model->new_state(64, DType::F16, DType::F16);
    model->eval(device, st, s, prompt, false, logits);
    EXPECT_EQ(device.syncs, 1);
  }
  CountingDevice failing(cpu, "swiglu");
  SequenceState st = model->new_state(64, DType::F16, DType::F16);
  EXPECT_THROW(model->eval(failing, st, s, prompt, false, logits), Error);
  EXPECT_EQ(failing.syncs, 1);  // before the error reaches the caller
}

}  // namespace
}  // namespace kz
