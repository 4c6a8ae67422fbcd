// Quantized gemv on ARMv8.2 FEAT_DotProd: vdotq_s32 adds four int8 products into each
// int32 lane (exact).
#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/quant_dot.h"

namespace kz::arm {
namespace {

struct DotProd {
  static int32x4_t dot4(int8x16_t a, int8x16_t b) { return vdotq_s32(vdupq_n_s32(0), a, b); }
};

}  // namespace

void gemv_q4_0_q8_0__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                  const void* act, int64_t n, float* y) {
  gemv_q4_0_q8_0<DotProd>(w, row_bytes, n_rows, act, n, y);
}
void gemv_q8_0_q8_0__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                  const void* act, int64_t n, float* y) {
  gemv_q8_0_q8_0<DotProd>(w, row_bytes, n_rows, act, n, y);
}
void gemv_q4_K_q8_K__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                  const void* act, int64_t n, float* y) {
  gemv_q4_K_q8_K<DotProd>(w, row_bytes, n_rows, act, n, y);
}
void gemv_q5_K_q8_K__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                  const void* act, int64_t n, float* y) {
  gemv_q5_K_q8_K<DotProd>(w, row_bytes, n_rows, act, n, y);
}
void gemv_q6_K_q8_K__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                  const void* act, int64_t n, float* y) {
  gemv_q6_K_q8_K<DotProd>(w, row_bytes, n_rows, act, n, y);
}

}  // namespace kz::arm
