#include "test_support/faulty_backend.h"

#include "backend/cpu_backend.h"
#include "backend/device_registry.h"
#include "base/error.h"

namespace kz {
namespace {

constexpr std::string_view kPrefix = "faulty:";

std::unique_ptr<Backend> open_faulty(std::string_view name, int n_threads) {
  OpFilter faults = OpFilter::parse(name.substr(kPrefix.size()));
  if (faults.empty()) fail("device '", name, "' names no op to corrupt");
  return std::make_unique<FaultyBackend>(std::make_unique<CpuBackend>(n_threads),
                                         std::move(faults));
}

}  // namespace

FaultyBackend::FaultyBackend(std::unique_ptr<Backend> inner, OpFilter faults)
    : InterceptingBackend({inner.get()}), inner_(std::move(inner)), faults_(std::move(faults)) {}

std::string FaultyBackend::device_key() const {
  return "faulty(" + faults_.to_string() + ")/" + inner_->device_key();
}

void FaultyBackend::dispatch(OpCall& call) {
  run_synced(call, *inner_);
  const WrittenRegion& out = call.written[0];
  if (!faults_.matches(call.shape) || out.type != DType::F32) return;
  // Off by a quarter, alternately up and down, plus a small offset: relative errors of tens of
  // per cent, like a kernel that mixes up lanes or scales, and not undone by a later norm.
  float* y = static_cast<float*>(out.data);
  for (int64_t i = 0; i < out.n; ++i) y[i] = y[i] * (i % 2 ? 1.25f : 0.75f) + 0.0625f;
}

void register_faulty_device() {
  register_device_driver({.kind = "faulty",
                          .spelling = "faulty:ENTRIES",
                          .summary = "the CPU with the listed ops made wrong (a test device)",
                          .matches = [](std::string_view n) { return n.starts_with(kPrefix); },
                          .open = open_faulty});
}

}  // namespace kz
