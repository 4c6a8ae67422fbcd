// Which backend runs a model's ops: the device the user chose, with the op filter in force (ops
// it lists run on the CPU backend instead). The filter comes from --op-filter / SessionParams, or
// else the KAZEIA_OPFILTER environment variable; `auto` runs the oracle once for this device and
// model and keeps its failing ops in a cache file, keyed by device (name, driver / kernel table)
// and model fingerprint, which later loads read instead of running the oracle again.
#pragma once

#include <memory>
#include <string>

#include "backend/filtered_backend.h"
#include "model/model.h"

namespace kz {

struct DeviceOptions {
  std::string device = "cpu";  // cpu, ref or faulty:ENTRIES (backend/factory.h)
  std::string op_filter;       // a list, a file, `auto`, or empty: $KAZEIA_OPFILTER, else none
  int n_threads = 1;
  // Where `auto` keeps its results; empty: $KAZEIA_CACHE_DIR, else $XDG_CACHE_HOME/kazeia, else
  // $HOME/.cache/kazeia.
  std::string cache_dir;
  DType k_type = DType::F16, v_type = DType::F16;  // the caches the auto oracle runs with
};

class Devices {
 public:
  // Throws kz::Error naming the device or filter entry at fault.
  Devices(const Model& model, const DeviceOptions& options);
  ~Devices();

  // What runs the model's ops.
  Backend& backend() { return filtered_ ? *filtered_ : device(); }
  const OpFilter& filter() const { return filter_; }
  // How the filter was chosen: "none", "--op-filter", "KAZEIA_OPFILTER", "auto (cached: FILE)",
  // "auto (oracle run, saved to FILE)".
  const std::string& filter_source() const { return filter_source_; }
  // One line for logs and benchmarks: "device cpu, op filter none".
  std::string describe() const;
  // Null when no filter is in force.
  FilteredBackend* filtered() { return filtered_.get(); }

 private:
  Backend& device() { return device_ ? *device_ : *cpu_; }

  std::unique_ptr<Backend> cpu_, device_;  // device_ null: the CPU backend is the device
  OpFilter filter_;
  std::string filter_source_ = "none";
  std::unique_ptr<FilteredBackend> filtered_;
};

// The cache file of `auto` filters for this device and model under `cache_dir` (resolved as in
// DeviceOptions).
std::string auto_filter_path(const std::string& cache_dir, const Backend& device,
                             const Model& model);

}  // namespace kz
