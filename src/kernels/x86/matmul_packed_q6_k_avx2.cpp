// AVX2 Q6_K matrix products over weights repacked into groups of 8 interleaved rows
// (kernel_table.h: PackedMatmul; the blocks, tile and summation order: packed_q6_k_blocks.h), the
// Q6_K form of matmul_packed_q4_k_avx2.cpp. Also the packing and the activation converter of
// every ISA's packed Q6_K kernels.
#include "kernels/x86/intrinsics.h"

#include <cstring>

#include "kernels/ref/vec_dot.h"
#include "kernels/x86/kernels_avx2.h"
#include "kernels/x86/packed_q6_k_blocks.h"
#include "quant/blocks.h"

namespace kz::x86 {
namespace {

using namespace packed;

using Tiles = Q6KTiles<Q6SumsMaddubs>;

// The 256 unsigned quants (q + 32) of a Q6_K super-block in element order (spec/quants.md §4.5),
// 8 at a time in 64-bit words (every mask keeps each byte's bits in that byte).
void unsigned_quants(const BlockQ6K& b, uint8_t q[kQK_K]) {
  constexpr uint64_t k4 = 0x0F0F0F0F0F0F0F0F, k2 = 0x0303030303030303;
  for (int h = 0; h < 2; ++h)
    for (int l = 0; l < 32; l += 8) {
      uint64_t lo, hi, top;
      std::memcpy(&lo, b.ql + 64 * h + l, 8);
      std::memcpy(&hi, b.ql + 64 * h + l + 32, 8);
      std::memcpy(&top, b.qh + 32 * h + l, 8);
      const uint64_t e[4] = {(lo & k4) | (top & k2) << 4, (hi & k4) | (top >> 2 & k2) << 4,
                             (lo >> 4 & k4) | (top >> 4 & k2) << 4,
                             (hi >> 4 & k4) | (top >> 6 & k2) << 4};
      for (int g = 0; g < 4; ++g) std::memcpy(q + 128 * h + 32 * g + l, &e[g], 8);
    }
}

// Q6_K rows into Packed super-blocks of R rows (packed_q6_k_blocks.h).
template <class Packed, int R>
void pack_q6_k(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  auto* out = reinterpret_cast<Packed*>(dst);
  for (int64_t g = 0; g < n_rows; g += R)
    for (int64_t b = 0; b < n / kQK_K; ++b, ++out)
      for (int r = 0; r < R; ++r) {
        const BlockQ6K& in = reinterpret_cast<const BlockQ6K*>(w + (g + r) * row_bytes)[b];
        out->d[r] = in.d;
        for (int s = 0; s < 16; ++s) out->scales[s / 2][r][s % 2] = in.scales[s];
        uint8_t q[kQK_K];
        unsigned_quants(in, q);
        for (int s = 0; s < 16; ++s) {
          // Elements 16s + 4v + i whole (v < 3), with the thirds of element 16s + 12 + i on top.
          uint32_t words[4];
          std::memcpy(words, q + 16 * s, 16);
          for (int v = 0; v < 3; ++v) {
            const uint32_t packed = words[v] | (words[3] >> (2 * v) & 0x03030303u) << 6;
            std::memcpy(&out->qs[s][v][4 * r], &packed, 4);
          }
        }
      }
}

}  // namespace

// The quants and scale of the reference's Q8_K converter, with its 16-element sums.
void quantize_q8_K_sums16__avx2(const float* x, void* dst, int64_t n) {
  auto* out = static_cast<ActBlockQ6K*>(dst);
  for (int64_t b = 0; b < n / kQK_K; ++b) {
    BlockQ8K q;
    ref::quantize_activation(DType::Q8_K, x + b * kQK_K, &q, kQK_K);
    out[b].d = q.d;
    std::memcpy(out[b].sub_sums, q.bsums, sizeof out[b].sub_sums);
    std::memcpy(out[b].qs, q.qs, kQK_K);
    std::memset(out[b].pad, 0, sizeof out[b].pad);
  }
}
const uint64_t kPackedQ6KActBlockBytes = sizeof(ActBlockQ6K) / (kQK_K / kQK);

void pack_q6_K_x8(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack_q6_k<PackedQ6K, kRows>(w, row_bytes, n_rows, n, dst);
}
void pack_q6_K_x16(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack_q6_k<PackedQ6Kx16, 2 * kRows>(w, row_bytes, n_rows, n, dst);
}

void gemv_q6_Kx8_q8_K__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            int64_t n, float* y) {
  packed::gemv<Tiles>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q6_Kx8_q8_K__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                            uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
                            int64_t y_stride) {
  packed::gemm<Tiles>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

}  // namespace kz::x86
