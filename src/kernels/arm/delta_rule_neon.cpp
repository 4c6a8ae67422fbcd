// Tokens of the gated delta rule on ARMv8.0 Advanced SIMD (kernels/delta_rule_rows.h), the same
// bits as kernels/x86/delta_rule_avx2.cpp.
#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/vec8_neon.h"
#include "kernels/delta_rule_rows.h"

namespace kz::arm {

void delta_rule__neon(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                      const float* beta, float eps, float* state, float* out, int h_begin,
                      int h_end) {
  delta_rule::run<NeonVec8>(dims, n_tok, qkv, g, beta, eps, state, out, h_begin, h_end);
}
void l2_norm__neon(float* x, int64_t n, int64_t rows, float eps) {
  delta_rule::l2_normalize_rows<NeonVec8>(x, int(n), n, int(rows), eps);
}

}  // namespace kz::arm
