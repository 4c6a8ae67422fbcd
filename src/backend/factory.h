// Backends by name, as users pick them (--device): the spellings are in device_registry.h
// (`cpu`, `ref`, `opencl[:N]`, `ggml:NAME`; the CLI and the tests register `faulty:ENTRIES`).
#pragma once

#include <memory>
#include <string_view>

#include "backend/backend.h"

namespace kz {

// Throws kz::Error "unknown device 'x' (expected cpu, ref, opencl[:N], ggml:NAME...)", or the
// driver's own one-line error.
std::unique_ptr<Backend> make_backend(std::string_view name, int n_threads);

}  // namespace kz
