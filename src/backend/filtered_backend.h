// The op filter in force: each op runs on `cpu` when the filter lists it, the device refuses it
// (Backend::supports), or it lies outside the device's layers (DeviceLayers), else on `device`.
// Where the two differ, a CPU op after device ops first waits for the device (Backend::sync),
// which the device counts in its traffic.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "backend/op_call.h"
#include "backend/op_filter.h"

namespace kz {

// `--device-layers N`: only trunk layers 0..N-1 run on the device, the rest of the model (later
// layers, the embedding, the output head, the MTP layer) on the CPU, so that the device holds
// only those layers' weights. Every layer (the default) keeps the whole model on the device.
struct DeviceLayers {
  int64_t count = -1;   // layers on the device; -1: all
  int64_t n_layer = 0;  // the model's trunk layers

  // Whether every op runs on the device (count -1, or at least n_layer).
  bool all() const { return count < 0 || count >= n_layer; }
  // Whether ops of `layer` (Backend::at_layer: -1 outside the trunk) run on the device.
  bool on_device(int64_t layer) const { return all() || (layer >= 0 && layer < count); }
};

class FilteredBackend final : public InterceptingBackend {
 public:
  FilteredBackend(Backend& device, Backend& cpu, OpFilter filter, DeviceLayers layers = {});
  std::string_view name() const override { return device_.name(); }
  std::string device_key() const override { return device_.device_key(); }
  std::string_view last_op_backend() const override;
  Backend& device() { return device_; }
  const OpFilter& filter() const { return filter_; }
  const DeviceLayers& layers() const { return layers_; }

  struct Counts {
    int64_t device_ops = 0, cpu_ops = 0;
    int64_t refused_ops = 0;  // of cpu_ops: the device refused them (not the filter)
    int64_t layer_ops = 0;    // of cpu_ops: outside the device's layers
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
  DeviceLayers layers_;
  Counts counts_;
  std::set<std::string> refused_;
  bool on_cpu_ = false;  // where the last op ran
};

}  // namespace kz
