// The ggml driver's entry points for the device registry (backend/device_registry.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "backend/backend.h"

namespace kz::ggml {

// `ggml:NAME`: ggml device NAME, ggml from $KAZEIA_GGML_DIR (--ggml-dir) or the libraries' names.
std::unique_ptr<Backend> open_device(std::string_view name, int n_threads);
// The ggml devices as `kazeia devices` prints them, or one line saying why there are none.
std::string describe_devices();

}  // namespace kz::ggml
