// The op filter in force: each op runs on `cpu` when the filter lists it, else on `device`. Where
// the two differ, every move from a device op to a CPU op is a synchronisation (the host waits
// for the device's queue before the CPU reads its results); they are counted for bench --profile.
#pragma once

#include <cstdint>

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
    int64_t device_ops = 0, cpu_ops = 0, syncs = 0;
  };
  const Counts& counts() const { return counts_; }
  // The device's traffic plus the syncs the filter adds; a reset clears the counts too.
  Traffic traffic() const override;
  void reset_traffic() override;

 protected:
  void dispatch(OpCall& call) override;

 private:
  Backend& device_;
  Backend& cpu_;
  OpFilter filter_;
  Counts counts_;
  bool on_cpu_ = false;  // where the last op ran
};

}  // namespace kz
