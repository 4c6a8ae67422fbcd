// F32 x F32, F16 x F16 and BF16 x BF16 dot products with AVX2 + FMA + F16C. The summation order
// is that of the reference's SIMD dot products (ggml-cpu/vec.cpp: ggml_vec_dot_f32 /
// ggml_vec_dot_f16 on AVX2): 4 accumulators of 8 lanes over steps of 32 elements, reduced as
// (a0 + a2) + (a1 + a3), then the two 128-bit halves and two horizontal adds; the tail of
// n % 32 elements is added in double.
#include "kernels/x86/intrinsics.h"

#include <cstdint>

#include "kernels/x86/kernels_avx2.h"

namespace kz::x86 {
namespace {

struct LoadF32 {
  using T = float;
  static __m256 load(const T* p) { return _mm256_loadu_ps(p); }
  static float one(T v) { return v; }
};
struct LoadF16 {
  using T = uint16_t;
  static __m256 load(const T* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static float one(T v) { return _cvtsh_ss(v); }
};
struct LoadBF16 {
  using T = uint16_t;
  static __m256 load(const T* p) {
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
  }
  static float one(T v) {
    const uint32_t bits = uint32_t(v) << 16;
    float f;
    __builtin_memcpy(&f, &bits, 4);
    return f;
  }
};

template <class L>
float dot(const typename L::T* x, const typename L::T* y, int64_t n) {
  __m256 s[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                 _mm256_setzero_ps()};
  const int64_t np = n & ~int64_t(31);
  for (int64_t i = 0; i < np; i += 32)
    for (int j = 0; j < 4; ++j)
      s[j] = _mm256_fmadd_ps(L::load(x + i + 8 * j), L::load(y + i + 8 * j), s[j]);
  s[0] = _mm256_add_ps(s[0], s[2]);
  s[1] = _mm256_add_ps(s[1], s[3]);
  s[0] = _mm256_add_ps(s[0], s[1]);
  const __m128 t0 = _mm_add_ps(_mm256_castps256_ps128(s[0]), _mm256_extractf128_ps(s[0], 1));
  const __m128 t1 = _mm_hadd_ps(t0, t0);
  double sum = _mm_cvtss_f32(_mm_hadd_ps(t1, t1));
  for (int64_t i = np; i < n; ++i) sum += double(L::one(x[i]) * L::one(y[i]));
  return static_cast<float>(sum);
}

template <class L>
void gemv(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
          float* y) {
  const auto* a = static_cast<const typename L::T*>(act);
  for (int64_t r = 0; r < n_rows; ++r)
    y[r] = dot<L>(reinterpret_cast<const typename L::T*>(w + r * row_bytes), a, n);
}

}  // namespace

void gemv_f32_f32__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                        int64_t n, float* y) {
  gemv<LoadF32>(w, row_bytes, n_rows, act, n, y);
}
void gemv_f16_f16__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                        int64_t n, float* y) {
  gemv<LoadF16>(w, row_bytes, n_rows, act, n, y);
}
void gemv_bf16_bf16__avx2(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv<LoadBF16>(w, row_bytes, n_rows, act, n, y);
}

}  // namespace kz::x86
