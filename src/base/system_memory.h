// The machine's memory, to refuse an allocation that cannot fit before it starts zero-filling
// gigabytes until the system kills the process.
#pragma once

#include <cstdint>

namespace kz {

// Physical memory in bytes; 0 when the system does not say.
uint64_t physical_memory_bytes();

}  // namespace kz
