// Fused causal attention with AVX2 over an F32, F16 or Q8_0 KV cache: kernels/online_attention.h
// (one query token) and kernels/blocked_attention.h (prompts) over attention_isa_avx2.h's 8-lane
// operations.
#include "kernels/blocked_attention.h"
#include "kernels/online_attention.h"
#include "kernels/x86/attention_isa_avx2.h"
#include "kernels/x86/ops_avx2.h"

namespace kz::x86 {

void attention__avx2(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                     float scale, float* out, int64_t begin, int64_t end) {
  if (n_tok > 1)
    return blocked_attention::run<Avx2Attention>(q, kv, pos0, n_head, scale, out, begin, end);
  online_attention::run<Avx2Attention>(q, kv, pos0, n_head, scale, out, begin, end);
}

}  // namespace kz::x86
