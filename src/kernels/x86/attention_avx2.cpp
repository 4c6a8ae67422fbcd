// Fused causal attention with AVX2 over an F32 or F16 KV cache: the vector primitives (q.k in
// 2 x 8 f32 lanes with fused multiply-add, v accumulated as fma(p, v, acc * c)) of the online
// softmax in kernels/online_attention.h.
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "kernels/online_attention.h"
#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/simd_avx2.h"

namespace kz::x86 {
namespace {

// The vector primitives of online_attention (kernels/online_attention.h).
struct Avx2Attention {
  struct KvF32 {
    using T = float;
    static __m256 load(const T* p) { return _mm256_loadu_ps(p); }
    static float one(T v) { return v; }
  };
  struct KvF16 {
    using T = uint16_t;
    static __m256 load(const T* p) {
      return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static float one(T v) { return _cvtsh_ss(v); }
  };

  template <class L>
  static float dot(const float* q, const typename L::T* k, int d) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int i = 0;
    for (; i + 16 <= d; i += 16) {
      a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), L::load(k + i), a0);
      a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 8), L::load(k + i + 8), a1);
    }
    for (; i + 8 <= d; i += 8) a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), L::load(k + i), a0);
    float s = hsum_f32x8(_mm256_add_ps(a0, a1));
    for (; i < d; ++i) s += q[i] * L::one(k[i]);
    return s;
  }

  // acc[0..d) = acc * c + p * v
  template <class L>
  static void scale_add(float* acc, float c, float p, const typename L::T* v, int d) {
    const __m256 cv = _mm256_set1_ps(c), pv = _mm256_set1_ps(p);
    int i = 0;
    for (; i + 8 <= d; i += 8)
      _mm256_storeu_ps(acc + i, _mm256_fmadd_ps(pv, L::load(v + i),
                                                _mm256_mul_ps(_mm256_loadu_ps(acc + i), cv)));
    for (; i < d; ++i) acc[i] = acc[i] * c + p * L::one(v[i]);
  }
};

}  // namespace

void attention_f32_f16_kv__avx2(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                                int n_head, float scale, float* out, int64_t begin, int64_t end) {
  (void)n_tok;
  online_attention::run<Avx2Attention>(q, kv, pos0, n_head, scale, out, begin, end);
}

}  // namespace kz::x86
