// Quantized gemv and gemm on ARMv8.2 FEAT_DotProd: vdotq_s32 adds four int8 products into each
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
  gemv<DotProd, WeightsQ4_0>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_0_q8_0_4x1__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                      const void* act, uint64_t act_stride, int64_t n_act,
                                      int64_t n, float* y, int64_t y_stride) {
  gemm<DotProd, WeightsQ4_0>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemv_q8_0_q8_0__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                  const void* act, int64_t n, float* y) {
  gemv<DotProd, WeightsQ8_0>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q8_0_q8_0_4x1__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                      const void* act, uint64_t act_stride, int64_t n_act,
                                      int64_t n, float* y, int64_t y_stride) {
  gemm<DotProd, WeightsQ8_0>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemv_q4_K_q8_K__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                  const void* act, int64_t n, float* y) {
  gemv<DotProd, WeightsQ4K>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_K_q8_K_4x1__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                      const void* act, uint64_t act_stride, int64_t n_act,
                                      int64_t n, float* y, int64_t y_stride) {
  gemm<DotProd, WeightsQ4K>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemv_q5_K_q8_K__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                  const void* act, int64_t n, float* y) {
  gemv<DotProd, WeightsQ5K>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q5_K_q8_K_4x1__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                      const void* act, uint64_t act_stride, int64_t n_act,
                                      int64_t n, float* y, int64_t y_stride) {
  gemm<DotProd, WeightsQ5K>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemv_q6_K_q8_K__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                  const void* act, int64_t n, float* y) {
  gemv<DotProd, WeightsQ6K>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q6_K_q8_K_4x1__neon_dotprod(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                      const void* act, uint64_t act_stride, int64_t n_act,
                                      int64_t n, float* y, int64_t y_stride) {
  gemm<DotProd, WeightsQ6K>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}

}  // namespace kz::arm
