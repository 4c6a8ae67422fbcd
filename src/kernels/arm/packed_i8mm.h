// What the ARM packed matrix products (kernel_table.h: PackedMatmul; matmul_packed_i8mm.cpp,
// matmul_packed_q4_k_i8mm.cpp, matmul_packed_q6_k_i8mm.cpp) share: groups of 4 interleaved rows
// whose bytes are stored so that one 16-byte load is a ready 2x8 vmmlaq_s32 operand (8 bytes of row
// 2p, then the same 8 bytes of row 2p + 1), the activations' side of that product (two tokens'
// quants stored the same way; the K-quants' activation block), and gemv / gemm driving a
// kernel's tile over the groups (kernels/packed_tiles.h says what a kernel supplies). Include
// only from *_i8mm.cpp files.
#pragma once

#if defined(__aarch64__)

#include <arm_neon.h>

#include <cstdint>

#include "kernels/arm/arm_kernels.h"
#include "kernels/packed_tiles.h"

namespace kz::arm::packed {
namespace {  // per file: see quant_dot.h

constexpr int kRows = 4;

// The K-quant kernels' activations of a pair of tokens, one super-block
// (quantize_q8_K_pair__neon; per token, what x86's ActBlockK holds): the Q8_K scales as a 2x2
// tile's per-token lanes {d0, d1, d0, d1}, each token's sums of its 32-element sub-blocks' quants
// (Q4_K / Q5_K mins; unused by Q6_K), and the quants as vmmlaq_s32 operands, qs[k] = quants
// 8k..8k+7 of token 0, then of token 1; padded to 2 x kPackedQ8KActBlockBytes per 32 elements.
struct ActPairK {
  float d[4];
  int16_t sub_sums[2][8];
  int8_t qs[32][16];
  uint8_t pad[16];
};
static_assert(sizeof(ActPairK) == 2 * 256 / 32 * kPackedQ8KActBlockBytes);

// 32 quants of two tokens as the 4 8x2 operands of vmmlaq_s32: c[k] = {token 0's quants
// 8k..8k+7, token 1's}, loaded as the activation quantizers store them (interleaved, so no zips);
// one token twice serves a lone token.
struct TokenPair {
  int8x16_t c[4];
  explicit TokenPair(const int8_t (*interleaved)[16]) {
    for (int k = 0; k < 4; ++k) c[k] = vld1q_s8(interleaved[k]);
  }
};

// Exact sums over 32 elements of a 2x2 (row, token) tile: lanes {r0 t0, r0 t1, r1 t0, r1 t1}.
inline int32x4_t mmla32(const int8x16_t w[4], const TokenPair& t) {
  int32x4_t s = vmmlaq_s32(vdupq_n_s32(0), w[0], t.c[0]);
  for (int k = 1; k < 4; ++k) s = vmmlaq_s32(s, w[k], t.c[k]);
  return s;
}

// A 2x2 tile's per-row factors {x0, x0, x1, x1} (rows 2p, 2p + 1 of x = {x0..x3}, p = 0 or 1);
// the per-token ones, {y0, y1, y0, y1}, are stored so in the activations.
inline float32x4_t row_pair(float32x4_t x, int p) {
  return p == 0 ? vzip1q_f32(x, x) : vzip2q_f32(x, x);
}

// Stores a tile's accumulators acc[p][q] (rows 2p, 2p + 1 x token pair q, lanes as mmla32's):
// token 2q's 4 rows are lanes 0 and 2 of acc[0][q] and acc[1][q], token 2q + 1's lanes 1 and 3.
template <int NT>
void store_tile(const float32x4_t acc[2][(NT + 1) / 2], float* y, int64_t y_stride) {
  for (int q = 0; q < (NT + 1) / 2; ++q) {
    vst1q_f32(y + 2 * q * y_stride, vuzp1q_f32(acc[0][q], acc[1][q]));
    if (2 * q + 1 < NT) vst1q_f32(y + (2 * q + 1) * y_stride, vuzp2q_f32(acc[0][q], acc[1][q]));
  }
}

// PackedMatmul's gemv and gemm over a kernel K's tiles (kernels/packed_tiles.h).
template <class K>
constexpr auto gemv = packed_tiles::gemv<K, kRows>;
template <class K>
constexpr auto gemm = packed_tiles::gemm<K, kRows>;

// Packs n_rows (a multiple of kRows) rows of n elements: group g's block b from the 4 rows'
// block b, by W::pack_block(rows' blocks, out).
template <class W>
void pack(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  using Block = typename W::Block;
  auto* out = reinterpret_cast<typename W::Packed*>(dst);
  for (int64_t g = 0; g < n_rows; g += kRows)
    for (int64_t b = 0; b < n / W::kBlock; ++b, ++out) {
      const Block* rows[kRows];
      for (int r = 0; r < kRows; ++r)
        rows[r] = reinterpret_cast<const Block*>(w + (g + r) * row_bytes) + b;
      W::pack_block(rows, *out);
    }
}

// One 16-byte operand: 8 bytes at `first` (row 2p's), then 8 at `second` (row 2p + 1's), each
// XOR `flip`.
inline void interleave_pair(const void* first, const void* second, void* out, uint8_t flip = 0) {
  const auto* a = static_cast<const uint8_t*>(first);
  const auto* b = static_cast<const uint8_t*>(second);
  auto* o = static_cast<uint8_t*>(out);
  for (int i = 0; i < 8; ++i) o[i] = a[i] ^ flip, o[8 + i] = b[i] ^ flip;
}

}  // namespace
}  // namespace kz::arm::packed

#endif  // __aarch64__
