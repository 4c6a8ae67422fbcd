// Shared pieces of the reference quantizers (spec/quants.md §5.1, §5.5, §5.6; ggml-quants.c).
// All arithmetic is f32 in the reference's order so the quantizers reproduce its bytes.
#pragma once

#include <bit>
#include <cstdint>

namespace kz::quant {

constexpr float kGroupMaxEps = 1e-15f;

// Round to nearest, ties to even; valid for |f| <= 4194303.
inline int nearest_int(float f) {
  const float v = f + 12582912.f;
  return (std::bit_cast<int32_t>(v) & 0x007fffff) - 0x00400000;
}

// Symmetric quants L[i] in 0..2*nmax-1 (offset nmax) with a least-squares scale; rmse_type 1
// weighs element i by x_i^2 (or qw[i] when given). Returns the scale (may be negative).
float make_qx_quants(int n, int nmax, const float* x, int8_t* L, int rmse_type, const float* qw);

// Symmetric 3-bit quants for Q3_K (L in 0..2*nmax-1), refined by coordinate descent.
float make_q3_quants(int n, int nmax, const float* x, int8_t* L, bool do_rmse);

// Asymmetric quants L[i] in 0..nmax: x ~ scale*L - the_min. Returns scale; *the_min >= 0.
float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L,
                       float* the_min, uint8_t* Laux, float rmin, float rdelta, int nstep,
                       bool use_mad);

// Index of the entry of the sorted table val[0..n) nearest to x (n a power of two; ties go up).
inline int best_index_int8(int n, const int8_t* val, float x) {
  const float x2 = x + x;
  int idx = 0;
  for (int step = n >> 1; step > 0; step >>= 1) {
    const int j = idx + step;
    idx = (x2 >= static_cast<float>(val[j - 1] + val[j])) ? j : idx;
  }
  return idx;
}

}  // namespace kz::quant
