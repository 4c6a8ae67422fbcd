// Quantized gemv and gemm on ARMv8.0 Advanced SIMD (every AArch64 core): int8 products widened by
// vmull_s8 to int16 (exact: |q_w · q_a| <= 128 · 128), then pairwise added twice, so each int32
// lane holds 4 consecutive products as quant_dot.h requires.
#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/quant_dot.h"

namespace kz::arm {
namespace {

struct Neon {
  static int32x4_t dot4(int8x16_t a, int8x16_t b) {
    const int32x4_t lo = vpaddlq_s16(vmull_s8(vget_low_s8(a), vget_low_s8(b)));
    const int32x4_t hi = vpaddlq_s16(vmull_high_s8(a, b));
    return vpaddq_s32(lo, hi);
  }
};

}  // namespace

void gemv_q4_0_q8_0__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv<Neon, WeightsQ4_0>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_0_q8_0_4x1__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                              uint64_t act_stride, int64_t n_act, int64_t n, float* y,
                              int64_t y_stride) {
  gemm<Neon, WeightsQ4_0>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemv_q8_0_q8_0__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv<Neon, WeightsQ8_0>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q8_0_q8_0_4x1__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                              uint64_t act_stride, int64_t n_act, int64_t n, float* y,
                              int64_t y_stride) {
  gemm<Neon, WeightsQ8_0>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemv_q4_K_q8_K__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv<Neon, WeightsQ4K>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_K_q8_K_4x1__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                              uint64_t act_stride, int64_t n_act, int64_t n, float* y,
                              int64_t y_stride) {
  gemm<Neon, WeightsQ4K>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemv_q5_K_q8_K__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv<Neon, WeightsQ5K>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q5_K_q8_K_4x1__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                              uint64_t act_stride, int64_t n_act, int64_t n, float* y,
                              int64_t y_stride) {
  gemm<Neon, WeightsQ5K>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}
void gemv_q6_K_q8_K__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv<Neon, WeightsQ6K>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q6_K_q8_K_4x1__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                              uint64_t act_stride, int64_t n_act, int64_t n, float* y,
                              int64_t y_stride) {
  gemm<Neon, WeightsQ6K>(w, row_bytes, n_rows, act, act_stride, n_act, n, y, y_stride);
}

}  // namespace kz::arm
