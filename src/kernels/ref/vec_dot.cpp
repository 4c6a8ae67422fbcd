// Dispatch (vec_dot_type, quantize_activation, vec_dot) and the dot products of the float formats
// and the 32-element block formats (ggml-cpu/quants.c: ggml_vec_dot_*_generic).
#include "kernels/ref/vec_dot.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/error.h"
#include "base/half.h"
#include "quant/blocks.h"
#include "quant/quant.h"

// Bit-exactness needs each f32 product rounded on its own: no fused multiply-add contraction
// (GCC does not contract in ISO C++ mode; clang does unless told not to).
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace kz::ref {
namespace {

// Float formats: products in f32, accumulated in 8 f32 lanes (as the SIMD kernels do) and summed
// at the end.
template <class Load>
float dot_lanes(int64_t n, Load load) {
  float lanes[8] = {};
  for (int64_t i = 0; i < n; ++i) lanes[i % 8] += load(i);
  float sum = 0;
  for (float l : lanes) sum += l;
  return sum;
}

uint32_t load_qh(const uint8_t* qh) {
  uint32_t v;
  std::memcpy(&v, qh, sizeof(v));
  return v;
}

int q5_value(const uint8_t* qs, uint32_t qh, int j) {
  const int low = j < 16 ? qs[j] & 0xF : qs[j - 16] >> 4;
  return low | static_cast<int>(((qh >> j) & 1) << 4);
}

}  // namespace

DType vec_dot_type(DType weight) {
  switch (weight) {
    case DType::F32:
    case DType::F16:
    case DType::BF16:
      return weight;
    case DType::Q4_0:
    case DType::Q5_0:
    case DType::Q8_0:
    case DType::IQ4_NL:
      return DType::Q8_0;
    case DType::Q4_1:
    case DType::Q5_1:
      return DType::Q8_1;
    case DType::Q2_K:
    case DType::Q3_K:
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K:
    case DType::IQ4_XS:
      return DType::Q8_K;
    default:
      break;
  }
  const DTypeInfo* i = dtype_info(static_cast<uint32_t>(weight));
  fail("vec_dot: no dot product for weight type ",
       i ? std::string(i->name) : cat("id ", static_cast<uint32_t>(weight)));
}

// Q8_0 activations as the reference's x86 kernel rounds them (ggml-cpu/arch/x86/quants.c:
// quantize_row_q8_0): id = 127/amax and round-half-to-even, which differs from the scalar
// quantizer (id = 1/d, round-half-away) in the last bit of x*id; the fixtures were made on x86.
static void quantize_activation_q8_0(const float* x, void* dst, int64_t n) {
  auto* blocks = static_cast<BlockQ8_0*>(dst);
  for (int64_t b = 0; b < n / 32; ++b) {
    const float* xb = x + b * 32;
    float amax = 0.0f;
    for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(xb[i]));
    blocks[b].d = fp32_to_fp16(amax / 127.0f);
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    for (int i = 0; i < 32; ++i) blocks[b].qs[i] = static_cast<int8_t>(std::nearbyint(xb[i] * id));
  }
}

void quantize_activation(DType act_type, const float* x, void* dst, int64_t n) {
  const int bs = info(act_type).block_size;
  if (n % bs) fail("quantize_activation: length ", n, " is not a multiple of ", bs);
  activation_quantizer(act_type)(x, dst, n);
}

namespace {

template <DotFn F>
void gemv_rows(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
               float* y) {
  for (int64_t r = 0; r < n_rows; ++r) y[r] = F(w + r * row_bytes, act, n);
}

template <DType T>
void quantize_as(const float* x, void* dst, int64_t n) {
  quantize_row(T, x, dst, n);
}

struct RefKernel {
  DType weight;
  DotFn dot;
  GemvFn gemv;
};

template <DotFn F>
constexpr RefKernel entry(DType t) {
  return {t, F, gemv_rows<F>};
}

constexpr RefKernel kRefKernels[] = {
    entry<vec_dot_f32_f32>(DType::F32),        entry<vec_dot_f16_f16>(DType::F16),
    entry<vec_dot_bf16_bf16>(DType::BF16),     entry<vec_dot_q4_0_q8_0>(DType::Q4_0),
    entry<vec_dot_q4_1_q8_1>(DType::Q4_1),     entry<vec_dot_q5_0_q8_0>(DType::Q5_0),
    entry<vec_dot_q5_1_q8_1>(DType::Q5_1),     entry<vec_dot_q8_0_q8_0>(DType::Q8_0),
    entry<vec_dot_iq4_nl_q8_0>(DType::IQ4_NL), entry<vec_dot_q2_K_q8_K>(DType::Q2_K),
    entry<vec_dot_q3_K_q8_K>(DType::Q3_K),     entry<vec_dot_q4_K_q8_K>(DType::Q4_K),
    entry<vec_dot_q5_K_q8_K>(DType::Q5_K),     entry<vec_dot_q6_K_q8_K>(DType::Q6_K),
    entry<vec_dot_iq4_xs_q8_K>(DType::IQ4_XS),
};

const RefKernel* find_kernel(DType weight) {
  for (const auto& k : kRefKernels)
    if (k.weight == weight) return &k;
  return nullptr;
}

}  // namespace

bool has_vec_dot(DType weight) {
  return find_kernel(weight) != nullptr;
}

GemvFn gemv_function(DType weight) {
  const RefKernel* k = find_kernel(weight);
  if (!k) vec_dot_type(weight);  // throws, naming the type
  return k->gemv;
}

QuantizeFn activation_quantizer(DType act_type) {
  switch (act_type) {
    case DType::Q8_0:
      return quantize_activation_q8_0;
    case DType::F32:
      return quantize_as<DType::F32>;
    case DType::F16:
      return quantize_as<DType::F16>;
    case DType::BF16:
      return quantize_as<DType::BF16>;
    case DType::Q8_1:
      return quantize_as<DType::Q8_1>;
    case DType::Q8_K:
      return quantize_as<DType::Q8_K>;
    default:
      fail("quantize_activation: ", dtype_name(act_type), " is not an activation format");
  }
}

float vec_dot(DType weight, const void* w, const void* a, int64_t n) {
  const RefKernel* k = find_kernel(weight);
  if (!k) vec_dot_type(weight);  // throws, naming the type
  const int bs = info(weight).block_size;
  if (n < 0 || n % bs != 0)
    fail("vec_dot: row of ", n, " elements is not a multiple of the ", dtype_name(weight),
         " block size ", bs);
  return k->dot(w, a, n);
}

float vec_dot_f32_f32(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const float*>(w);
  const auto* y = static_cast<const float*>(a);
  return dot_lanes(n, [&](int64_t i) { return x[i] * y[i]; });
}

float vec_dot_f16_f16(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const uint16_t*>(w);
  const auto* y = static_cast<const uint16_t*>(a);
  return dot_lanes(n, [&](int64_t i) { return fp16_to_fp32(x[i]) * fp16_to_fp32(y[i]); });
}

float vec_dot_bf16_bf16(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const uint16_t*>(w);
  const auto* y = static_cast<const uint16_t*>(a);
  return dot_lanes(n, [&](int64_t i) { return bf16_to_fp32(x[i]) * bf16_to_fp32(y[i]); });
}

float vec_dot_q4_0_q8_0(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockQ4_0*>(w);
  const auto* y = static_cast<const BlockQ8_0*>(a);
  float sumf = 0;
  for (int64_t ib = 0; ib < n / kQK; ++ib) {
    int sumi0 = 0, sumi1 = 0;
    for (int j = 0; j < 16; ++j) {
      sumi0 += ((x[ib].qs[j] & 0xF) - 8) * y[ib].qs[j];
      sumi1 += ((x[ib].qs[j] >> 4) - 8) * y[ib].qs[j + 16];
    }
    sumf += static_cast<float>(sumi0 + sumi1) * fp16_to_fp32(x[ib].d) * fp16_to_fp32(y[ib].d);
  }
  return sumf;
}

float vec_dot_q4_1_q8_1(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockQ4_1*>(w);
  const auto* y = static_cast<const BlockQ8_1*>(a);
  float sumf = 0;
  for (int64_t ib = 0; ib < n / kQK; ++ib) {
    int sumi0 = 0, sumi1 = 0;
    for (int j = 0; j < 16; ++j) {
      sumi0 += (x[ib].qs[j] & 0xF) * y[ib].qs[j];
      sumi1 += (x[ib].qs[j] >> 4) * y[ib].qs[j + 16];
    }
    // The min term uses the activation block sum s = d_a * sum(q_a).
    sumf += (fp16_to_fp32(x[ib].d) * fp16_to_fp32(y[ib].d)) * static_cast<float>(sumi0 + sumi1) +
            fp16_to_fp32(x[ib].m) * fp16_to_fp32(y[ib].s);
  }
  return sumf;
}

float vec_dot_q5_0_q8_0(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockQ5_0*>(w);
  const auto* y = static_cast<const BlockQ8_0*>(a);
  float sumf = 0;
  for (int64_t ib = 0; ib < n / kQK; ++ib) {
    const uint32_t qh = load_qh(x[ib].qh);
    int sumi = 0;
    for (int j = 0; j < kQK; ++j) sumi += (q5_value(x[ib].qs, qh, j) - 16) * y[ib].qs[j];
    sumf += (fp16_to_fp32(x[ib].d) * fp16_to_fp32(y[ib].d)) * static_cast<float>(sumi);
  }
  return sumf;
}

float vec_dot_q5_1_q8_1(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockQ5_1*>(w);
  const auto* y = static_cast<const BlockQ8_1*>(a);
  float sumf = 0;
  for (int64_t ib = 0; ib < n / kQK; ++ib) {
    const uint32_t qh = load_qh(x[ib].qh);
    int sumi = 0;
    for (int j = 0; j < kQK; ++j) sumi += q5_value(x[ib].qs, qh, j) * y[ib].qs[j];
    sumf += (fp16_to_fp32(x[ib].d) * fp16_to_fp32(y[ib].d)) * static_cast<float>(sumi) +
            fp16_to_fp32(x[ib].m) * fp16_to_fp32(y[ib].s);
  }
  return sumf;
}

float vec_dot_q8_0_q8_0(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockQ8_0*>(w);
  const auto* y = static_cast<const BlockQ8_0*>(a);
  float sumf = 0;
  for (int64_t ib = 0; ib < n / kQK; ++ib) {
    int sumi = 0;
    for (int j = 0; j < kQK; ++j) sumi += x[ib].qs[j] * y[ib].qs[j];
    sumf += static_cast<float>(sumi) * (fp16_to_fp32(x[ib].d) * fp16_to_fp32(y[ib].d));
  }
  return sumf;
}

float vec_dot_iq4_nl_q8_0(const void* w, const void* a, int64_t n) {
  const auto* x = static_cast<const BlockIQ4NL*>(w);
  const auto* y = static_cast<const BlockQ8_0*>(a);
  float sumf = 0;
  for (int64_t ib = 0; ib < n / kQK; ++ib) {
    const float d = fp16_to_fp32(y[ib].d) * fp16_to_fp32(x[ib].d);
    int sumi1 = 0, sumi2 = 0;
    for (int j = 0; j < 16; ++j) {
      sumi1 += y[ib].qs[j] * kIQ4NLValues[x[ib].qs[j] & 0xF];
      sumi2 += y[ib].qs[j + 16] * kIQ4NLValues[x[ib].qs[j] >> 4];
    }
    sumf += d * static_cast<float>(sumi1 + sumi2);
  }
  return sumf;
}

}  // namespace kz::ref
