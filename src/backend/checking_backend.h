// The oracle's backend: runs every op on the device under test and on `ref` from the same inputs,
// and records the error per op shape (kind, phase, shape parameters): relative RMS and max
// absolute error of every region the op writes, and for the LM head whether each row's arg-max
// agrees. The device's results are kept, so the forward pass goes on as the device computes it
// and each op is judged on its own, not on the drift of the ops before it.
#pragma once

#include <cstdint>
#include <map>

#include "backend/op_call.h"
#include "backend/op_tolerance.h"
#include "backend/ref_backend.h"

namespace kz {

struct OpCheck {
  int64_t count = 0;
  double worst_rel_rms = 0, worst_max_abs = 0;
  OpTolerance tolerance{};
  // The call nearest to (or furthest past) its bound: error / bound, the bound, its layer.
  double worst_ratio = 0, bound = 0;
  int64_t worst_layer = -1;                        // -1: embedding or output head
  int64_t argmax_rows = 0, argmax_mismatches = 0;  // LM head rows compared / not agreeing
  // The device refused the op (Backend::supports): it runs on the CPU, nothing to check.
  bool refused = false;
  bool pass() const { return worst_ratio <= 1 && argmax_mismatches == 0; }
};

// Errors of one op's output against the reference's.
struct OpError {
  double rel_rms = 0, max_abs = 0;
};
OpError op_error(const std::vector<float>& got, const std::vector<float>& want);

class CheckingBackend final : public InterceptingBackend {
 public:
  explicit CheckingBackend(Backend& device);
  std::string_view name() const override { return device_.name(); }
  std::string device_key() const override { return device_.device_key(); }
  const std::map<OpShape, OpCheck>& results() const { return results_; }

 protected:
  void dispatch(OpCall& call) override;

 private:
  Backend& device_;
  RefBackend ref_;
  std::map<OpShape, OpCheck> results_;
};

}  // namespace kz
