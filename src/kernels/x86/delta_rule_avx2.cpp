// Tokens of the gated delta rule with AVX2 (kernels/delta_rule_rows.h), and its L2 norm.
#include "kernels/delta_rule_rows.h"
#include "kernels/x86/ops_avx2.h"
#include "kernels/x86/vec8_avx2.h"

namespace kz::x86 {

void delta_rule__avx2(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                      const float* beta, float eps, float* state, float* out, int h_begin,
                      int h_end) {
  delta_rule::run<Avx2Vec8>(dims, n_tok, qkv, g, beta, eps, state, out, h_begin, h_end);
}
void l2_norm__avx2(float* x, int64_t n, int64_t rows, float eps) {
  delta_rule::l2_normalize_rows<Avx2Vec8>(x, int(n), n, int(rows), eps);
}

}  // namespace kz::x86
