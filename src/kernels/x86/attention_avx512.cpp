// Attention with AVX-512, the same bits as AVX2's (attention_avx2.cpp). Prompts:
// kernels/blocked_attention.h in 16 lanes (a tile's 32 query rows in two vectors, value chunks of
// 64 dimensions: AVX-512's 32 registers), the same operations per row as AVX2's 8 lanes, and an
// exponential that is x86/simd_avx2.h's exp_f32x8 lane for lane. One query token: AVX2's sweep
// (kernels/online_attention.h) with the 16 lanes of its main loops in one register: half the
// instructions per key.
#include "kernels/x86/intrinsics.h"

#include "kernels/blocked_attention.h"
#include "kernels/online_attention.h"
#include "kernels/x86/attention_isa_avx2.h"
#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/simd_avx512.h"

namespace kz::x86 {
namespace {

struct Avx512Attention {
  using V = __m512;
  static V zero() { return _mm512_setzero_ps(); }
  static V splat(float x) { return _mm512_set1_ps(x); }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V x) { _mm512_storeu_ps(p, x); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(b, c, a); }  // a + b * c, fused
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  static V exp(V x) { return exp_f32x16(x); }
  static V load_f16(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static V load_i8(const int8_t* p) {
    return _mm512_cvtepi32_ps(
        _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }
  static float half(uint16_t h) { return _cvtsh_ss(h); }
};

// One query token: the AVX2 sweep with its 16-lane loops (online_attention.h: PairOf) in one
// 512-bit register, the same operation on each lane.
struct Avx512Wide : Avx512Attention {
  using W = __m512;
  static __m256 lo(W x) { return _mm512_castps512_ps256(x); }
  static W with_lo(W x, __m256 lo) { return _mm512_insertf32x8(x, lo, 0); }
  static __m256 halves(W x) {
    return _mm256_add_ps(_mm512_castps512_ps256(x), _mm512_extractf32x8_ps(x, 1));
  }
};
struct Avx512Decode : Avx2Attention {
  using Wide = Avx512Wide;
};

}  // namespace

void attention__avx512(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                       int n_head, float scale, float* out, int64_t begin, int64_t end) {
  if (n_tok > 1)
    return blocked_attention::run<Avx512Attention>(q, kv, pos0, n_head, scale, out, begin, end);
  online_attention::run<Avx512Decode>(q, kv, pos0, n_head, scale, out, begin, end);
}

}  // namespace kz::x86
