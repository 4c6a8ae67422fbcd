// What the packed matrix-product kernels (packed_q8_0_blocks.h, packed_q4_k_blocks.h)
// share: groups of 8 interleaved rows, and gemv / gemm (PackedMatmul's signatures) driving a
// kernel's tile over them. A kernel K supplies K::Packed (one block of a group: the 8 rows'
// kBlock elements), K::kBlock, K::kTokens (the widest tile) and
//   template <int NT> static void tile(const Packed* w, const uint8_t* act,
//                                      uint64_t act_row_bytes, int64_t nb, float* y,
//                                      int64_t y_stride);
// which writes y[t * y_stride + r] for the group's rows r < 8 and NT tokens from nb blocks, each
// output with the same operations whatever NT is (so gemm equals gemv bit for bit). Include only
// from *_avx2.cpp / *_avx512*.cpp files.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

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

template <class K>
const typename K::Packed* group(const uint8_t* w, uint64_t row_bytes, int64_t r) {
  return reinterpret_cast<const typename K::Packed*>(w + r * row_bytes);
}

template <class K>
void gemv(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
          float* y) {
  for (int64_t r = 0; r < n_rows; r += kRows)
    K::template tile<1>(group<K>(w, row_bytes, r), static_cast<const uint8_t*>(act), 0,
                        n / K::kBlock, y + r, 0);
}

// The last n_tok % K::kTokens tokens as one tile.
template <class K, int NT>
void tail_tile(const typename K::Packed* w, const uint8_t* a, uint64_t act_row_bytes, int64_t nb,
               int64_t left, float* y, int64_t y_stride) {
  if constexpr (NT > 0) {
    if (left == NT) return K::template tile<NT>(w, a, act_row_bytes, nb, y, y_stride);
    tail_tile<K, NT - 1>(w, a, act_row_bytes, nb, left, y, y_stride);
  }
}

// Each group of rows sees every token, K::kTokens at a time, while its weights are in cache.
template <class K>
void gemm(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
          uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y, int64_t y_stride) {
  const auto* a = static_cast<const uint8_t*>(act);
  const int64_t nb = n / K::kBlock;
  for (int64_t r = 0; r < n_rows; r += kRows) {
    const auto* wr = group<K>(w, row_bytes, r);
    int64_t t = 0;
    for (; t + K::kTokens <= n_tok; t += K::kTokens)
      K::template tile<K::kTokens>(wr, a + t * act_row_bytes, act_row_bytes, nb,
                                   y + t * y_stride + r, y_stride);
    tail_tile<K, K::kTokens - 1>(wr, a + t * act_row_bytes, act_row_bytes, nb, n_tok - t,
                                 y + t * y_stride + r, y_stride);
  }
}

}  // namespace
}  // namespace kz::x86::packed
