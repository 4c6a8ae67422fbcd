// Fused causal attention on ARMv8.0 Advanced SIMD over an F32 or F16 KV cache: the arithmetic of
// kernels/x86/attention_avx2.cpp operation for operation (one pass over keys and values in
// blocks of 16 positions with an online softmax; q·k in 2 x 8 f32 lanes with fused multiply-add
// and the AVX2 horizontal sum; v accumulated as fma(p, v, acc * c); scalar std::exp), so ARM
// and x86 give the same bits. That matters beyond tidiness: with 8-bit activations a last-bit
// difference in attention flips roundings downstream (fixtures/README.md), and this order is the
// one that tracks the reference implementation's results on the fixtures.
#include <arm_neon.h>

#include <algorithm>
#include <cmath>

#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/quant_dot.h"

namespace kz::arm {
namespace {

constexpr int kMaxHeadDim = 512;
constexpr int kKeyBlock = 16;

struct KvF32 {
  using T = float;
  static F32x8 load(const T* p) { return {vld1q_f32(p), vld1q_f32(p + 4)}; }
  static float one(T v) { return v; }
};
struct KvF16 {
  using T = uint16_t;
  static F32x8 load(const T* p) {
    const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(p));
    return {vcvt_f32_f16(vget_low_f16(h)), vcvt_high_f32_f16(h)};
  }
  static float one(T v) { return half_to_float(v); }
};

inline F32x8 load_f32(const float* p) {
  return {vld1q_f32(p), vld1q_f32(p + 4)};
}
// a + b * c, fused (as _mm256_fmadd_ps(b, c, a)).
inline F32x8 fma8(F32x8 a, F32x8 b, F32x8 c) {
  return {vfmaq_f32(a.lo, b.lo, c.lo), vfmaq_f32(a.hi, b.hi, c.hi)};
}

template <class L>
float dot(const float* q, const typename L::T* k, int d) {
  F32x8 a0, a1;
  int i = 0;
  for (; i + 16 <= d; i += 16) {
    a0 = fma8(a0, load_f32(q + i), L::load(k + i));
    a1 = fma8(a1, load_f32(q + i + 8), L::load(k + i + 8));
  }
  for (; i + 8 <= d; i += 8) a0 = fma8(a0, load_f32(q + i), L::load(k + i));
  float s = hsum8({vaddq_f32(a0.lo, a1.lo), vaddq_f32(a0.hi, a1.hi)});
  for (; i < d; ++i) s += q[i] * L::one(k[i]);
  return s;
}

// acc[0..d) = acc * c + p * v
template <class L>
void scale_add(float* acc, float c, float p, const typename L::T* v, int d) {
  int i = 0;
  for (; i + 8 <= d; i += 8) {
    const F32x8 x = L::load(v + i);
    vst1q_f32(acc + i, vfmaq_n_f32(vmulq_n_f32(vld1q_f32(acc + i), c), x.lo, p));
    vst1q_f32(acc + i + 4, vfmaq_n_f32(vmulq_n_f32(vld1q_f32(acc + i + 4), c), x.hi, p));
  }
  for (; i < d; ++i) acc[i] = acc[i] * c + p * L::one(v[i]);
}

template <class K, class V>
void attend(const float* q, const typename K::T* k, const typename V::T* v, int64_t row,
            int64_t n_keys, int d, float scale, float* out) {
  alignas(16) float acc[kMaxHeadDim] = {};
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

void attention_f32_f16_kv__neon(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
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

}  // namespace kz::arm
