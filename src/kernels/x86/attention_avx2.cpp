// Fused causal attention with AVX2 over an F32, F16 or Q8_0 KV cache: the vector primitives
// (q.k in 2 x 8 f32 lanes with fused multiply-add; v accumulated as r = fma(p, v, r) from
// r = acc * c over each block of keys) of the online softmax in kernels/online_attention.h.
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "kernels/online_attention.h"
#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/simd_avx2.h"
#include "quant/blocks.h"

namespace kz::x86 {
namespace {

// The vector primitives of online_attention (kernels/online_attention.h).
struct Avx2Attention {
  // block(row, i): where load(block, j) finds lanes i+j .. i+j+7.
  struct KvF32 {
    static const float* block(const uint8_t* row, int i) {
      return reinterpret_cast<const float*>(row) + i;
    }
    static __m256 load(const float* b, int j) { return _mm256_loadu_ps(b + j); }
    static float one(const uint8_t* row, int i) { return reinterpret_cast<const float*>(row)[i]; }
  };
  struct KvF16 {
    static const uint16_t* block(const uint8_t* row, int i) {
      return reinterpret_cast<const uint16_t*>(row) + i;
    }
    static __m256 load(const uint16_t* b, int j) {
      return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + j)));
    }
    static float one(const uint8_t* row, int i) {
      return _cvtsh_ss(reinterpret_cast<const uint16_t*>(row)[i]);
    }
  };
  // Q8_0 rows are whole blocks of 32 int8 quants and an fp16 scale d; the kernels take the int8
  // values as f32 and apply d once per block: q.k as sum over blocks of d * (q . quants), and
  // v accumulated with p * d as one factor.
  struct KvQ8_0 {
    static const BlockQ8_0* block(const uint8_t* row, int i) {
      return reinterpret_cast<const BlockQ8_0*>(row) + unsigned(i) / kQK;
    }
    static __m256 quants(const BlockQ8_0* b, int j) {
      const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b->qs + j));
      return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q));
    }
    static float scale(const BlockQ8_0* b) { return _cvtsh_ss(b->d); }
  };

  static float dot_q8_0(const float* q, const uint8_t* k, int d) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    for (int i = 0; i < d; i += kQK) {
      const BlockQ8_0* b = KvQ8_0::block(k, i);
      __m256 t0 = _mm256_mul_ps(_mm256_loadu_ps(q + i), KvQ8_0::quants(b, 0));
      __m256 t1 = _mm256_mul_ps(_mm256_loadu_ps(q + i + 8), KvQ8_0::quants(b, 8));
      t0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 16), KvQ8_0::quants(b, 16), t0);
      t1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 24), KvQ8_0::quants(b, 24), t1);
      const __m256 dv = _mm256_set1_ps(KvQ8_0::scale(b));
      a0 = _mm256_fmadd_ps(t0, dv, a0);
      a1 = _mm256_fmadd_ps(t1, dv, a1);
    }
    return hsum_f32x8(_mm256_add_ps(a0, a1));
  }

  static void accumulate_q8_0(float* acc, float c, const float* p, const uint8_t* v, uint64_t v_row,
                              int nb, int d) {
    const __m256 cv = _mm256_set1_ps(c);
    for (int i = 0; i < d; i += kQK) {
      __m256 r[4];
      for (int l = 0; l < 4; ++l) r[l] = _mm256_mul_ps(_mm256_loadu_ps(acc + i + 8 * l), cv);
      for (int j = 0; j < nb; ++j) {
        const BlockQ8_0* b = KvQ8_0::block(v + j * v_row, i);
        const __m256 pd = _mm256_set1_ps(p[j] * KvQ8_0::scale(b));
        for (int l = 0; l < 4; ++l) r[l] = _mm256_fmadd_ps(pd, KvQ8_0::quants(b, 8 * l), r[l]);
      }
      for (int l = 0; l < 4; ++l) _mm256_storeu_ps(acc + i + 8 * l, r[l]);
    }
  }

  template <class L>
  static float dot_elements(const float* q, const uint8_t* k, int d) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    auto step = [&](int i, const auto& b, int j) {  // lanes i+j .. i+j+15
      a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + j), L::load(b, j), a0);
      a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + j + 8), L::load(b, j + 8), a1);
    };
    int i = 0;
    for (; i + 32 <= d; i += 32) {
      const auto b = L::block(k, i);
      step(i, b, 0);
      step(i, b, 16);
    }
    for (; i + 16 <= d; i += 16) step(i, L::block(k, i), 0);
    for (; i + 8 <= d; i += 8)
      a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), L::load(L::block(k, i), 0), a0);
    float s = hsum_f32x8(_mm256_add_ps(a0, a1));
    for (; i < d; ++i) s += q[i] * L::one(k, i);
    return s;
  }

  template <class L>
  static void accumulate_elements(float* acc, float c, const float* p, const uint8_t* v,
                                  uint64_t v_row, int nb, int d) {
    const __m256 cv = _mm256_set1_ps(c);
    int i = 0;
    for (; i + 8 <= d; i += 8) {
      __m256 r = _mm256_mul_ps(_mm256_loadu_ps(acc + i), cv);
      for (int j = 0; j < nb; ++j)
        r = _mm256_fmadd_ps(_mm256_set1_ps(p[j]), L::load(L::block(v + j * v_row, i), 0), r);
      _mm256_storeu_ps(acc + i, r);
    }
    for (; i < d; ++i) {
      float r = acc[i] * c;
      for (int j = 0; j < nb; ++j) r = r + p[j] * L::one(v + j * v_row, i);
      acc[i] = r;
    }
  }

  static void exp_block(float* s, float m) {
    static_assert(online_attention::kKeyBlock == 16);
    for (int j = 0; j < 16; j += 8)
      _mm256_store_ps(s + j, exp_f32x8(_mm256_sub_ps(_mm256_load_ps(s + j), _mm256_set1_ps(m))));
  }
};

}  // namespace

void attention__avx2(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                     float scale, float* out, int64_t begin, int64_t end) {
  (void)n_tok;
  online_attention::run<Avx2Attention>(q, kv, pos0, n_head, scale, out, begin, end);
}

}  // namespace kz::x86
