// AVX-512 VNNI Q4_0 and Q8_0 matrix products over weights repacked into groups of 16 interleaved
// rows (packed_q8_0_blocks.h: PackedQ4_0x16, PackedQ8_0x16): one 512-bit vpdpbusd per 4-byte
// column and token covers 16 rows, and a block's scales are one 16-lane multiply. Each row's lane
// takes the AVX2 kernels' operations in their order (exact integer block sums, then
// fma(sum, d_w * d_a, acc) per block), so the bits are the same. Q8_0 is stored as unsigned
// q + 128, so its activation blocks carry 128 times their sums.
#include <immintrin.h>

#include "kernels/x86/kernels_avx2.h"
#include "kernels/x86/packed_q8_0_blocks.h"

namespace kz::x86 {
namespace {

using namespace packed;

inline __m512i broadcast_4_bytes_x16(const void* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}

// Q4_0's unsigned nibbles: sums start at -offset, which takes out their +8.
struct Q4_0x16Dots : Q4_0x16Layout {
  template <int NT>
  static void add(const Packed& w, const ActBlock* const a[NT], __m512i s[NT]) {
    const __m512i low = _mm512_set1_epi8(0xF);
#pragma GCC unroll 1  // as Q4_0Weights: unrolled, every vector's loads are hoisted
    for (int j = 0; j < 4; ++j) {
      const __m512i v = _mm512_loadu_si512(w.qs + 64 * j);
      const __m512i lo = _mm512_and_si512(v, low);
      const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), low);
      for (int t = 0; t < NT; ++t) {
        s[t] = _mm512_dpbusd_epi32(s[t], lo, broadcast_4_bytes_x16(a[t]->qs + 4 * j));
        s[t] = _mm512_dpbusd_epi32(s[t], hi, broadcast_4_bytes_x16(a[t]->qs + 16 + 4 * j));
      }
    }
  }
};

// Q8_0 stored as q + 128: sums start at -offset, 128 times the activations' sum.
struct Q8_0x16Dots : Q8_0Unsignedx16Layout {
  template <int NT>
  static void add(const Packed& w, const ActBlock* const a[NT], __m512i s[NT]) {
    for (int j = 0; j < 8; ++j) {
      const __m512i v = _mm512_loadu_si512(w.qs + 64 * j);
      for (int t = 0; t < NT; ++t)
        s[t] = _mm512_dpbusd_epi32(s[t], v, broadcast_4_bytes_x16(a[t]->qs + 4 * j));
    }
  }
};

// One group of 16 rows x NT <= kTokensAvx512 tokens (kernels/packed_tiles.h).
template <class W>
struct Tiles16 {
  using Packed = typename W::Packed;
  static constexpr int64_t kBlock = kQK;
  static constexpr int kTokens = kTokensAvx512;
  template <int NT>
  static void tile(const Packed* w, const uint8_t* act, uint64_t act_row_bytes, int64_t nb,
                   float* y, int64_t y_stride) {
    __m512 acc[NT];
    for (int t = 0; t < NT; ++t) acc[t] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_weights_ahead(w + b, sizeof(Packed));
      const ActBlock* a[NT];
      __m512i s[NT];
      for (int t = 0; t < NT; ++t) {
        a[t] = reinterpret_cast<const ActBlock*>(act + t * act_row_bytes) + b;
        s[t] = _mm512_set1_epi32(-a[t]->offset);
      }
      W::template add<NT>(w[b], a, s);
      const __m512 dw =
          _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w[b].d)));
      for (int t = 0; t < NT; ++t)
        acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s[t]),
                                 _mm512_mul_ps(dw, _mm512_set1_ps(a[t]->d)), acc[t]);
    }
    for (int t = 0; t < NT; ++t) _mm512_storeu_ps(y + t * y_stride, acc[t]);
  }
};

template <class K>
constexpr auto gemv16 = packed_tiles::gemv<K, kRows16>;
template <class K>
constexpr auto gemm16 = packed_tiles::gemm<K, kRows16>;

}  // namespace

void pack_q4_0_x16(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack<Q4_0x16Layout>(w, row_bytes, n_rows, n, dst);
}
void pack_q8_0u_x16(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n, uint8_t* dst) {
  pack<Q8_0Unsignedx16Layout>(w, row_bytes, n_rows, n, dst);
}
void gemv_q4_0x16_q8_0__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, int64_t n, float* y) {
  gemv16<Tiles16<Q4_0x16Dots>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_0x16_q8_0__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, uint64_t act_row_bytes, int64_t n_tok,
                                   int64_t n, float* y, int64_t y_stride) {
  gemm16<Tiles16<Q4_0x16Dots>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}
void gemv_q8_0ux16_q8_0__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                    const void* act, int64_t n, float* y) {
  gemv16<Tiles16<Q8_0x16Dots>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q8_0ux16_q8_0__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                    const void* act, uint64_t act_row_bytes, int64_t n_tok,
                                    int64_t n, float* y, int64_t y_stride) {
  gemm16<Tiles16<Q8_0x16Dots>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

}  // namespace kz::x86
