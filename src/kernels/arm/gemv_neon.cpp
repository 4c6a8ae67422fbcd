// Quantized gemv on ARMv8.0 Advanced SIMD (every AArch64 core): int8 products widened by
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
  gemv_q4_0_q8_0<Neon>(w, row_bytes, n_rows, act, n, y);
}
void gemv_q8_0_q8_0__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv_q8_0_q8_0<Neon>(w, row_bytes, n_rows, act, n, y);
}
void gemv_q4_K_q8_K__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv_q4_K_q8_K<Neon>(w, row_bytes, n_rows, act, n, y);
}
void gemv_q5_K_q8_K__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv_q5_K_q8_K<Neon>(w, row_bytes, n_rows, act, n, y);
}
void gemv_q6_K_q8_K__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv_q6_K_q8_K<Neon>(w, row_bytes, n_rows, act, n, y);
}

}  // namespace kz::arm
