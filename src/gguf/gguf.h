// GGUF container: strict reader over a memory-mapped file (tensor data is never copied) and a
// writer. Knows nothing of models. Layout and validation rules: ../shared/spec/gguf.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/mapped_file.h"
#include "quant/types.h"

namespace kz::gguf {

enum class ValueType : uint32_t {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
};
std::string_view type_name(ValueType t);  // "u32", "str", "arr", ...

struct Value;
// An array keeps its element type (needed for empty arrays and for writing). Nested arrays
// (elements of type ARRAY) are read and written, though llama.cpp itself rejects them.
struct Array {
  ValueType elem_type = ValueType::U8;
  std::vector<Value> items;
};

struct Value {
  std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool, std::string,
               Array, uint64_t, int64_t, double>
      v;
  // The alternatives are in ValueType order, so the type is the variant index.
  ValueType type() const { return static_cast<ValueType>(v.index()); }
};
// Deep equality (same type and value; arrays: same element type and items).
bool operator==(const Array& a, const Array& b);
bool operator==(const Value& a, const Value& b);

struct KeyValue {
  std::string key;
  Value value;
};

struct TensorInfo {
  std::string name;
  DType type = DType::F32;
  uint32_t n_dims = 0;
  int64_t ne[4] = {1, 1, 1, 1};  // ne[0] is contiguous
  uint64_t offset = 0;           // relative to the data section
  uint64_t nbytes = 0;
  const uint8_t* data = nullptr;  // points into the mapping; valid while the File lives

  int64_t n_elements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
};

class File {
 public:
  // Maps and validates `path`; throws kz::Error("<path>: <what is wrong>") on any defect.
  static File open(const std::string& path);
  // Validates an in-memory image (for tests and fuzzing); `bytes` must outlive the File.
  static File parse(std::span<const uint8_t> bytes, const std::string& name);

  const std::string& path() const { return path_; }
  uint32_t version() const { return version_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }
  uint64_t file_size() const { return bytes_.size(); }
  std::span<const uint8_t> bytes() const { return bytes_; }  // the whole image (mapped)

  const std::vector<KeyValue>& metadata() const { return kvs_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const Value* find(std::string_view key) const;               // nullptr if absent
  const TensorInfo* find_tensor(std::string_view name) const;  // nullptr if absent

  // Typed access, strict like llama.cpp: a key of another type is an error naming the key, its
  // type and the expected type. get_* throw if absent; the optional variants return nullopt.
  std::string get_string(std::string_view key) const;
  uint32_t get_u32(std::string_view key) const;
  float get_f32(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  std::optional<std::string> opt_string(std::string_view key) const;
  std::optional<uint32_t> opt_u32(std::string_view key) const;
  std::optional<float> opt_f32(std::string_view key) const;
  std::optional<bool> opt_bool(std::string_view key) const;
  // Arrays: string elements; integer elements (i32, u32 or bool, as llama.cpp accepts); floats.
  std::vector<std::string> get_string_array(std::string_view key) const;
  std::vector<int64_t> get_int_array(std::string_view key) const;
  std::vector<float> get_f32_array(std::string_view key) const;

 private:
  File() = default;
  std::string path_;
  std::shared_ptr<MappedFile> mapping_;  // null for parse()
  std::span<const uint8_t> bytes_;
  uint32_t version_ = 3;
  uint32_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  std::vector<KeyValue> kvs_;
  std::vector<TensorInfo> tensors_;
};

// Builds a GGUF file. Tensors are laid out in insertion order, each padded to the alignment.
class Writer {
 public:
  explicit Writer(uint32_t version = 3) : version_(version) {}
  void set(std::string key, Value value);  // replaces an existing key of the same name
  // `data` must hold exactly row_bytes(type, ne[0]) * ne[1] * ne[2] * ne[3] bytes. n_dims is
  // ne.size(), as given (llama.cpp drops trailing 1s; pass the shape that way to match it).
  void add_tensor(std::string name, DType type, std::vector<int64_t> ne, std::vector<uint8_t> data);
  std::vector<uint8_t> to_bytes() const;
  void write(const std::string& path) const;  // throws kz::Error naming the path on failure

 private:
  uint32_t version_;
  std::vector<KeyValue> kvs_;
  struct PendingTensor {
    std::string name;
    DType type;
    std::vector<int64_t> ne;
    std::vector<uint8_t> data;
  };
  std::vector<PendingTensor> tensors_;
};

// Convenience constructors for metadata values.
inline Value val(uint32_t x) {
  return Value{x};
}
inline Value val(int32_t x) {
  return Value{x};
}
inline Value val(float x) {
  return Value{x};
}
inline Value val(bool x) {
  return Value{x};
}
inline Value val(std::string x) {
  return Value{std::move(x)};
}
inline Value val(const char* x) {
  return Value{std::string(x)};
}
Value string_array(const std::vector<std::string>& items);
Value i32_array(const std::vector<int32_t>& items);
Value f32_array(const std::vector<float>& items);

}  // namespace kz::gguf
