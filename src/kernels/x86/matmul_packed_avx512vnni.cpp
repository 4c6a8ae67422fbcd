// AVX-512 VNNI Q5_K matrix products over weights repacked into groups of 8 interleaved rows:
// the packed AVX2 kernels (matmul_packed_q4_k_avx2.cpp) with each 4-byte dot product one vpdpbusd
// (256-bit, AVX512VL; packed_sums.h). The same bits as the AVX2 kernels. (Q4_0, Q8_0, Q4_K and
// Q6_K: groups of 16 rows, matmul_packed_x16_avx512vnni.cpp.)
#include <immintrin.h>

#include "kernels/x86/kernels_avx2.h"
#include "kernels/x86/packed_q4_k_blocks.h"

namespace kz::x86 {
namespace {

using namespace packed;

struct Vpdpbusd {
  static __m256i dpbusd(__m256i acc, __m256i u, __m256i s) {
    return _mm256_dpbusd_epi32(acc, u, s);
  }
};
using TilesQ5K = Q4KTiles<SumsDpbusd<Vpdpbusd>, kTokensAvx512, Q5Quants>;

}  // namespace

void gemv_q5_Kx8_q8_K__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                  const void* act, int64_t n, float* y) {
  packed::gemv<TilesQ5K>(w, row_bytes, n_rows, act, n, y);
}
void gemm_q5_Kx8_q8_K__avx512vnni(const uint8_t* w, uint64_t row_bytes, int64_t n_rows,
                                  const void* act, uint64_t act_row_bytes, int64_t n_tok, int64_t n,
                                  float* y, int64_t y_stride) {
  packed::gemm<TilesQ5K>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
}

}  // namespace kz::x86
