// AVX-512 VNNI matrix products of Q4_0 / Q8_0 weights with Q8_0 activations: the tiles of
// gemm_q8_0_tiles.h with the 4-byte sums done by vpdpbusd (256-bit, AVX512VL). The int32 lanes
// are the same as AVX2's, so the results are bit-identical to the __avx2 kernels.
#include "kernels/x86/gemm_q8_0_tiles.h"
#include "kernels/x86/int8_dot.h"
#include "kernels/x86/kernels_avx2.h"

namespace kz::x86 {

void gemv_q4_0_q8_0__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                const void* act, int64_t n, float* y) {
  gemv_q8_0<Int8DotAvx512Vnni, WeightsQ4_0>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q4_0_q8_0_4x2__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                    const void* act, uint64_t act_row_bytes, int64_t n_tok,
                                    int64_t n, float* y, int64_t y_stride) {
  gemm_q8_0<Int8DotAvx512Vnni, WeightsQ4_0>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y,
                                            y_stride);
}
void gemv_q8_0_q8_0__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                const void* act, int64_t n, float* y) {
  gemv_q8_0<Int8DotAvx512Vnni, WeightsQ8_0>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q8_0_q8_0_4x2__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                    const void* act, uint64_t act_row_bytes, int64_t n_tok,
                                    int64_t n, float* y, int64_t y_stride) {
  gemm_q8_0<Int8DotAvx512Vnni, WeightsQ8_0>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y,
                                            y_stride);
}

}  // namespace kz::x86
