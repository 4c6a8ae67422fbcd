// Backends by name, as users pick them (--backend ref|cpu).
#pragma once

#include <memory>
#include <string_view>

#include "backend/backend.h"

namespace kz {

// Throws kz::Error "unknown backend 'x' (expected ref or cpu)".
std::unique_ptr<Backend> make_backend(std::string_view name, int n_threads);

}  // namespace kz
