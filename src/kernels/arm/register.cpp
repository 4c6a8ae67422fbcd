// ARM64 entries of the kernel table (kernels/kernel_table.h). Compiled on every architecture;
// the ISA-specific kernels live in files named *_neon.cpp / *_dotprod.cpp / *_i8mm.cpp, compiled
// with their own flags (CMakeLists.txt) and only reached when the table's features report the ISA.
//
// Per feature (weight type: kernel; every other type keeps its reference entry):
//   neon      f32, f16, q4_0, q8_0, q4_K, q5_K, q6_K: gemv_*__neon; Q8_0 activations by
//             quantize_q8_0__neon for every weight type that uses them
//   +dotprod  q4_0, q8_0, q4_K, q5_K, q6_K: gemv_*__neon_dotprod
//   +i8mm     q4_0, q8_0, q4_K, q6_K: gemm_*_2x2__neon_i8mm for prefill (same bits as the gemv)
// What ARM still takes from the reference (STYLE §3): gemv of bf16, q4_1, q5_0, q5_1, iq4_nl,
// q2_K, q3_K and iq4_xs; the Q8_K, Q8_1, F16 and BF16 activation converters (one pass over the
// activations per matrix product, against one pass over the weights per activation row); every
// non-matmul op (OpKernels).
#include "kernels/kernel_table.h"

#if defined(__aarch64__)
#include "kernels/arm/arm_kernels.h"
#endif

namespace kz {

#if defined(__aarch64__)
namespace {

struct ArmGemv {
  DType weight;
  arm::GemvKernel* neon;  // ARMv8.0 Advanced SIMD
  const char* neon_name;
  arm::GemvKernel* dotprod;  // FEAT_DotProd; null: the neon kernel serves
  const char* dotprod_name;
  arm::GemmKernel* i8mm;  // FEAT_I8MM (with FEAT_DotProd): two tokens at a time; may be null
};

constexpr ArmGemv kGemv[] = {
    {DType::F32, arm::gemv_f32_f32__neon, "f32_f32 neon", nullptr, nullptr, nullptr},
    {DType::F16, arm::gemv_f16_f16__neon, "f16_f16 neon", nullptr, nullptr, nullptr},
    {DType::Q4_0, arm::gemv_q4_0_q8_0__neon, "q4_0_q8_0 neon", arm::gemv_q4_0_q8_0__neon_dotprod,
     "q4_0_q8_0 neon-dotprod", arm::gemm_q4_0_q8_0_2x2__neon_i8mm},
    {DType::Q8_0, arm::gemv_q8_0_q8_0__neon, "q8_0_q8_0 neon", arm::gemv_q8_0_q8_0__neon_dotprod,
     "q8_0_q8_0 neon-dotprod", arm::gemm_q8_0_q8_0_2x2__neon_i8mm},
    {DType::Q4_K, arm::gemv_q4_K_q8_K__neon, "q4_K_q8_K neon", arm::gemv_q4_K_q8_K__neon_dotprod,
     "q4_K_q8_K neon-dotprod", arm::gemm_q4_K_q8_K_2x2__neon_i8mm},
    {DType::Q5_K, arm::gemv_q5_K_q8_K__neon, "q5_K_q8_K neon", arm::gemv_q5_K_q8_K__neon_dotprod,
     "q5_K_q8_K neon-dotprod", nullptr},
    {DType::Q6_K, arm::gemv_q6_K_q8_K__neon, "q6_K_q8_K neon", arm::gemv_q6_K_q8_K__neon_dotprod,
     "q6_K_q8_K neon-dotprod", arm::gemm_q6_K_q8_K_2x2__neon_i8mm},
};

}  // namespace

void add_arm_kernels(KernelTable& table) {
  const CpuFeatures& f = table.features;
  if (!f.neon) return;
  // Bit-identical to the reference's Q8_0 rounding (quantize_neon.cpp), so every type with Q8_0
  // activations may take it, whichever gemv it keeps.
  for (MatmulKernel& k : table.matmul)
    if (k.gemv && k.act_type == DType::Q8_0) k.quantize = arm::quantize_q8_0__neon;
  for (const ArmGemv& e : kGemv) {
    MatmulKernel& k = table.matmul[static_cast<uint32_t>(e.weight)];
    const bool dot = f.dotprod && e.dotprod;
    k.gemv = dot ? e.dotprod : e.neon;
    k.name = dot ? e.dotprod_name : e.neon_name;
    // Equal to the dotprod gemv bit for bit, as the table requires of a gemm.
    k.gemm = dot && f.i8mm ? e.i8mm : nullptr;
  }
}
#else
void add_arm_kernels(KernelTable& table) {
  (void)table;
}
#endif

}  // namespace kz
