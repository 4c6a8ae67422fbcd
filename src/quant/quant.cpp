// Dispatch of dequantize_row / quantize_row by DType (quant.h) to the per-format converters.
#include "quant/quant.h"

#include <array>

#include "base/error.h"
#include "quant/formats.h"

namespace kz {
namespace {

using DequantFn = void (*)(const void*, float*, int64_t);
using QuantFn = void (*)(const float*, void*, int64_t);

struct Converters {
  DequantFn dequantize = nullptr;
  QuantFn quantize = nullptr;
};

constexpr std::array<Converters, kDTypeCount> kConverters = [] {
  std::array<Converters, kDTypeCount> t{};
  auto set = [&](DType id, DequantFn dq, QuantFn q) { t[static_cast<uint32_t>(id)] = {dq, q}; };
  using namespace quant;
  set(DType::F32, dequantize_f32, quantize_f32);
  set(DType::F16, dequantize_f16, quantize_f16);
  set(DType::BF16, dequantize_bf16, quantize_bf16);
  set(DType::Q4_0, dequantize_q4_0, quantize_q4_0);
  set(DType::Q4_1, dequantize_q4_1, quantize_q4_1);
  set(DType::Q5_0, dequantize_q5_0, quantize_q5_0);
  set(DType::Q5_1, dequantize_q5_1, quantize_q5_1);
  set(DType::Q8_0, dequantize_q8_0, quantize_q8_0);
  set(DType::Q8_1, dequantize_q8_1, quantize_q8_1);
  set(DType::Q2_K, dequantize_q2_K, quantize_q2_K);
  set(DType::Q3_K, dequantize_q3_K, quantize_q3_K);
  set(DType::Q4_K, dequantize_q4_K, quantize_q4_K);
  set(DType::Q5_K, dequantize_q5_K, quantize_q5_K);
  set(DType::Q6_K, dequantize_q6_K, quantize_q6_K);
  set(DType::Q8_K, dequantize_q8_K, quantize_q8_K);
  set(DType::IQ4_NL, dequantize_iq4_nl, quantize_iq4_nl);
  set(DType::IQ4_XS, dequantize_iq4_xs, quantize_iq4_xs);
  return t;
}();

const Converters* converters(DType t) {
  const auto id = static_cast<uint32_t>(t);
  return id < kDTypeCount ? &kConverters[id] : nullptr;
}

std::string type_label(DType t) {
  const DTypeInfo* i = dtype_info(static_cast<uint32_t>(t));
  return i ? std::string(i->name) : cat("type id ", static_cast<uint32_t>(t));
}

void check_row(DType t, int64_t n, const char* what) {
  const int bs = info(t).block_size;
  if (n < 0 || n % bs != 0)
    fail(what, ": row of ", n, " elements is not a multiple of the ", type_label(t), " block size ",
         bs);
}

}  // namespace

bool can_dequantize(DType t) {
  const Converters* c = converters(t);
  return c && c->dequantize;
}

bool can_quantize(DType t) {
  const Converters* c = converters(t);
  return c && c->quantize;
}

void dequantize_row(DType t, const void* src, float* dst, int64_t n) {
  if (!can_dequantize(t)) fail("dequantize_row: unsupported type ", type_label(t));
  check_row(t, n, "dequantize_row");
  converters(t)->dequantize(src, dst, n);
}

void quantize_row(DType t, const float* src, void* dst, int64_t n) {
  if (!can_quantize(t)) fail("quantize_row: unsupported type ", type_label(t));
  check_row(t, n, "quantize_row");
  converters(t)->quantize(src, dst, n);
}

}  // namespace kz
