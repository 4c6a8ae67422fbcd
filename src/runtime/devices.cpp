#include "runtime/devices.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "backend/factory.h"
#include "base/error.h"
#include "runtime/oracle.h"

namespace kz {
namespace {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

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

// Writes the filter with a header saying what it was measured on; returns false if it could not.
bool save_filter(const std::string& path, const OpFilter& filter, const Backend& device,
                 const Model& model) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << "# kazeia op filter (auto): ops that failed the oracle\n"
        << "# device: " << device.device_key() << "\n"
        << "# model: " << model.file().path() << " (" << model.info().arch << ")\n";
    for (const OpFilterEntry& e : filter.entries()) out << e.to_string() << "\n";
    if (!out) return false;
  }
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

}  // namespace

std::string auto_filter_path(const std::string& cache_dir, const Backend& device,
                             const Model& model) {
  char name[64];
  std::snprintf(name, sizeof name, "opfilter-%016llx-%016llx.txt",
                (unsigned long long)fnv1a(device.device_key()),
                (unsigned long long)model.fingerprint());
  return resolved_cache_dir(cache_dir) + "/" + name;
}

Devices::Devices(const Model& model, const DeviceOptions& o) {
  cpu_ = make_backend("cpu", o.n_threads);
  if (o.device != "cpu") device_ = make_backend(o.device, o.n_threads);

  std::string text = o.op_filter;
  filter_source_ = "--op-filter";
  if (text.empty()) {
    text = env("KAZEIA_OPFILTER");
    filter_source_ = "KAZEIA_OPFILTER";
  }
  if (text.empty()) {
    filter_source_ = "none";
  } else if (text == "auto") {
    const std::string path = auto_filter_path(o.cache_dir, device(), model);
    if (std::filesystem::exists(path)) {
      filter_ = OpFilter::from_arg(path);
      filter_source_ = "auto (cached: " + path + ")";
    } else {
      OracleOptions oracle;
      oracle.k_type = o.k_type;
      oracle.v_type = o.v_type;
      filter_ = run_oracle(model, device(), oracle).failing_filter();
      filter_source_ = save_filter(path, filter_, device(), model)
                           ? "auto (oracle run, saved to " + path + ")"
                           : "auto (oracle run, could not save to " + path + ")";
    }
  } else {
    filter_ = OpFilter::from_arg(text);
  }
  if (!filter_.empty()) filtered_ = std::make_unique<FilteredBackend>(device(), *cpu_, filter_);
}

Devices::~Devices() = default;

std::string Devices::describe() const {
  const Backend& d = device_ ? *device_ : *cpu_;
  return "device " + d.device_key() + ", op filter " + filter_.to_string() +
         (filter_source_ == "none" ? "" : " [" + filter_source_ + "]");
}

}  // namespace kz
