// Which backends run a model's ops: the device the user chose (or one for prefill and one for
// decode), each with the op filter in force (ops it lists run on the CPU backend instead). The
// filter comes from --op-filter / SessionParams, or else the KAZEIA_OPFILTER environment
// variable; `auto` runs the oracle once for a device and model and keeps its failing ops in a
// cache file, keyed by device (name, driver / kernel table) and model fingerprint, which later
// loads read instead of running the oracle again.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/filtered_backend.h"
#include "model/model.h"

namespace kz {

struct DeviceOptions {
  std::string device = "cpu";  // backend/factory.h: cpu (or none), ref, opencl[:N], ggml:NAME
  // Split execution: batches of at least prefill_min_tokens tokens on prefill_device, the rest
  // (decode, short prompts) on decode_device; empty: `device`.
  std::string prefill_device, decode_device;
  int64_t prefill_min_tokens = 32;
  std::string op_filter;  // a list, a file, `auto`, or empty: $KAZEIA_OPFILTER, else none
  // Trunk layers whose ops run on the device (the first N; the rest of the model on the CPU, so
  // the device holds only their weights); -1: all (backend/filtered_backend.h, DeviceLayers).
  int64_t device_layers = -1;
  int n_threads = 1;
  // Where `auto` keeps its results; empty: $KAZEIA_CACHE_DIR, else $XDG_CACHE_HOME/kazeia, else
  // $HOME/.cache/kazeia.
  std::string cache_dir;
  DType k_type = DType::F16, v_type = DType::F16;  // the caches the auto oracle runs with
  // Whether the CPU repacks weights for its kernels (x86's packed layouts; ARM reads the file's
  // rows anyway): "on", "off", or "auto": on unless an OpenCL device is in use. An accelerator
  // reads the weights in file order, in place where it shares host memory, and beside it the
  // repacked rows are a second copy (every prefill faults the file's pages back in), so `auto`
  // keeps one copy at the cost of x86's row-major kernels (docs/benchmarks.md).
  std::string repack = "auto";
};

class Devices {
 public:
  // Throws kz::Error naming the device or filter entry at fault.
  Devices(const Model& model, const DeviceOptions& options);
  ~Devices();

  // What runs the model's ops (with a split, it picks the device per batch).
  Backend& backend() { return *active_; }
  // The filter in force on the prefill device, and how it was chosen: "none", "--op-filter",
  // "KAZEIA_OPFILTER", "auto (cached: FILE)", "auto (oracle run, saved to FILE)".
  const OpFilter& filter() const { return slots_[0]->filter; }
  const std::string& filter_source() const { return slots_[0]->source; }
  // The prefill device's filtering backend; null when no filter is in force or the device is
  // the CPU (where a filter changes nothing).
  FilteredBackend* filtered() { return slots_[0]->filtered.get(); }
  // One line for logs and benchmarks: "device cpu/avx2, op filter none".
  std::string describe() const;

 private:
  // One device with its filter; `device` null when the CPU backend is the device.
  struct Slot {
    std::unique_ptr<Backend> device;
    OpFilter filter;
    DeviceLayers layers;
    std::string source = "none";
    std::unique_ptr<FilteredBackend> filtered;
  };
  // `with_filter` false: no op filter (the CPU as a split's other device runs every op itself).
  Slot& open_slot(const Model& model, const DeviceOptions& o, const std::string& name,
                  bool with_filter);

  std::unique_ptr<Backend> cpu_;
  std::vector<std::unique_ptr<Slot>> slots_;  // [0]: prefill (or only) device, [1]: decode
  std::unique_ptr<Backend> split_;
  Backend* active_ = nullptr;
  int64_t prefill_min_tokens_ = 0;
};

// The cache file of `auto` filters for this device, model and cache types under `cache_dir`
// (resolved as in DeviceOptions).
std::string auto_filter_path(const std::string& cache_dir, const Backend& device,
                             const Model& model, DType k_type, DType v_type);

}  // namespace kz
