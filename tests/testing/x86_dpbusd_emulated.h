// The VNNI packed Q4_K / Q5_K / Q6_K kernels (x86/packed_sums.h: SumsDpbusd; Q6_K:
// x86/packed_q6_k_blocks.h: Q6SumsDpbusd) with vpdpbusd emulated exactly in AVX2, so that their
// packing, offsets and tiles are tested on machines without VNNI (x86_dpbusd_emulated_avx2.cpp,
// compiled with AVX2 flags). VNNI's Q4_0 and Q8_0 kernels are 512-bit (groups of 16 rows): no
// AVX2 emulation.
#pragma once

#include <cstdint>

#include "kernels/kernel_table.h"

namespace kz::testing {

// The PackedMatmul of the VNNI table for Q4_K, Q5_K or Q6_K, with the emulated
// instruction. Call only where the CPU has AVX2, FMA and F16C; on other architectures: rows == 0
// (none).
PackedMatmul dpbusd_emulated_packed(DType t);
// How many gemv / gemm calls the emulated kernels have run (tests check that they ran at all).
int64_t dpbusd_emulated_calls();

}  // namespace kz::testing
