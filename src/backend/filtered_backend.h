// The op filter in force: each op runs on `cpu` when the filter lists it or the device refuses
// it (Backend::supports), else on `device`. Where the two differ, a CPU op after device ops first
// waits for the device (Backend::sync), which the device counts in its traffic.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "backend/op_call.h"
#include "backend/op_filter.h"

namespace kz {

class FilteredBackend final : public InterceptingBackend {
 public:
  FilteredBackend(Backend& device, Backend& cpu, OpFilter filter);
  std::string_view name() const override { return device_.name(); }
  std::string device_key() const override { return device_.device_key(); }
  const OpFilter& filter() const { return filter_; }

  struct Counts {
    int64_t device_ops = 0, cpu_ops = 0;
    int64_t refused_ops = 0;  // of cpu_ops: the device refused them (not the filter)
  };
  const Counts& counts() const { return counts_; }
  // The op shapes the device refused so far ("attention@prompt:heads=..."), which ran on the CPU.
  const std::set<std::string>& refused() const { return refused_; }
  // Clears the counts too.
  void reset_traffic() override;

 protected:
  void dispatch(OpCall& call) override;

 private:
  Backend& device_;
  Backend& cpu_;
  OpFilter filter_;
  Counts counts_;
  std::set<std::string> refused_;
  bool on_cpu_ = false;  // where the last op ran
};

}  // namespace kz
