// One decode token of the gated delta rule (spec/qwen35.md §8.5) with AVX2, for a range of value
// heads. The reference makes four passes over a head's state M (decay, M k, rank-1 update,
// M q); each row j of M only depends on itself, so here a row is decayed and dotted with k in
// one pass, then updated and dotted with q in a second: the state is read twice, written once.
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "kernels/ref/delta_net.h"
#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/simd_avx2.h"

namespace kz::x86 {
namespace {

constexpr int kMaxDk = 512;
// State rows updated together: their dot-product chains are independent, so interleaving them
// hides the FMA latency that one row's chain of d_k / 8 dependent FMAs would wait on.
constexpr int kRowsAtOnce = 4;

// Rows m[0..R) (each d_k floats) of one head's state, with values v[0..R) and outputs o[0..R).
// Per row the arithmetic of the one-row loop: decay, k-dot, rank-1 update, q-dot. The decayed row
// is recomputed in the second pass instead of stored and reloaded (the same rounded product).
template <int R>
void update_rows(float* m, int d_k, const float* k, const float* q, const float* v, float decay,
                 float b, float scale, float* o) {
  const __m256 dv = _mm256_set1_ps(decay);
  __m256 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
  int i = 0;
  for (; i + 8 <= d_k; i += 8) {
    const __m256 kv = _mm256_load_ps(k + i);
    for (int r = 0; r < R; ++r)
      acc[r] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_loadu_ps(m + r * d_k + i), dv), kv, acc[r]);
  }
  const int tail = i;
  float delta[R];
  __m256 dl[R];
  for (int r = 0; r < R; ++r) {
    const float* mr = m + r * d_k;
    float kdot = hsum_f32x8(acc[r]);
    for (i = tail; i < d_k; ++i) kdot += (mr[i] * decay) * k[i];
    delta[r] = (v[r] - kdot) * b;
    dl[r] = _mm256_set1_ps(delta[r]);
    acc[r] = _mm256_setzero_ps();
  }
  for (i = 0; i < tail; i += 8) {
    const __m256 kv = _mm256_load_ps(k + i), qv = _mm256_load_ps(q + i);
    for (int r = 0; r < R; ++r) {
      float* mr = m + r * d_k + i;
      const __m256 mv = _mm256_fmadd_ps(kv, dl[r], _mm256_mul_ps(_mm256_loadu_ps(mr), dv));
      _mm256_storeu_ps(mr, mv);
      acc[r] = _mm256_fmadd_ps(mv, qv, acc[r]);
    }
  }
  for (int r = 0; r < R; ++r) {
    float* mr = m + r * d_k;
    float qdot = hsum_f32x8(acc[r]);
    for (i = tail; i < d_k; ++i) qdot += (mr[i] = mr[i] * decay + k[i] * delta[r]) * q[i];
    o[r] = qdot * scale;
  }
}

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
    const float decay = std::exp(g[h]);
    float* m = state + int64_t(h) * d_v * d_k;
    float* o = out + int64_t(h) * d_v;
    int j = 0;
    for (; j + kRowsAtOnce <= d_v; j += kRowsAtOnce)
      update_rows<kRowsAtOnce>(m + int64_t(j) * d_k, d_k, k, q, v + j, decay, beta[h], scale,
                               o + j);
    for (; j < d_v; ++j)
      update_rows<1>(m + int64_t(j) * d_k, d_k, k, q, v + j, decay, beta[h], scale, o + j);
  }
}

}  // namespace kz::x86
