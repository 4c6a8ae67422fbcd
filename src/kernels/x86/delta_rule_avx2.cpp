// One decode token of the gated delta rule (spec/qwen35.md §8.5) with AVX2, for a range of value
// heads. The reference makes four passes over a head's state M (decay, M k, rank-1 update,
// M q); each row j of M only depends on itself, so here each row is decayed, dotted with k,
// updated and dotted with q while it is in registers: the state is read and written once.
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "kernels/ref/delta_net.h"
#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/simd_avx2.h"

namespace kz::x86 {
namespace {

constexpr int kMaxDk = 512;

}  // namespace

void delta_rule_decode__avx2(const DeltaNetDims& dims, const float* qkv, const float* g,
                             const float* beta, float eps, float* state, float* out, int h_begin,
                             int h_end) {
  const int d_k = dims.d_k, d_v = dims.d_v;
  const int64_t key_dim = dims.key_dim();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  alignas(32) float q[kMaxDk], k[kMaxDk];  // d_k <= kMaxDk (checked by the caller)
  for (int h = h_begin; h < h_end; ++h) {
    const int kh = h % dims.n_k;  // tiled head mapping (§8.4)
    ref::l2_normalized(qkv + int64_t(kh) * d_k, d_k, eps, q);
    ref::l2_normalized(qkv + key_dim + int64_t(kh) * d_k, d_k, eps, k);
    const float* v = qkv + 2 * key_dim + int64_t(h) * d_v;
    const float b = beta[h];
    const float decay = std::exp(g[h]);
    const __m256 dv = _mm256_set1_ps(decay);
    float* o = out + int64_t(h) * d_v;
    for (int j = 0; j < d_v; ++j) {
      float* m = state + (int64_t(h) * d_v + j) * d_k;
      __m256 kd = _mm256_setzero_ps();
      int i = 0;
      for (; i + 8 <= d_k; i += 8) {
        const __m256 mv = _mm256_mul_ps(_mm256_loadu_ps(m + i), dv);
        _mm256_storeu_ps(m + i, mv);
        kd = _mm256_fmadd_ps(mv, _mm256_load_ps(k + i), kd);
      }
      float kdot = hsum_f32x8(kd);
      for (; i < d_k; ++i) kdot += (m[i] *= decay) * k[i];
      const float delta = (v[j] - kdot) * b;
      const __m256 dl = _mm256_set1_ps(delta);
      __m256 qd = _mm256_setzero_ps();
      for (i = 0; i + 8 <= d_k; i += 8) {
        const __m256 mv = _mm256_fmadd_ps(_mm256_load_ps(k + i), dl, _mm256_loadu_ps(m + i));
        _mm256_storeu_ps(m + i, mv);
        qd = _mm256_fmadd_ps(mv, _mm256_load_ps(q + i), qd);
      }
      float qdot = hsum_f32x8(qd);
      for (; i < d_k; ++i) qdot += (m[i] += k[i] * delta) * q[i];
      o[j] = qdot * scale;
    }
  }
}

}  // namespace kz::x86
