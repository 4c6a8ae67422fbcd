// Backends by name, as users pick them (--device): `cpu` (fast kernels), `ref` (the scalar
// oracle), `opencl[:N]` (the N-th OpenCL device, `kazeia devices`), or `faulty:ENTRIES`, the CPU
// backend with the ops ENTRIES lists made wrong (op filter syntax; a test and demonstration
// device, backend/faulty_backend.h).
#pragma once

#include <memory>
#include <string_view>

#include "backend/backend.h"

namespace kz {

// Throws kz::Error "unknown device 'x' (expected cpu, ref, opencl[:N] or faulty:ENTRIES)".
std::unique_ptr<Backend> make_backend(std::string_view name, int n_threads);

}  // namespace kz
