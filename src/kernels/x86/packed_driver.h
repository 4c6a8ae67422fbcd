// What the packed matrix-product kernels (packed_q8_0_blocks.h, packed_q4_k_blocks.h)
// share: groups of 8 interleaved rows, and gemv / gemm (PackedMatmul's signatures) driving a
// kernel's tile over them (kernels/packed_tiles.h says what a kernel supplies; K::Packed is one
// block of a group: the 8 rows' kBlock elements). Include only from *_avx2.cpp / *_avx512*.cpp
// files.
#pragma once

#include "kernels/x86/intrinsics.h"

#include <cstdint>
#include <cstring>

#include "kernels/packed_tiles.h"

namespace kz::x86::packed {
namespace {  // per file: see simd_avx2.h

constexpr int kRows = 8;
// Widest tiles (tokens): with more, the accumulators of the int8 tiles spill to the stack; AVX-512
// has twice AVX2's 16 vector registers, so a verification batch of up to 8 drafts (speculative
// decoding) unpacks each weight block once.
constexpr int kTokensAvx2 = 4;
constexpr int kTokensAvx512 = 8;

// 4 activation bytes in every 32-bit lane: one maddubs operand for the 8 rows' 4 bytes each.
inline __m256i broadcast_4_bytes(const void* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

// PackedMatmul's gemv and gemm over a kernel K's tiles (kernels/packed_tiles.h).
template <class K>
constexpr auto gemv = packed_tiles::gemv<K, kRows>;
template <class K>
constexpr auto gemm = packed_tiles::gemm<K, kRows>;

}  // namespace
}  // namespace kz::x86::packed
