#include "backend/ggml/devices.h"

#include "backend/ggml/ggml_backend.h"
#include "backend/ggml/library.h"
#include "base/error.h"

namespace kz::ggml {

std::unique_ptr<Backend> open_device(std::string_view name, int n_threads) {
  if (name.empty()) fail("invalid device 'ggml:' (expected ggml:NAME, NAME from kazeia devices)");
  return std::make_unique<GgmlBackend>(std::string(name), n_threads);
}

std::string describe_devices() {
  const Library* lib = nullptr;
  try {
    lib = &load_library();
  } catch (const Error& e) {
    return std::string(e.what()) + "\n";
  }
  std::string out =
      "ggml " + lib->version + ": " + (lib->dir.empty() ? "by name" : lib->dir) + "\n";
  if (lib->devices.empty()) return out + "no ggml devices\n";
  for (const DeviceInfo& d : lib->devices) {
    out += "  ggml:" + d.name + "  " + d.description + "\n";
    out += "    type             " + d.type + " (" + d.library + ")\n";
    out += "    memory           " + std::to_string(d.memory_free >> 20) + " MiB free of " +
           std::to_string(d.memory_total >> 20) + " MiB\n";
    out += "    host pointers    " +
           std::string(d.buffer_from_host_ptr ? "yes (weights used in place)"
                                              : "no (weights uploaded once)") +
           "\n";
    out += "    async            " + std::string(d.async ? "yes" : "no") + "\n";
  }
  return out;
}

}  // namespace kz::ggml
