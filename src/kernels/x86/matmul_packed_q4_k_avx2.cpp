// AVX2 Q4_K and Q5_K matrix products over weights repacked into groups of 8 interleaved rows
// (kernel_table.h: PackedMatmul; the blocks, tile and summation order: packed_q4_k_blocks.h), the
// Q4_K form of matmul_packed_avx2.cpp: a 32-byte vector holds 4 consecutive quant bytes of each
// of the 8 rows, so int32 lane r sums row r's products exactly and no horizontal sums are
// needed. The row-major kernels (gemm_k_quants_tiles.h) unpack a super-block into 16 vectors and
// reduce every output across lanes; here one vector of quants serves 8 rows and a super-block's
// scales unpack with a few vector operations for all 8. Also the packing (8 rows, and 16) and
// the activation converter of every ISA's packed Q4_K and Q5_K kernels.
#include "kernels/x86/intrinsics.h"

#include <cstring>
#include <type_traits>

#include "kernels/ref/vec_dot.h"
#include "kernels/x86/kernels_avx2.h"
#include "kernels/x86/packed_q4_k_blocks.h"
#include "kernels/x86/simd_avx2.h"
#include "quant/blocks.h"

namespace kz::x86 {
namespace {

using namespace packed;

using Tiles = Q4KTiles<SumsMaddubs>;
using TilesQ5K = Q4KTiles<SumsMaddubs, Q5Quants>;

// Q4_K or Q5_K rows (Block) into Packed super-blocks of R rows (packed_q4_k_blocks.h).
template <class Packed, class Block, int R = kRows>
void pack_k(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  auto* out = reinterpret_cast<Packed*>(dst);
  for (int64_t g = 0; g < n_rows; g += R)
    for (int64_t b = 0; b < n / kQK_K; ++b, ++out)
      for (int r = 0; r < R; ++r) {
        const Block& in = reinterpret_cast<const Block*>(w + (g + r) * row_bytes)[b];
        out->d[r] = in.d;
        out->dmin[r] = in.dmin;
        for (int word = 0; word < 3; ++word)
          std::memcpy(&out->scales[word][r], in.scales + 4 * word, 4);
        for (int j = 0; j < 4; ++j)
          for (int i = 0; i < 8; ++i) std::memcpy(&out->qs[j][i][4 * r], in.qs + 32 * j + 4 * i, 4);
        if constexpr (std::is_same_v<Block, BlockQ5K>)
          for (int i = 0; i < 8; ++i) std::memcpy(&out->qh[i][4 * r], in.qh + 4 * i, 4);
      }
}

}  // namespace

// The quants and scale of the reference's Q8_K converter, with the sub-block sums.
void quantize_q8_K_sums__avx2(const float* x, void* dst, int64_t n) {
  auto* out = static_cast<ActBlockK*>(dst);
  for (int64_t b = 0; b < n / kQK_K; ++b) {
    BlockQ8K q;
    ref::quantize_activation(DType::Q8_K, x + b * kQK_K, &q, kQK_K);
    out[b].d = q.d;
    for (int s = 0; s < 8; ++s) out[b].sub_sums[s] = int16_t(q.bsums[2 * s] + q.bsums[2 * s + 1]);
    std::memcpy(out[b].qs, q.qs, kQK_K);
    std::memset(out[b].pad, 0, sizeof out[b].pad);
  }
}
const uint64_t kPackedQ4KActBlockBytes = sizeof(ActBlockK) / (kQK_K / kQK);

void pack_q4_K_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack_k<PackedQ4K, BlockQ4K>(w, row_bytes, n_rows, n, dst);
}
void pack_q4_K_x16(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack_k<PackedQ4Kx16, BlockQ4K, 2 * kRows>(w, row_bytes, n_rows, n, dst);
}
void pack_q5_K_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack_k<PackedQ5K, BlockQ5K>(w, row_bytes, n_rows, n, dst);
}
void pack_q5_K_x16(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack_k<PackedQ5Kx16, BlockQ5K, 2 * kRows>(w, row_bytes, n_rows, n, dst);
}

void gemv_q4_Kx8_q8_K__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            int64_t n, float* y) {
  packed::gemv<Tiles>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_Kx8_q8_K__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                            int64_t y_stride) {
  packed::gemm<Tiles>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

void gemv_q5_Kx8_q8_K__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            int64_t n, float* y) {
  packed::gemv<TilesQ5K>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q5_Kx8_q8_K__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                            int64_t y_stride) {
  packed::gemm<TilesQ5K>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

}  // namespace kz::x86
