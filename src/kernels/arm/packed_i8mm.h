// What the ARM packed matrix products (kernel_table.h: PackedMatmul; matmul_packed_i8mm.cpp,
// matmul_packed_q4_k_i8mm.cpp, matmul_packed_q6_k_i8mm.cpp) share: groups of 4 interleaved rows
// whose bytes are stored so that one 16-byte load is a ready 2x8 vmmlaq_s32 operand (8 bytes of row
// 2p, then the same 8 bytes of row 2p + 1), the activations' side of that product (and the
// K-quants' activation block), and gemv / gemm driving a kernel's tile over the groups
// (kernels/packed_tiles.h says what a kernel supplies). Include only from *_i8mm.cpp files.
#pragma once

#if defined(__aarch64__)

#include <arm_neon.h>

#include <algorithm>
#include <cstdint>

#include "kernels/arm/arm_kernels.h"
#include "kernels/packed_tiles.h"

namespace kz::arm::packed {
namespace {  // per file: see quant_dot.h

constexpr int kRows = 4;

// The K-quant kernels' activation super-block (quantize_q8_K_sums__neon; x86's ActBlockK): the
// Q8_K scale, the sums of each 32-element sub-block's quants (Q4_K / Q5_K mins; unused by
// Q6_K), the quants; padded to a whole kPackedQ8KActBlockBytes per 32 elements.
struct ActBlockK {
  float d;
  int16_t sub_sums[8];
  int8_t qs[256];
  uint8_t pad[12];
};
static_assert(sizeof(ActBlockK) == 256 / 32 * kPackedQ8KActBlockBytes);

// 64-bit halves: {lo(a), lo(b)} and {hi(a), hi(b)}.
inline int8x16_t zip_lo(int8x16_t a, int8x16_t b) {
  return vreinterpretq_s8_s64(vzip1q_s64(vreinterpretq_s64_s8(a), vreinterpretq_s64_s8(b)));
}
inline int8x16_t zip_hi(int8x16_t a, int8x16_t b) {
  return vreinterpretq_s8_s64(vzip2q_s64(vreinterpretq_s64_s8(a), vreinterpretq_s64_s8(b)));
}

// 32 quants of two tokens as the 4 8x2 operands of vmmlaq_s32: c[k] = {token 0's quants
// 8k..8k+7, token 1's}; one token twice (q0 == q1) serves a lone token. From two rows of quants
// (zipped here), or from operands stored interleaved (quantize_q8_0_pair__neon's, loaded as they
// are).
struct TokenPair {
  int8x16_t c[4];
  TokenPair(const int8_t* q0, const int8_t* q1) {
    const int8x16_t lo0 = vld1q_s8(q0), hi0 = vld1q_s8(q0 + 16);
    const int8x16_t lo1 = vld1q_s8(q1), hi1 = vld1q_s8(q1 + 16);
    c[0] = zip_lo(lo0, lo1), c[1] = zip_hi(lo0, lo1);
    c[2] = zip_lo(hi0, hi1), c[3] = zip_hi(hi0, hi1);
  }
  explicit TokenPair(const int8_t (&interleaved)[4][16]) {
    for (int k = 0; k < 4; ++k) c[k] = vld1q_s8(interleaved[k]);
  }
};

// Exact sums over 32 elements of a 2x2 (row, token) tile: lanes {r0 t0, r0 t1, r1 t0, r1 t1}.
inline int32x4_t mmla32(const int8x16_t w[4], const TokenPair& t) {
  int32x4_t s = vmmlaq_s32(vdupq_n_s32(0), w[0], t.c[0]);
  for (int k = 1; k < 4; ++k) s = vmmlaq_s32(s, w[k], t.c[k]);
  return s;
}

// Per-lane factors of a 2x2 tile: {x0, x0, x1, x1} (rows 2p, 2p + 1 of x = {x0..x3}, p = 0 or 1)
// and {y0, y1, y0, y1} (the token pair's).
inline float32x4_t row_pair(float32x4_t x, int p) {
  return p == 0 ? vzip1q_f32(x, x) : vzip2q_f32(x, x);
}
inline float32x4_t token_pair(float y0, float y1) {
  return float32x4_t{y0, y1, y0, y1};
}

// Token pair q of an NT-token tile: tokens 2q and 2q + 1, or 2q twice past the last token.
template <int NT>
constexpr int second_token(int q) {
  return std::min(2 * q + 1, NT - 1);
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
