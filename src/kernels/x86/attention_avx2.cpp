// Fused causal attention with AVX2 over an F32, F16 or Q8_0 KV cache: the 8-lane vector
// operations that kernels/online_attention.h (one query token) and kernels/blocked_attention.h
// (prompts) run their online softmax with (vec8_avx2.h's, and the cache loads and exponential).
#include <immintrin.h>

#include "kernels/blocked_attention.h"
#include "kernels/online_attention.h"
#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/simd_avx2.h"
#include "kernels/x86/vec8_avx2.h"

namespace kz::x86 {
namespace {

struct Avx2Attention : Avx2Vec8 {
  static V load_f16(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static V load_i8(const int8_t* p) {
    const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q));
  }
  static float half(uint16_t h) { return _cvtsh_ss(h); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V exp(V x) { return exp_f32x8(x); }
  static void exp_block(float* s, float m) {
    static_assert(online_attention::kKeyBlock == 16);
    for (int j = 0; j < 16; j += 8)
      _mm256_store_ps(s + j, exp_f32x8(_mm256_sub_ps(_mm256_load_ps(s + j), _mm256_set1_ps(m))));
  }
};

}  // namespace

void attention__avx2(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                     float scale, float* out, int64_t begin, int64_t end) {
  if (n_tok > 1)
    return blocked_attention::run<Avx2Attention>(q, kv, pos0, n_head, scale, out, begin, end);
  online_attention::run<Avx2Attention>(q, kv, pos0, n_head, scale, out, begin, end);
}

}  // namespace kz::x86
