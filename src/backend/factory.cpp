#include "backend/factory.h"

#include "backend/device_registry.h"

namespace kz {

std::unique_ptr<Backend> make_backend(std::string_view name, int n_threads) {
  return driver_for(name).open(name, n_threads);
}

}  // namespace kz
