// x86-64 entries of the kernel table (kernels/kernel_table.h). Compiled on every architecture;
// the ISA-specific kernels live in files named *_avx2.cpp / *_avx512.cpp, compiled with their
// own flags (CMakeLists.txt) and only reached when cpu_features() reports the ISA.
#include "kernels/kernel_table.h"

namespace kz {

void add_x86_kernels(KernelTable& table) { (void)table; }

}  // namespace kz
