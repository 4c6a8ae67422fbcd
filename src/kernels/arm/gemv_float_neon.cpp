// F32, F16 and BF16 gemv on ARMv8.0 Advanced SIMD, in the summation order of the reference
// implementation's AVX2 dot products (ggml-cpu/vec.cpp: ggml_vec_dot_f32 / _f16 on AVX2, which
// kernels/x86/gemv_float_avx2.cpp also follows), so ARM and x86 give the same bits: 4
// accumulators of 8 lanes (here 8 float32x4) over steps of 32 elements with fused multiply-add,
// reduced as (a0 + a2) + (a1 + a3), then the two halves and two pairwise adds; the n % 32 tail
// is added in double. fp16 is widened by FCVTL (base ARMv8; FEAT_FP16 is only needed for fp16
// arithmetic), bf16 by a 16-bit shift.
#include <arm_neon.h>

#include <cstring>

#include "kernels/arm/arm_kernels.h"
#include "kernels/arm/quant_dot.h"

namespace kz::arm {
namespace {

struct LoadF32 {
  using T = float;
  static void load8(const T* p, float32x4_t& lo, float32x4_t& hi) {
    lo = vld1q_f32(p);
    hi = vld1q_f32(p + 4);
  }
  static float one(T v) { return v; }
};
struct LoadF16 {
  using T = uint16_t;
  static void load8(const T* p, float32x4_t& lo, float32x4_t& hi) {
    const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(p));
    lo = vcvt_f32_f16(vget_low_f16(h));
    hi = vcvt_high_f32_f16(h);
  }
  static float one(T v) { return half_to_float(v); }
};
struct LoadBF16 {
  using T = uint16_t;
  static void load8(const T* p, float32x4_t& lo, float32x4_t& hi) {
    const uint16x8_t b = vld1q_u16(p);
    lo = vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(b), 16));
    hi = vreinterpretq_f32_u32(vshll_high_n_u16(b, 16));
  }
  static float one(T v) {
    const uint32_t bits = static_cast<uint32_t>(v) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
  }
};

template <class L>
float dot(const typename L::T* x, const typename L::T* y, int64_t n) {
  float32x4_t s[4][2];  // [accumulator][half]
  for (auto& acc : s) acc[0] = acc[1] = vdupq_n_f32(0);
  const int64_t np = n & ~int64_t{31};
  for (int64_t i = 0; i < np; i += 32)
    for (int j = 0; j < 4; ++j) {
      float32x4_t x0, x1, y0, y1;
      L::load8(x + i + 8 * j, x0, x1);
      L::load8(y + i + 8 * j, y0, y1);
      s[j][0] = vfmaq_f32(s[j][0], x0, y0);
      s[j][1] = vfmaq_f32(s[j][1], x1, y1);
    }
  for (int h = 0; h < 2; ++h) {
    s[0][h] = vaddq_f32(s[0][h], s[2][h]);
    s[1][h] = vaddq_f32(s[1][h], s[3][h]);
    s[0][h] = vaddq_f32(s[0][h], s[1][h]);
  }
  const float32x4_t t0 = vaddq_f32(s[0][0], s[0][1]);
  const float32x4_t t1 = vpaddq_f32(t0, t0);
  double sum = vpadds_f32(vget_low_f32(t1));
  for (int64_t i = np; i < n; ++i) sum += static_cast<double>(L::one(x[i]) * L::one(y[i]));
  return static_cast<float>(sum);
}

template <class L>
void gemv(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
          float* y) {
  const auto* a = static_cast<const typename L::T*>(act);
  for (int64_t r = 0; r < n_rows; ++r)
    y[r] = dot<L>(reinterpret_cast<const typename L::T*>(w + r * row_bytes), a, n);
}

}  // namespace

void gemv_f32_f32__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                        int64_t n, float* y) {
  gemv<LoadF32>(w, row_bytes, n_rows, act, n, y);
}
void gemv_f16_f16__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                        int64_t n, float* y) {
  gemv<LoadF16>(w, row_bytes, n_rows, act, n, y);
}
void gemv_bf16_bf16__neon(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
                          int64_t n, float* y) {
  gemv<LoadBF16>(w, row_bytes, n_rows, act, n, y);
}

}  // namespace kz::arm
