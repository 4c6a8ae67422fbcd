// Dot products of Q4_K / Q5_K / Q6_K weight rows with Q8_K activation rows, one weight row x NT
// tokens per tile: each 256-element super-block is unpacked once (8 chunks of 32 unsigned quants
// and their 16-bit scales) and multiplied with NT activation blocks. Per output the arithmetic is
// that of the reference's AVX2 kernels (ggml-cpu/arch/x86/quants.c:
// ggml_vec_dot_{q4_K,q5_K,q6_K}_q8_K): int32 lane l of a super-block sums, over the 8 chunks,
// scale * (bytes 4l..4l+3 of the chunk); the lanes are converted to f32 and accumulated with
// acc = fma(d_w * d_a, lanes, acc); the min terms are accumulated as the reference does (per
// type below). Integer sums are exact, so only this lane layout and the f32 steps matter.
#pragma once

#include "kernels/x86/intrinsics.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/x86/simd_avx2.h"
#include "quant/blocks.h"

namespace kz::x86 {
namespace {  // per file: see simd_avx2.h

struct UnpackedK {
  __m256i q[8];      // chunk c: unsigned quants of elements 32c .. 32c+31
  __m256i scale[8];  // chunk c: int16 multiplier of each byte pair
  __m128i mins;      // Q4_K / Q5_K: the 8 sub-block mins as int16
  float d, dmin;
};

// Q4_K / Q5_K 6-bit scales and mins (spec/quants.md §4.1), 4 at a time.
inline void scales_mins_k4(const uint8_t* packed, uint8_t sc[8], uint8_t m[8]) {
  uint32_t u[3];
  std::memcpy(u, packed, 12);
  const uint32_t sc_lo = u[0] & 0x3f3f3f3f, m_lo = u[1] & 0x3f3f3f3f;
  const uint32_t sc_hi = (u[2] & 0x0f0f0f0f) | (((u[0] >> 6) & 0x03030303) << 4);
  const uint32_t m_hi = ((u[2] >> 4) & 0x0f0f0f0f) | (((u[1] >> 6) & 0x03030303) << 4);
  std::memcpy(sc, &sc_lo, 4);
  std::memcpy(sc + 4, &sc_hi, 4);
  std::memcpy(m, &m_lo, 4);
  std::memcpy(m + 4, &m_hi, 4);
}

inline void unpack_scales_mins(const uint8_t* packed, UnpackedK& u) {
  uint8_t sc[8], m[8];
  scales_mins_k4(packed, sc, m);
  for (int c = 0; c < 8; ++c) u.scale[c] = _mm256_set1_epi16(sc[c]);
  u.mins = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(m)));
}

// Integer lanes of one super-block with one activation block.
inline __m256i lanes_k(const UnpackedK& u, const BlockQ8K& a) {
  __m256i sum = _mm256_setzero_si256();
  for (int c = 0; c < 8; ++c) {
    const __m256i p = _mm256_maddubs_epi16(u.q[c], load_i8x32(a.qs + 32 * c));
    sum = _mm256_add_epi32(sum, _mm256_madd_epi16(u.scale[c], p));
  }
  return sum;
}

// m_s * (bsums of sub-block s), pairs of sub-blocks per int32 lane.
inline __m128i min_products(const UnpackedK& u, const BlockQ8K& a) {
  const __m128i b0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.bsums));
  const __m128i b1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.bsums + 8));
  return _mm_madd_epi16(u.mins, _mm_hadd_epi16(b0, b1));
}

struct WeightsQ4K {
  using Block = BlockQ4K;
  static void unpack(const Block& b, UnpackedK& u) {
    u.d = fp16_to_f32(b.d);
    u.dmin = fp16_to_f32(b.dmin);
    unpack_scales_mins(b.scales, u);
    const __m256i m4 = _mm256_set1_epi8(0xF);
    for (int j = 0; j < 4; ++j) {
      const __m256i bits = load_i8x32(b.qs + 32 * j);
      u.q[2 * j] = _mm256_and_si256(bits, m4);
      u.q[2 * j + 1] = _mm256_and_si256(_mm256_srli_epi16(bits, 4), m4);
    }
  }
  // The mins in 4 f32 lanes, acc_m = fma(-d_a * dmin_w, products, acc_m), summed at the end.
  struct Acc {
    __m256 acc = _mm256_setzero_ps();
    __m128 acc_m = _mm_setzero_ps();
    void add(const UnpackedK& u, const BlockQ8K& a) {
      acc = _mm256_fmadd_ps(_mm256_set1_ps(a.d * u.d), _mm256_cvtepi32_ps(lanes_k(u, a)), acc);
      acc_m = _mm_fmadd_ps(_mm_set1_ps(-a.d * u.dmin), _mm_cvtepi32_ps(min_products(u, a)), acc_m);
    }
    float sum() const { return hsum_f32x8(acc) + hsum_f32x4(acc_m); }
  };
};

struct WeightsQ5K {
  using Block = BlockQ5K;
  static void unpack(const Block& b, UnpackedK& u) {
    u.d = fp16_to_f32(b.d);
    u.dmin = fp16_to_f32(b.dmin);
    unpack_scales_mins(b.scales, u);
    const __m256i m4 = _mm256_set1_epi8(0xF), one = _mm256_set1_epi8(1);
    const __m256i hbits = load_i8x32(b.qh);
    for (int j = 0; j < 4; ++j) {
      const __m256i bits = load_i8x32(b.qs + 32 * j);
      for (int h = 0; h < 2; ++h) {
        const int c = 2 * j + h;
        const __m256i low = _mm256_and_si256(h ? _mm256_srli_epi16(bits, 4) : bits, m4);
        const __m256i high = _mm256_and_si256(_mm256_srli_epi16(hbits, c), one);
        u.q[c] = _mm256_or_si256(low, _mm256_slli_epi16(high, 4));
      }
    }
  }
  // The mins as one f32 per super-block: summs = fma(-d_a * dmin_w, sum of products, summs).
  struct Acc {
    __m256 acc = _mm256_setzero_ps();
    float summs = 0.0f;
    void add(const UnpackedK& u, const BlockQ8K& a) {
      acc = _mm256_fmadd_ps(_mm256_set1_ps(a.d * u.d), _mm256_cvtepi32_ps(lanes_k(u, a)), acc);
      const __m128i p = min_products(u, a);
      const int mins = _mm_cvtsi128_si32(p) + _mm_extract_epi32(p, 1) + _mm_extract_epi32(p, 2) +
                       _mm_extract_epi32(p, 3);
      summs = std::fma(-a.d * u.dmin, static_cast<float>(mins), summs);
    }
    float sum() const { return hsum_f32x8(acc) + summs; }
  };
};

struct WeightsQ6K {
  using Block = BlockQ6K;
  static void unpack(const Block& b, UnpackedK& u) {
    u.d = fp16_to_f32(b.d);
    const __m256i m4 = _mm256_set1_epi8(0xF), m3 = _mm256_set1_epi8(3);
    for (int j = 0; j < 2; ++j) {
      const __m256i l0 = load_i8x32(b.ql + 64 * j), l1 = load_i8x32(b.ql + 64 * j + 32);
      const __m256i h = load_i8x32(b.qh + 32 * j);
      const __m256i low[4] = {_mm256_and_si256(l0, m4), _mm256_and_si256(l1, m4),
                              _mm256_and_si256(_mm256_srli_epi16(l0, 4), m4),
                              _mm256_and_si256(_mm256_srli_epi16(l1, 4), m4)};
      for (int k = 0; k < 4; ++k) {
        const __m256i high = _mm256_and_si256(_mm256_srli_epi16(h, 2 * k), m3);
        u.q[4 * j + k] = _mm256_or_si256(low[k], _mm256_slli_epi16(high, 4));
      }
    }
    // Chunk c holds sub-blocks 2c (bytes 0..15) and 2c+1 (bytes 16..31).
    for (int c = 0; c < 8; ++c)
      u.scale[c] =
          _mm256_setr_m128i(_mm_set1_epi16(b.scales[2 * c]), _mm_set1_epi16(b.scales[2 * c + 1]));
  }
  // Quants are stored +32: subtract 32 * (activation pair sums) per chunk before scaling.
  static __m256i lanes(const UnpackedK& u, const BlockQ8K& a) {
    const __m256i m32 = _mm256_set1_epi8(32);
    __m256i sum = _mm256_setzero_si256();
    for (int c = 0; c < 8; ++c) {
      const __m256i q8 = load_i8x32(a.qs + 32 * c);
      const __m256i p =
          _mm256_sub_epi16(_mm256_maddubs_epi16(u.q[c], q8), _mm256_maddubs_epi16(m32, q8));
      sum = _mm256_add_epi32(sum, _mm256_madd_epi16(u.scale[c], p));
    }
    return sum;
  }
  struct Acc {
    __m256 acc = _mm256_setzero_ps();
    void add(const UnpackedK& u, const BlockQ8K& a) {
      acc = _mm256_fmadd_ps(_mm256_set1_ps(a.d * u.d), _mm256_cvtepi32_ps(lanes(u, a)), acc);
    }
    float sum() const { return hsum_f32x8(acc); }
  };
};

template <class W, int NT>
inline void tile_k(const uint8_t* w_row, const uint8_t* act, uint64_t act_row_bytes,
                   int64_t n_super, float* y, int64_t y_stride) {
  typename W::Acc acc[NT];
  const auto* x = reinterpret_cast<const typename W::Block*>(w_row);
  for (int64_t i = 0; i < n_super; ++i) {
    if constexpr (NT == 1) prefetch_weights_ahead(x + i, sizeof(x[i]));
    UnpackedK u;
    W::unpack(x[i], u);
    for (int t = 0; t < NT; ++t)
      acc[t].add(u, reinterpret_cast<const BlockQ8K*>(act + t * act_row_bytes)[i]);
  }
  for (int t = 0; t < NT; ++t) y[t * y_stride] = acc[t].sum();
}

template <class W, int NT>
inline void rows_k(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const uint8_t* act,
                   uint64_t act_row_bytes, int64_t n_super, float* y, int64_t y_stride) {
  for (int64_t r = 0; r < n_rows; ++r)
    tile_k<W, NT>(w + r * row_bytes, act, act_row_bytes, n_super, y + r, y_stride);
}

template <class W>
void gemv_k(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
            float* y) {
  rows_k<W, 1>(w, row_bytes, n_rows, static_cast<const uint8_t*>(act), 0, n / kQK_K, y, 0);
}

template <class W>
void gemm_k(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
            uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y, int64_t y_stride) {
  const auto* a = static_cast<const uint8_t*>(act);
  const int64_t ns = n / kQK_K;
  int64_t t = 0;
  for (; t + 4 <= n_tok; t += 4)
    rows_k<W, 4>(w, row_bytes, n_rows, a + t * act_row_bytes, act_row_bytes, ns, y + t * y_stride,
                 y_stride);
  const uint8_t* at = a + t * act_row_bytes;
  float* yt = y + t * y_stride;
  switch (n_tok - t) {
    case 3:
      rows_k<W, 3>(w, row_bytes, n_rows, at, act_row_bytes, ns, yt, y_stride);
      break;
    case 2:
      rows_k<W, 2>(w, row_bytes, n_rows, at, act_row_bytes, ns, yt, y_stride);
      break;
    case 1:
      rows_k<W, 1>(w, row_bytes, n_rows, at, act_row_bytes, ns, yt, y_stride);
      break;
    default:
      break;
  }
}

}  // namespace
}  // namespace kz::x86
