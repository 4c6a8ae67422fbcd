// Fused causal attention with AVX2 over an F32 or F16 KV cache: per (query token, head), one pass
// over the keys and values in blocks of 16 positions with an online softmax (running max m,
// running sum l, output accumulator rescaled by e^(m_old - m_new) when the max grows), so K and
// V are read once and no score vector of the context length is stored.
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/simd_avx2.h"

namespace kz::x86 {
namespace {

constexpr int kMaxHeadDim = 512;
constexpr int kKeyBlock = 16;

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
float dot(const float* q, const typename L::T* k, int d) {
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
void scale_add(float* acc, float c, float p, const typename L::T* v, int d) {
  const __m256 cv = _mm256_set1_ps(c), pv = _mm256_set1_ps(p);
  int i = 0;
  for (; i + 8 <= d; i += 8)
    _mm256_storeu_ps(
        acc + i, _mm256_fmadd_ps(pv, L::load(v + i), _mm256_mul_ps(_mm256_loadu_ps(acc + i), cv)));
  for (; i < d; ++i) acc[i] = acc[i] * c + p * L::one(v[i]);
}

template <class K, class V>
void attend(const float* q, const typename K::T* k, const typename V::T* v, int64_t row,
            int64_t n_keys, int d, float scale, float* out) {
  alignas(32) float acc[kMaxHeadDim] = {};
  float m = -INFINITY, l = 0.0f;
  float s[kKeyBlock];
  for (int64_t j0 = 0; j0 < n_keys; j0 += kKeyBlock) {
    const int nb = int(std::min<int64_t>(kKeyBlock, n_keys - j0));
    float bmax = -INFINITY;
    for (int j = 0; j < nb; ++j) {
      s[j] = dot<K>(q, k + (j0 + j) * row, d) * scale;
      bmax = std::max(bmax, s[j]);
    }
    const float m_new = std::max(m, bmax);
    float c = m == -INFINITY ? 0.0f : std::exp(m - m_new);
    l *= c;
    for (int j = 0; j < nb; ++j) {
      const float p = std::exp(s[j] - m_new);
      l += p;
      scale_add<V>(acc, c, p, v + (j0 + j) * row, d);
      c = 1.0f;
    }
    m = m_new;
  }
  const float inv = 1.0f / l;
  for (int i = 0; i < d; ++i) out[i] = acc[i] * inv;
}

template <class K, class V>
void attention(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale,
               float* out, int64_t begin, int64_t end) {
  const int d = kv.head_dim;
  const int group = n_head / kv.n_kv_head;
  const int64_t row = int64_t(kv.n_kv_head) * d;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t t = i / n_head;
    const int h = int(i % n_head);
    const int64_t off = int64_t(h / group) * d;
    attend<K, V>(q + i * d, static_cast<const typename K::T*>(kv.k) + off,
                 static_cast<const typename V::T*>(kv.v) + off, row, pos0 + t + 1, d, scale,
                 out + i * d);
  }
}

}  // namespace

void attention_f32_f16_kv__avx2(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                                int n_head, float scale, float* out, int64_t begin, int64_t end) {
  (void)n_tok;
  const bool k16 = kv.k_type == DType::F16, v16 = kv.v_type == DType::F16;
  if (k16 && v16)
    attention<KvF16, KvF16>(q, kv, pos0, n_head, scale, out, begin, end);
  else if (k16)
    attention<KvF16, KvF32>(q, kv, pos0, n_head, scale, out, begin, end);
  else if (v16)
    attention<KvF32, KvF16>(q, kv, pos0, n_head, scale, out, begin, end);
  else
    attention<KvF32, KvF32>(q, kv, pos0, n_head, scale, out, begin, end);
}

}  // namespace kz::x86
