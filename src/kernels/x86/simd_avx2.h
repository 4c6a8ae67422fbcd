// AVX2 helpers shared by the x86 kernels; include only from files compiled with -mavx2 -mfma
// -mf16c (or AVX-512). The horizontal sum is that of the reference's x86 kernels
// (ggml-cpu/arch/x86/quants.c: hsum_float_8): (hi128 + lo128), then pairwise.
#pragma once

#include "kernels/x86/intrinsics.h"

#include <cstdint>
#include <cstring>

namespace kz::x86 {
// The x86 kernel headers put their definitions in an unnamed namespace: they are compiled into
// files with different ISA flags (AVX2, AVX-512), and inline functions or template instances
// with external linkage would be merged by the linker into one copy, perhaps an AVX-512 one
// that an AVX2-only CPU cannot run. Each file keeps its own copy instead.
namespace {

inline float hsum_f32x8(__m256 x) {
  __m128 r = _mm_add_ps(_mm256_extractf128_ps(x, 1), _mm256_castps256_ps128(x));
  r = _mm_add_ps(r, _mm_movehl_ps(r, r));
  r = _mm_add_ss(r, _mm_movehdup_ps(r));
  return _mm_cvtss_f32(r);
}

// r[k] = hsum_f32x8(x[k]) for k < 8 with the same adds, eight sums transposed into the lanes
// of each step (IEEE addition commutes, so the lanes' operand order does not matter).
inline void hsum8_f32x8(const __m256 x[8], float r[8]) {
  __m256 u[4];  // u[k / 2]: x[k]'s hi128 + lo128, x[k + 1]'s in the high half
  for (int k = 0; k < 8; k += 2)
    u[k / 2] = _mm256_add_ps(_mm256_permute2f128_ps(x[k], x[k + 1], 0x20),
                             _mm256_permute2f128_ps(x[k], x[k + 1], 0x31));
  // Lanes 0 + 2 and 1 + 3 of each sum: [k, k + 2] in the low half, [k + 1, k + 3] in the high.
  __m256 v[2];
  for (int k = 0; k < 2; ++k)
    v[k] = _mm256_add_ps(_mm256_shuffle_ps(u[2 * k], u[2 * k + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm256_shuffle_ps(u[2 * k], u[2 * k + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  // The two remaining lanes of each sum: lanes in the order 0 2 4 6 1 3 5 7.
  const __m256 w = _mm256_add_ps(_mm256_shuffle_ps(v[0], v[1], _MM_SHUFFLE(2, 0, 2, 0)),
                                 _mm256_shuffle_ps(v[0], v[1], _MM_SHUFFLE(3, 1, 3, 1)));
  _mm256_storeu_ps(r, _mm256_permutevar8x32_ps(w, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}

// A one-token product reads each weight once, a contiguous range per thread that the hardware
// prefetchers lose at every 4 KB page; its kernels fetch the bytes of the block
// kWeightPrefetchBytes on as they read one (docs/benchmarks.md, "Prefetching weights and K/V
// ahead"). Near the end of the weights the address lies past them: a prefetch never faults,
// and the address is formed as an integer, not by pointer arithmetic past the array.
constexpr int kWeightPrefetchBytes = 2048;
inline void prefetch_weights_ahead(const void* block, size_t bytes) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(block) + kWeightPrefetchBytes;
  for (size_t i = 0; i < bytes; i += 64)
    _mm_prefetch(reinterpret_cast<const char*>(p + i), _MM_HINT_T0);
}

inline float hsum_f32x4(__m128 r) {
  r = _mm_add_ps(r, _mm_movehl_ps(r, r));
  r = _mm_add_ss(r, _mm_movehdup_ps(r));
  return _mm_cvtss_f32(r);
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

// The sum of double(x*x) (kF32Square: the f32 square, rounded, then widened), in 4 double lanes
// added pairwise, then the tail in order: rms_norm and gated_rms_norm.
template <bool kF32Square>
inline double sum_squares(const float* x, int64_t n) {
  __m256d acc = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 v = _mm_loadu_ps(x + i);
    if constexpr (kF32Square) {
      acc = _mm256_add_pd(acc, _mm256_cvtps_pd(_mm_mul_ps(v, v)));
    } else {
      const __m256d d = _mm256_cvtps_pd(v);
      acc = _mm256_add_pd(acc, _mm256_mul_pd(d, d));  // exact: a float squared fits a double
    }
  }
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, acc);
  double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; i < n; ++i) sum += kF32Square ? double(x[i] * x[i]) : double(x[i]) * double(x[i]);
  return sum;
}

}  // namespace
}  // namespace kz::x86
