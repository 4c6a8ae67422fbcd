// Tensor element types of the GGUF / ggml format: ids, block sizes and bytes per block for every
// id a file may carry (spec/gguf.md §8). What can be dequantized or quantized is in quant.h.
#pragma once

#include <cstdint>
#include <string_view>

namespace kz {

enum class DType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  IQ2_XXS = 16,
  IQ2_XS = 17,
  IQ3_XXS = 18,
  IQ1_S = 19,
  IQ4_NL = 20,
  IQ3_S = 21,
  IQ2_S = 22,
  IQ4_XS = 23,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  IQ1_M = 29,
  BF16 = 30,
  TQ1_0 = 34,
  TQ2_0 = 35,
  MXFP4 = 39,
  NVFP4 = 40,
  Q1_0 = 41,
  Q2_0 = 42,
};

constexpr uint32_t kDTypeCount = 43;  // first invalid id
constexpr int kQK_K = 256;            // super-block size of the K-quants

struct DTypeInfo {
  std::string_view name;  // "q4_0", "f16", ... (lower case, as users type it)
  int block_size;         // elements per block; 0 for removed ids
  int block_bytes;        // bytes per block
};

// nullptr for ids that are out of range or were removed from the format (4, 5, 31-33, 36-38).
const DTypeInfo* dtype_info(uint32_t id);
inline const DTypeInfo& info(DType t) {
  return *dtype_info(static_cast<uint32_t>(t));
}
inline std::string_view dtype_name(DType t) {
  return info(t).name;
}
// Case-insensitive lookup by name ("Q4_K", "q8_0"); returns false if unknown.
bool dtype_from_name(std::string_view name, DType* out);

// Bytes of a row of n elements; n must be a multiple of the block size.
inline uint64_t row_bytes(DType t, int64_t n) {
  const DTypeInfo& i = info(t);
  return static_cast<uint64_t>(n / i.block_size) * i.block_bytes;
}

}  // namespace kz
