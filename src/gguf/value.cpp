// Metadata values: type names, equality, array constructors and the typed getters of File.
// Getters are strict like llama.cpp's loader (spec/gguf.md §3): a key of another type is an error
// naming the key, its stored type and the expected one, never a silent conversion.
#include <limits>

#include "base/error.h"
#include "gguf/format.h"
#include "gguf/gguf.h"

namespace kz::gguf {

std::string_view type_name(ValueType t) {
  switch (t) {
    case ValueType::U8:
      return "u8";
    case ValueType::I8:
      return "i8";
    case ValueType::U16:
      return "u16";
    case ValueType::I16:
      return "i16";
    case ValueType::U32:
      return "u32";
    case ValueType::I32:
      return "i32";
    case ValueType::F32:
      return "f32";
    case ValueType::BOOL:
      return "bool";
    case ValueType::STRING:
      return "str";
    case ValueType::ARRAY:
      return "arr";
    case ValueType::U64:
      return "u64";
    case ValueType::I64:
      return "i64";
    case ValueType::F64:
      return "f64";
  }
  return "?";
}

bool operator==(const Array& a, const Array& b) {
  return a.elem_type == b.elem_type && a.items == b.items;
}
bool operator==(const Value& a, const Value& b) {
  return a.v == b.v;
}

std::string printable(std::string_view name) {
  constexpr size_t kMaxShown = 96;
  std::string out;
  for (size_t i = 0; i < name.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7f || c == '\\') {
      const char* digits = "0123456789abcdef";
      out += {'\\', 'x', digits[c >> 4], digits[c & 15]};
    } else {
      out += static_cast<char>(c);
    }
  }
  if (name.size() > kMaxShown) out += "...";
  return out;
}

Value string_array(const std::vector<std::string>& items) {
  Array a{ValueType::STRING, {}};
  a.items.reserve(items.size());
  for (const std::string& s : items) a.items.push_back(Value{s});
  return Value{std::move(a)};
}

Value i32_array(const std::vector<int32_t>& items) {
  Array a{ValueType::I32, {}};
  a.items.reserve(items.size());
  for (int32_t x : items) a.items.push_back(Value{x});
  return Value{std::move(a)};
}

Value f32_array(const std::vector<float>& items) {
  Array a{ValueType::F32, {}};
  a.items.reserve(items.size());
  for (float x : items) a.items.push_back(Value{x});
  return Value{std::move(a)};
}

namespace {

// The value of `key` if it has type `expected`; nullptr if absent; throws on another type.
const Value* typed(const File& f, std::string_view key, ValueType expected) {
  const Value* v = f.find(key);
  if (v && v->type() != expected) {
    fail(f.path(), ": key '", printable(key), "' has type ", type_name(v->type()), ", expected ",
         type_name(expected));
  }
  return v;
}

const Value& required(const File& f, std::string_view key, ValueType expected) {
  const Value* v = typed(f, key, expected);
  if (!v) fail(f.path(), ": key '", printable(key), "' not found");
  return *v;
}

const Array& required_array(const File& f, std::string_view key, ValueType elem,
                            std::string_view expected) {
  const Array& a = std::get<Array>(required(f, key, ValueType::ARRAY).v);
  if (a.elem_type != elem) {
    fail(f.path(), ": key '", printable(key), "' is an array of ", type_name(a.elem_type),
         ", expected an array of ", expected);
  }
  return a;
}

}  // namespace

std::string File::get_string(std::string_view key) const {
  return std::get<std::string>(required(*this, key, ValueType::STRING).v);
}
uint32_t File::get_u32(std::string_view key) const {
  return std::get<uint32_t>(required(*this, key, ValueType::U32).v);
}
float File::get_f32(std::string_view key) const {
  return std::get<float>(required(*this, key, ValueType::F32).v);
}
bool File::get_bool(std::string_view key) const {
  return std::get<bool>(required(*this, key, ValueType::BOOL).v);
}

std::optional<std::string> File::opt_string(std::string_view key) const {
  const Value* v = typed(*this, key, ValueType::STRING);
  if (!v) return std::nullopt;
  return std::get<std::string>(v->v);
}
std::optional<uint32_t> File::opt_u32(std::string_view key) const {
  const Value* v = typed(*this, key, ValueType::U32);
  if (!v) return std::nullopt;
  return std::get<uint32_t>(v->v);
}
std::optional<float> File::opt_f32(std::string_view key) const {
  const Value* v = typed(*this, key, ValueType::F32);
  if (!v) return std::nullopt;
  return std::get<float>(v->v);
}
std::optional<bool> File::opt_bool(std::string_view key) const {
  const Value* v = typed(*this, key, ValueType::BOOL);
  if (!v) return std::nullopt;
  return std::get<bool>(v->v);
}

std::vector<std::string> File::get_string_array(std::string_view key) const {
  const Array& a = required_array(*this, key, ValueType::STRING, "str");
  std::vector<std::string> out;
  out.reserve(a.items.size());
  for (const Value& x : a.items) out.push_back(std::get<std::string>(x.v));
  return out;
}

std::vector<float> File::get_f32_array(std::string_view key) const {
  const Array& a = required_array(*this, key, ValueType::F32, "f32");
  std::vector<float> out;
  out.reserve(a.items.size());
  for (const Value& x : a.items) out.push_back(std::get<float>(x.v));
  return out;
}

// llama.cpp reads integer arrays stored as i32, u32 or bool; the other integer widths are
// accepted too since they convert exactly (u64 values above INT64_MAX are refused).
std::vector<int64_t> File::get_int_array(std::string_view key) const {
  const Array& a = std::get<Array>(required(*this, key, ValueType::ARRAY).v);
  switch (a.elem_type) {
    case ValueType::F32:
    case ValueType::F64:
    case ValueType::STRING:
    case ValueType::ARRAY:
      fail(path(), ": key '", printable(key), "' is an array of ", type_name(a.elem_type),
           ", expected an array of integers");
    default:
      break;
  }
  std::vector<int64_t> out;
  out.reserve(a.items.size());
  for (size_t i = 0; i < a.items.size(); ++i) {
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_integral_v<T>) {
            if constexpr (std::is_same_v<T, uint64_t>) {
              if (x > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
                fail(path(), ": key '", printable(key), "' element ", i, " = ", x,
                     " does not fit in int64");
              }
            }
            out.push_back(static_cast<int64_t>(x));
          }
        },
        a.items[i].v);
  }
  return out;
}

}  // namespace kz::gguf
