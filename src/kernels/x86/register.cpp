// x86-64 entries of the kernel table (kernels/kernel_table.h). Compiled on every architecture;
// the ISA-specific kernels live in files named *_avx2.cpp / *_avx512*.cpp, compiled with their
// own flags (CMakeLists.txt) and only reached when the table's features report the ISA.
//
// Per ISA (weight type: kernel; every other type keeps its reference entry):
//   avx2+fma+f16c  f32/f16/bf16: gemv_*__avx2 (f16 with the F16C activation converter
//                  to_f16__avx2); q4_0, q8_0: gemv + gemm_4x2 with the AVX2 Q8_0 converter;
//                  q4_K, q5_K, q6_K: gemv + gemm_4x1; ops: ops_avx2.h;
//                  q4_0, q8_0 with rows % 8 == 0: packed gemv + gemm (matmul_packed_avx2.cpp);
//                  q4_K, q5_K, q6_K likewise (matmul_packed_q4_k_avx2.cpp,
//                  matmul_packed_q6_k_avx2.cpp)
//   +avx512vnni    q4_0, q8_0: gemv + gemm_4x2 __avx512vnni; packed q4_0, q8_0, q4_K, q5_K,
//                  q6_K with rows % 16 == 0 in groups of 16 rows, 512-bit vpdpbusd
//                  (matmul_packed_x16_avx512vnni.cpp; rows % 16 == 8 keep the unpacked kernels);
//                  tiles of 8 tokens (AVX2's: 4); the same bits as __avx2; ops: attention (prompt
//                  tiles of 32 query rows; AVX2's: 16), the delta rule and the element-wise ops
//                  with an exponential in 16 lanes, the same bits as AVX2's
#include "kernels/blocked_attention.h"
#include "kernels/kernel_table.h"

#if defined(__x86_64__)
#include "kernels/x86/kernels_avx2.h"
#include "kernels/x86/ops_avx2.h"
#endif

namespace kz {

#if defined(__x86_64__)
namespace {

void set(KernelTable& t, DType type, decltype(MatmulKernel::gemv) gemv,
         decltype(MatmulKernel::gemm) gemm, const char* name) {
  MatmulKernel& k = t.matmul[static_cast<uint32_t>(type)];
  k.gemv = gemv;
  k.gemm = gemm;
  k.name = name;
}

void set_packed(KernelTable& t, DType type, decltype(PackedMatmul::pack) pack,
                decltype(PackedMatmul::quantize) quantize, uint64_t act_block_bytes,
                decltype(PackedMatmul::gemv) gemv, decltype(PackedMatmul::gemm) gemm,
                const char* name, int rows = 8) {
  PackedMatmul& p = t.matmul[static_cast<uint32_t>(type)].packed;
  p.rows = rows;
  p.pack = pack;
  p.quantize = quantize;
  p.act_block_bytes = act_block_bytes;
  p.gemv = gemv;
  p.gemm = gemm;
  p.name = name;
}

void add_avx2(KernelTable& t) {
  using namespace x86;
  set(t, DType::F32, gemv_f32_f32__avx2, nullptr, "gemv_f32_f32__avx2");
  set(t, DType::F16, gemv_f16_f16__avx2, nullptr, "gemv_f16_f16__avx2");
  set(t, DType::BF16, gemv_bf16_bf16__avx2, nullptr, "gemv_bf16_bf16__avx2");
  set(t, DType::Q4_0, gemv_q4_0_q8_0__avx2, gemm_q4_0_q8_0_4x2__avx2, "q4_0_q8_0 avx2");
  set(t, DType::Q8_0, gemv_q8_0_q8_0__avx2, gemm_q8_0_q8_0_4x2__avx2, "q8_0_q8_0 avx2");
  set(t, DType::Q4_K, gemv_q4_K_q8_K__avx2, gemm_q4_K_q8_K_4x1__avx2, "q4_K_q8_K avx2");
  set(t, DType::Q5_K, gemv_q5_K_q8_K__avx2, gemm_q5_K_q8_K_4x1__avx2, "q5_K_q8_K avx2");
  set(t, DType::Q6_K, gemv_q6_K_q8_K__avx2, gemm_q6_K_q8_K_4x1__avx2, "q6_K_q8_K avx2");
  for (MatmulKernel& k : t.matmul) {
    if (k.gemv && k.act_type == DType::Q8_0) k.quantize = quantize_q8_0__avx2;
    if (k.gemv && k.act_type == DType::F16) k.quantize = to_f16__avx2;
  }
  // Signed Q8_0 ignores the activations' offset; it shares Q4_0's converter.
  set_packed(t, DType::Q4_0, pack_q4_0_x8, quantize_q8_0_zp8__avx2, kPackedActBlockBytes,
             gemv_q4_0x8_q8_0__avx2, gemm_q4_0x8_q8_0__avx2, "q4_0x8_q8_0 avx2");
  set_packed(t, DType::Q8_0, pack_q8_0_x8, quantize_q8_0_zp8__avx2, kPackedActBlockBytes,
             gemv_q8_0x8_q8_0__avx2, gemm_q8_0x8_q8_0__avx2, "q8_0x8_q8_0 avx2");
  set_packed(t, DType::Q4_K, pack_q4_K_x8, quantize_q8_K_sums__avx2, kPackedQ4KActBlockBytes,
             gemv_q4_Kx8_q8_K__avx2, gemm_q4_Kx8_q8_K__avx2, "q4_Kx8_q8_K avx2");
  set_packed(t, DType::Q5_K, pack_q5_K_x8, quantize_q8_K_sums__avx2, kPackedQ4KActBlockBytes,
             gemv_q5_Kx8_q8_K__avx2, gemm_q5_Kx8_q8_K__avx2, "q5_Kx8_q8_K avx2");
  set_packed(t, DType::Q6_K, pack_q6_K_x8, quantize_q8_K_sums16__avx2, kPackedQ6KActBlockBytes,
             gemv_q6_Kx8_q8_K__avx2, gemm_q6_Kx8_q8_K__avx2, "q6_Kx8_q8_K avx2");
  t.ops = ops_avx2();
}

void add_avx512vnni(KernelTable& t) {
  using namespace x86;
  set(t, DType::Q4_0, gemv_q4_0_q8_0__avx512vnni, gemm_q4_0_q8_0_4x2__avx512vnni,
      "q4_0_q8_0 avx512vnni");
  set(t, DType::Q8_0, gemv_q8_0_q8_0__avx512vnni, gemm_q8_0_q8_0_4x2__avx512vnni,
      "q8_0_q8_0 avx512vnni");
  set_packed(t, DType::Q4_0, pack_q4_0_x16, quantize_q8_0_zp8__avx2, kPackedActBlockBytes,
             gemv_q4_0x16_q8_0__avx512vnni, gemm_q4_0x16_q8_0__avx512vnni,
             "q4_0x16_q8_0 avx512vnni", 16);
  set_packed(t, DType::Q8_0, pack_q8_0u_x16, quantize_q8_0_zp128__avx2, kPackedActBlockBytes,
             gemv_q8_0ux16_q8_0__avx512vnni, gemm_q8_0ux16_q8_0__avx512vnni,
             "q8_0ux16_q8_0 avx512vnni", 16);
  set_packed(t, DType::Q4_K, pack_q4_K_x16, quantize_q8_K_sums__avx2, kPackedQ4KActBlockBytes,
             gemv_q4_Kx16_q8_K__avx512vnni, gemm_q4_Kx16_q8_K__avx512vnni,
             "q4_Kx16_q8_K avx512vnni", 16);
  set_packed(t, DType::Q5_K, pack_q5_K_x16, quantize_q8_K_sums__avx2, kPackedQ4KActBlockBytes,
             gemv_q5_Kx16_q8_K__avx512vnni, gemm_q5_Kx16_q8_K__avx512vnni,
             "q5_Kx16_q8_K avx512vnni", 16);
  set_packed(t, DType::Q6_K, pack_q6_K_x16, quantize_q8_K_sums16__avx2, kPackedQ6KActBlockBytes,
             gemv_q6_Kx16_q8_K__avx512vnni, gemm_q6_Kx16_q8_K__avx512vnni,
             "q6_Kx16_q8_K avx512vnni", 16);
  t.ops.attention = attention__avx512;  // prompts in 16 lanes (AVX-512F), the AVX2 bits
  t.ops.attention_tile_rows = blocked_attention::tile_rows(16);
  t.ops.delta_rule = delta_rule__avx512;  // two state rows per vector (AVX-512F), the AVX2 bits
  t.ops.swiglu = swiglu__avx512;          // the ops with an exponential in 16 lanes, the AVX2 bits
  t.ops.silu = silu__avx512;
  t.ops.mul_sigmoid = mul_sigmoid__avx512;
  t.ops.gated_rms_norm = gated_rms_norm__avx512;
}

}  // namespace

void add_x86_kernels(KernelTable& table) {
  const CpuFeatures& f = table.features;
  if (!(f.avx2 && f.fma && f.f16c)) return;
  add_avx2(table);
  if (f.avx512f && f.avx512bw && f.avx512vl && f.avx512vnni) add_avx512vnni(table);
}
#else
void add_x86_kernels(KernelTable& table) {
  (void)table;
}
#endif

}  // namespace kz
