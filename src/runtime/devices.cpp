#include "runtime/devices.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "backend/cpu_backend.h"
#include "backend/device_registry.h"
#include "backend/factory.h"
#include "backend/split_backend.h"
#include "base/error.h"
#include "base/hash.h"
#include "runtime/oracle.h"

namespace kz {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string resolved_cache_dir(const std::string& dir) {
  if (!dir.empty()) return dir;
  if (std::string d = env("KAZEIA_CACHE_DIR"); !d.empty()) return d;
  if (std::string d = env("XDG_CACHE_HOME"); !d.empty()) return d + "/kazeia";
  if (std::string d = env("HOME"); !d.empty()) return d + "/.cache/kazeia";
  fail("op filter auto: no cache directory (set KAZEIA_CACHE_DIR or give a cache directory)");
}

}  // namespace

std::string auto_filter_path(const std::string& cache_dir, const Backend& device,
                             const Model& model, DType k_type, DType v_type) {
  // What the oracle's verdict depends on besides the model: the device and its driver or
  // kernels, the oracle itself (tolerances, prompt), and the cache types it ran with.
  const std::string key = device.device_key() + "|oracle " + std::to_string(kOracleVersion) +
                          "|k " + std::string(dtype_name(k_type)) + "|v " +
                          std::string(dtype_name(v_type));
  char name[64];
  std::snprintf(name, sizeof name, "opfilter-%016llx-%016llx.txt",
                (unsigned long long)fnv1a(key.data(), key.size()),
                (unsigned long long)model.fingerprint());
  return resolved_cache_dir(cache_dir) + "/" + name;
}

Devices::Slot& Devices::open_slot(const Model& model, const DeviceOptions& o,
                                  const std::string& name, bool with_filter) {
  auto slot = std::make_unique<Slot>();
  if (name != "cpu") slot->device = make_backend(name, o.n_threads);
  Backend& device = slot->device ? *slot->device : *cpu_;

  std::string text = with_filter ? o.op_filter : "";
  slot->source = "--op-filter";
  if (text.empty() && with_filter) {
    text = env("KAZEIA_OPFILTER");
    slot->source = "KAZEIA_OPFILTER";
  }
  if (text.empty()) {
    slot->source = "none";
  } else if (text == "auto") {
    const std::string path = auto_filter_path(o.cache_dir, device, model, o.k_type, o.v_type);
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      slot->filter = OpFilter::from_arg(path);
      slot->source = "auto (cached: " + path + ")";
    } else {
      OracleOptions oracle;
      oracle.k_type = o.k_type;
      oracle.v_type = o.v_type;
      slot->filter = run_oracle(model, device, oracle).failing_filter();
      slot->source = "auto (oracle run, saved to " + path + ")";
      try {
        std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
        slot->filter.save(path, "kazeia op filter (auto): ops that failed the oracle\ndevice: " +
                                    device.device_key() + "\nmodel: " + model.file().path());
      } catch (const Error& e) {
        slot->source = "auto (oracle run, not saved: " + std::string(e.what()) + ")";
      }
    }
  } else {
    slot->filter = OpFilter::from_arg(text);
  }
  slot->layers = {o.device_layers, model.info().n_layer};
  // On the CPU itself the filter would route every op to where it already runs. An accelerator
  // is always wrapped: what it refuses (Backend::supports) runs on the CPU.
  if (slot->device &&
      (!slot->filter.empty() || !slot->layers.all() || driver_for(name).accelerator))
    slot->filtered = std::make_unique<FilteredBackend>(device, *cpu_, slot->filter, slot->layers);
  slots_.push_back(std::move(slot));
  return *slots_.back();
}

namespace {

// llama.cpp spells the CPU `none` (-dev none).
std::string device_name(const std::string& given, const std::string& fallback) {
  const std::string& name = given.empty() ? fallback : given;
  return name == "none" ? "cpu" : name;
}

}  // namespace

Devices::Devices(const Model& model, const DeviceOptions& o)
    : prefill_min_tokens_(o.prefill_min_tokens) {
  if (o.prefill_min_tokens < 1)
    fail("invalid prefill threshold ", o.prefill_min_tokens, " (expected at least 1 token)");
  const std::string prefill = device_name(o.prefill_device, o.device);
  const std::string decode = device_name(o.decode_device, o.device);
  if (o.device_layers < -1)
    fail("invalid device layers ", o.device_layers, " (expected 0 or more, or -1 for all)");
  if (o.device_layers >= 0 && prefill == "cpu" && decode == "cpu")
    fail("device layers ", o.device_layers, " given, but no device other than the CPU is in use");
  if (o.repack != "auto" && o.repack != "on" && o.repack != "off")
    fail("invalid weight repacking '", o.repack, "' (expected auto, on or off)");
  const bool accelerator = driver_for(prefill).accelerator || driver_for(decode).accelerator;
  auto cpu = std::make_unique<CpuBackend>(o.n_threads);
  cpu->set_repack(o.repack == "on" || (o.repack == "auto" && !accelerator));
  cpu_ = std::move(cpu);
  auto active = [this](Slot& s) -> Backend& {
    if (s.filtered) return *s.filtered;
    return s.device ? *s.device : *cpu_;
  };
  const bool split = decode != prefill;
  Backend& first = active(open_slot(model, o, prefill, !split || prefill != "cpu"));
  if (!split) {
    active_ = &first;
    return;
  }
  Backend& second = active(open_slot(model, o, decode, decode != "cpu"));
  split_ = std::make_unique<SplitBackend>(first, second, o.prefill_min_tokens);
  active_ = split_.get();
}

Devices::~Devices() = default;

std::string Devices::describe() const {
  auto one = [this](const Slot& s) {
    const Backend& d = s.device ? *s.device : *cpu_;
    std::string text = "device " + d.device_key() + ", op filter " + s.filter.to_string() +
                       (s.source == "none" ? "" : " [" + s.source + "]");
    if (s.device && !s.layers.all())
      text += ", " + std::to_string(s.layers.count) + " of " + std::to_string(s.layers.n_layer) +
              " layers on the device";
    return text;
  };
  if (slots_.size() == 1) return one(*slots_[0]);
  return "prefill (batches of " + std::to_string(prefill_min_tokens_) +
         "+ tokens): " + one(*slots_[0]) + "; decode: " + one(*slots_[1]);
}

}  // namespace kz
