// Tokens of the gated delta rule with AVX2 (kernels/delta_rule_rows.h).
#include "kernels/delta_rule_rows.h"
#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/vec8_avx2.h"

namespace kz::x86 {

void delta_rule__avx2(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                      const float* beta, float eps, float* state, float* out, int h_begin,
                      int h_end) {
  delta_rule::run<Avx2Vec8>(dims, n_tok, qkv, g, beta, eps, state, out, h_begin, h_end);
}

}  // namespace kz::x86
