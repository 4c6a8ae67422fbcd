// AVX2 helpers shared by the *_avx2.cpp kernels; include only from files compiled with -mavx2
// -mfma -mf16c. The integer dot product and the horizontal sum reproduce the lane structure of
// the reference's x86 kernels (ggml-cpu/arch/x86/quants.c): f32 lane l of a 32-byte block holds
// the int32 sum of bytes 4l..4l+3, and 8 lanes are added as (hi128 + lo128), then pairwise.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace kz::x86 {

// 8 int32 lanes: lane l = sum_{b=4l}^{4l+3} x[b]*y[b] (signed bytes; x != -128).
inline __m256i dot_i8_lanes(__m256i x, __m256i y) {
  const __m256i ax = _mm256_sign_epi8(x, x);
  const __m256i sy = _mm256_sign_epi8(y, x);
  return _mm256_madd_epi16(_mm256_maddubs_epi16(ax, sy), _mm256_set1_epi16(1));
}

// Unsigned weight bytes (0..127) times signed activations, scaled per 16-bit pair by `scale`
// (int16 lanes): lane l = sum over pairs of scale * (u[2k]*s[2k] + u[2k+1]*s[2k+1]).
inline __m256i dot_u8_i8_scaled(__m256i u, __m256i s, __m256i scale) {
  return _mm256_madd_epi16(scale, _mm256_maddubs_epi16(u, s));
}

inline float hsum_f32x8(__m256 x) {
  __m128 r = _mm_add_ps(_mm256_extractf128_ps(x, 1), _mm256_castps256_ps128(x));
  r = _mm_add_ps(r, _mm_movehl_ps(r, r));
  r = _mm_add_ss(r, _mm_movehdup_ps(r));
  return _mm_cvtss_f32(r);
}

inline float hsum_f32x4(__m128 r) {
  r = _mm_add_ps(r, _mm_movehl_ps(r, r));
  r = _mm_add_ss(r, _mm_movehdup_ps(r));
  return _mm_cvtss_f32(r);
}

inline int hsum_i32x8(__m256i a) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
  s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtsi128_si32(s);
}

// 32 nibbles -> 32 bytes: low nibbles of q[0..15] first, then the high nibbles.
inline __m256i nibbles_to_bytes(const uint8_t* q) {
  const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
  const __m256i b = _mm256_insertf128_si256(_mm256_castsi128_si256(t), _mm_srli_epi16(t, 4), 1);
  return _mm256_and_si256(b, _mm256_set1_epi8(0xF));
}

inline __m256i load_i8x32(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

inline float fp16_to_f32(uint16_t h) {
  return _cvtsh_ss(h);
}

// Exponential of 8 lanes (Cephes-style range reduction, degree-6 polynomial; ~1 ulp on
// [-87, 88]; large negative inputs flush to 0).
inline __m256 exp_f32x8(__m256 x) {
  x = _mm256_min_ps(x, _mm256_set1_ps(88.0f));  // e^88 < FLT_MAX; no overflow to inf
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.3365447504019f));
  const __m256 fx = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), x);
  __m256 y = _mm256_set1_ps(1.9875691500e-4f);
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.3981999507e-3f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(8.3334519073e-3f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(4.1665795894e-2f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.6666665459e-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(5.0000001201e-1f));
  y = _mm256_fmadd_ps(y, _mm256_mul_ps(x, x), _mm256_add_ps(x, _mm256_set1_ps(1.0f)));
  const __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
}

}  // namespace kz::x86
