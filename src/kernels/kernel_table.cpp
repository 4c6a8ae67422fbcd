#include "kernels/kernel_table.h"

#include <sstream>

#include "base/cpu_features.h"
#include "kernels/ref/vec_dot.h"

namespace kz {
namespace {

// The reference entry of every weight type that has a dot product.
KernelTable reference_table() {
  KernelTable t;
  for (uint32_t id = 0; id < kDTypeCount; ++id) {
    const DType type = static_cast<DType>(id);
    if (!ref::has_vec_dot(type)) continue;
    MatmulKernel& k = t.matmul[id];
    k.act_type = ref::vec_dot_type(type);
    k.quantize = ref::activation_quantizer(k.act_type);
    k.gemv = ref::gemv_function(type);
    k.name = "ref";
  }
  return t;
}

}  // namespace

KernelTable build_kernel_table(const CpuFeatures& features) {
  KernelTable t = reference_table();
  t.features = features;
  t.isa = features.describe();
  add_x86_kernels(t);
  add_arm_kernels(t);
  return t;
}

const KernelTable& kernel_table() {
  static const KernelTable table = build_kernel_table(cpu_features());
  return table;
}

std::string describe(const KernelTable& table) {
  std::ostringstream out;
  out << "isa: " << table.isa << "\n";
  for (uint32_t id = 0; id < kDTypeCount; ++id)
    if (table.matmul[id].gemv)
      out << dtype_name(static_cast<DType>(id)) << ": " << table.matmul[id].name
          << (table.matmul[id].gemm ? " +gemm" : "")
          << (table.matmul[id].packed.rows
                  ? std::string(", packed: ") + table.matmul[id].packed.name
                  : std::string())
          << "\n";
  out << "ops: " << table.ops.isa << "\n";
  return out.str();
}

}  // namespace kz
