#include "x86_dpbusd_emulated.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "kernels/x86/kernels_avx2.h"
#include "kernels/x86/packed_q4_k_blocks.h"
#include "kernels/x86/packed_q6_k_blocks.h"
#endif

namespace kz::testing {
namespace {
std::atomic<int64_t> calls{0};
}  // namespace

int64_t dpbusd_emulated_calls() {
  return calls.load();
}

#if defined(__x86_64__)
namespace {

using namespace x86::packed;

// vpdpbusd in AVX2: even and odd bytes widened to int16 (unsigned u, signed s), their products
// summed in pairs to int32 by madd. Every product and sum is exact, as the instruction's.
struct DpbusdEmulated {
  static __m256i dpbusd(__m256i acc, __m256i u, __m256i s) {
    const __m256i u_even = _mm256_and_si256(u, _mm256_set1_epi16(0x00FF));
    const __m256i u_odd = _mm256_srli_epi16(u, 8);
    const __m256i s_even = _mm256_srai_epi16(_mm256_slli_epi16(s, 8), 8);
    const __m256i s_odd = _mm256_srai_epi16(s, 8);
    return _mm256_add_epi32(
        acc, _mm256_add_epi32(_mm256_madd_epi16(u_even, s_even), _mm256_madd_epi16(u_odd, s_odd)));
  }
};

template <class Tiles>
PackedMatmul emulated(const char* name, decltype(PackedMatmul::pack) pack,
                      decltype(PackedMatmul::quantize) quantize, uint64_t act_block_bytes) {
  PackedMatmul p;
  p.rows = kRows;
  p.pack = pack;
  p.quantize = quantize;
  p.act_block_bytes = act_block_bytes;
  p.gemv = [](const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
              float* y) {
    ++calls;
    gemv<Tiles>(w, row_bytes, n_rows, act, n, y);
  };
  p.gemm = [](const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
              uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y, int64_t y_stride) {
    ++calls;
    gemm<Tiles>(w, row_bytes, n_rows, act, act_row_bytes, n_tok, n, y, y_stride);
  };
  p.name = name;
  return p;
}

}  // namespace

PackedMatmul dpbusd_emulated_packed(DType t) {
  using Emu = SumsDpbusd<DpbusdEmulated>;
  switch (t) {
    case DType::Q4_K:
      return emulated<Q4KTiles<Emu, kTokensAvx512>>(
          "q4_Kx8_q8_K dpbusd_emulated", x86::pack_q4_K_x8, x86::quantize_q8_K_sums__avx2,
          x86::kPackedQ4KActBlockBytes);
    case DType::Q5_K:
      return emulated<Q4KTiles<Emu, kTokensAvx512, Q5Quants>>(
          "q5_Kx8_q8_K dpbusd_emulated", x86::pack_q5_K_x8, x86::quantize_q8_K_sums__avx2,
          x86::kPackedQ4KActBlockBytes);
    case DType::Q6_K:
      return emulated<Q6KTiles<Q6SumsDpbusd<DpbusdEmulated>, kTokensAvx512>>(
          "q6_Kx8_q8_K dpbusd_emulated", x86::pack_q6_K_x8, x86::quantize_q8_K_sums16__avx2,
          x86::kPackedQ6KActBlockBytes);
    default:
      return {};
  }
}
#else
PackedMatmul dpbusd_emulated_packed(DType) {
  return {};
}
#endif

}  // namespace kz::testing
