#include "backend/factory.h"

#include "backend/cpu_backend.h"
#include "backend/ref_backend.h"
#include "base/error.h"

namespace kz {

std::unique_ptr<Backend> make_backend(std::string_view name, int n_threads) {
  if (name == "ref") return std::make_unique<RefBackend>();
  if (name == "cpu") return std::make_unique<CpuBackend>(n_threads);
  fail("unknown backend '", name, "' (expected ref or cpu)");
}

}  // namespace kz
