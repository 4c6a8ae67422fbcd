// Constants of the GGUF container shared by the reader and the writer (internal to gguf/).
// Values and their sources: ../shared/spec/gguf.md §1-§6.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gguf/gguf.h"

namespace kz::gguf {

constexpr uint8_t kMagic[4] = {'G', 'G', 'U', 'F'};
constexpr uint32_t kDefaultAlignment = 32;
constexpr uint64_t kMaxStringLength = uint64_t{1} << 30;   // GGUF_MAX_STRING_LENGTH
constexpr uint64_t kMaxArrayElements = uint64_t{1} << 30;  // GGUF_MAX_ARRAY_ELEMENTS
constexpr uint64_t kMaxNameLength = 63;                    // GGML_MAX_NAME - 1 (NUL)
constexpr uint32_t kMaxDims = 4;
// Nested arrays are our extension; the bound keeps a hostile file from exhausting the stack.
constexpr int kMaxArrayDepth = 8;
constexpr char kAlignmentKey[] = "general.alignment";

constexpr bool valid_value_type(uint32_t id) {
  return id <= static_cast<uint32_t>(ValueType::F64);
}

// Smallest encoding of one value of type t (a string or array may be longer). Used to bound
// element counts by the bytes left before anything is allocated.
constexpr uint64_t min_encoded_size(ValueType t) {
  switch (t) {
    case ValueType::U8:
    case ValueType::I8:
    case ValueType::BOOL:
      return 1;
    case ValueType::U16:
    case ValueType::I16:
      return 2;
    case ValueType::U32:
    case ValueType::I32:
    case ValueType::F32:
      return 4;
    case ValueType::U64:
    case ValueType::I64:
    case ValueType::F64:
      return 8;
    case ValueType::STRING:
      return 8;  // uint64 length
    case ValueType::ARRAY:
      return 12;  // int32 element type + uint64 count
  }
  return 1;
}

// GGML_PAD: x rounded up to a multiple of n (a power of two). Callers ensure no overflow.
constexpr uint64_t pad_to(uint64_t x, uint64_t n) {
  return (x + n - 1) & ~(n - 1);
}

constexpr bool is_power_of_two(uint32_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}

// A key or tensor name as it may appear in a one-line message: control bytes escaped as \xNN,
// long names cut, because names come from untrusted files.
std::string printable(std::string_view name);

}  // namespace kz::gguf
