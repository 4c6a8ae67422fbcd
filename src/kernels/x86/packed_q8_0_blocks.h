// What the packed Q4_0 / Q8_0 kernels of every x86 ISA share (matmul_packed_avx2.cpp,
// matmul_packed_x16_avx512vnni.cpp): the packed blocks of 8 interleaved rows (AVX-512: 16), the
// activation block, the packing loop, the block dot products of unsigned packed quants with a
// sums policy (packed_sums.h), and the tile that turns a block's 8 exact integer dot products
// into floats.
// A weights policy W supplies the layout (W::Packed, W::Block, W::pack_block) and
//   template <int NT> static void dots(const Packed& w, const ActBlock* const a[NT],
//                                      __m256i isum[NT]);
// which sets isum[t] lane r to row r's exact block dot product with token t's quants.
// Summation order, the same for every ISA, gemv and gemm (tests: testing/block_sum_order_model.h):
// per output acc = fma(float(block sum), d_w * d_a, acc) over the blocks in order.
// Include only from *_avx2.cpp / *_avx512*.cpp files.
#pragma once

#include "kernels/x86/intrinsics.h"

#include <cstdint>
#include <cstring>

#include "kernels/x86/packed_driver.h"
#include "kernels/x86/packed_sums.h"
#include "kernels/x86/simd_avx2.h"
#include "quant/blocks.h"

namespace kz::x86::packed {
namespace {  // per file: see simd_avx2.h

// Block b of a group of R rows (8; 16 for 512-bit vectors): the rows' scales, then their quants
// in vectors of 4R bytes, vector j holding elements 4j..4j+3 of row r at bytes 4r..4r+3. Q4_0
// keeps the file's nibble pairing, so its vector j carries elements 4j.. in the low nibbles and
// 16+4j.. in the high nibbles.
template <int R, class Quant, int kQuantBytes>
struct PackedRows {
  uint16_t d[R];
  Quant qs[R * kQuantBytes];
};
constexpr int kRows16 = 2 * kRows;
using PackedQ4_0 = PackedRows<kRows, uint8_t, kQK / 2>;
using PackedQ8_0 = PackedRows<kRows, int8_t, kQK>;
using PackedQ4_0x16 = PackedRows<kRows16, uint8_t, kQK / 2>;
using PackedQ8_0x16 = PackedRows<kRows16, int8_t, kQK>;
static_assert(sizeof(PackedQ4_0) == kRows * sizeof(BlockQ4_0));
static_assert(sizeof(PackedQ8_0) == kRows * sizeof(BlockQ8_0));
static_assert(sizeof(PackedQ4_0x16) == kRows16 * sizeof(BlockQ4_0));
static_assert(sizeof(PackedQ8_0x16) == kRows16 * sizeof(BlockQ8_0));

// An activation block: the Q8_0 block's scale as f32; `offset`, the weights' zero point times the
// sum of the quants (what a weight stored as q + zero point adds to a dot product: 8 for Q4_0's
// unsigned nibbles, 128 for Q8_0 stored unsigned); the quants.
struct ActBlock {
  float d;
  int32_t offset;
  int8_t qs[kQK];
};

// File block -> packed layout of groups of R rows: each row's 4-byte groups in order (Q4_0: the
// file's nibble pairing, so group j carries elements 4j.. in its low nibbles and 16+4j.. in its
// high ones).
template <class P, class B, int R = kRows>
struct FileOrderLayout {
  using Packed = P;
  using Block = B;
  static constexpr int kGroupRows = R;
  static void pack_block(const Block& b, int r, Packed& out) {
    out.d[r] = b.d;
    for (int j = 0; j < int(sizeof b.qs) / 4; ++j)
      std::memcpy(out.qs + 4 * R * j + 4 * r, b.qs + 4 * j, 4);
  }
};
using Q4_0Layout = FileOrderLayout<PackedQ4_0, BlockQ4_0>;
using Q4_0x16Layout = FileOrderLayout<PackedQ4_0x16, BlockQ4_0, kRows16>;
using Q8_0Layout = FileOrderLayout<PackedQ8_0, BlockQ8_0>;

// Q8_0 with each quant stored as the unsigned byte q + 128 (zero point 128): an unsigned operand
// for the u8 x s8 dot-product instructions without a per-token sign fix-up.
struct Q8_0Unsignedx16Layout {
  using Packed = PackedQ8_0x16;
  using Block = BlockQ8_0;
  static constexpr int kGroupRows = kRows16;
  static void pack_block(const Block& b, int r, Packed& out) {
    out.d[r] = b.d;
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 4; ++i)
        out.qs[4 * kRows16 * j + 4 * r + i] = int8_t(uint8_t(b.qs[4 * j + i]) ^ 0x80);
  }
};

template <class W>
void pack(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  auto* out = reinterpret_cast<typename W::Packed*>(dst);
  for (int64_t g = 0; g < n_rows; g += W::kGroupRows)
    for (int64_t b = 0; b < n / kQK; ++b, ++out)
      for (int r = 0; r < W::kGroupRows; ++r)
        W::pack_block(reinterpret_cast<const typename W::Block*>(w + (g + r) * row_bytes)[b], r,
                      *out);
}

// Q4_0's unsigned nibbles; the activation block's offset takes out their +8.
template <class S>
struct Q4_0Weights : Q4_0Layout {
  template <int NT>
  static void dots(const Packed& w, const ActBlock* const a[NT], __m256i isum[NT]) {
    const __m256i low = _mm256_set1_epi8(0xF);
    __m256i s[NT];
    for (int t = 0; t < NT; ++t) s[t] = S::start(a[t]->offset);
#pragma GCC unroll 1  // unrolled, GCC hoists every vector's loads and spills registers (AVX2)
    for (int j = 0; j < 4; ++j) {
      const __m256i v = load_i8x32(w.qs + 32 * j);
      const __m256i lo = _mm256_and_si256(v, low);
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
      for (int t = 0; t < NT; ++t) {
        s[t] = S::add(s[t], lo, broadcast_4_bytes(a[t]->qs + 4 * j));
        s[t] = S::add(s[t], hi, broadcast_4_bytes(a[t]->qs + 16 + 4 * j));
      }
    }
    for (int t = 0; t < NT; ++t) isum[t] = S::finish(s[t], a[t]->offset);
  }
};

// One group of 8 rows x NT <= kTokens tokens (packed_driver.h).
template <class W>
struct Tiles {
  using Packed = typename W::Packed;
  static constexpr int64_t kBlock = kQK;
  static constexpr int kTokens = kTokensAvx2;
  template <int NT>
  static void tile(const Packed* w, const uint8_t* act, uint64_t act_row_bytes, int64_t nb,
                   float* y, int64_t y_stride) {
    __m256 acc[NT];
    for (int t = 0; t < NT; ++t) acc[t] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_weights_ahead(w + b, sizeof(Packed));  // a small batch's one pass streams them too
      const ActBlock* a[NT];
      for (int t = 0; t < NT; ++t)
        a[t] = reinterpret_cast<const ActBlock*>(act + t * act_row_bytes) + b;
      __m256i isum[NT];
      W::template dots<NT>(w[b], a, isum);
      const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w[b].d)));
      for (int t = 0; t < NT; ++t)
        acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[t]),
                                 _mm256_mul_ps(dw, _mm256_set1_ps(a[t]->d)), acc[t]);
    }
    for (int t = 0; t < NT; ++t) _mm256_storeu_ps(y + t * y_stride, acc[t]);
  }
};

}  // namespace
}  // namespace kz::x86::packed
