// A test and demonstration device: another backend with chosen ops made wrong, the way a broken
// kernel is wrong (the accelerator's ssm_conv that was wrong only for prompts, and only for some
// channel counts). `faults` uses the op filter's syntax to say which ops, phases and shapes to
// corrupt; `kazeia --device faulty:ENTRIES` runs the CPU backend so corrupted. Its only use is to
// prove that the oracle, bisect and the op filter find and contain such a bug. It corrupts an
// op's f32 output (written[0]); kv_store into an F16 or Q8_0 cache stays healthy. A test-support
// device: the app's library (libkazeia.so) has no such device kind.
#pragma once

#include <memory>

#include "backend/op_call.h"
#include "backend/op_filter.h"

namespace kz {

class FaultyBackend final : public InterceptingBackend {
 public:
  FaultyBackend(std::unique_ptr<Backend> inner, OpFilter faults);
  std::string_view name() const override { return "faulty"; }
  std::string device_key() const override;

 protected:
  void dispatch(OpCall& call) override;

 private:
  std::unique_ptr<Backend> inner_;
  OpFilter faults_;
};

// Adds the device kind `faulty:ENTRIES` to the registry (backend/device_registry.h), after the
// engine's own; the kazeia CLI and the tests that name the device call it.
void register_faulty_device();

}  // namespace kz
