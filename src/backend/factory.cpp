#include "backend/factory.h"

#include "backend/cpu_backend.h"
#include "backend/faulty_backend.h"
#include "backend/opencl/opencl_backend.h"
#include "backend/ref_backend.h"
#include "base/error.h"

namespace kz {

std::unique_ptr<Backend> make_backend(std::string_view name, int n_threads) {
  if (name == "ref") return std::make_unique<RefBackend>();
  if (name == "cpu" || name == "none") return std::make_unique<CpuBackend>(n_threads);
  if (auto index = opencl_device_index(name)) return make_opencl_backend(*index);
  if (name.rfind("faulty:", 0) == 0) {
    OpFilter faults = OpFilter::parse(name.substr(7));
    if (faults.empty()) fail("device '", name, "' names no op to corrupt");
    return std::make_unique<FaultyBackend>(std::make_unique<CpuBackend>(n_threads),
                                           std::move(faults));
  }
  fail("unknown device '", name, "' (expected cpu, ref, opencl[:N] or faulty:ENTRIES)");
}

}  // namespace kz
