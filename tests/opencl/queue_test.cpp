// The queue (src/backend/opencl/queue.h): ops on shared memory are enqueued without waiting and
// give ref's results once synced; the host waits once per sync, not per op; inputs in other host
// memory are taken as they are at the call; shared memory freed or reused while ops are queued
// stays correct; a model's batch is one synchronisation. With zero copy and with copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backend/cpu_backend.h"
#include "backend/filtered_backend.h"
#include "base/shared_memory.h"
#include "model/model.h"
#include "opencl_op_test.h"
#include "testing/metrics.h"
#include "testing/reference_logits.h"

namespace kz {
namespace {

using testing::random;
using testing::random_matrix;
using testing::Weights;

// The chain's ops are the ref ops but for float summation order (ops_test.cpp's bounds).
constexpr double kChainTol = 1e-5;

std::vector<float> host(const SharedVector<float>& v) {
  return std::vector<float>(v.begin(), v.end());
}

class OpenclQueue : public testing::OpenclOpTest {};

// norm -> product -> silu -> add -> split -> product, on buffers of type V.
template <class V>
struct Chain {
  static constexpr int64_t kTok = 6, kCols = 64, kRows = 128;
  V x = random<V>(kTok * kCols, 1), norm = V(kTok * kCols), y = V(kTok * kRows);
  V a = V(kTok * kRows / 2), b = V(kTok * kRows / 2), z = V(kTok * 32);
  void run(Backend& be, const Weights& w1, const Weights& w2) {
    be.rms_norm(x.data(), nullptr, kCols, kTok, 1e-6f, norm.data());
    be.matmul(w1.m, norm.data(), kTok, y.data());
    be.silu(y.data(), y.size());
    be.add(y.data(), y.data(), y.size());
    be.split_halves(y.data(), kTok * 2, kRows / 4, a.data(), b.data());
    be.matmul(w2.m, a.data(), kTok, z.data());
  }
};

TEST_P(OpenclQueue, OpsOnSharedMemoryWaitOnlyAtSync) {
  const Weights w1 = random_matrix(DType::Q8_0, 64, 128), w2 = random_matrix(DType::Q8_0, 64, 32);
  Chain<std::vector<float>> want;
  want.run(ref_, w1, w2);
  Chain<SharedVector<float>> got;
  got.run(*cl_, w1, w2);  // the weights are wrapped or uploaded here, once
  cl_->sync();
  cl_->reset_traffic();
  got.run(*cl_, w1, w2);
  EXPECT_EQ(cl_->traffic().syncs, 0);  // six ops queued, none waited for
  cl_->sync();
  EXPECT_EQ(cl_->traffic().syncs, 1);
  cl_->sync();  // nothing queued since: no wait
  EXPECT_EQ(cl_->traffic().syncs, 1);
  EXPECT_LE(testing::rel_rms(host(got.z), want.z), kChainTol);
  EXPECT_LE(testing::rel_rms(host(got.b), want.b), kChainTol);
  if (cl_->zero_copy()) {
    EXPECT_EQ(cl_->traffic().bytes_copied, 0u);
  } else {
    // Each allocation up once; the five written back once (x is only read).
    uint64_t written = 0;
    for (const auto* v : {&got.norm, &got.y, &got.a, &got.b, &got.z}) written += v->size() * 4;
    const uint64_t all = written + got.x.size() * 4;
    EXPECT_EQ(cl_->traffic().bytes_copied, all + written);
  }

  // The host changes shared memory after the sync; the device sees the change.
  for (float& v : got.x) v *= 2;
  for (float& v : want.x) v *= 2;
  want.run(ref_, w1, w2);
  got.run(*cl_, w1, w2);
  cl_->sync();
  EXPECT_LE(testing::rel_rms(host(got.z), want.z), kChainTol);
}

TEST_P(OpenclQueue, HostInputsAreTakenAtTheCall) {
  const int64_t n = 1000;
  SharedVector<float> x(n, 1.0f);
  std::vector<float> y(n, 2.0f);  // not shared memory: copied at the call
  cl_->add(x.data(), y.data(), n);
  std::fill(y.begin(), y.end(), 100.0f);  // before the op has (necessarily) run
  cl_->sync();
  EXPECT_EQ(host(x), std::vector<float>(n, 3.0f));
}

// Ranges inside an allocation: aligned ones as sub-buffers, others as temporaries copied on the
// device.
TEST_P(OpenclQueue, RangesInsideAnAllocation) {
  const int64_t n = 4096;
  for (int64_t offset : {int64_t(0), int64_t(1024), int64_t(1), int64_t(37)}) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    auto x = random<SharedVector<float>>(n, 3);
    const auto y = random<SharedVector<float>>(n, 4);
    std::vector<float> want(x.begin(), x.end());
    ref_.add(want.data() + offset, y.data() + offset, 512);
    cl_->add(x.data() + offset, y.data() + offset, 512);  // queued or, misaligned, waited for
    cl_->sync();
    EXPECT_EQ(host(x), want);
  }
}

// An unaligned range after an aligned one in the same op: the first stays on the device for the
// op (a sync inside the call once took it back to the host under it).
TEST_P(OpenclQueue, UnalignedRangeAfterAPlacedOne) {
  auto x = random<SharedVector<float>>(512, 5);
  const auto y = random<SharedVector<float>>(600, 6);
  std::vector<float> want(x.begin(), x.end());
  cl_->silu(x.data(), 512);  // x placed on the device, with a queued op
  ref_.silu(want.data(), 512);
  ref_.add(want.data(), y.data() + 1, 512);
  cl_->add(x.data(), y.data() + 1, 512);
  cl_->sync();
  EXPECT_LE(testing::rel_rms(host(x), want), kChainTol);
}

// An input copied at the call, then an unaligned shared range: the copy lives until the kernel
// has run (a sync inside the call once freed it first).
TEST_P(OpenclQueue, HostInputThenUnalignedRange) {
  const std::vector<float> gate(512, 1.0f);
  SharedVector<float> up(600, 2.0f), y(512);
  std::vector<float> want(512);
  ref_.swiglu(gate.data(), up.data() + 1, 512, want.data());
  cl_->swiglu(gate.data(), up.data() + 1, 512, y.data());
  cl_->sync();
  EXPECT_LE(testing::rel_rms(host(y), want), kChainTol);
}

// Two outputs in one allocation, one unaligned: both land (the copying path once read the whole
// allocation back over the unaligned one).
TEST_P(OpenclQueue, UnalignedOutputBesideAnAlignedOne) {
  const auto x = random<SharedVector<float>>(2 * 64, 7);
  SharedVector<float> out(8192, -1.0f);
  std::vector<float> want(out.begin(), out.end());
  ref_.split_halves(x.data(), 1, 64, want.data() + 1, want.data() + 4096);
  cl_->split_halves(x.data(), 1, 64, out.data() + 1, out.data() + 4096);
  cl_->sync();
  EXPECT_EQ(host(out), want);
}

// Poisons every shared allocation as it is freed: a kernel still reading one would read NaN.
struct Poisoner final : SharedMemoryListener {
  Poisoner() { shared_memory::add_listener(this); }
  ~Poisoner() { shared_memory::remove_listener(this); }
  void on_free(const SharedRegion& r) override {
    std::fill_n(reinterpret_cast<float*>(r.base), r.bytes / sizeof(float), std::nanf(""));
  }
};

// A scratch buffer outgrown while ops on it are queued: the queue waits before it is freed.
TEST_P(OpenclQueue, SharedMemoryFreedWhileQueued) {
  Poisoner poisoner;  // told after the backend's queue, which waits
  SharedVector<float> keep(256, 1.0f);
  for (int round = 0; round < 3; ++round) {
    SharedVector<float> x(256, 2.0f);
    cl_->add(keep.data(), x.data(), 256);
    x.assign(1 << 16, 0.0f);  // reallocated: frees what the queued add reads
    cl_->add(keep.data(), x.data(), 256);
  }
  cl_->sync();
  EXPECT_EQ(host(keep), std::vector<float>(256, 7.0f));
}

// A model's batch on opencl: one synchronisation (the logits), and with an op filter one more for
// each return from the device to the cpu.
TEST_P(OpenclQueue, ABatchIsOneSynchronisation) {
  auto model = Model::load(testing::model_path("qwen35-tiny-q4_0"));
  const std::vector<int32_t> prompt = {1, 5, 9, 2, 7, 3, 11, 4, 8, 6, 10, 12};
  std::vector<float> want, got;
  Scratch s;  // sized by the first run: an outgrown buffer would add a wait
  {
    SequenceState st = model->new_state(64, DType::F16, DType::F16);
    model->eval(ref_, st, s, prompt, false, want);
  }
  SequenceState st = model->new_state(64, DType::F16, DType::F16);
  cl_->reset_traffic();
  model->eval(*cl_, st, s, prompt, false, got);
  EXPECT_EQ(cl_->traffic().syncs, 1);
  EXPECT_LE(testing::rel_rms(got, want), 1e-4);

  CpuBackend cpu(1);
  FilteredBackend filtered(*cl_, cpu, OpFilter::parse("ssm_conv"));
  SequenceState st2 = model->new_state(64, DType::F16, DType::F16);
  filtered.reset_traffic();
  model->eval(filtered, st2, s, prompt, false, got);
  // Before each recurrent layer's ssm_conv the device gives the data back; then the batch's end.
  const int64_t conv_calls = filtered.counts().cpu_ops;
  EXPECT_GT(conv_calls, 0);
  EXPECT_EQ(filtered.traffic().syncs, conv_calls + 1);
  EXPECT_LE(testing::rel_rms(got, want), 1e-4);  // the cpu's conv is exact too
}

INSTANTIATE_TEST_SUITE_P(Memory, OpenclQueue,
                         ::testing::Values(opencl::MemoryMode::kAuto, opencl::MemoryMode::kCopy),
                         testing::memory_mode_name);

}  // namespace
}  // namespace kz
