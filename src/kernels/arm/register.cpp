// ARM64 entries of the kernel table (kernels/kernel_table.h). Compiled on every architecture;
// the ISA-specific kernels live in files named *_neon.cpp / *_dotprod.cpp / *_i8mm.cpp, compiled
// with their own flags (CMakeLists.txt) and only reached when the table's features report the ISA.
//
// Per feature (weight type: kernel; every other type keeps its reference entry):
//   neon      f32, f16, bf16: gemv_*__neon; q4_0, q8_0, q4_K, q5_K, q6_K: gemv_*__neon and
//             gemm_*_4x1__neon; Q8_0 activations by quantize_q8_0__neon for every weight type
//   +dotprod  q4_0, q8_0, q4_K, q5_K, q6_K: gemv_*__neon_dotprod, gemm_*_4x1__neon_dotprod
//   +i8mm     (with dotprod) q4_0, q8_0: gemv_*__neon_i8mm, gemm_*_4x4__neon_i8mm, in the
//             block-sum order, not the AVX2 order of the levels below (arm_kernels.h);
//             matrices with rows % 4 == 0: packed gemv + gemm (PackedMatmul, groups of 4
//             interleaved rows: matmul_packed_i8mm.cpp), the same bits; q4_K, q5_K, q6_K
//             with rows % 4 == 0: packed gemv + gemm (matmul_packed_q4_k_i8mm.cpp,
//             matmul_packed_q6_k_i8mm.cpp) in the order of x86's packed K-quant kernels
//             (rows % 4 != 0: the dotprod kernels)
//   ops       rms_norm, rope_neox, swiglu, silu, add, mul_sigmoid, attention, gated_rms_norm,
//             delta_rule, l2_norm, to_f16 (also f16 weights' activations): *__neon
//             (ops_neon.cpp, attention_neon.cpp, delta_rule_neon.cpp)
// What ARM still takes from the reference (STYLE §3): gemv of q4_1, q5_0, q5_1, iq4_nl, q2_K,
// q3_K and iq4_xs; the Q8_K, Q8_1, F16 and BF16 activation converters (one pass over the
// activations per matrix product, against one pass over the weights per activation row);
// ssm_conv (as on x86).
#include "kernels/kernel_table.h"

#if defined(__aarch64__)
#include "kernels/arm/arm_kernels.h"
#include "quant/blocks.h"
#endif

namespace kz {

#if defined(__aarch64__)
namespace {

struct ArmMatmul {
  DType weight;
  const char* name;
  arm::GemvKernel* gemv;
  arm::GemmKernel* gemm;  // null: the backend calls gemv per activation row
};

constexpr ArmMatmul kNeon[] = {
    {DType::F32, "f32_f32 neon", arm::gemv_f32_f32__neon, nullptr},
    {DType::F16, "f16_f16 neon", arm::gemv_f16_f16__neon, nullptr},
    {DType::BF16, "bf16_bf16 neon", arm::gemv_bf16_bf16__neon, nullptr},
    {DType::Q4_0, "q4_0_q8_0 neon", arm::gemv_q4_0_q8_0__neon, arm::gemm_q4_0_q8_0_4x1__neon},
    {DType::Q8_0, "q8_0_q8_0 neon", arm::gemv_q8_0_q8_0__neon, arm::gemm_q8_0_q8_0_4x1__neon},
    {DType::Q4_K, "q4_K_q8_K neon", arm::gemv_q4_K_q8_K__neon, arm::gemm_q4_K_q8_K_4x1__neon},
    {DType::Q5_K, "q5_K_q8_K neon", arm::gemv_q5_K_q8_K__neon, arm::gemm_q5_K_q8_K_4x1__neon},
    {DType::Q6_K, "q6_K_q8_K neon", arm::gemv_q6_K_q8_K__neon, arm::gemm_q6_K_q8_K_4x1__neon},
};

constexpr ArmMatmul kDotProd[] = {
    {DType::Q4_0, "q4_0_q8_0 neon-dotprod", arm::gemv_q4_0_q8_0__neon_dotprod,
     arm::gemm_q4_0_q8_0_4x1__neon_dotprod},
    {DType::Q8_0, "q8_0_q8_0 neon-dotprod", arm::gemv_q8_0_q8_0__neon_dotprod,
     arm::gemm_q8_0_q8_0_4x1__neon_dotprod},
    {DType::Q4_K, "q4_K_q8_K neon-dotprod", arm::gemv_q4_K_q8_K__neon_dotprod,
     arm::gemm_q4_K_q8_K_4x1__neon_dotprod},
    {DType::Q5_K, "q5_K_q8_K neon-dotprod", arm::gemv_q5_K_q8_K__neon_dotprod,
     arm::gemm_q5_K_q8_K_4x1__neon_dotprod},
    {DType::Q6_K, "q6_K_q8_K neon-dotprod", arm::gemv_q6_K_q8_K__neon_dotprod,
     arm::gemm_q6_K_q8_K_4x1__neon_dotprod},
};

constexpr ArmMatmul kI8mm[] = {
    {DType::Q4_0, "q4_0_q8_0 neon-i8mm", arm::gemv_q4_0_q8_0__neon_i8mm,
     arm::gemm_q4_0_q8_0_4x4__neon_i8mm},
    {DType::Q8_0, "q8_0_q8_0 neon-i8mm", arm::gemv_q8_0_q8_0__neon_i8mm,
     arm::gemm_q8_0_q8_0_4x4__neon_i8mm},
};

struct ArmPacked {
  DType weight;
  const char* name;
  decltype(PackedMatmul::pack) pack;
  decltype(PackedMatmul::quantize) quantize;
  decltype(PackedMatmul::quantize_pair) quantize_pair;
  uint64_t act_block_bytes;  // per token and 32 elements
  arm::GemvKernel* gemv;
  arm::GemmKernel* gemm;
};

// Activations of two tokens interleaved. Q4_0, Q8_0: the row-major kernels' Q8_0
// (quantize_q8_0__neon), their bits. Q4_K, Q5_K, Q6_K: Q8_K with sub-block sums, the bits of
// x86's packed K-quant kernels.
constexpr ArmPacked kI8mmPacked[] = {
    {DType::Q4_0, "q4_0x4_q8_0 neon-i8mm", arm::pack_q4_0_x4, nullptr,
     arm::quantize_q8_0_pair__neon, arm::kPackedQ8_0ActBlockBytes, arm::gemv_q4_0x4_q8_0__neon_i8mm,
     arm::gemm_q4_0x4_q8_0__neon_i8mm},
    {DType::Q8_0, "q8_0x4_q8_0 neon-i8mm", arm::pack_q8_0_x4, nullptr,
     arm::quantize_q8_0_pair__neon, arm::kPackedQ8_0ActBlockBytes, arm::gemv_q8_0x4_q8_0__neon_i8mm,
     arm::gemm_q8_0x4_q8_0__neon_i8mm},
    {DType::Q4_K, "q4_Kx4_q8_K neon-i8mm", arm::pack_q4_K_x4, nullptr,
     arm::quantize_q8_K_pair__neon, arm::kPackedQ8KActBlockBytes, arm::gemv_q4_Kx4_q8_K__neon_i8mm,
     arm::gemm_q4_Kx4_q8_K__neon_i8mm},
    {DType::Q5_K, "q5_Kx4_q8_K neon-i8mm", arm::pack_q5_K_x4, nullptr,
     arm::quantize_q8_K_pair__neon, arm::kPackedQ8KActBlockBytes, arm::gemv_q5_Kx4_q8_K__neon_i8mm,
     arm::gemm_q5_Kx4_q8_K__neon_i8mm},
    {DType::Q6_K, "q6_Kx4_q8_K neon-i8mm", arm::pack_q6_K_x4, nullptr,
     arm::quantize_q8_K_pair__neon, arm::kPackedQ8KActBlockBytes, arm::gemv_q6_Kx4_q8_K__neon_i8mm,
     arm::gemm_q6_Kx4_q8_K__neon_i8mm},
};

template <size_t N>
void set(KernelTable& table, const ArmPacked (&entries)[N]) {
  for (const ArmPacked& e : entries) {
    PackedMatmul& p = table.matmul[static_cast<uint32_t>(e.weight)].packed;
    p.rows = 4;
    p.pack = e.pack;
    p.quantize = e.quantize;
    p.quantize_pair = e.quantize_pair;
    p.act_block_bytes = e.act_block_bytes;
    p.gemv = e.gemv;
    p.gemm = e.gemm;
    p.name = e.name;
  }
}

template <size_t N>
void set(KernelTable& table, const ArmMatmul (&entries)[N]) {
  for (const ArmMatmul& e : entries) {
    MatmulKernel& k = table.matmul[static_cast<uint32_t>(e.weight)];
    k.gemv = e.gemv;
    k.gemm = e.gemm;
    k.name = e.name;
  }
}

}  // namespace

void add_arm_kernels(KernelTable& table) {
  const CpuFeatures& f = table.features;
  if (!f.neon) return;
  set(table, kNeon);
  // Bit-identical to the reference's Q8_0 converter (quantize_neon.cpp), so every type with Q8_0
  // activations takes it, whichever gemv it keeps.
  for (MatmulKernel& k : table.matmul) {
    if (k.gemv && k.act_type == DType::Q8_0) k.quantize = arm::quantize_q8_0__neon;
    if (k.gemv && k.act_type == DType::F16) k.quantize = arm::to_f16__neon;
  }
  if (f.dotprod) set(table, kDotProd);
  // The i8mm gemv uses vdotq_s32 too (it must give the gemm's bits), hence both features.
  if (f.i8mm && f.dotprod) {
    set(table, kI8mm);
    set(table, kI8mmPacked);
  }
  OpKernels& ops = table.ops;
  ops.rms_norm = arm::rms_norm__neon;
  ops.rope_neox = arm::rope_neox__neon;
  ops.swiglu = arm::swiglu__neon;
  ops.silu = arm::silu__neon;
  ops.add = arm::add__neon;
  ops.mul_sigmoid = arm::mul_sigmoid__neon;
  ops.attention = arm::attention__neon;
  ops.gated_rms_norm = arm::gated_rms_norm__neon;
  ops.delta_rule = arm::delta_rule__neon;
  ops.l2_norm = arm::l2_norm__neon;
  ops.to_f16 = arm::to_f16__neon;
  ops.isa = "neon";
}
#else
void add_arm_kernels(KernelTable& table) {
  (void)table;
}
#endif

}  // namespace kz
