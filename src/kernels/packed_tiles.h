// How a packed matrix-product kernel's tile is driven over groups of interleaved rows (kRows:
// 8 for x86/packed_driver.h, 4 for arm/packed_i8mm.h). A kernel K supplies K::Packed (one block
// of a group), K::kBlock, K::kTokens (the widest tile) and
//   template <int NT> static void tile(const Packed* w, const uint8_t* act,
//                                      uint64_t act_row_bytes, int64_t nb, float* y,
//                                      int64_t y_stride);
// which writes y[t * y_stride + r] for the group's rows r < kRows and NT tokens from nb blocks,
// each output with the same operations whatever NT is (so gemm equals gemv bit for bit). gemv and
// gemm have PackedMatmul's signatures (kernel_table.h).
#pragma once

#include <cstdint>

namespace kz::packed_tiles {
namespace {  // per file: each ISA's files instantiate these with their own compiler flags

template <class K>
const typename K::Packed* group(const uint8_t* w, uint64_t row_bytes, int64_t r) {
  return reinterpret_cast<const typename K::Packed*>(w + r * row_bytes);
}

template <class K, int kRows>
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
template <class K, int kRows>
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
}  // namespace kz::packed_tiles
