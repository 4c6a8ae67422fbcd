// The kernels the cpu backend runs, chosen once at start-up from the CPU's features
// (base/cpu_features.h): for each weight type, how activations are converted and how a weight
// row is multiplied with them. Each ISA folder (x86/, arm/) overrides the entries it
// accelerates; every entry starts as the reference kernel (kernels/ref/vec_dot.h), so a type
// without a fast version still runs, and the table says which kernel each type uses.
#pragma once

#include <cstdint>
#include <string>

#include "quant/types.h"

namespace kz {

struct MatmulKernel {
  DType act_type = DType::F32;  // activation format (spec/quants.md §6.1)
  // x[n] f32 -> one activation row in act_type (row_bytes(act_type, n) bytes).
  void (*quantize)(const float* x, void* dst, int64_t n) = nullptr;
  // y[r] = dot(weight row r, act) for r in [0, n_rows); rows are row_bytes apart.
  void (*gemv)(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
               float* y) = nullptr;
  const char* name = "";  // e.g. "q4_0_q8_0 avx2"
};

struct KernelTable {
  MatmulKernel matmul[kDTypeCount];  // indexed by weight DType id; gemv null if unsupported
  std::string isa;                   // features the table was built for
};

// Built on first use from cpu_features() (which honours KAZEIA_CPU_FEATURES).
const KernelTable& kernel_table();
// One line per weight type: "q4_0: q4_0_q8_0 avx2", for logs and bench lines.
std::string describe(const KernelTable& table);

// Filled by the ISA folders; each is a no-op on other architectures.
void add_x86_kernels(KernelTable& table);
void add_arm_kernels(KernelTable& table);

}  // namespace kz
