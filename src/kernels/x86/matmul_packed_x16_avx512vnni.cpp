// AVX-512 VNNI packed matrix products: Q4_0, Q8_0, Q4_K, Q5_K and Q6_K weights repacked into
// groups of 16 interleaved rows (packed_q8_0_blocks.h: PackedQ4_0x16, PackedQ8_0x16;
// packed_q4_k_blocks.h: PackedQ4Kx16, PackedQ5Kx16; packed_q6_k_blocks.h: PackedQ6Kx16): one
// 512-bit vpdpbusd per 4-byte column and token covers 16 rows, and a block's scales are one 16-lane
// multiply. Each row's lane takes the AVX2 kernels' operations in their order (exact integer block
// sums, then fma(sum, d_w * d_a, acc) per block; K-quants: packed_q4_k_blocks.h,
// packed_q6_k_blocks.h), so the bits are the same. Q8_0 is stored as unsigned q + 128, so its
// activation blocks carry 128 times their sums.
#include "kernels/x86/intrinsics.h"

#include "kernels/x86/kernels_avx2.h"
#include "kernels/x86/packed_q4_k_blocks.h"
#include "kernels/x86/packed_q6_k_blocks.h"
#include "kernels/x86/packed_q8_0_blocks.h"

namespace kz::x86 {
namespace {

using namespace packed;

inline int32_t load_i32(const void* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline __m512i broadcast_4_bytes_x16(const void* p) {
  return _mm512_set1_epi32(load_i32(p));
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

// The unsigned quants of chunk j's vector i, as Q4Quants and Q5Quants (packed_q4_k_blocks.h)
// for 16 rows: lo of sub-block 2j, hi of sub-block 2j + 1.
struct Q4Quants16 {
  using Packed = PackedQ4Kx16;
  static void get(const Packed& w, int j, int i, __m512i& lo, __m512i& hi) {
    const __m512i low = _mm512_set1_epi8(0xF);
    const __m512i v = _mm512_loadu_si512(w.qs[j][i]);
    lo = _mm512_and_si512(v, low);
    hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), low);
  }
};
struct Q5Quants16 {
  using Packed = PackedQ5Kx16;
  static void get(const Packed& w, int j, int i, __m512i& lo, __m512i& hi) {
    const __m512i low = _mm512_set1_epi8(0xF), bit4 = _mm512_set1_epi8(0x10);
    const __m512i v = _mm512_loadu_si512(w.qs[j][i]);
    const __m512i h = _mm512_srl_epi16(_mm512_loadu_si512(w.qh[i]), _mm_cvtsi32_si128(2 * j));
    lo = _mm512_or_si512(_mm512_and_si512(v, low), _mm512_and_si512(_mm512_slli_epi16(h, 4), bit4));
    hi = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(v, 4), low),
                         _mm512_and_si512(_mm512_slli_epi16(h, 3), bit4));
  }
};

// Q4_K or Q5_K (quants Q) in groups of 16 rows: Q4KTiles' operations and order with one row per
// 32-bit lane of 512-bit vectors, each 4-byte dot product one vpdpbusd.
template <class Q>
struct Q4KTiles16 {
  using Packed = typename Q::Packed;
  static constexpr int64_t kBlock = kQK_K;
  static constexpr int kTokens = kTokensAvx512;

  // As unpack_scales (packed_q4_k_blocks.h): byte s of lane r of sc[0] is row r's scale of
  // sub-block s, of sc[1] that of sub-block 4 + s; likewise m for the mins.
  struct Scales {
    __m512i sc[2], m[2];
  };
  static Scales unpack_scales(const Packed& w) {
    const __m512i u0 = _mm512_loadu_si512(w.scales[0]), u1 = _mm512_loadu_si512(w.scales[1]);
    const __m512i u2 = _mm512_loadu_si512(w.scales[2]);
    const __m512i six = _mm512_set1_epi32(0x3f3f3f3f), four = _mm512_set1_epi32(0x0f0f0f0f);
    const __m512i two = _mm512_set1_epi32(0x03030303);
    auto high = [&](__m512i low4, __m512i top2) {
      return _mm512_or_si512(
          _mm512_and_si512(low4, four),
          _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(top2, 6), two), 4));
    };
    return {{_mm512_and_si512(u0, six), high(u2, u0)},
            {_mm512_and_si512(u1, six), high(_mm512_srli_epi32(u2, 4), u1)}};
  }
  // Byte b of each lane, zero-extended; and the int16 pair (byte b, byte b + 1) of each lane.
  static __m512i byte_of_lanes(__m512i v, int b) {
    return _mm512_and_si512(_mm512_srli_epi32(v, 8 * b), _mm512_set1_epi32(0xFF));
  }
  static __m512i pair_of_bytes(__m512i v, int b) {
    const __m512i x = _mm512_srli_epi32(v, 8 * b);
    return _mm512_or_si512(_mm512_and_si512(x, _mm512_set1_epi32(0xFF)),
                           _mm512_and_si512(_mm512_slli_epi32(x, 8), _mm512_set1_epi32(0xFF0000)));
  }

  // Adds to isum[t] lane r the scaled sums sc_s * sumi_s of row r over chunk j's two sub-blocks
  // (2j: low nibbles, 2j + 1: high nibbles) with token t.
  template <int NT>
  static void add_chunk(const Packed& w, const ActBlockK* const a[NT], int j, const Scales& s,
                        __m512i isum[NT]) {
    __m512i lo[NT], hi[NT];
    for (int t = 0; t < NT; ++t) lo[t] = hi[t] = _mm512_setzero_si512();
#pragma GCC unroll 1  // as Q4_0x16Dots
    for (int i = 0; i < 8; ++i) {
      __m512i q_lo, q_hi;
      Q::get(w, j, i, q_lo, q_hi);
      for (int t = 0; t < NT; ++t) {
        const int8_t* at = a[t]->qs + 64 * j + 4 * i;
        lo[t] = _mm512_dpbusd_epi32(lo[t], q_lo, broadcast_4_bytes_x16(at));
        hi[t] = _mm512_dpbusd_epi32(hi[t], q_hi, broadcast_4_bytes_x16(at + 32));
      }
    }
    const int sub = 2 * j % 4;  // byte of sub-block 2j in s.sc[j / 2]
    const __m512i sc_lo = byte_of_lanes(s.sc[j / 2], sub);
    const __m512i sc_hi = byte_of_lanes(s.sc[j / 2], sub + 1);
    for (int t = 0; t < NT; ++t)
      isum[t] = _mm512_add_epi32(isum[t], _mm512_add_epi32(_mm512_mullo_epi32(lo[t], sc_lo),
                                                           _mm512_mullo_epi32(hi[t], sc_hi)));
  }
  template <int NT>
  static void tile(const Packed* w, const uint8_t* act, uint64_t act_row_bytes, int64_t nb,
                   float* y, int64_t y_stride) {
    __m512 acc[NT];
    for (int t = 0; t < NT; ++t) acc[t] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_weights_ahead(w + b, sizeof(Packed));
      const Packed& wb = w[b];
      const ActBlockK* a[NT];
      for (int t = 0; t < NT; ++t)
        a[t] = reinterpret_cast<const ActBlockK*>(act + t * act_row_bytes) + b;
      const Scales s = unpack_scales(wb);
      __m512i isum[NT];
      for (int t = 0; t < NT; ++t) isum[t] = _mm512_setzero_si512();
      for (int j = 0; j < 4; ++j) add_chunk<NT>(wb, a, j, s, isum);
      // Mins: sum_s m_s * S_s, two sub-blocks per int16 pair product.
      __m512i imin[NT];
      for (int t = 0; t < NT; ++t) imin[t] = _mm512_setzero_si512();
      for (int pair = 0; pair < 4; ++pair) {
        const __m512i m = pair_of_bytes(s.m[pair / 2], 2 * pair % 4);
        for (int t = 0; t < NT; ++t)
          imin[t] = _mm512_dpwssd_epi32(imin[t], m,
                                        _mm512_set1_epi32(load_i32(a[t]->sub_sums + 2 * pair)));
      }
      const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(wb.d)));
      const __m512 dm =
          _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(wb.dmin)));
      for (int t = 0; t < NT; ++t) {
        acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[t]),
                                 _mm512_mul_ps(dw, _mm512_set1_ps(a[t]->d)), acc[t]);
        acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(imin[t]),
                                 _mm512_mul_ps(dm, _mm512_set1_ps(-a[t]->d)), acc[t]);
      }
    }
    for (int t = 0; t < NT; ++t) _mm512_storeu_ps(y + t * y_stride, acc[t]);
  }
};

// Q6_K in groups of 16 rows (packed_q6_k_blocks.h: PackedQ6Kx16): Q6KTiles' operations and
// order with one row per 32-bit lane of 512-bit vectors; each sub-block's exact int32 sum
// (vpdpbusd) times its scale.
struct Q6KTiles16 {
  using Packed = PackedQ6Kx16;
  static constexpr int64_t kBlock = kQK_K;
  static constexpr int kTokens = kTokensAvx512;

  // As unpack_sub_block (packed_q6_k_blocks.h).
  static void unpack_sub_block(const Packed& w, int s, __m512i q[4]) {
    const __m512i x = _mm512_loadu_si512(w.qs[s][0]), y = _mm512_loadu_si512(w.qs[s][1]);
    const __m512i z = _mm512_loadu_si512(w.qs[s][2]);
    const __m512i low6 = _mm512_set1_epi8(0x3F), top2 = _mm512_set1_epi8(char(0xC0));
    q[0] = _mm512_and_si512(x, low6);
    q[1] = _mm512_and_si512(y, low6);
    q[2] = _mm512_and_si512(z, low6);
    q[3] = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi16(_mm512_and_si512(x, top2), 6),
                                           _mm512_srli_epi16(_mm512_and_si512(y, top2), 4)),
                           _mm512_srli_epi16(_mm512_and_si512(z, top2), 2));
  }
  // Lane r: row r's scales of sub-blocks 2p and 2p + 1 as int16; and one of them as int32.
  static __m512i scale_pair(const Packed& w, int p) {
    return _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.scales[p])));
  }
  static __m512i scale(__m512i pair, int odd) {
    return odd ? _mm512_srai_epi32(pair, 16) : _mm512_srai_epi32(_mm512_slli_epi32(pair, 16), 16);
  }
  template <int NT>
  static void tile(const Packed* w, const uint8_t* act, uint64_t act_row_bytes, int64_t nb,
                   float* y, int64_t y_stride) {
    __m512 acc[NT];
    for (int t = 0; t < NT; ++t) acc[t] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
      prefetch_weights_ahead(w + b, sizeof(Packed));
      const Packed& wb = w[b];
      const ActBlockQ6K* a[NT];
      for (int t = 0; t < NT; ++t)
        a[t] = reinterpret_cast<const ActBlockQ6K*>(act + t * act_row_bytes) + b;
      // The quants' offset first: isum = -32 * sum_s sc_s * S_s.
      __m512i isum[NT];
      for (int t = 0; t < NT; ++t) isum[t] = _mm512_setzero_si512();
      for (int p = 0; p < 8; ++p) {
        const __m512i pair = scale_pair(wb, p);
        for (int t = 0; t < NT; ++t)
          isum[t] = _mm512_dpwssd_epi32(isum[t], pair,
                                        _mm512_set1_epi32(load_i32(a[t]->sub_sums + 2 * p)));
      }
      for (int t = 0; t < NT; ++t)
        isum[t] = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(isum[t], 5));
      for (int p = 0; p < 8; ++p) {
        const __m512i pair = scale_pair(wb, p);
        for (int odd = 0; odd < 2; ++odd) {
          const int s = 2 * p + odd;
          __m512i q[4];
          unpack_sub_block(wb, s, q);
          const __m512i sc = scale(pair, odd);
          for (int t = 0; t < NT; ++t) {
            const int8_t* at = a[t]->qs + 16 * s;
            __m512i sum =
                _mm512_dpbusd_epi32(_mm512_setzero_si512(), q[0], broadcast_4_bytes_x16(at));
            for (int v = 1; v < 4; ++v)
              sum = _mm512_dpbusd_epi32(sum, q[v], broadcast_4_bytes_x16(at + 4 * v));
            isum[t] = _mm512_add_epi32(isum[t], _mm512_mullo_epi32(sum, sc));
          }
        }
      }
      const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(wb.d)));
      for (int t = 0; t < NT; ++t)
        acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[t]),
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

void gemv_q4_Kx16_q8_K__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, int64_t n, float* y) {
  gemv16<Q4KTiles16<Q4Quants16>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_Kx16_q8_K__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, uint64_t act_row_bytes, int64_t n_tok,
                                   int64_t n, float* y, int64_t y_stride) {
  gemm16<Q4KTiles16<Q4Quants16>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

void gemv_q5_Kx16_q8_K__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, int64_t n, float* y) {
  gemv16<Q4KTiles16<Q5Quants16>>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q5_Kx16_q8_K__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, uint64_t act_row_bytes, int64_t n_tok,
                                   int64_t n, float* y, int64_t y_stride) {
  gemm16<Q4KTiles16<Q5Quants16>>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}
void gemv_q6_Kx16_q8_K__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, int64_t n, float* y) {
  gemv16<Q6KTiles16>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q6_Kx16_q8_K__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                   const void* act, uint64_t act_row_bytes, int64_t n_tok,
                                   int64_t n, float* y, int64_t y_stride) {
  gemm16<Q6KTiles16>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

}  // namespace kz::x86
